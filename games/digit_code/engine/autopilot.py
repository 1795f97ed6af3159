"""The autopilot (C1): the action of a timed-out turn, from the public log alone.

The first question not yet asked, in C1's order (which is `QUESTIONS`' order); when none is
left, a guess of the smallest code, as a six-digit number, that agrees with every public answer
and every wrong guess. Deterministic, and blind to the hidden code: it reads only what every
player sees. It also plays `simulate --policy autopilot`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .actions import Ask, Guess, PlayerAction
from .codes import LIT, MAX_REPEATS, NEIGHBOURS, POSITIONS, Code
from .questions import QUESTIONS, Answer, Compare, Count, Led, Parity, Question

if TYPE_CHECKING:
    from .game import Game

#: For each position, its neighbours placed before it (left and above), for the search below.
_EARLIER_NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(a for a, b in NEIGHBOURS if b == position) for position in range(POSITIONS)
)


def autopilot_action(game: Game) -> PlayerAction:
    seat = game.active
    for question, asked in zip(QUESTIONS, game.asked, strict=True):
        if not asked:
            return Ask(seat, question)
    code = smallest_consistent_code(game.answers(), game.wrong_codes())
    if code is None:  # pragma: no cover - the hidden code always agrees with its own answers
        raise AssertionError("no code agrees with the public answers")
    return Guess(seat, code)


def smallest_consistent_code(
    answers: Iterable[tuple[Question, Answer]], wrong: Iterable[Sequence[int]] = ()
) -> Code | None:
    """The smallest valid code (B2, B3) that gives every answer and is no wrong guess; None if
    there is none. A depth-first search, position by position, digits ascending: the first code
    found is the smallest."""
    allowed = [set(range(10)) for _ in range(POSITIONS)]
    compares: list[tuple[int, bool]] = []  # (0-based position, greater)
    counts: list[tuple[tuple[tuple[int, str], ...], int]] = []
    for question, answer in answers:
        if isinstance(question, Parity):
            odd = answer == "odd"
            allowed[question.position - 1] &= {d for d in range(10) if (d % 2 == 1) == odd}
        elif isinstance(question, Led):
            lit = answer == "lit"
            segment = question.segment
            allowed[question.position - 1] &= {d for d in range(10) if (segment in LIT[d]) == lit}
        elif isinstance(question, Compare):
            compares.append((question.position - 1, answer == "greater"))
        elif isinstance(question, Count):
            counts.append((question.leds, int(answer)))
    excluded = {tuple(code) for code in wrong}
    # a check runs at the position that completes it
    compare_at: list[list[bool]] = [[] for _ in range(POSITIONS)]
    for position, greater in compares:
        compare_at[position].append(greater)
    count_at: list[list[tuple[tuple[tuple[int, str], ...], int]]] = [[] for _ in range(POSITIONS)]
    for leds, total in counts:
        count_at[max(position for position, _ in leds)].append((leds, total))
    choices = [sorted(digits) for digits in allowed]
    digits: list[int] = []
    uses = [0] * 10

    def fits(position: int, digit: int) -> bool:
        if uses[digit] >= MAX_REPEATS:
            return False
        for neighbour in _EARLIER_NEIGHBOURS[position]:
            if digits[neighbour] == digit:
                return False
        for greater in compare_at[position]:
            if (digit > digits[position - 1]) != greater:
                return False
        if count_at[position]:
            placed = [*digits, digit]
            for leds, total in count_at[position]:
                if sum(segment in LIT[placed[p]] for p, segment in leds) != total:
                    return False
        return True

    def search(position: int) -> Code | None:
        if position == POSITIONS:
            code: Code = (digits[0], digits[1], digits[2], digits[3], digits[4], digits[5])
            return None if code in excluded else code
        for digit in choices[position]:
            if fits(position, digit):
                digits.append(digit)
                uses[digit] += 1
                found = search(position + 1)
                uses[digit] -= 1
                digits.pop()
                if found is not None:
                    return found
        return None

    return search(0)
