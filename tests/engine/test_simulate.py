"""`python -m games.engine simulate` as CONTRACT.md specifies it."""

import json
import subprocess
import sys

import pytest


def simulate(*args):
    return subprocess.run(
        [sys.executable, "-m", "games.engine", "simulate", *args], capture_output=True, text=True
    )


def lines(*args):
    run = simulate(*args)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_one_json_line_per_game_seed_plus_k():
    games = lines("--players", "4", "--seed", "7", "--games", "3")
    assert [g["seed"] for g in games] == [7, 8, 9]
    for game in games:
        assert set(game) == {"rules_version", "seed", "options", "notifications", "result"}
        assert game["rules_version"] == "1"
        assert game["options"] == {
            "players": 4,
            "shift_change": False,
            "pickup_before_movement": False,
            "movement": "normal",
        }
        assert game["notifications"][0]["type"] == "game_started"
        ended = game["notifications"][-1]
        assert ended["type"] == "game_ended"
        assert game["result"] == {"incomes": ended["incomes"], "ranking": ended["ranking"]}


def test_options_and_policies_and_determinism():
    args = (
        "--players",
        "6",
        "--seed",
        "1",
        "--shift-change",
        "--pickup-before-movement",
        "--movement",
        "faster",
        "--policy",
        "random",
    )
    first = lines(*args)
    assert first == lines(*args)
    assert first[0]["options"] == {
        "players": 6,
        "shift_change": True,
        "pickup_before_movement": True,
        "movement": "faster",
    }
    assert lines("--players", "2", "--seed", "1", "--policy", "autopilot")[0]["result"]


def test_max_turns_counts_turns_and_cuts_the_game_off():
    (game,) = lines("--players", "3", "--seed", "2", "--max-turns", "5")
    assert game["result"] is None
    started = [n for n in game["notifications"] if n["type"] == "turn_started"]
    assert len(started) == 6  # five played, the sixth announced and not played
    assert game["notifications"][-1]["type"] == "turn_started"


@pytest.mark.parametrize(
    "args",
    [
        ("--players", "1", "--seed", "1"),
        ("--players", "9", "--seed", "1"),
        ("--players", "5", "--seed", "1"),
        ("--players", "4"),
        ("--players", "4", "--seed", "x"),
        ("--players", "4", "--seed", "1", "--movement", "warp"),
        ("--players", "4", "--seed", "1", "--policy", "smart"),
        ("--players", "4", "--seed", "1", "--games", "0"),
        ("--players", "4", "--seed", "1", "--bogus"),
    ],
)
def test_invalid_arguments_exit_2_with_one_line(args):
    run = simulate(*args)
    assert run.returncode == 2
    assert run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
