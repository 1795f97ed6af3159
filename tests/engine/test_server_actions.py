"""Clocks and absent players (K1–K4): timeouts, zombies, resignation, moderators."""

import ast
from importlib import resources

import pytest

from games.engine import (
    Code,
    Options,
    Resign,
    Restore,
    Step,
    Stop,
    Timeout,
    Zombify,
    autopilot_action,
    distance,
    new_game,
)
from tests.engine.scenario import arrange, types
from tests.engine.test_turn import SIX_WAITING, refused

FORBIDDEN_IMPORTS = {
    "time",
    "datetime",
    "random",
    "os",
    "socket",
    "threading",
    "asyncio",
    "django",
    "rest_framework",
    "channels",
    "celery",
    "redis",
}


def engine_imports():
    found = set()
    for path in resources.files("games.engine").iterdir():
        if path.name.endswith(".py"):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.Import):
                    found |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    found.add(node.module.split(".")[0])
    return found


def test_K1_the_engine_reads_no_clock_time_limits_arrive_as_timeout_actions():
    assert not engine_imports() & FORBIDDEN_IMPORTS


def test_K2_a_timeout_is_recorded_then_the_autopilot_plays_the_turn():
    game = arrange(
        taxis=["8H", "2D"], waiting=SIX_WAITING, pile_size=10, passengers=[["3C>10H"], []]
    )
    notes = game.apply(Timeout(0))
    assert notes[0] == {"type": "turn_timed_out", "seat": 0, "count": 1}
    assert types(notes)[1:] == ["taxi_moved", "turn_ended", "turn_started"]
    assert distance(game.taxis[0], "10H") == distance("8H", "10H") - 1  # toward the fare
    assert game.active == 1


def test_K2_the_autopilot_picks_up_when_allowed():
    game = arrange(taxis=["8H", "2D"], waiting=["9H>5D", *SIX_WAITING], pile_size=10)
    notes = game.apply(Timeout(0))
    assert game.taxis[0] == "9H"  # the nearest citizen
    assert "citizen_picked_up" in types(notes)
    assert game.passengers[0] == [("9H", "5D")]


def test_K2_a_timeout_mid_turn_finishes_the_turn_from_where_it_is():
    game = arrange(
        taxis=["8H", "2D"],
        options=Options(movement="faster"),
        waiting=SIX_WAITING,
        pile_size=10,
        passengers=[["3C>QH"], []],
    )
    game.apply(Step(0, "9H"))
    notes = game.apply(Timeout(0))
    assert game.passengers[0] == [] and game.income[0] == distance("3C", "QH")
    assert "passenger_dropped_off" in types(notes)


def test_K2_a_timeout_only_for_the_seat_to_move():
    game = arrange(taxis=["8H", "2D"], waiting=SIX_WAITING, pile_size=10)
    refused(game, Timeout(1), Code.NOT_YOUR_TURN)


def test_K2_every_autopilot_action_is_legal():
    for seed in range(30):
        game, _ = new_game(Options(movement="faster", pickup_before_movement=True), 6, seed)
        while not game.over:
            action = autopilot_action(game)
            assert action in game.legal_actions()
            game.apply(action)


def play_turn(game):
    seat = game.active
    game.apply(Step(seat, game.step_choices()[0]))
    if game.active == seat:
        game.apply(Stop(seat))
    if game.active == seat and game.phase == "pickup":
        game.apply({"type": "decline", "seat": seat})


def test_K3_three_timeouts_in_a_row_make_a_zombie():
    game, _ = new_game(Options(), 2, seed=5)
    for count in (1, 2):
        assert game.apply(Timeout(0))[0]["count"] == count
        play_turn(game)
    notes = game.apply(Timeout(0))
    assert notes[:2] == [
        {"type": "turn_timed_out", "seat": 0, "count": 3},
        {"type": "seat_zombified", "seat": 0, "reason": "timeouts"},
    ]
    assert game.zombies == [True, False] and game.active == 1
    turn = game.turn
    play_turn(game)
    # the zombie's whole turn came straight after seat 1's
    assert game.active == 1 and game.turn == turn + 2


def test_K3_a_move_by_the_player_resets_the_count():
    game, _ = new_game(Options(), 2, seed=5)
    game.apply(Timeout(0))
    play_turn(game)
    game.apply(Timeout(0))
    play_turn(game)
    play_turn(game)  # seat 0 plays itself
    play_turn(game)
    assert game.apply(Timeout(0))[0]["count"] == 1


def test_K3_a_player_who_resigns_becomes_a_zombie_at_once():
    game, _ = new_game(Options(), 3, seed=5)
    notes = game.apply(Resign(2))
    assert notes == [{"type": "seat_zombified", "seat": 2, "reason": "resigned"}]
    refused(game, Resign(2), Code.ALREADY_ZOMBIE)
    notes = game.apply(Resign(0))  # the player to move: the autopilot finishes the turn
    assert notes[0] == {"type": "seat_zombified", "seat": 0, "reason": "resigned"}
    assert game.active == 1


def test_K3_a_moderator_can_hand_a_seat_to_the_autopilot_and_restore_it():
    game, _ = new_game(Options(), 2, seed=5)
    assert game.apply(Zombify(1)) == [{"type": "seat_zombified", "seat": 1, "reason": "moderator"}]
    play_turn(game)
    assert game.active == 0
    assert game.apply(Restore(1)) == [{"type": "seat_restored", "seat": 1}]
    refused(game, Restore(1), Code.NOT_ZOMBIE)
    play_turn(game)
    assert game.active == 1  # seat 1 plays for itself again
    refused(game, Zombify(7), Code.NO_SUCH_SEAT)


@pytest.mark.parametrize("players", [2, 4, 8])
def test_K4_a_game_of_zombies_only_plays_to_its_end(players):
    game, _ = new_game(Options(pickup_before_movement=True, movement="fast"), players, seed=3)
    for seat in range(players - 1):
        game.apply(Resign(seat))
    notes = game.apply(Resign(players - 1))
    assert game.over and game.result is not None
    assert notes[-1]["type"] == "game_ended"
