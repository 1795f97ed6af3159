"""The codes that agree with what is public, as bit sets over the 465,120 codes.

Bit i of a set stands for the code of rank i (B6). For every question and each of its answers,
`Tables` holds the set of codes giving that answer, so the codes consistent with a log are one
AND per answer, and the size of each part of a question's answer partition is one AND and a
popcount: array work done by CPython's big integers, a few microseconds each. The tables are
built once per process (about half a second, 10 MB), for the bots only: the rules engine never
needs them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache

from .codes import CODE_COUNT, LIT, POSITIONS, Code, all_codes, code_index, code_of_number
from .questions import QUESTIONS, Answer, Compare, Led, Parity


class Tables:
    """Per question, the set of codes for each answer (`answer_sets[i][answer]`, i the
    question's index in QUESTIONS)."""

    __slots__ = ("full", "answer_sets")

    def __init__(self) -> None:
        text = "".join(f"{number:06d}" for number in all_codes())
        full = (1 << CODE_COUNT) - 1
        # digit_sets[p][d]: the codes with digit d at position p
        digit_sets: list[list[int]] = []
        for position in range(POSITIONS):
            column = text[position::POSITIONS][::-1]  # the last character is bit 0
            digit_sets.append([int(column.translate(_ONE_DIGIT[d]), 2) for d in range(10)])

        def union(position: int, digits: Iterable[int]) -> int:
            found = 0
            for d in digits:
                found |= digit_sets[position][d]
            return found

        def lit(position: int, segment: str) -> int:
            return union(position, (d for d in range(10) if segment in LIT[d]))

        answer_sets: list[dict[Answer, int]] = []
        for question in QUESTIONS:
            if isinstance(question, Led):
                on = lit(question.position - 1, question.segment)
                answer_sets.append({"lit": on, "unlit": full ^ on})
            elif isinstance(question, Parity):
                odd = union(question.position - 1, (1, 3, 5, 7, 9))
                answer_sets.append({"odd": odd, "even": full ^ odd})
            elif isinstance(question, Compare):
                right, left = question.position - 1, question.position - 2
                greater = 0
                for d in range(1, 10):
                    greater |= digit_sets[right][d] & union(left, range(d))
                answer_sets.append({"greater": greater, "less": full ^ greater})
            else:
                counts: list[int] = [full]  # counts[k]: the codes lighting k LEDs so far
                for position, segment in question.leds:
                    on = lit(position, segment)
                    off = full ^ on
                    counts = [
                        (counts[k] & off if k < len(counts) else 0)
                        | (counts[k - 1] & on if k > 0 else 0)
                        for k in range(len(counts) + 1)
                    ]
                answer_sets.append({k: counts[k] for k in range(len(counts))})
        self.full = full
        self.answer_sets: tuple[dict[Answer, int], ...] = tuple(answer_sets)

    def consistent(
        self, answers: Iterable[tuple[int, Answer]], wrong: Iterable[Sequence[int]] = ()
    ) -> int:
        """The set of codes giving every (question index, answer) and no wrong guess."""
        found = self.full
        for index, answer in answers:
            found &= self.answer_sets[index][answer]
        for code in wrong:
            rank = code_index(tuple(code))
            if rank is not None:
                found &= ~(1 << rank)
        return found

    def partition(self, found: int, index: int) -> list[int]:
        """How many codes of `found` give each answer of question `index` (empty parts too)."""
        return [(found & part).bit_count() for part in self.answer_sets[index].values()]


_ONE_DIGIT = [{ord(str(c)): ("1" if c == d else "0") for c in range(10)} for d in range(10)]


@cache
def tables() -> Tables:
    return Tables()


def members(found: int) -> Iterator[int]:
    """The ranks in a set, ascending (for small sets)."""
    while found:
        low = found & -found
        yield low.bit_length() - 1
        found ^= low


def code_at(rank: int) -> Code:
    return code_of_number(all_codes()[rank])
