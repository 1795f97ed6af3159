"""Actions and their JSON (B7): malformed input names its fields; illegal actions their clause."""

from __future__ import annotations

import pytest

from games.digit_code.engine import (
    QUESTIONS,
    Abort,
    Ask,
    Code,
    Guess,
    IllegalAction,
    MalformedAction,
    Parity,
    Resign,
    Timeout,
    Zombify,
    decode_action,
    encode_action,
    player_view,
)

from .helpers import new

ACTIONS = [
    *(Ask(1, q) for q in QUESTIONS),
    Guess(0, (0, 1, 0, 1, 2, 3)),
    Timeout(3),
    Zombify(2),
    Resign(0),
    Abort("cheating"),
]


@pytest.mark.parametrize("action", ACTIONS, ids=str)
def test_B7_encode_then_decode_is_the_same_action(action):
    assert decode_action(encode_action(action)) == action


def test_B7_the_json_of_an_ask_and_a_guess():
    assert encode_action(Ask(0, QUESTIONS[0])) == {
        "type": "ask", "seat": 0, "question": {"kind": "count", "line": "row", "index": 1},
    }  # fmt: skip
    assert encode_action(Ask(2, QUESTIONS[-1])) == {
        "type": "ask", "seat": 2, "question": {"kind": "led", "position": 6, "segment": "g"},
    }  # fmt: skip
    assert encode_action(Guess(1, (9, 8, 9, 8, 7, 6))) == {
        "type": "guess", "seat": 1, "code": [9, 8, 9, 8, 7, 6],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("data", "fields"),
    [
        ("ask", {"non_field_errors"}),
        ({"type": "fly", "seat": 0}, {"type"}),
        ({"type": "ask", "seat": 0}, {"question"}),
        ({"type": "ask", "seat": 4, "question": {"kind": "parity", "position": 1}}, {"seat"}),
        ({"type": "ask", "seat": True, "question": {"kind": "parity", "position": 1}}, {"seat"}),
        ({"type": "ask", "seat": 0, "question": {"kind": "compare", "position": 1}}, {"question"}),
        ({"type": "ask", "seat": 0, "question": {"kind": "compare", "position": 4}}, {"question"}),
        ({"type": "ask", "seat": 0, "question": {"kind": "led", "position": 1, "segment": "h"}},
         {"question"}),
        ({"type": "ask", "seat": 0, "question": {"kind": "count", "line": "row", "index": 7}},
         {"question"}),
        ({"type": "ask", "seat": 0, "question": {"kind": "parity", "position": 1, "x": 1}},
         {"question"}),
        ({"type": "ask", "seat": 0, "question": {"kind": "colour"}}, {"question"}),
        ({"type": "guess", "seat": 0, "code": [1, 2, 3]}, {"code"}),
        ({"type": "guess", "seat": 0, "code": [1, 2, 3, 4, 5, 10]}, {"code"}),
        ({"type": "guess", "seat": 0, "code": "010123"}, {"code"}),
        ({"type": "guess", "seat": 0, "code": [0, 1, 0, 1, 2, 3.0]}, {"code"}),
        ({"type": "guess", "seat": 0, "code": [0, 1, 0, 1, 2, 3], "extra": 1}, {"extra"}),
        ({"type": "abort", "reason": ""}, {"reason"}),
        ({"type": "resign"}, {"seat"}),
    ],
)  # fmt: skip
def test_malformed_actions_name_each_bad_field(data, fields):
    with pytest.raises(MalformedAction) as caught:
        decode_action(data)
    assert set(caught.value.errors) == fields
    assert caught.value.code == Code.MALFORMED_ACTION
    assert caught.value.as_dict()["errors"] == caught.value.errors


def test_the_unknown_type_error_offers_only_what_a_player_may_send():
    with pytest.raises(MalformedAction) as caught:
        decode_action({"type": "teleport"})
    assert caught.value.errors["type"] == "one of ask, guess, resign"


def test_illegal_actions_carry_a_code_and_the_rules_clause():
    game = new(2, 1)
    with pytest.raises(IllegalAction) as caught:
        game.apply({"type": "ask", "seat": 1, "question": {"kind": "parity", "position": 1}})
    assert caught.value.as_dict() == {
        "code": "not_your_turn",
        "message": "it is seat 0's turn, not seat 1's",
        "clause": "P2",
    }


def test_a_directly_built_action_is_checked_like_json():
    game = new(2, 1)
    with pytest.raises(MalformedAction):
        game.apply(Ask(0, Parity(9)))
    with pytest.raises(MalformedAction):
        game.apply(Guess(0, (1, 2, 3)))
    assert game.turn == 1 and game.history == []


def test_the_view_offers_the_unasked_questions_a_guess_and_resign():
    game = new(3, 1)
    game.apply(Ask(0, QUESTIONS[0]))
    offers = player_view(game, 1)["legal_actions"]
    assert [o["type"] for o in offers] == ["ask", "guess", "resign"]
    assert offers[0]["questions"] == [q.to_json() for q in QUESTIONS[1:]]
    assert player_view(game, 2)["legal_actions"] == [{"type": "resign", "seat": 2}]
    assert player_view(game, None)["legal_actions"] == []
    for offer in offers[:1]:  # every offered question is a legal action
        for question in offer["questions"]:
            data = {"type": "ask", "seat": 1, "question": question}
            assert decode_action(data) in game.legal_actions()
