"""Time, absence and the server's actions (C1, C2, and the rules' server-side paragraph)."""

from __future__ import annotations

import itertools

import pytest

from games.digit_code.engine import (
    QUESTIONS,
    Abort,
    Ask,
    Code,
    Count,
    Guess,
    Led,
    MalformedAction,
    Parity,
    Resign,
    Timeout,
    Zombify,
    autopilot_action,
    breaks_rule,
    public_view,
    smallest_consistent_code,
)

from .helpers import ask, ask_first, guess_wrong, new, refused, types


def test_C1_a_timed_out_turn_asks_the_first_question_not_yet_asked():
    game = new(2, 12)
    ask(game, QUESTIONS[0])
    notes = game.apply(Timeout(1))
    assert notes[1]["question"] == QUESTIONS[1].to_json()
    assert autopilot_action(game) == Ask(0, QUESTIONS[2])


def test_C1_with_no_question_left_the_smallest_code_that_agrees_with_every_answer():
    game = new(2, 13)
    while game.legal_actions():
        game.apply(game.legal_actions()[0])
    notes = game.apply(Timeout(game.active))
    assert notes[1]["type"] == "guess_made" and notes[1]["correct"] is True


def brute_smallest(answers, wrong):
    for code in itertools.product(range(10), repeat=6):
        if breaks_rule(code) is None and code not in wrong:
            if all(q.answer(code) == a for q, a in answers):
                return code
    return None


@pytest.mark.parametrize("seed", range(8))
def test_C1_the_smallest_consistent_code_agrees_with_a_search_of_every_code(seed):
    game = new(2, seed)
    code = game.secret_code()
    # a few answers of every kind, and wrong guesses among the smallest consistent codes
    answers = [(q, q.answer(code)) for q in (Count("column", 2), Parity(4), Led(2, "g"))]
    answers += [(q, q.answer(code)) for q in QUESTIONS[18 + seed % 4 : 20 + seed % 4]]
    wrong: list[tuple[int, ...]] = []
    for _ in range(2):
        smallest = brute_smallest(answers, wrong)
        assert smallest_consistent_code(answers, wrong) == smallest
        if smallest == code:
            break
        wrong.append(smallest)


def test_C1_the_autopilot_action_is_always_legal_and_blind_to_the_code():
    for seed in range(5):
        game = new(3, seed)
        while not game.over:
            action = autopilot_action(game)
            assert isinstance(action, Guess) or action in game.legal_actions()
            game.apply(Timeout(game.active) if game.turn % 2 else action)
            if game.over:
                break
            ask_first(game)  # the seat plays itself: its timeout count starts again


def test_absent_on_its_third_timed_out_turn_in_a_row_counted_over_its_own_turns():
    game = new(2, 14)
    for count in (1, 2):
        assert game.apply(Timeout(0))[0]["count"] == count
        ask_first(game)  # seat 1 plays itself
    notes = game.apply(Timeout(0))
    assert notes == [
        {"type": "turn_timed_out", "seat": 0, "count": 3},
        {"type": "seat_zombified", "seat": 0, "reason": "timeouts"},
        {"type": "player_eliminated", "seat": 0},
        {"type": "turn_ended", "seat": 0},
        {"type": "turn_started", "seat": 1},
    ]  # the autopilot does not play the turn that makes the seat absent
    assert game.eliminated == [True, False] and game.zombies == [True, False]


def test_absent_a_turn_the_seat_plays_itself_resets_the_count():
    game = new(2, 14)
    game.apply(Timeout(0))
    ask_first(game)
    game.apply(Timeout(0))
    ask_first(game)
    ask_first(game)  # seat 0 plays: the count starts again
    ask_first(game)
    assert game.apply(Timeout(0))[0]["count"] == 1
    assert game.timeouts == [1, 0]


def test_resign_on_its_turn_ends_the_turn_with_no_action():
    game = new(3, 15)
    notes = game.apply(Resign(0))
    assert notes == [
        {"type": "seat_zombified", "seat": 0, "reason": "resigned"},
        {"type": "player_eliminated", "seat": 0},
        {"type": "turn_ended", "seat": 0},
        {"type": "turn_started", "seat": 1},
    ]


def test_resign_another_seat_between_turns_never_between_an_action_and_its_turn_ended():
    game = new(3, 15)
    ask_first(game)  # seat 1's turn has started
    notes = game.apply(Resign(2))
    assert notes == [
        {"type": "seat_zombified", "seat": 2, "reason": "resigned"},
        {"type": "player_eliminated", "seat": 2},
    ]
    assert game.active == 1
    ask_first(game)
    assert game.active == 0


def test_resign_an_eliminated_seat_logs_only_seat_zombified():
    game = new(3, 16)
    guess_wrong(game)
    ask_first(game)
    ask_first(game)
    guess_wrong(game)  # seat 0 out
    assert game.apply(Resign(0)) == [{"type": "seat_zombified", "seat": 0, "reason": "resigned"}]
    refused(game, Resign(0), Code.ALREADY_ZOMBIE)
    refused(game, Zombify(0), Code.ALREADY_ZOMBIE)


def test_zombify_a_moderator_eliminates_a_seat_for_good():
    game = new(3, 17)
    notes = game.apply(Zombify(1))
    assert types(notes) == ["seat_zombified", "player_eliminated"]
    assert notes[0]["reason"] == "moderator"
    refused(game, Zombify(1), Code.ALREADY_ZOMBIE)
    refused(game, Zombify(5), Code.NO_SUCH_SEAT)
    ask_first(game)
    assert game.active == 2  # no restore: seat 1 is out for good
    with pytest.raises(MalformedAction):
        game.apply({"type": "restore", "seat": 1})


def test_zombify_the_seat_to_play_ends_its_turn_and_the_last_one_ends_the_game():
    game = new(2, 17)
    game.apply(Resign(1))
    notes = game.apply(Zombify(0))
    assert types(notes) == ["seat_zombified", "player_eliminated", "turn_ended", "game_ended"]
    assert notes[-1]["winner"] is None and notes[-1]["ranking"] == [[0], [1]]


def test_abort_reveals_the_code_and_seed_like_any_end():
    game = new(2, 18)
    ask_first(game)
    notes = game.apply(Abort("a moderator's decision"))
    assert notes == [
        {
            "type": "game_aborted",
            "reason": "a moderator's decision",
            "code": list(game.secret_code()),
            "seed": "18",
        }
    ]
    view = public_view(game)
    assert view["status"] == "aborted" and view["code"] == list(game.secret_code())
    assert game.result is None and game.over
    refused(game, Abort("again"), Code.GAME_OVER)


def test_C2_notes_are_not_part_of_the_game_state():
    """Private notes are the platform's (saved per author); the engine neither holds nor
    takes them: no action, no field of the state or of any view."""
    game = new(2, 19)
    with pytest.raises(MalformedAction):
        game.apply({"type": "note", "seat": 0, "position": 1, "ruled_out": [3]})
    assert not any("note" in name for name in type(game).__slots__)
    assert not any("note" in key for key in public_view(game))
