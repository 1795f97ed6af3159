"""Turns (P2, P3): the order of play and the notifications of a turn."""

from __future__ import annotations

from games.digit_code.engine import Ask, Code, Parity, Resign, Timeout

from .helpers import ask_first, guess_right, guess_wrong, new, refused, types


def test_P2_seat_0_first_then_round_the_seats():
    game = new(3, 2)
    order = [game.active]
    for _ in range(6):
        ask_first(game)
        order.append(game.active)
    assert order == [0, 1, 2, 0, 1, 2, 0]


def test_P2_only_the_seat_to_play_acts():
    game = new(3, 2)
    refused(game, Ask(1, Parity(1)), Code.NOT_YOUR_TURN, "P2")
    refused(game, Timeout(2), Code.NOT_YOUR_TURN, "P2")
    refused(game, Timeout(3), Code.NO_SUCH_SEAT)


def test_P2_the_next_turn_goes_to_the_next_seat_still_in():
    game = new(4, 3)
    game.apply(Resign(2))
    ask_first(game)  # seat 0
    ask_first(game)  # seat 1
    assert game.active == 3  # seat 2 is skipped
    guess_wrong(game)  # 3
    ask_first(game)  # 0
    ask_first(game)  # 1
    guess_wrong(game)  # 3 is eliminated
    assert game.active == 0


def test_P2_an_eliminated_seat_never_plays_and_never_times_out():
    game = new(3, 3)
    guess_wrong(game)
    ask_first(game)
    ask_first(game)
    guess_wrong(game)  # seat 0 is out
    for _ in range(4):
        assert game.active != 0
        ask_first(game)
    refused(game, Timeout(0), Code.SEAT_ELIMINATED, "G3")
    assert game.timeouts[0] == 0


def test_P3_an_ask_is_the_whole_turn():
    game = new(2, 4)
    notes = ask_first(game)
    assert types(notes) == ["question_asked", "turn_ended", "turn_started"]
    assert notes[1] == {"type": "turn_ended", "seat": 0}
    assert notes[2] == {"type": "turn_started", "seat": 1}


def test_P3_a_wrong_guess_then_the_turn_passes():
    game = new(2, 4)
    assert types(guess_wrong(game)) == ["guess_made", "turn_ended", "turn_started"]


def test_P3_an_eliminating_guess_announces_the_elimination_before_turn_ended():
    game = new(3, 4)
    guess_wrong(game)
    ask_first(game)
    ask_first(game)
    notes = guess_wrong(game)
    assert types(notes) == ["guess_made", "player_eliminated", "turn_ended", "turn_started"]
    assert notes[1] == {"type": "player_eliminated", "seat": 0}


def test_P3_turn_ended_also_after_a_right_guess():
    game = new(2, 4)
    assert types(guess_right(game)) == ["guess_made", "turn_ended", "game_ended"]


def test_P3_turn_ended_also_after_the_last_elimination():
    game = new(2, 4)
    for _ in range(3):
        guess_wrong(game)
    notes = guess_wrong(game)
    assert types(notes) == ["guess_made", "player_eliminated", "turn_ended", "game_ended"]


def test_P3_a_timed_out_turn_announces_the_timeout_first():
    game = new(2, 4)
    notes = game.apply(Timeout(0))
    assert types(notes) == ["turn_timed_out", "question_asked", "turn_ended", "turn_started"]
    assert notes[0] == {"type": "turn_timed_out", "seat": 0, "count": 1}
