"""The 64 questions (Q1–Q5) and their answers.

A question is a small frozen dataclass; `QUESTIONS` lists all 64 in C1's order (Q1 rows 1–6,
columns 1–6; Q2 positions 1–6; Q3 positions 2, 3, 5, 6; Q4 position-major, segments `a`–`g`),
which is also the order of `Game.legal_actions`. Their JSON (B7, the `question` of
`question_asked`): `{"kind": "count", "line": "row", "index": 1}`, `{"kind": "parity",
"position": 2}`, `{"kind": "compare", "position": 5}`, `{"kind": "led", "position": 1,
"segment": "g"}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from .codes import COMPARE_POSITIONS, LED_COLUMNS, LED_ROWS, LIT, POSITIONS, SEGMENTS

Answer = int | str
Line = Literal["row", "column"]
#: B7: the answers each kind can give, in a fixed order.
ANSWERS: dict[str, tuple[Answer, ...]] = {
    "parity": ("even", "odd"),
    "compare": ("less", "greater"),
    "led": ("unlit", "lit"),
}


@dataclass(frozen=True, slots=True)
class Count:
    """Q1: how many LEDs of a LED row or column (B5) the code lights."""

    kind: ClassVar[str] = "count"
    line: Line
    index: int  # 1–6

    @property
    def leds(self) -> tuple[tuple[int, str], ...]:
        lines = LED_ROWS if self.line == "row" else LED_COLUMNS
        return lines[self.index - 1]

    def answer(self, code: tuple[int, ...]) -> Answer:
        return sum(segment in LIT[code[position]] for position, segment in self.leds)

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "line": self.line, "index": self.index}


@dataclass(frozen=True, slots=True)
class Parity:
    """Q2: is the digit at a position odd or even (0 is even)."""

    kind: ClassVar[str] = "parity"
    position: int  # 1–6

    def answer(self, code: tuple[int, ...]) -> Answer:
        return "odd" if code[self.position - 1] % 2 else "even"

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "position": self.position}


@dataclass(frozen=True, slots=True)
class Compare:
    """Q3: is the digit at a position (2, 3, 5 or 6) greater or less than its left neighbour."""

    kind: ClassVar[str] = "compare"
    position: int

    def answer(self, code: tuple[int, ...]) -> Answer:
        index = self.position - 1
        return "greater" if code[index] > code[index - 1] else "less"

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "position": self.position}


@dataclass(frozen=True, slots=True)
class Led:
    """Q4: is one LED of a position lit."""

    kind: ClassVar[str] = "led"
    position: int  # 1–6
    segment: str  # "a"–"g"

    def answer(self, code: tuple[int, ...]) -> Answer:
        return "lit" if self.segment in LIT[code[self.position - 1]] else "unlit"

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "position": self.position, "segment": self.segment}


Question = Count | Parity | Compare | Led

QUESTIONS: tuple[Question, ...] = (
    *(Count("row", i) for i in range(1, 7)),
    *(Count("column", i) for i in range(1, 7)),
    *(Parity(p) for p in range(1, POSITIONS + 1)),
    *(Compare(p + 1) for p in COMPARE_POSITIONS),
    *(Led(p, s) for p in range(1, POSITIONS + 1) for s in SEGMENTS),
)
QUESTION_INDEX: dict[Question, int] = {q: i for i, q in enumerate(QUESTIONS)}
KINDS = ("count", "parity", "compare", "led")


def answers_of(question: Question) -> tuple[Answer, ...]:
    """Every answer the question can give (B7), in a fixed order."""
    if isinstance(question, Count):
        return tuple(range(len(question.leds) + 1))
    return ANSWERS[question.kind]


def decode_question(data: object) -> Question | str:
    """JSON → one of the 64 questions, or a sentence saying what is wrong with it."""
    if type(data) is not dict:
        return "a question object with a 'kind'"
    kind = data.get("kind")
    if kind not in KINDS:
        return f"a question whose kind is one of {', '.join(KINDS)}"
    allowed = {
        "count": {"kind", "line", "index"},
        "parity": {"kind", "position"},
        "compare": {"kind", "position"},
        "led": {"kind", "position", "segment"},
    }[kind]
    if set(data) != allowed:
        return f"a {kind} question has exactly the fields {', '.join(sorted(allowed))}"
    if kind == "count":
        line, index = data["line"], data["index"]
        if line not in ("row", "column") or type(index) is not int or not 1 <= index <= 6:
            return "a count question names a line 'row' or 'column' and an index 1–6"
        return Count("row" if line == "row" else "column", index)
    position = data["position"]
    if type(position) is not int or not 1 <= position <= POSITIONS:
        return "a position from 1 to 6"
    if kind == "parity":
        return Parity(position)
    if kind == "compare":
        if position - 1 not in COMPARE_POSITIONS:
            return "a compare question names a position with a left neighbour: 2, 3, 5 or 6"
        return Compare(position)
    segment = data["segment"]
    if type(segment) is not str or len(segment) != 1 or segment not in SEGMENTS:
        return "a segment from 'a' to 'g'"
    return Led(position, segment)
