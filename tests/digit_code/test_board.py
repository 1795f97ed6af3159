"""The board and the codes (B1–B5, B7)."""

from __future__ import annotations

import itertools

import pytest

from games.digit_code.engine import CODE_COUNT, Count, Led, breaks_rule, kth_code
from games.digit_code.engine.codes import (
    LED_COLUMNS,
    LED_ROWS,
    LIT,
    NEIGHBOURS,
    all_codes,
    code_count,
    code_index,
    code_number,
)

#: Every six-digit number that keeps B2 and B3, the slow and obvious way.
HORIZONTAL = [(0, 1), (1, 2), (3, 4), (4, 5)]
VERTICAL = [(0, 3), (1, 4), (2, 5)]


def obviously_valid(code: tuple[int, ...]) -> bool:
    if any(code[a] == code[b] for a, b in HORIZONTAL + VERTICAL):
        return False
    return all(code.count(d) <= 2 for d in range(10))


def test_B1_six_positions_in_two_rows_of_three():
    # row 1 = positions 1 2 3, row 2 = 4 5 6: the horizontal neighbours stay within a row
    assert len(kth_code(0)) == 6
    assert {frozenset(pair) for pair in HORIZONTAL} <= {frozenset(p) for p in NEIGHBOURS}
    assert all(a // 3 == b // 3 for a, b in HORIZONTAL)
    assert all(b == a + 3 for a, b in VERTICAL)


def test_B2_neighbours_are_the_four_horizontal_and_three_vertical_pairs():
    assert sorted(NEIGHBOURS) == sorted(HORIZONTAL + VERTICAL)


@pytest.mark.parametrize(
    ("code", "clause"),
    [
        ((1, 1, 0, 2, 3, 4), "B2"),  # 1–2
        ((0, 1, 2, 3, 4, 4), "B2"),  # 5–6
        ((5, 1, 2, 5, 3, 4), "B2"),  # 1–4
        ((0, 1, 2, 3, 4, 2), "B2"),  # 3–6
        ((0, 1, 0, 2, 0, 3), "B3"),  # 0 three times
        ((7, 1, 7, 2, 7, 2), "B3"),
        ((0, 1, 0, 1, 2, 3), None),  # 0 twice, 1 twice: allowed
    ],
)
def test_B2_B3_breaks_rule_names_the_clause(code, clause):
    assert breaks_rule(code) == clause


def test_B3_a_digit_at_most_twice_and_B2_B3_give_465120_codes_in_ascending_order():
    expected = [
        code_number(code)
        for code in itertools.product(range(10), repeat=6)
        if obviously_valid(code)
    ]
    assert len(expected) == CODE_COUNT == code_count() == 465_120
    assert list(all_codes()) == expected  # ascending as six-digit numbers
    assert kth_code(0) == (0, 1, 0, 1, 2, 3)  # "010123 is the first"


def test_B6_the_kth_code_is_the_kth_of_the_ascending_list():
    codes = all_codes()
    for k in [*range(50), *range(0, CODE_COUNT, 9_973), CODE_COUNT - 1]:
        code = kth_code(k)
        assert code_number(code) == codes[k]
        assert code_index(code) == k
    with pytest.raises(ValueError):
        kth_code(CODE_COUNT)
    assert code_index((1, 1, 0, 2, 3, 4)) is None


def test_B4_each_digit_lights_the_segments_of_the_page_figure():
    assert LIT == (
        "abcdef", "bc", "abdeg", "abcdg", "bcfg", "acdfg", "acdefg", "abc", "abcdefg", "abcdfg",
    )  # fmt: skip
    # through the questions: the LED answers of 8 are all lit, of 1 only b and c
    code = (8, 1, 8, 1, 0, 2)
    assert all(Led(1, s).answer(code) == "lit" for s in "abcdefg")
    assert [s for s in "abcdefg" if Led(2, s).answer(code) == "lit"] == ["b", "c"]


def test_B5_led_rows_are_a_g_d_of_each_code_row_and_columns_are_the_sides():
    assert LED_ROWS == (
        ((0, "a"), (1, "a"), (2, "a")),
        ((0, "g"), (1, "g"), (2, "g")),
        ((0, "d"), (1, "d"), (2, "d")),
        ((3, "a"), (4, "a"), (5, "a")),
        ((3, "g"), (4, "g"), (5, "g")),
        ((3, "d"), (4, "d"), (5, "d")),
    )
    assert LED_COLUMNS == (
        ((0, "f"), (0, "e"), (3, "f"), (3, "e")),
        ((0, "b"), (0, "c"), (3, "b"), (3, "c")),
        ((1, "f"), (1, "e"), (4, "f"), (4, "e")),
        ((1, "b"), (1, "c"), (4, "b"), (4, "c")),
        ((2, "f"), (2, "e"), (5, "f"), (5, "e")),
        ((2, "b"), (2, "c"), (5, "b"), (5, "c")),
    )


def test_B7_answers_are_counts_and_lowercase_words():
    code = (8, 1, 7, 0, 4, 1)
    assert Count("row", 1).answer(code) == 2  # a of 8, 1, 7: lit, unlit, lit
    assert Count("column", 2).answer(code) == 4  # b, c of 8 and 0
    assert type(Count("row", 1).answer(code)) is int
    assert Led(1, "g").answer(code) == "lit" and Led(4, "g").answer(code) == "unlit"
