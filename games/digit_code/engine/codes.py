"""The board and the codes (RULES-digit-code.md B1–B5).

Positions are 1–6 in JSON (B7) and 0–5 here. A code is a tuple of six digits. The valid codes
(B2, B3) are numbered 0 … 465,119 in ascending order as six-digit numbers; `kth_code(k)`
finds the k-th without listing them (setup, B6) and `all_codes()` lists them once per process
for those who search them (the bots).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from functools import cache

Code = tuple[int, int, int, int, int, int]

POSITIONS = 6
DIGITS = range(10)
SEGMENTS = "abcdefg"
#: B2: neighbouring positions (0-based): horizontal, then vertical.
NEIGHBOURS: tuple[tuple[int, int], ...] = ((0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5))
MAX_REPEATS = 2  # B3
#: B4: the LEDs each digit lights.
LIT: tuple[str, ...] = (
    "abcdef",
    "bc",
    "abdeg",
    "abcdg",
    "bcfg",
    "acdfg",
    "acdefg",
    "abc",
    "abcdefg",
    "abcdfg",
)
#: B5: the LED lines, as (position, segment) pairs; rows 1–6, then columns 1–6.
LED_ROWS: tuple[tuple[tuple[int, str], ...], ...] = tuple(
    tuple((first + offset, segment) for offset in range(3)) for first in (0, 3) for segment in "agd"
)
LED_COLUMNS: tuple[tuple[tuple[int, str], ...], ...] = tuple(
    tuple((position, segment) for position in (top, top + 3) for segment in pair)
    for top in range(3)
    for pair in ("fe", "bc")
)
#: Q3: the positions with a left neighbour.
COMPARE_POSITIONS = (1, 2, 4, 5)


def breaks_rule(code: tuple[int, ...]) -> str | None:
    """The clause (B2 or B3) a six-digit code breaks, or None if it is a valid code."""
    for left, right in NEIGHBOURS:
        if code[left] == code[right]:
            return "B2"
    for digit in set(code):
        if code.count(digit) > MAX_REPEATS:
            return "B3"
    return None


def code_number(code: tuple[int, ...]) -> int:
    """The code as a six-digit number: (0, 1, 0, 1, 2, 3) → 10123."""
    number = 0
    for digit in code:
        number = number * 10 + digit
    return number


def code_of_number(number: int) -> Code:
    d = [int(c) for c in f"{number:06d}"]
    return (d[0], d[1], d[2], d[3], d[4], d[5])


def code_text(code: tuple[int, ...]) -> str:
    return "".join(map(str, code))


# ---------------------------------------------------------------------- counting and ranking
# A code is two rows of three digits (B1). A row holds no equal neighbours, so it is either
# three different digits ("abc") or the same digit at both ends ("aba"): 10·9·9 = 810 rows.
# Every rule is blind to which digits are which, so how many second rows fit a first row depends
# only on the first row's shape, which makes the k-th code a walk over at most 810 + 810 rows.

Row = tuple[int, int, int]
ROWS: tuple[Row, ...] = tuple(
    (a, b, c) for a in DIGITS for b in DIGITS for c in DIGITS if a != b and b != c
)


def _fits(top: Row, bottom: Row) -> bool:
    if top[0] == bottom[0] or top[1] == bottom[1] or top[2] == bottom[2]:
        return False
    both = top + bottom
    return all(both.count(digit) <= MAX_REPEATS for digit in set(both))


def _shape(row: Row) -> bool:
    return row[0] == row[2]


@cache
def _fitting(shape: bool) -> int:
    top: Row = (0, 1, 0) if shape else (0, 1, 2)
    return sum(_fits(top, bottom) for bottom in ROWS)


def code_count() -> int:
    """How many codes satisfy B2 and B3 (465,120)."""
    return sum(_fitting(_shape(top)) for top in ROWS)


CODE_COUNT = 465_120


def kth_code(k: int) -> Code:
    """B6: the k-th (0-based) valid code in ascending order."""
    if not 0 <= k < CODE_COUNT:
        raise ValueError(f"k must be in [0, {CODE_COUNT}), not {k}")
    for top in ROWS:
        fitting = _fitting(_shape(top))
        if k >= fitting:
            k -= fitting
            continue
        for bottom in ROWS:
            if _fits(top, bottom):
                if k == 0:
                    return top + bottom
                k -= 1
    raise AssertionError("CODE_COUNT is the number of valid codes")  # pragma: no cover


@cache
def all_codes() -> array[int]:
    """Every valid code as a six-digit number, ascending (index = rank, B6). Built once per
    process, in about a quarter of a second."""
    shapes = [sum(top.count(d) << (4 * d) for d in set(top)) for top in ROWS]
    overflow = sum(8 << (4 * d) for d in DIGITS)  # a digit counted 3 or 4 times sets bit 3
    bias = sum(5 << (4 * d) for d in DIGITS)
    numbers = [a * 100 + b * 10 + c for a, b, c in ROWS]
    codes: array[int] = array("l")
    for top, top_counts, top_number in zip(ROWS, shapes, numbers, strict=True):
        t0, t1, t2 = top
        base = top_number * 1000
        codes.extend(
            base + number
            for (b0, b1, b2), counts, number in zip(ROWS, shapes, numbers, strict=True)
            if b0 != t0 and b1 != t1 and b2 != t2 and not (counts + top_counts + bias) & overflow
        )
    return codes


def code_index(code: tuple[int, ...]) -> int | None:
    """The rank of a valid code (B6), None for an invalid one."""
    codes = all_codes()
    number = code_number(code)
    index = bisect_left(codes, number)
    return index if index < len(codes) and codes[index] == number else None
