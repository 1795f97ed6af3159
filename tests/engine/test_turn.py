"""A turn: allowance (T1), pre-movement pickup (T2), steps (T3), undo (T4), the stop (T5),
replacement citizens (T6), blocked taxis (T7) and the next seat (T8)."""

import pytest

from games.engine import (
    Code,
    Deadline,
    Decline,
    IllegalAction,
    Options,
    Pass,
    Pickup,
    Step,
    Stop,
    Turn,
    Undo,
    distance,
)
from games.engine.board import NEIGHBOURS
from tests.engine.scenario import arrange, types

SIX_WAITING = ["2C>3C", "4C>5C", "6C>7C", "8C>9C", "JC>QC", "KC>AC"]
FIVE_TAXIS = ["8H", "2D", "4S", "5S", "6S"]  # seat 0 on 8H, the others far away


def refused(game, action, code, clause=None):
    before = game.clone()
    with pytest.raises(IllegalAction) as error:
        game.apply(action)
    assert error.value.code == code
    if clause:
        assert error.value.clause == clause
    assert game == before  # an illegal action changes nothing
    return error.value


def walk(game, steps):
    """Take `steps` steps with the active taxi, never back to the start area."""
    seat = game.active
    for _ in range(steps):
        game.apply(Step(seat, game.step_choices()[0]))


def next_free_area(game):
    seat = game.active
    here = game.taxis[seat]
    return next(a for a in NEIGHBOURS[here] if a != game.turn_start and a not in game.taxis)


@pytest.mark.parametrize(
    ("movement", "deadline", "allowance"),
    [
        ("normal", 0, 1),
        ("normal", 1, 1),
        ("normal", 2, 1),
        ("fast", 0, 2),
        ("fast", 1, 3),
        ("fast", 2, 4),
        ("faster", 0, 3),
        ("faster", 1, 5),
        ("faster", 2, 7),
    ],
)
def test_T1_movement_allowance(movement, deadline, allowance):
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(movement=movement),
        deadline=deadline,
        waiting=SIX_WAITING,
        pile_size=10,
    )
    assert game.allowance() == allowance
    walk(game, allowance)
    error = refused(game, Step(0, next_free_area(game)), Code.ALLOWANCE_EXCEEDED, "T1")
    assert str(allowance) in error.message
    assert game.legal_actions()[-1] == Stop(0)


def test_T1_turn_started_announces_the_allowance_at_the_start():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(movement="faster"),
        waiting=SIX_WAITING,
        pile_size=10,
        deadline=1,
    )
    game.apply(Step(0, "9H"))
    notes = game.apply(Stop(0))
    assert notes[-1] == {"type": "turn_started", "seat": 1, "allowance": 5}


def test_T1_deadline_reached_by_a_pre_movement_pickup_counts_for_this_turns_movement():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(movement="fast", pickup_before_movement=True),
        waiting=["8H>2D", *SIX_WAITING],
        draws=["7C", "2S"],
    )
    assert game.allowance() == 2
    notes = game.apply(Pickup(0, "2D"))
    assert types(notes) == ["citizen_picked_up", "citizen_added", "deadline_reached"]
    assert game.allowance() == 3
    walk(game, 3)
    assert len(game.path) == 3


def test_T2_pre_movement_pickup_only_with_the_option():
    game = arrange(taxis=["8H", "2D"], waiting=["8H>2D", *SIX_WAITING], pile_size=10)
    assert Pickup(0, "2D") not in game.legal_actions()
    refused(game, Pickup(0, "2D"), Code.PICKUP_NOT_ALLOWED, "T5")


def test_T2_pre_movement_pickup_then_move():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(pickup_before_movement=True),
        waiting=["8H>2D", *SIX_WAITING],
        pile_size=10,
    )
    assert game.legal_actions()[0] == Pickup(0, "2D")
    notes = game.apply(Pickup(0, "2D"))
    assert notes[0] == {
        "type": "citizen_picked_up",
        "seat": 0,
        "area": "8H",
        "origin": "8H",
        "destination": "2D",
    }
    assert game.passengers[0] == [("8H", "2D")]
    assert game.active == 0 and game.phase == "move"  # the turn goes on: now move
    game.apply(Step(0, "9H"))
    assert game.taxis[0] == "9H"


def test_T2_no_pre_movement_pickup_after_a_step_even_an_undone_one():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(pickup_before_movement=True),
        waiting=["8H>2D", *SIX_WAITING],
        pile_size=10,
    )
    game.apply(Step(0, "9H"))
    game.apply(Undo(0))
    assert game.taxis[0] == "8H"
    assert Pickup(0, "2D") not in game.legal_actions()
    refused(game, Pickup(0, "2D"), Code.PICKUP_NOT_ALLOWED, "T2")


def test_T2_no_pre_movement_pickup_once_the_pile_is_exhausted():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(pickup_before_movement=True),
        waiting=["8H>2D", *SIX_WAITING],
        pile_size=1,
        deadline=1,
    )
    refused(game, Pickup(0, "2D"), Code.PICKUP_NOT_ALLOWED, "T2")


def test_T2_each_pre_movement_pickup_tests_the_pile_one_at_a_time():
    taxis = FIVE_TAXIS
    game = arrange(taxis=taxis, waiting=["8H>2D", "8H>3C", *SIX_WAITING], draws=["4H", "5H"])
    assert {a.destination for a in game.legal_actions() if isinstance(a, Pickup)} == {"2D", "3C"}
    game.apply(Pickup(0, "3C"))  # the replacement empties the pile
    assert game.pile_exhausted
    refused(game, Pickup(0, "2D"), Code.PICKUP_NOT_ALLOWED, "T2")


def test_T3_step_to_an_adjacent_free_area():
    game = arrange(taxis=["8H", "2D"], waiting=SIX_WAITING, pile_size=10)
    notes = game.apply(Step(0, "9H"))
    assert notes == [{"type": "taxi_moved", "seat": 0, "from": "8H", "to": "9H"}]
    assert game.taxis == ["9H", "2D"]


def test_T3_not_adjacent():
    game = arrange(taxis=["8H", "2D"], waiting=SIX_WAITING, pile_size=10)
    refused(game, Step(0, "QH"), Code.NOT_ADJACENT, "T3")


def test_T3_area_holds_another_taxi():
    game = arrange(taxis=["8H", "9H"], waiting=SIX_WAITING, pile_size=10)
    assert Step(0, "9H") not in game.legal_actions()
    refused(game, Step(0, "9H"), Code.AREA_OCCUPIED, "T3")


def test_T3_never_back_to_the_area_where_the_turn_began():
    game = arrange(
        taxis=["8H", "2D"], options=Options(movement="fast"), waiting=SIX_WAITING, pile_size=10
    )
    game.apply(Step(0, "9H"))
    assert Step(0, "8H") not in game.legal_actions()
    refused(game, Step(0, "8H"), Code.START_AREA, "T3")


def test_T3_other_areas_may_be_visited_twice():
    game = arrange(
        taxis=["8H", "2D"], options=Options(movement="faster"), waiting=SIX_WAITING, pile_size=10
    )
    for to in ("9H", "10H", "9H"):
        game.apply(Step(0, to))
    assert game.taxis[0] == "9H"


def test_T3_the_first_step_is_mandatory():
    game = arrange(taxis=["8H", "2D"], waiting=SIX_WAITING, pile_size=10)
    assert Stop(0) not in game.legal_actions()
    refused(game, Stop(0), Code.STEP_REQUIRED, "T3")


def test_T4_undo_takes_back_the_last_step():
    game = arrange(
        taxis=["8H", "2D"], options=Options(movement="fast"), waiting=SIX_WAITING, pile_size=10
    )
    game.apply(Step(0, "9H"))
    game.apply(Step(0, "10H"))
    assert game.apply(Undo(0)) == [{"type": "move_undone", "seat": 0, "from": "10H", "to": "9H"}]
    assert game.apply(Undo(0)) == [{"type": "move_undone", "seat": 0, "from": "9H", "to": "8H"}]
    assert game.taxis[0] == "8H" and game.path == []
    refused(game, Undo(0), Code.NOTHING_TO_UNDO, "T4")
    refused(game, Stop(0), Code.STEP_REQUIRED, "T3")  # the first step is still owed


def test_T4_at_most_five_undos_per_turn():
    game = arrange(taxis=["8H", "2D"], waiting=SIX_WAITING, pile_size=10)
    for _ in range(5):
        game.apply(Step(0, "9H"))
        game.apply(Undo(0))
    game.apply(Step(0, "9H"))
    assert Undo(0) not in game.legal_actions()
    refused(game, Undo(0), Code.UNDO_LIMIT, "T4")
    game.apply(Stop(0))
    game.apply(Step(1, "3D"))
    game.apply(Undo(1))  # the count is per turn
    assert game.undos == 1


def test_T4_nothing_after_the_stop_can_be_undone():
    game = arrange(taxis=["8H", "2D"], waiting=["9H>5D", *SIX_WAITING], pile_size=10)
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    assert game.phase == "pickup"
    refused(game, Undo(0), Code.MOVEMENT_OVER, "T4")


def test_T4_a_pickup_is_not_undone_with_the_step_after_it():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(pickup_before_movement=True),
        waiting=["8H>2D", *SIX_WAITING],
        pile_size=10,
    )
    game.apply(Pickup(0, "2D"))
    game.apply(Step(0, "9H"))
    game.apply(Undo(0))
    assert game.passengers[0] == [("8H", "2D")]


def test_T5_at_the_stop_drop_offs_come_first_then_pickups():
    game = arrange(
        taxis=["8H", "2D"],
        waiting=["9H>5D", *SIX_WAITING],
        passengers=[["3C>9H"], []],
        pile_size=10,
    )
    game.apply(Step(0, "9H"))
    notes = game.apply(Stop(0))
    assert game.income[0] == 3 == distance("3C", "9H")
    assert notes == [
        {
            "type": "passenger_dropped_off",
            "seat": 0,
            "area": "9H",
            "origin": "3C",
            "destination": "9H",
            "fare": 3,
        }
    ]
    assert game.legal_actions() == [Pickup(0, "5D"), Decline(0)]
    notes = game.apply(Pickup(0, "5D"))
    assert types(notes) == ["citizen_picked_up", "citizen_added", "turn_ended", "turn_started"]


def test_T5_no_step_after_the_stop():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(movement="faster"),
        waiting=["9H>5D", *SIX_WAITING],
        pile_size=10,
    )
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    refused(game, Step(0, "10H"), Code.MOVEMENT_OVER, "T5")


def test_T5_pickups_happen_only_at_the_stop():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(movement="fast"),
        waiting=["9H>5D", *SIX_WAITING],
        pile_size=10,
    )
    game.apply(Step(0, "9H"))
    refused(game, Pickup(0, "5D"), Code.PICKUP_NOT_ALLOWED, "T5")


def test_T5_a_stop_with_nothing_to_pick_up_ends_the_turn():
    game = arrange(taxis=["8H", "2D"], waiting=SIX_WAITING, pile_size=10)
    game.apply(Step(0, "9H"))
    assert types(game.apply(Stop(0))) == ["turn_ended", "turn_started"]
    assert game.active == 1


def test_T5_decline_ends_the_turn_without_pickup():
    game = arrange(taxis=["8H", "2D"], waiting=["9H>5D", *SIX_WAITING], pile_size=10)
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    assert types(game.apply(Decline(0))) == ["turn_ended", "turn_started"]
    assert ("9H", "5D") in game.waiting
    refused(game, Decline(1), Code.NOT_PICKING_UP, "P4")


def test_T5_T6_a_replacement_drawn_onto_this_area_during_the_stop_may_be_picked_up():
    game = arrange(
        taxis=FIVE_TAXIS, waiting=["9H>5D", *SIX_WAITING], draws=["9H", "4C"], pile_size=10
    )
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    notes = game.apply(Pickup(0, "5D"))
    assert notes[1] == {"type": "citizen_added", "origin": "9H", "destination": "4C", "pile": 8}
    assert game.legal_actions() == [Pickup(0, "4C"), Decline(0)]
    game.apply(Pickup(0, "4C"))
    assert game.passengers[0] == [("9H", "5D"), ("9H", "4C")]


def test_T5_a_whole_turn_in_one_request_equals_its_parts():
    one = arrange(
        taxis=["8H", "2D"],
        options=Options(movement="fast"),
        waiting=["10H>5D", *SIX_WAITING],
        pile_size=10,
    )
    parts = one.clone()
    notes = one.apply(Turn(0, steps=("9H", "10H"), pickups=("5D",)))
    expected = []
    for action in (Step(0, "9H"), Step(0, "10H"), Stop(0), Pickup(0, "5D")):
        expected += parts.apply(action)
    assert notes == expected and one == parts


def test_T5_a_whole_turn_declines_pickups_it_does_not_name():
    game = arrange(taxis=["8H", "2D"], waiting=["9H>5D", *SIX_WAITING], pile_size=10)
    notes = game.apply({"type": "turn", "seat": 0, "steps": ["9H"]})
    assert types(notes) == ["taxi_moved", "turn_ended", "turn_started"]
    assert ("9H", "5D") in game.waiting


def test_T5_a_whole_turn_is_all_or_nothing():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(movement="fast"),
        waiting=["10H>5D", *SIX_WAITING],
        pile_size=10,
    )
    refused(game, Turn(0, steps=("9H", "QH")), Code.NOT_ADJACENT, "T3")
    refused(game, Turn(0, steps=("9H", "10H"), pickups=("7C",)), Code.NO_SUCH_CITIZEN, "T5")
    refused(game, Turn(0, steps=()), Code.NOT_BLOCKED, "T7")


def test_T6_each_pickup_is_replaced_at_once():
    game = arrange(
        taxis=["8H", "2D"], waiting=["9H>5D", *SIX_WAITING], draws=["4H", "QS"], pile_size=6
    )
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    notes = game.apply(Pickup(0, "5D"))
    assert notes[:2] == [
        {"type": "citizen_picked_up", "seat": 0, "area": "9H", "origin": "9H", "destination": "5D"},
        {"type": "citizen_added", "origin": "4H", "destination": "QS", "pile": 4},
    ]
    assert len(game.waiting) == 7


def blocked_game(**kwargs):
    """Seat 0 on 5D (neighbours 2S, 4D, 6D) boxed in by seats 1–3; seat 4 is to move."""
    return arrange(taxis=["5D", "2S", "4D", "6D", "10H"], active=4, **kwargs)


def test_T7_a_blocked_taxi_passes_its_turn():
    game = blocked_game(waiting=SIX_WAITING, passengers=[["3C>5D"], [], [], [], []], pile_size=10)
    game.apply(Step(4, "9H"))
    notes = game.apply(Stop(4))
    assert types(notes) == [
        "turn_ended",
        "turn_started",
        "turn_passed",
        "turn_ended",
        "turn_started",
    ]
    assert notes[2] == {"type": "turn_passed", "seat": 0}
    assert game.active == 1
    assert game.passengers[0] == [("3C", "5D")]  # no drop-off when blocked


def test_T7_a_blocked_taxi_may_still_pick_up_before_the_pass():
    game = blocked_game(waiting=["5D>3C", *SIX_WAITING], pile_size=10)
    game.apply(Step(4, "9H"))
    game.apply(Stop(4))
    assert game.active == 0
    assert game.legal_actions() == [Pickup(0, "3C"), Pass(0)]
    notes = game.apply(Pickup(0, "3C"))
    assert types(notes) == [
        "citizen_picked_up",
        "citizen_added",
        "turn_passed",
        "turn_ended",
        "turn_started",
    ]
    assert game.active == 1


def test_T7_a_blocked_taxi_may_decline_and_pass():
    game = blocked_game(waiting=["5D>3C", *SIX_WAITING], pile_size=10)
    game.apply(Step(4, "9H"))
    game.apply(Stop(4))
    assert types(game.apply(Pass(0))) == ["turn_passed", "turn_ended", "turn_started"]
    assert ("5D", "3C") in game.waiting


def test_T7_pass_is_only_for_blocked_taxis():
    game = arrange(taxis=["8H", "2D"], waiting=SIX_WAITING, pile_size=10)
    refused(game, Pass(0), Code.NOT_BLOCKED, "T7")


def test_T8_then_the_next_seat_plays_and_no_one_else():
    game = arrange(taxis=["8H", "2D", "4S"], waiting=SIX_WAITING, pile_size=10, active=2)
    refused(game, Step(0, "9H"), Code.NOT_YOUR_TURN, "T8")
    game.apply(Step(2, "3S"))
    game.apply(Stop(2))
    assert game.active == 0  # after the last seat, the first
    refused(game, Step(5, "9H"), Code.NO_SUCH_SEAT)


def test_T8_turn_ends_with_turn_ended_then_the_next_turn_starts():
    game = arrange(taxis=["8H", "2D"], waiting=SIX_WAITING, pile_size=10)
    game.apply(Step(0, "9H"))
    notes = game.apply(Stop(0))
    assert notes == [
        {"type": "turn_ended", "seat": 0},
        {"type": "turn_started", "seat": 1, "allowance": 1},
    ]


def test_T1_a_clock_deadline_mid_turn_raises_the_allowance_from_then_on():
    game = arrange(
        taxis=["8H", "2D"], options=Options(movement="fast"), waiting=SIX_WAITING, pile_size=10
    )
    walk(game, 2)
    game.apply(Deadline(1))
    walk(game, 1)
    assert len(game.path) == 3
