"""Questions (Q1–Q5): their answers from the code, public to all, each asked once."""

from __future__ import annotations

import pytest

from games.digit_code.engine import (
    QUESTIONS,
    Ask,
    Code,
    Compare,
    Count,
    Guess,
    Led,
    Parity,
    autopilot_action,
    player_view,
)
from games.digit_code.engine.codes import LIT

from .helpers import ask, new, refused

CODE = (8, 1, 7, 0, 4, 1)  # row 1: 8 1 7, row 2: 0 4 1


def lit(digit: int, segment: str) -> bool:
    return segment in LIT[digit]


@pytest.mark.parametrize(
    ("line", "index", "answer"),
    [
        ("row", 1, 2),  # a: 8 yes, 1 no, 7 yes
        ("row", 2, 1),  # g: 8 yes, 1 no, 7 no
        ("row", 3, 1),  # d: 8 yes
        ("row", 4, 1),  # a of 0 4 1: 0
        ("row", 5, 1),  # g: 4
        ("row", 6, 1),  # d: 0
        ("column", 1, 4),  # f, e of 8 and 0
        ("column", 2, 4),  # b, c of 8 and 0
        ("column", 3, 1),  # f, e of 1 and 4: f of 4
        ("column", 4, 4),  # b, c of 1 and 4
        ("column", 5, 0),  # f, e of 7 and 1
        ("column", 6, 4),  # b, c of 7 and 1
    ],
)
def test_Q1_count_the_lit_leds_of_a_line(line, index, answer):
    assert Count(line, index).answer(CODE) == answer


def test_Q2_parity_zero_is_even():
    assert [Parity(p).answer(CODE) for p in range(1, 7)] == [
        "even", "odd", "odd", "even", "even", "odd",
    ]  # fmt: skip


def test_Q3_compare_with_the_left_neighbour():
    assert [Compare(p).answer(CODE) for p in (2, 3, 5, 6)] == ["less", "greater", "greater", "less"]


def test_Q4_one_led_lit_or_unlit():
    for position in range(1, 7):
        for segment in "abcdefg":
            expected = "lit" if lit(CODE[position - 1], segment) else "unlit"
            assert Led(position, segment).answer(CODE) == expected


def test_Q1_to_Q4_the_answer_is_the_hidden_codes_and_public_to_everyone():
    game = new(3, 4)
    code = game.secret_code()
    for question in (Count("column", 3), Parity(2), Compare(5), Led(6, "e")):
        seat = game.active
        notes = ask(game, question)
        assert notes[0] == {
            "type": "question_asked",
            "seat": seat,
            "question": question.to_json(),
            "answer": question.answer(code),
        }
    for seat in (None, 0, 1, 2):  # spectators and every seat see every answer
        assert len(player_view(game, seat)["questions"]) == 4


def test_Q5_sixty_four_questions_in_C1_order():
    assert len(QUESTIONS) == 12 + 6 + 4 + 42 == 64
    assert QUESTIONS[:12] == (
        *(Count("row", i) for i in range(1, 7)),
        *(Count("column", i) for i in range(1, 7)),
    )
    assert QUESTIONS[12:18] == tuple(Parity(p) for p in range(1, 7))
    assert QUESTIONS[18:22] == tuple(Compare(p) for p in (2, 3, 5, 6))
    assert QUESTIONS[22:] == tuple(Led(p, s) for p in range(1, 7) for s in "abcdefg")
    assert len(set(QUESTIONS)) == 64


def test_Q5_each_question_once_per_game_by_anyone():
    game = new(2, 8)
    ask(game, Parity(3))
    assert game.active == 1
    error = refused(game, Ask(1, Parity(3)), Code.QUESTION_ALREADY_ASKED, "Q5")
    assert "already" in error.message
    assert Ask(1, Parity(3)) not in game.legal_actions()
    assert len(game.legal_actions()) == 63


def test_Q5_a_question_earlier_answers_imply_may_still_be_asked():
    game = new(2, 9)
    for segment in "abcdefg":
        ask(game, Led(1, segment))  # position 1 is now known, and so is its parity
    notes = ask(game, Parity(1))
    assert notes[0]["answer"] == Parity(1).answer(game.secret_code())


def test_Q5_when_no_question_is_left_the_only_action_is_a_guess():
    game = new(2, 10)
    while game.legal_actions():
        game.apply(game.legal_actions()[0])
    assert game.turn == 65 and not game.over
    assert [o["type"] for o in game.offered_actions(game.active)] == ["guess", "resign"]
    action = autopilot_action(game)  # C1: the only code left
    assert action == Guess(game.active, game.secret_code())


def test_Q5_legal_actions_list_the_unasked_questions_in_a_fixed_order():
    game = new(2, 11)
    ask(game, QUESTIONS[5])
    ask(game, QUESTIONS[0])
    assert [a.question for a in game.legal_actions()] == [
        q for i, q in enumerate(QUESTIONS) if i not in (0, 5)
    ]
    assert all(a.seat == game.active for a in game.legal_actions())
