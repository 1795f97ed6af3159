"""Pickup limits P1–P4."""

from games.engine import Code, Decline, Options, Pickup, Step, Stop, distance
from tests.engine.scenario import arrange, types
from tests.engine.test_turn import FIVE_TAXIS, SIX_WAITING, refused


def stopped_on_9h(**kwargs):
    game = arrange(taxis=kwargs.pop("taxis", ["8H", "2D"]), **kwargs)
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    return game


def test_P1_a_taxi_carries_at_most_three_passengers():
    game = stopped_on_9h(
        waiting=["9H>5D", *SIX_WAITING], pile_size=10, passengers=[["2C>4H", "3C>4H", "5C>4H"], []]
    )
    assert game.active == 1  # nothing could be picked up: the stop ended the turn
    game = arrange(
        taxis=["8H", "2D"],
        waiting=["9H>5D", *SIX_WAITING],
        pile_size=10,
        passengers=[["2C>4H", "3C>4H", "5C>4H"], []],
    )
    game.apply(Step(0, "9H"))
    game.phase = "pickup"  # force the question the stop would not ask
    refused(game, Pickup(0, "5D"), Code.PICKUP_NOT_ALLOWED, "P1")


def test_P1_a_third_passenger_is_fine():
    game = stopped_on_9h(
        waiting=["9H>5D", *SIX_WAITING], pile_size=10, passengers=[["2C>4H", "3C>4H"], []]
    )
    game.apply(Pickup(0, "5D"))
    assert len(game.passengers[0]) == 3


def test_P2_no_third_passenger_once_the_pile_is_exhausted():
    game = stopped_on_9h(
        waiting=["9H>5D", *SIX_WAITING],
        pile_size=1,
        deadline=1,
        passengers=[["2C>4H", "3C>4H"], []],
    )
    assert game.active == 1
    assert ("9H", "5D") in game.waiting


def test_P2_a_second_passenger_is_still_fine_once_the_pile_is_exhausted():
    game = stopped_on_9h(
        waiting=["9H>5D", *SIX_WAITING], pile_size=1, deadline=1, passengers=[["2C>4H"], []]
    )
    game.apply(Pickup(0, "5D"))
    assert len(game.passengers[0]) == 2


def test_P2_refusal_names_the_clause():
    game = arrange(
        taxis=["8H", "2D"],
        waiting=["9H>5D", *SIX_WAITING],
        pile_size=1,
        deadline=1,
        passengers=[["2C>4H", "3C>4H"], []],
    )
    game.apply(Step(0, "9H"))
    game.phase = "pickup"
    refused(game, Pickup(0, "5D"), Code.PICKUP_NOT_ALLOWED, "P2")


def test_P3_while_at_most_four_wait_only_an_empty_taxi_picks_up():
    waiting = ["9H>5D", "2C>3C", "4C>5C", "6C>7C"]
    game = stopped_on_9h(waiting=waiting, pile_size=1, deadline=2, passengers=[["2S>4H"], []])
    assert game.active == 1 and ("9H", "5D") in game.waiting
    game = arrange(
        taxis=["8H", "2D"], waiting=waiting, pile_size=1, deadline=2, passengers=[["2S>4H"], []]
    )
    game.apply(Step(0, "9H"))
    game.phase = "pickup"
    refused(game, Pickup(0, "5D"), Code.PICKUP_NOT_ALLOWED, "P3")
    game = stopped_on_9h(waiting=waiting, pile_size=1, deadline=2)
    game.apply(Pickup(0, "5D"))
    assert game.passengers[0] == [("9H", "5D")]


def test_P3_counts_the_waiting_citizens_before_this_pickup():
    game = stopped_on_9h(
        waiting=["9H>5D", "2C>3C", "4C>5C", "6C>7C", "8C>9C"],
        pile_size=1,
        deadline=1,
        passengers=[["2S>4H"], []],
    )
    game.apply(Pickup(0, "5D"))  # five wait before it, four after
    assert len(game.passengers[0]) == 2


def test_P4_picking_up_is_a_choice():
    game = stopped_on_9h(waiting=["9H>5D", *SIX_WAITING], pile_size=10)
    assert Decline(0) in game.legal_actions()
    game.apply(Decline(0))
    assert game.passengers[0] == [] and ("9H", "5D") in game.waiting


def test_P4_two_citizens_on_one_area_pick_zero_one_or_two():
    waiting = ["9H>5D", "9H>3C", *SIX_WAITING]
    game = stopped_on_9h(taxis=FIVE_TAXIS, waiting=waiting, pile_size=20)
    assert game.legal_actions() == [Pickup(0, "3C"), Pickup(0, "5D"), Decline(0)]
    none = game.clone()
    none.apply(Decline(0))
    assert none.passengers[0] == []
    one = game.clone()
    one.apply(Pickup(0, "3C"))
    one.apply(Decline(0))
    assert one.passengers[0] == [("9H", "3C")]
    game.apply(Pickup(0, "5D"))
    game.apply(Pickup(0, "3C"))
    assert game.passengers[0] == [("9H", "5D"), ("9H", "3C")]
    assert game.active == 1


def test_P4_each_of_two_is_checked_against_the_limits_one_at_a_time():
    waiting = ["9H>5D", "9H>3C", "2C>3D", "4C>5S"]  # exhausted pile, only 5 wait... then 4
    game = stopped_on_9h(taxis=FIVE_TAXIS, waiting=[*waiting, "6C>7S"], pile_size=1, deadline=1)
    notes = game.apply(Pickup(0, "3C"))
    assert "citizen_added" not in types(notes)  # the pile is exhausted
    assert types(notes)[-2:] == ["turn_ended", "turn_started"]  # P3 forbids the second
    assert ("9H", "5D") in game.waiting


def test_P4_all_passengers_with_this_destination_get_off_together_and_each_pays():
    game = arrange(
        taxis=["8H", "2D"],
        waiting=SIX_WAITING,
        pile_size=10,
        passengers=[["3C>9H", "5D>9H", "2S>4S"], []],
    )
    game.apply(Step(0, "9H"))
    notes = game.apply(Stop(0))
    drops = [n for n in notes if n["type"] == "passenger_dropped_off"]
    assert [(n["origin"], n["fare"]) for n in drops] == [
        ("3C", distance("3C", "9H")),
        ("5D", distance("5D", "9H")),
    ]
    assert game.income[0] == distance("3C", "9H") + distance("5D", "9H")
    assert game.passengers[0] == [("2S", "4S")]


def test_P1_to_P3_apply_to_pre_movement_pickups_too():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(pickup_before_movement=True),
        waiting=["8H>2D", *SIX_WAITING],
        pile_size=10,
        passengers=[["2C>4H", "3C>4H", "5C>4H"], []],
    )
    assert Pickup(0, "2D") not in game.legal_actions()
    refused(game, Pickup(0, "2D"), Code.PICKUP_NOT_ALLOWED, "P1")
