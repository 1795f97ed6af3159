"""Game end G1–G3."""

from games.engine import Code, Decline, Options, Outcome, Pickup, Step, Stop
from tests.engine.scenario import arrange, types
from tests.engine.test_turn import FIVE_TAXIS, refused


def test_G1_the_game_ends_when_the_last_waiting_citizen_is_picked_up():
    game = arrange(taxis=["8H", "2D"], waiting=["9H>5D"], pile_size=1, deadline=2)
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    notes = game.apply(Pickup(0, "5D"))
    assert types(notes) == ["citizen_picked_up", "turn_ended", "game_ended"]
    assert game.over and game.current_player() is None
    assert game.legal_actions() == []
    refused(game, Step(1, "3D"), Code.GAME_OVER, "G1")


def test_G1_even_in_the_middle_of_a_turn_nothing_more_is_played():
    game = arrange(
        taxis=FIVE_TAXIS,
        options=Options(pickup_before_movement=True),
        waiting=["8H>2D"],
        draws=["4H", "4H"],
    )
    notes = game.apply(Pickup(0, "2D"))  # the replacement draw is an identical pair
    assert types(notes) == [
        "citizen_picked_up",
        "cards_discarded",
        "deadline_reached",
        "deadline_reached",
        "turn_ended",
        "game_ended",
    ]
    assert game.over and game.path == []


def test_G2_one_citizen_left_and_every_taxi_empty_ends_the_game_at_the_end_of_the_turn():
    game = arrange(taxis=["8H", "2D"], waiting=["2C>3C"], pile_size=1, deadline=2)
    game.apply(Step(0, "9H"))
    notes = game.apply(Stop(0))
    assert types(notes) == ["turn_ended", "game_ended"]


def test_G2_not_while_a_taxi_still_carries_a_passenger():
    game = arrange(
        taxis=["8H", "2D"], waiting=["2C>3C"], pile_size=1, deadline=2, passengers=[[], ["2S>4S"]]
    )
    game.apply(Step(0, "9H"))
    assert types(game.apply(Stop(0))) == ["turn_ended", "turn_started"]


def test_G2_not_while_two_citizens_wait():
    game = arrange(taxis=["8H", "2D"], waiting=["2C>3C", "4C>5C"], pile_size=1, deadline=2)
    game.apply(Step(0, "9H"))
    assert not game.apply(Stop(0))[-1]["type"] == "game_ended"


def test_G3_riders_pay_nothing_and_equal_incomes_share_a_rank():
    game = arrange(
        taxis=["8H", "2D", "4S"],
        waiting=["9H>5D"],
        pile_size=1,
        deadline=2,
        passengers=[[], [], ["3C>QS", "2C>4H"]],
    )
    game.income = [5, 3, 5]
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    notes = game.apply(Pickup(0, "5D"))
    assert notes[-1] == {"type": "game_ended", "incomes": [5, 3, 5], "ranking": [[0, 2], [1]]}
    assert game.result == Outcome(incomes=(5, 3, 5), ranking=((0, 2), (1,)))
    assert game.result.to_json() == {"incomes": [5, 3, 5], "ranking": [[0, 2], [1]]}


def test_G3_ranking_orders_by_income():
    game = arrange(taxis=["8H", "2D", "4S", "5S"], waiting=["2C>3C"], pile_size=1, deadline=2)
    game.income = [1, 9, 4, 0]
    game.apply(Step(0, "9H"))
    notes = game.apply(Stop(0))
    assert notes[-1]["ranking"] == [[1], [2], [0], [3]]


def test_G1_declining_the_last_citizen_does_not_end_the_game():
    game = arrange(taxis=["8H", "2D"], waiting=["9H>5D", "2C>3C"], pile_size=1, deadline=2)
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    game.apply(Decline(0))
    assert not game.over
