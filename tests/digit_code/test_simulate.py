"""`python -m games.digit_code.engine simulate` (the shape of CONTRACT.md's simulator)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from games.digit_code.engine import Options, Setup, replay_notifications
from games.digit_code.engine.simulate import POLICIES, simulate


def run(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "games.digit_code.engine", "simulate", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_simulate_prints_one_json_line_per_game():
    done = run("--players", "3", "--seed", "7", "--games", "2")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["seed"] for line in lines] == [7, 8]
    for line in lines:
        assert set(line) == {"rules_version", "seed", "options", "notifications", "result"}
        assert line["options"] == {"players": 3}
        assert line["notifications"][0]["type"] == "game_started"
        assert line["notifications"][-1]["type"] == "game_ended"
        assert set(line["result"]) == {"winner", "ranking"}


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_plays_games_to_the_end(policy):
    for line in simulate(players=2, seed=3, games=2, policy=policy):
        assert line["result"] is not None
        assert line["notifications"][-1]["type"] == "game_ended"
        assert line["notifications"][-1]["winner"] == line["result"]["winner"]


def test_max_turns_cuts_a_game_off_with_no_result():
    (line,) = simulate(players=2, seed=1, max_turns=3)
    assert line["result"] is None


@pytest.mark.parametrize(
    "args",
    [
        ("--players", "5", "--seed", "1"),
        ("--players", "2"),
        ("--players", "2", "--seed", "1", "--policy", "medium"),
        ("--players", "2", "--seed", "1", "--games", "0"),
    ],
)
def test_invalid_arguments_exit_with_status_2_and_one_line(args):
    done = run(*args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1


def test_simulate_is_deterministic():
    first = list(simulate(players=3, seed=5, games=2, policy="random"))
    assert first == list(simulate(players=3, seed=5, games=2, policy="random"))
    assert replay_notifications(Setup(Options(), 3, 5), [])[0] == first[0]["notifications"][:2]
