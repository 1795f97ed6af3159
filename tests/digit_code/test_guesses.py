"""Guesses, elimination and the end (G1–G6)."""

from __future__ import annotations

import json

import pytest

from games.digit_code.engine import (
    Code,
    Guess,
    Led,
    Resign,
    full_view,
    player_view,
    public_view,
)

from .helpers import (
    ask,
    ask_first,
    code_pattern,
    guess_right,
    guess_wrong,
    new,
    refused,
    wrong_code,
)


def test_G1_a_guess_is_public_with_whether_it_was_right():
    game = new(3, 5)
    code = wrong_code(game)
    notes = game.apply(Guess(0, code))
    assert notes[0] == {
        "type": "guess_made", "seat": 0, "code": list(code), "correct": False, "wrong_guesses": 1,
    }  # fmt: skip
    for seat in (None, 0, 1, 2):
        assert player_view(game, seat)["guesses"] == [
            {"seat": 0, "code": list(code), "correct": False}
        ]
        assert player_view(game, seat)["seats"][0]["wrong_guesses"] == 1


@pytest.mark.parametrize(
    ("code", "clause"), [((1, 1, 2, 3, 4, 5), "B2"), ((0, 1, 0, 2, 0, 3), "B3")]
)
def test_G1_a_guess_that_breaks_B2_or_B3_is_refused_and_spends_nothing(code, clause):
    game = new(2, 5)
    refused(game, Guess(0, code), Code.IMPOSSIBLE_CODE, clause)
    assert game.active == 0 and game.wrong == [0, 0] and game.turn == 1


def test_G1_a_guess_made_before_by_anyone_is_refused():
    game = new(2, 5)
    code = wrong_code(game)
    game.apply(Guess(0, code))
    refused(game, Guess(1, code), Code.GUESS_REPEATED, "G1")
    assert game.wrong == [1, 0] and game.active == 1


def test_G1_wrong_guesses_is_the_players_count_after_it_unchanged_by_a_right_guess():
    game = new(2, 5)
    assert guess_wrong(game)[0]["wrong_guesses"] == 1
    ask_first(game)
    right = guess_right(game)[0]
    assert right["correct"] is True and right["wrong_guesses"] == 1


def test_G2_a_right_guess_ends_the_game_at_once_and_wins():
    game = new(4, 5)
    ask_first(game)
    notes = guess_right(game)  # seat 1
    assert game.over and game.current_player() is None
    assert notes[-1]["type"] == "game_ended" and notes[-1]["winner"] == 1
    assert game.result.winner == 1
    assert game.legal_actions() == [] and game.offered_actions(0) == []
    refused(game, Guess(2, game.secret_code()), Code.GAME_OVER, "G2")


def test_G3_the_second_wrong_guess_eliminates_who_still_sees_the_game():
    game = new(3, 6)
    guess_wrong(game)
    ask_first(game)
    ask_first(game)
    guess_wrong(game)
    assert game.eliminated == [True, False, False]
    view = player_view(game, 0)
    assert view["seats"][0]["eliminated"] is True
    assert view["legal_actions"] == [{"type": "resign", "seat": 0}]  # no turns, may still leave
    assert len(view["guesses"]) == 2


def test_G4_the_last_player_in_plays_on_alone_until_right_or_out():
    game = new(2, 7)
    game.apply(Resign(1))
    assert not game.over and game.still_in() == [0]
    ask_first(game)
    assert game.active == 0  # alone: its own turn again
    guess_wrong(game)
    assert game.active == 0 and not game.over
    notes = guess_wrong(game)
    assert game.over and notes[-1]["winner"] is None
    assert game.result.winner is None


def test_G4_every_player_eliminated_ends_with_no_winner():
    game = new(3, 7)
    for _ in range(6):
        guess_wrong(game)
    assert game.over and game.result.winner is None
    assert game.result.ranking == ((2,), (1,), (0,))


def test_G5_winner_then_the_still_in_tied_then_the_eliminated_latest_first():
    game = new(4, 8)
    game.apply(Resign(3))  # out first
    guess_wrong(game)  # 0: 1 wrong
    guess_wrong(game)  # 1: 1 wrong
    ask_first(game)  # 2
    guess_wrong(game)  # 0 out, second
    guess_wrong(game)  # 1 out, third
    notes = guess_right(game)  # 2 wins
    assert game.result.ranking == ((2,), (1,), (0,), (3,))
    assert notes[-1]["ranking"] == [[2], [1], [0], [3]]


def test_G5_the_players_still_in_share_a_rank_in_ascending_seat_order():
    game = new(4, 8)
    ask_first(game)
    guess_wrong(game)  # 1: still in
    game.apply(Resign(0))
    guess_right(game)  # 2
    assert game.result.ranking == ((2,), (1, 3), (0,))
    assert game.result.to_json() == {"winner": 2, "ranking": [[2], [1, 3], [0]]}


def test_G6_code_and_seed_revealed_at_the_end():
    game = new(2, 2**100 + 9)
    notes = guess_right(game)
    end = notes[-1]
    assert end["code"] == list(game.secret_code()) and end["seed"] == str(2**100 + 9)
    assert public_view(game)["code"] == end["code"]
    assert public_view(game)["seed"] == end["seed"]


def hidden(game, text: str) -> bool:
    return not code_pattern(game.secret_code()).search(text) and str(game.seed) not in text


def test_G6_the_code_appears_nowhere_before_game_ended():
    game = new(3, 2**64 + 77)
    texts = [repr(game)]
    for question in (Led(1, "a"), Led(2, "b"), Led(3, "c")):
        texts.append(json.dumps(ask(game, question)))
        texts += [json.dumps(player_view(game, s)) for s in (None, 0, 1, 2)]
        texts.append(json.dumps(public_view(game)))
    for bad in (Guess(0, (1, 1, 1, 1, 1, 1)), Guess(1, wrong_code(game))):
        try:
            game.apply(bad)
        except Exception as error:  # noqa: BLE001 - any refusal: its text is checked
            texts += [str(error), repr(error), json.dumps(error.as_dict())]
    assert all(hidden(game, text) for text in texts)
    assert "secret" in full_view(game)  # for moderators only, marked as secret
    assert full_view(game)["secret"]["code"] == list(game.secret_code())
