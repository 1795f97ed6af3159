"""The rules of Digit Code (RULES-digit-code.md) as a state machine.

`new_game` sets a game up (B6) and starts the first turn; `Game.apply` plays one action,
mutating the game in place and returning the notifications it caused (the rules' table, in the
order of P3); `Game.clone` copies it. As Bahama Taxi's engine: every action either applies
completely or raises before changing anything, and after `apply` returns the game waits on a
seat still in, or is over.

The code is the one secret (G6): it is an attribute of the game and leaves it only in
`game_ended`, `game_aborted` and `full_view` (for the finished game and for moderators). No
view, notification, error message or repr holds it before the end.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.engine.rng import Rng, seat_order

from .actions import Abort, Action, Ask, Guess, Resign, Timeout, Zombify, decode_action
from .autopilot import autopilot_action
from .codes import CODE_COUNT, POSITIONS, Code, breaks_rule, kth_code
from .errors import Code as ErrorCode
from .errors import IllegalAction, InvalidSetup, MalformedAction
from .options import Options, check_players
from .questions import QUESTION_INDEX, QUESTIONS, Answer, Question
from .seed import RNG_NAMESPACE, seed_commitment

RULES_VERSION = "1"

PLAYING, OVER = "playing", "over"
WRONG_GUESSES_ALLOWED = 1  # G3: the second wrong guess eliminates
TIMEOUTS_TO_ABSENT = 3  # the platform's absent-player rule: the third timed-out turn in a row
#: what a game plays on: `Game.clone` copies them, `Game.frozen` keeps them as tuples
_LISTS = (
    "asked", "questions", "guesses", "wrong", "eliminated", "eliminations",
    "zombies", "timeouts", "history",
)  # fmt: skip
Notification = dict[str, object]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winner (None if every player was eliminated) and the ranking of
    G5, best first, each rank's seats ascending."""

    winner: int | None
    ranking: tuple[tuple[int, ...], ...]

    def to_json(self) -> dict[str, object]:
        return {"winner": self.winner, "ranking": [list(rank) for rank in self.ranking]}


class Game:
    """One game of Digit Code. Seats are 0-based in play order (P2)."""

    __slots__ = (
        "rules_version", "options", "players", "seed", "seat_players", "_code",
        "asked", "questions", "guesses", "wrong", "eliminated", "eliminations", "zombies",
        "timeouts", "active", "turn", "phase", "result", "aborted", "history", "_out",
    )  # fmt: skip

    rules_version: str
    options: Options
    players: int
    seed: int
    seat_players: tuple[int, ...]
    _code: Code
    asked: list[bool]  # per question of QUESTIONS
    questions: list[tuple[int, int, Answer]]  # (seat, index in QUESTIONS, answer), log order
    guesses: list[tuple[int, tuple[int, ...], bool]]  # (seat, code, correct), log order
    wrong: list[int]
    eliminated: list[bool]
    eliminations: list[int]  # seats in the order they were eliminated
    zombies: list[bool]  # seat_zombified logged
    timeouts: list[int]  # timed-out turns in a row
    active: int
    turn: int
    phase: str
    result: Outcome | None
    aborted: str | None
    history: list[Action]
    _out: list[Notification]

    # ------------------------------------------------------------------ reading the state

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.active

    def still_in(self) -> list[int]:
        return [seat for seat in range(self.players) if not self.eliminated[seat]]

    def answers(self) -> list[tuple[Question, Answer]]:
        """The public answers (Q1–Q4), in the order they were given."""
        return [(QUESTIONS[index], answer) for _, index, answer in self.questions]

    def wrong_codes(self) -> list[tuple[int, ...]]:
        """Every wrong guess so far, in log order (public, G1)."""
        return [code for _, code, correct in self.guesses if not correct]

    def legal_actions(self) -> list[Ask]:
        """The questions the seat to play may ask (Q5), in C1's fixed order. A guess (G1) is
        legal too, but there are 465,120 codes: `apply` checks a guess instead."""
        if self.phase == OVER:
            return []
        seat = self.active
        return [Ask(seat, q) for q, asked in zip(QUESTIONS, self.asked, strict=True) if not asked]

    def offered_actions(self, seat: int | None) -> list[dict[str, object]]:
        """What seat `seat` may do now, as offered to its player (JSON): on its turn,
        `{"type": "ask", "seat", "questions": [every question not yet asked]}` (if any is left)
        and `{"type": "guess", "seat"}` (a guess: add `code`, six digits); at any time while
        the game runs, `{"type": "resign", "seat"}` unless the seat has already left (an
        eliminated seat may still resign). Not for policies: `legal_actions` is."""
        if seat is None or self.phase == OVER or not 0 <= seat < self.players:
            return []
        offers: list[dict[str, object]] = []
        if seat == self.active:
            left = [
                q.to_json() for q, asked in zip(QUESTIONS, self.asked, strict=True) if not asked
            ]
            if left:
                offers.append({"type": "ask", "seat": seat, "questions": left})
            offers.append({"type": "guess", "seat": seat})
        if not self.zombies[seat]:
            offers.append({"type": "resign", "seat": seat})
        return offers

    # ------------------------------------------------------------------ playing

    def apply(self, action: Action | dict[str, object]) -> list[Notification]:
        """Play one action; return its notifications. Raises EngineError and changes nothing
        if the action is malformed or illegal."""
        if isinstance(action, dict):  # JSON from a client or the log
            action = decode_action(action)
        if self.phase == OVER:
            raise IllegalAction(ErrorCode.GAME_OVER, "the game is over", clause="G2")
        out: list[Notification] = []
        self._out = out
        if isinstance(action, Ask | Guess):
            self._play(action)
            self.timeouts[action.seat] = 0  # a turn the seat plays itself resets the count
        elif isinstance(action, Timeout):
            self._timeout(action)
        elif isinstance(action, Zombify):
            self._make_absent(action.seat, "moderator")
        elif isinstance(action, Resign):
            self._make_absent(action.seat, "resigned")
        elif isinstance(action, Abort):
            self._abort(action)
        else:
            raise MalformedAction(f"not a Digit Code action: {type(action).__name__}")
        self._out = []
        self.history.append(action)
        return out

    def clone(self) -> Game:
        """A copy to play on, of a game or of a frozen copy."""
        other = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(other, name, getattr(self, name))
        for name in _LISTS:
            setattr(other, name, list(getattr(self, name)))
        other._out = []
        return other

    def frozen(self) -> Game:
        """A copy to keep, not to play on: its lists are tuples, which the garbage collector
        walks less (or not at all, holding only numbers and tuples of them), so a process
        keeping many games (a server's cache of states) pays little for them in each full
        collection. `clone` makes a game to play on from it."""
        other = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(other, name, getattr(self, name))
        for name in _LISTS:
            setattr(other, name, tuple(getattr(self, name)))
        other._out = ()  # type: ignore[assignment]
        return other

    def state_key(self) -> tuple[object, ...]:
        """Everything that makes up the game, for comparing two games (replay == live)."""
        return tuple(
            getattr(self, name) for name in Game.__slots__ if name not in ("history", "_out")
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.state_key() == other.state_key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:  # G6: nothing secret
        status = "aborted" if self.aborted is not None else self.phase
        return f"<Digit Code game: {self.players} players, turn {self.turn}, {status}>"

    # ------------------------------------------------------------------ action handlers

    def _check_turn(self, seat: int) -> None:
        self._check_seat(seat)
        if self.eliminated[seat]:
            raise IllegalAction(
                ErrorCode.SEAT_ELIMINATED, f"seat {seat} is out of the game", clause="G3"
            )
        if seat != self.active:
            raise IllegalAction(
                ErrorCode.NOT_YOUR_TURN,
                f"it is seat {self.active}'s turn, not seat {seat}'s",
                clause="P2",
            )

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < self.players:
            raise IllegalAction(ErrorCode.NO_SUCH_SEAT, f"this game has no seat {seat}")

    def _play(self, action: Ask | Guess) -> None:
        """P3: one action, then the turn passes (or the game ends)."""
        if isinstance(action, Ask):
            self._ask(action)
        else:
            self._guess(action)

    def _ask(self, action: Ask) -> None:
        index = QUESTION_INDEX.get(action.question)
        if index is None:
            raise MalformedAction("no such question", errors={"question": "not a question"})
        seat = action.seat
        self._check_turn(seat)
        if self.asked[index]:
            raise IllegalAction(
                ErrorCode.QUESTION_ALREADY_ASKED,
                "this question has already been asked; its answer is in the log",
                clause="Q5",
            )
        answer = action.question.answer(self._code)
        self.asked[index] = True
        self.questions.append((seat, index, answer))
        self._out.append(
            {
                "type": "question_asked",
                "seat": seat,
                "question": action.question.to_json(),
                "answer": answer,
            }
        )
        self._end_turn(seat)

    def _guess(self, action: Guess) -> None:
        code = action.code
        if len(code) != POSITIONS or any(type(d) is not int or not 0 <= d <= 9 for d in code):
            raise MalformedAction("malformed guess", errors={"code": "six digits, each 0 to 9"})
        seat = action.seat
        self._check_turn(seat)
        rule = breaks_rule(code)
        if rule is not None:
            raise IllegalAction(ErrorCode.IMPOSSIBLE_CODE, _IMPOSSIBLE[rule], clause=rule)
        if any(earlier == code for _, earlier, _ in self.guesses):
            raise IllegalAction(
                ErrorCode.GUESS_REPEATED, "this code has already been guessed", clause="G1"
            )
        correct = code == self._code
        if not correct:
            self.wrong[seat] += 1
        self.guesses.append((seat, code, correct))
        self._out.append(
            {
                "type": "guess_made",
                "seat": seat,
                "code": list(code),
                "correct": correct,
                "wrong_guesses": self.wrong[seat],
            }
        )
        if correct:  # G2
            self._out.append({"type": "turn_ended", "seat": seat})
            self._end_game(seat)
            return
        if self.wrong[seat] > WRONG_GUESSES_ALLOWED:  # G3
            self._eliminate(seat)
        self._end_turn(seat)

    def _timeout(self, action: Timeout) -> None:
        seat = action.seat
        self._check_turn(seat)
        self.timeouts[seat] += 1
        count = self.timeouts[seat]
        self._out.append({"type": "turn_timed_out", "seat": seat, "count": count})
        if count >= TIMEOUTS_TO_ABSENT:  # absent: eliminated, and the autopilot does not play
            self._make_absent(seat, "timeouts")
        else:
            self._play(autopilot_action(self))  # C1

    def _make_absent(self, seat: int, reason: str) -> None:
        """A seat resigns or is made absent: eliminated at once, for good. On its turn, the
        turn ends with no action."""
        self._check_seat(seat)
        if self.zombies[seat]:
            raise IllegalAction(ErrorCode.ALREADY_ZOMBIE, f"seat {seat} has already left")
        self.zombies[seat] = True
        self._out.append({"type": "seat_zombified", "seat": seat, "reason": reason})
        if not self.eliminated[seat]:
            self._eliminate(seat)
            if seat == self.active:
                self._end_turn(seat)

    def _abort(self, action: Abort) -> None:
        self.phase = OVER
        self.aborted = action.reason
        self._out.append(
            {
                "type": "game_aborted",
                "reason": action.reason,
                "code": list(self._code),
                "seed": str(self.seed),
            }
        )

    # ------------------------------------------------------------------ rule machinery

    def _eliminate(self, seat: int) -> None:
        self.eliminated[seat] = True
        self.eliminations.append(seat)
        self._out.append({"type": "player_eliminated", "seat": seat})

    def _start_turn(self) -> None:
        self.turn += 1
        self._out.append({"type": "turn_started", "seat": self.active})

    def _end_turn(self, seat: int) -> None:
        """P2: the next turn goes to the next seat still in after `seat` (itself, when it is
        the last one in: G4); with nobody in, the game ends with no winner."""
        self._out.append({"type": "turn_ended", "seat": seat})
        players = self.players
        for step in range(1, players + 1):
            following = (seat + step) % players
            if not self.eliminated[following]:
                self.active = following
                self._start_turn()
                return
        self._end_game(None)

    def _end_game(self, winner: int | None) -> None:
        """G5: the winner; the players still in, tied; the eliminated, latest first."""
        ranking: list[tuple[int, ...]] = [] if winner is None else [(winner,)]
        still_in = tuple(s for s in self.still_in() if s != winner)
        if still_in:
            ranking.append(still_in)
        ranking.extend((seat,) for seat in reversed(self.eliminations))
        self.result = Outcome(winner, tuple(ranking))
        self.phase = OVER
        self._out.append(
            {
                "type": "game_ended",
                "winner": winner,
                "ranking": [list(rank) for rank in ranking],
                "code": list(self._code),
                "seed": str(self.seed),
            }
        )

    def secret_code(self) -> Code:
        """The hidden code: for the game's end, moderators and `full_view` only (G6)."""
        return self._code


_IMPOSSIBLE = {
    "B2": "neighbouring positions never hold the same digit, so no code is like this guess",
    "B3": "a digit appears at most twice in the code, so no code is like this guess",
}


def new_game(
    options: Options, players: int, seed: int, *, rules_version: str = RULES_VERSION
) -> tuple[Game, list[Notification]]:
    """Set a game up (B6) and start the first turn (P2); return it and its notifications."""
    players = check_players(options, players)
    if rules_version != RULES_VERSION:
        raise InvalidSetup(
            ErrorCode.UNSUPPORTED_RULES_VERSION,
            f"rules version {rules_version!r} is not supported; this engine plays "
            f"{RULES_VERSION!r}",
        )
    rng = Rng(seed, namespace=RNG_NAMESPACE)
    game = Game.__new__(Game)
    game.rules_version = rules_version
    game.options = options
    game.players = players
    game.seed = seed
    game.seat_players = seat_order(rng, players)  # B6: first the seats, as Bahama Taxi's S3
    game._code = kth_code(rng.below(CODE_COUNT))  # then the code
    game.asked = [False] * len(QUESTIONS)
    game.questions = []
    game.guesses = []
    game.wrong = [0] * players
    game.eliminated = [False] * players
    game.eliminations = []
    game.zombies = [False] * players
    game.timeouts = [0] * players
    game.active = 0
    game.turn = 0
    game.phase = PLAYING
    game.result = None
    game.aborted = None
    game.history = []
    out: list[Notification] = [
        {
            "type": "game_started",
            "rules_version": rules_version,
            "seats": [{"seat": s, "player": game.seat_players[s]} for s in range(players)],
            "commitment": seed_commitment(seed),
        }
    ]
    game._out = out
    game._start_turn()  # P2: seat 0 plays first
    game._out = []
    return game, out
