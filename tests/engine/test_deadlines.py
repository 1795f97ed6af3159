"""Deadlines D1–D4."""

from games.engine import Code, Deadline, Options, Pickup, Step, Stop
from tests.engine.scenario import arrange, types
from tests.engine.test_turn import FIVE_TAXIS, SIX_WAITING, refused


def pick_9h_5d(game):
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    return game.apply(Pickup(0, "5D"))


def test_D1_reached_the_moment_the_pile_is_exhausted_right_after_the_draw():
    game = arrange(
        taxis=["8H", "2D"], waiting=["9H>5D", *SIX_WAITING], draws=["4H", "QS"], pile_size=3
    )
    notes = pick_9h_5d(game)
    assert types(notes)[:3] == ["citizen_picked_up", "citizen_added", "deadline_reached"]
    assert notes[1]["pile"] == 1
    assert notes[2] == {"type": "deadline_reached", "number": 1, "cause": "pile"}
    assert game.deadline == 1


def test_D1_an_identical_pair_can_exhaust_the_pile():
    game = arrange(
        taxis=FIVE_TAXIS, waiting=["9H>5D", *SIX_WAITING], draws=["4H", "4H"], pile_size=3
    )
    notes = pick_9h_5d(game)
    assert types(notes)[:3] == ["citizen_picked_up", "cards_discarded", "deadline_reached"]


def test_D1_not_while_two_cards_remain():
    game = arrange(taxis=["8H", "2D"], waiting=["9H>5D", *SIX_WAITING], pile_size=4)
    notes = pick_9h_5d(game)
    assert "deadline_reached" not in types(notes) and game.deadline == 0


def test_D2_reached_when_at_most_four_wait_after_the_replacement_draw():
    game = arrange(
        taxis=["8H", "2D"],
        waiting=["9H>5D", "2C>3C", "4C>5C", "6C>7C", "8C>9C"],
        pile_size=1,
        deadline=1,
    )
    notes = pick_9h_5d(game)
    assert notes[:2] == [
        {"type": "citizen_picked_up", "seat": 0, "area": "9H", "origin": "9H", "destination": "5D"},
        {"type": "deadline_reached", "number": 2, "cause": "waiting"},
    ]
    assert game.deadline == 2


def test_D2_not_while_a_replacement_keeps_five_waiting():
    game = arrange(
        taxis=["8H", "2D"], waiting=["9H>5D", "2C>3C", "4C>5C", "6C>7C", "8C>9C"], pile_size=4
    )
    assert "deadline_reached" not in types(pick_9h_5d(game))


def test_D3_deadlines_are_latched_and_recorded_once():
    game = arrange(
        taxis=["8H", "2D"],
        waiting=["9H>5D", *SIX_WAITING],
        draws=["4H", "QS"],
        pile_size=3,
        options=Options(movement="fast"),
    )
    assert types(pick_9h_5d(game)).count("deadline_reached") == 1
    refused(game, Deadline(1), Code.DEADLINE_ALREADY_REACHED, "D3")
    game.apply(Step(1, "3D"))
    game.apply(Step(1, "4D"))
    notes = game.apply(Stop(1))
    assert "deadline_reached" not in types(notes)
    assert game.deadline == 1 and game.allowance() == 3


def test_D4_a_clock_deadline_is_recorded_when_it_passes():
    game = arrange(
        taxis=["8H", "2D"], options=Options(movement="fast"), waiting=SIX_WAITING, pile_size=10
    )
    assert game.apply(Deadline(1)) == [{"type": "deadline_reached", "number": 1, "cause": "clock"}]
    assert game.allowance() == 3


def test_D4_the_second_clock_deadline_also_reaches_the_first():
    game = arrange(
        taxis=["8H", "2D"], options=Options(movement="faster"), waiting=SIX_WAITING, pile_size=10
    )
    assert game.apply(Deadline(2)) == [
        {"type": "deadline_reached", "number": 1, "cause": "clock"},
        {"type": "deadline_reached", "number": 2, "cause": "clock"},
    ]
    assert game.allowance() == 7


def test_D4_a_clock_deadline_raises_the_allowance_only_not_the_pickup_limits():
    game = arrange(
        taxis=["8H", "2D"],
        waiting=["9H>5D", "2C>3C", "4C>5C", "6C>7C", "8C>9C"],
        pile_size=10,
        passengers=[["2C>4H", "3C>4H"], []],
    )
    game.apply(Deadline(2))
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    game.apply(Pickup(0, "5D"))  # P2 follows the pile (not exhausted), P3 the count (5)
    assert len(game.passengers[0]) == 3


def test_D4_under_normal_movement_deadlines_grant_nothing():
    game = arrange(taxis=["8H", "2D"], waiting=SIX_WAITING, pile_size=10)
    game.apply(Deadline(2))
    assert game.allowance() == 1


def test_D4_the_rule_trigger_still_applies_after_a_clock_deadline():
    game = arrange(
        taxis=["8H", "2D"], waiting=["9H>5D", "2C>3C", "4C>5C", "6C>7C", "8C>9C"], pile_size=1
    )
    game.apply(Deadline(1))  # the clock, while the pile is in fact already short
    notes = pick_9h_5d(game)
    assert {"type": "deadline_reached", "number": 2, "cause": "waiting"} in notes
