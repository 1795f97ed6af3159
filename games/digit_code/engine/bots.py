"""Computer opponents: a bot decides from a player's view only, never from the hidden code.

    action = choose(player_view(game, seat), seed=s, level="strong")
    game.apply(action)   # the server: through the same write path as a person's move

Both levels keep the set of codes consistent with every public answer and every wrong guess
(465,120 at the start; `consistent.Tables`, bit sets over all codes).

* `easy` asks a random question not yet asked (drawn from the bot's seed, the seat and the
  turn) and guesses only when the code is known: one consistent code left.
* `strong` plays the race. With one code left it guesses it. With at most `EXACT_LIMIT` codes
  left it solves the rest of the game exactly (`_Endgame`), under the model that every player
  still in plays to maximise their own chance of winning, as this bot does: the actions are a
  guess of each consistent code (right with probability 1/n; a wrong one costs a life, and the
  second wrong guess eliminates), a question that splits the codes (each answer with its
  probability), and a question that splits nothing (a pass: it tells nobody anything, but
  hands the turn on). That weighs guessing early at 1/n against the risk of elimination, and
  against what each question hands the next player: a question that leaves a single code
  gives the next player a sure win. Ties go to a pass, then to a question, then to a guess,
  which leaves weaker opponents the chance to help. With more codes left it asks the question
  whose answer partition has the most expected entropy, among those that least risk leaving
  the next player `EXACT_LIMIT` codes or fewer (weighted by the chance a guess of theirs is
  right); it never guesses there (a guess is right with less than 1/`EXACT_LIMIT` chance and
  costs one of two lives).

Contract of `choose`: it reads the view and nothing else (a full view, with the secrets, is
refused); the same view, seed and level give the same action on any machine; the action is
legal in the game the view was taken from. Think time: bench/digit_code_bots.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from games.engine.rng import Rng

from .actions import Ask, Guess, PlayerAction
from .codes import Code
from .consistent import code_at, members, tables
from .questions import QUESTIONS, Answer, decode_question
from .seed import RNG_NAMESPACE

LEVELS = ("easy", "strong")
#: Codes left at or below which the strong level solves the game exactly.
EXACT_LIMIT = 6
#: States the exact solver may visit before the strong level falls back on its heuristic.
NODE_BUDGET = 2_000
LIVES = 2  # G3: the second wrong guess eliminates


class Public:
    """What a seat's view says, read for a bot."""

    def __init__(self, view: dict[str, object]):
        if "secret" in view:
            raise ValueError("a bot decides from a player's view, not from the full view")
        seat, active = view.get("you"), view.get("active_seat")
        if type(seat) is not int or seat != active:
            raise ValueError("a bot chooses only for the seat to play, from that seat's view")
        self.seat: int = seat
        turn = view.get("turn")
        self.turn: int = turn if type(turn) is int else 0
        self.answers: list[tuple[int, Answer]] = []
        asked: set[int] = set()
        for entry in _list(view.get("questions")):
            question = decode_question(entry.get("question"))
            answer = entry.get("answer")
            if isinstance(question, str) or not isinstance(answer, int | str):
                raise ValueError("the view's questions are not Digit Code questions")
            index = QUESTIONS.index(question)
            asked.add(index)
            self.answers.append((index, answer))
        self.unasked: list[int] = [i for i in range(len(QUESTIONS)) if i not in asked]
        self.wrong: list[tuple[int, ...]] = []
        for entry in _list(view.get("guesses")):
            code = entry.get("code")
            if entry.get("correct") is False and isinstance(code, list):
                self.wrong.append(tuple(int(d) for d in code))
        self.lives: list[int] = []
        for entry in _list(view.get("seats")):
            wrong = entry.get("wrong_guesses")
            out = entry.get("eliminated") is True
            self.lives.append(0 if out else LIVES - (wrong if type(wrong) is int else 0))


def _list(value: object) -> list[dict[str, object]]:
    if not isinstance(value, list):
        raise ValueError("not a Digit Code player view")
    return [entry for entry in value if isinstance(entry, dict)]


def choose(view: dict[str, object], seed: int, level: str = "strong") -> PlayerAction:
    """The bot's next action for the seat the view belongs to (see the module's contract)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    public = Public(view)
    seat = public.seat
    found = tables().consistent(public.answers, public.wrong)
    left = found.bit_count()
    if left == 1 or not public.unasked:  # the code is known (all 64 answers fix it)
        return Guess(seat, code_at(next(members(found))))
    if level == "easy":
        rng = Rng(seed, f"bot/easy/{seat}/{public.turn}", namespace=RNG_NAMESPACE)
        return Ask(seat, QUESTIONS[rng.choice(public.unasked)])
    if sum(1 for lives in public.lives if lives > 0) == 1:  # alone (G4): no race left
        return Ask(seat, QUESTIONS[_most_informative(found, public.unasked)])
    if left <= EXACT_LIMIT:
        try:
            return _Endgame(found, public).best()
        except _OverBudget:
            pass
    return Ask(seat, QUESTIONS[_most_informative(found, public.unasked)])


def _most_informative(found: int, unasked: Sequence[int]) -> int:
    """The question with the most expected entropy among those that least risk handing the
    next player a small set (the chance that a guess of theirs is right, over the answers that
    leave `EXACT_LIMIT` codes or fewer)."""
    table = tables()
    total = found.bit_count()
    best: tuple[float, float] | None = None
    chosen = unasked[0]
    for index in unasked:
        sizes = [size for size in table.partition(found, index) if size]
        risk = sum(1 for size in sizes if size <= EXACT_LIMIT) / total
        entropy = -sum(size / total * math.log2(size / total) for size in sizes)
        score = (risk, -entropy)
        if best is None or score < best:
            best, chosen = score, index
    return chosen


class _OverBudget(Exception):
    pass


Partition = tuple[int, ...]  # the parts of a set of codes (bit sets over the local codes)
Splits = tuple[tuple[Partition, int], ...]  # distinct partitions, each with its question count
Values = tuple[float, ...]  # each seat's chance of winning
Action = tuple[str, int]  # ("pass", 0), ("ask", position in the splits), ("guess", code bit)


class _Endgame:
    """The rest of the game, solved exactly over the few codes left (see the module's doc).

    A state is (codes left, the partitions of those codes by the questions still to ask that
    split them, how many questions split nothing, the seat to play, each seat's lives). A
    question's partition of the codes left fixes its partition of every subset, so questions
    need no names inside the search, and questions with the same partition are counted
    together. Passes beyond `2 · players` count only by their number modulo the players (a
    round of passes gives the same seat the turn again with nothing changed)."""

    def __init__(self, found: int, public: Public):
        self.public = public
        self.ranks = list(members(found))
        self.codes: list[Code] = [code_at(rank) for rank in self.ranks]
        self.question_partition: dict[int, Partition] = {}
        for index in public.unasked:
            question = QUESTIONS[index]
            groups: dict[Answer, int] = {}
            for local, code in enumerate(self.codes):
                answer = question.answer(code)
                groups[answer] = groups.get(answer, 0) | 1 << local
            self.question_partition[index] = tuple(sorted(groups.values()))
        self.memo: dict[tuple[object, ...], Values] = {}
        self.nodes = 0
        self.players = len(public.lives)

    def best(self) -> PlayerAction:
        public = self.public
        seat = public.seat
        everything = (1 << len(self.codes)) - 1
        splits, passes = _restrict(((p, 1) for p in self.question_partition.values()), everything)
        kind, detail = self._choose(everything, splits, passes, seat, tuple(public.lives))
        if kind == "pass":
            index = next(i for i, p in self.question_partition.items() if len(p) == 1)
            return Ask(seat, QUESTIONS[index])
        if kind == "ask":
            partition = splits[detail][0]
            index = min(i for i, p in self.question_partition.items() if p == partition)
            return Ask(seat, QUESTIONS[index])
        return Guess(seat, self.codes[detail.bit_length() - 1])

    # ------------------------------------------------------------------ the search

    def _next(self, seat: int, lives: tuple[int, ...]) -> int | None:
        for step in range(1, self.players + 1):
            following = (seat + step) % self.players
            if lives[following] > 0:
                return following
        return None

    def _win(self, seat: int) -> Values:
        return tuple(1.0 if s == seat else 0.0 for s in range(self.players))

    def _options(
        self, left: int, splits: Splits, passes: int, seat: int, lives: tuple[int, ...]
    ) -> list[tuple[Action, list[tuple[float, Values]]]]:
        """Every action of the seat to play, in the order ties are broken, each with its
        outcomes (probability, values)."""
        following = self._next(seat, lives)
        assert following is not None  # the seat to play is in
        size = left.bit_count()
        options: list[tuple[Action, list[tuple[float, Values]]]] = []
        if passes:
            kept = self._value(left, splits, passes - 1, following, lives)
            options.append((("pass", 0), [(1.0, kept)]))
        for position, (partition, count) in enumerate(splits):
            rest = [*splits[:position], *splits[position + 1 :]]
            outcomes = []
            for part in partition:
                sub, sub_passes = _restrict(rest, part)
                # the other questions of this partition split no part any more
                value = self._value(part, sub, passes + sub_passes + count - 1, following, lives)
                outcomes.append((part.bit_count() / size, value))
            options.append((("ask", position), outcomes))
        for code in members(left):
            bit = 1 << code
            spent = list(lives)
            spent[seat] -= 1
            after = tuple(spent)
            rest_codes = left & ~bit
            following_after = self._next(seat, after)
            if following_after is None:
                wrong: Values = tuple(0.0 for _ in range(self.players))
            else:
                sub, sub_passes = _restrict(splits, rest_codes)
                wrong = self._value(rest_codes, sub, passes + sub_passes, following_after, after)
            options.append((("guess", bit), [(1 / size, self._win(seat)), (1 - 1 / size, wrong)]))
        return options

    def _choose(
        self, left: int, splits: Splits, passes: int, seat: int, lives: tuple[int, ...]
    ) -> Action:
        best_value = -1.0
        best: Action = ("pass", 0)
        for action, outcomes in self._options(left, splits, passes, seat, lives):
            mine = sum(p * values[seat] for p, values in outcomes)
            if mine > best_value + 1e-9:
                best_value, best = mine, action
        return best

    def _value(
        self, left: int, splits: Splits, passes: int, seat: int, lives: tuple[int, ...]
    ) -> Values:
        if left & (left - 1) == 0:  # one code left: the seat to play names it
            return self._win(seat)
        if sum(1 for n in lives if n > 0) == 1:  # alone: it asks until it knows (G4)
            return self._win(seat)
        cap = 2 * self.players
        if passes >= cap + self.players:
            passes = cap + (passes - cap) % self.players
        key = (left, splits, passes, seat, lives)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > NODE_BUDGET:
            raise _OverBudget
        best_value = -1.0
        best: Values = ()
        for _, outcomes in self._options(left, splits, passes, seat, lives):
            values = tuple(sum(p * v[s] for p, v in outcomes) for s in range(self.players))
            if values[seat] > best_value + 1e-9:
                best_value, best = values[seat], values
        self.memo[key] = best
        return best


def _restrict(splits: Iterable[tuple[Partition, int]], left: int) -> tuple[Splits, int]:
    """The partitions restricted to the codes `left`: those that still split them (distinct,
    sorted, with their counts), and how many questions split them no more (now passes)."""
    kept: dict[Partition, int] = {}
    passes = 0
    for partition, count in splits:
        parts = tuple(sorted(part & left for part in partition if part & left))
        if len(parts) > 1:
            kept[parts] = kept.get(parts, 0) + count
        else:
            passes += count
    return tuple(sorted(kept.items())), passes
