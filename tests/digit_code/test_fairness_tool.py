"""B6 for a third party: tools/verify_fairness.py's Digit Code mode recomputes the seats and the
code from the seed alone (docs/fairness.md section 6) and checks a finished game's log."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.digit_code.engine import Options, new_game, seed_commitment
from games.digit_code.engine.simulate import simulate

ROOT = Path(__file__).resolve().parents[2]
VERIFIER = ROOT / "tools" / "verify_fairness.py"


def tool():
    spec = importlib.util.spec_from_file_location("verify_fairness", VERIFIER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def exported(players: int, seed: int, policy: str = "random") -> dict:
    """A finished game as an export gives it: the game, then its log's entries."""
    (line,) = simulate(players=players, seed=seed, policy=policy)
    notes = line["notifications"]
    return {
        "game": {
            "id": 1,
            "game": "digit_code",
            "players": players,
            "seed": str(seed),
            "seed_commitment": seed_commitment(seed),
        },
        # one entry per notification keeps the check's entry numbers simple
        "entries": [{"seq": i, "notifications": [n]} for i, n in enumerate(notes)],
    }


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(VERIFIER), *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(("seed", "players"), [(0, 2), (5, 3), (2**128 - 1, 4)])
def test_B6_the_setup_from_the_seed_alone_is_the_engines(seed, players):
    done = run("--digit-code", "--seed", str(seed), "--players", str(players))
    assert done.returncode == 0, done.stderr
    setup = json.loads(done.stdout)
    game, notes = new_game(Options(), players, seed)
    assert setup["commitment"] == notes[0]["commitment"]
    assert setup["seats"] == notes[0]["seats"]
    assert setup["code"] == list(game.secret_code())


def test_B6_the_tool_agrees_with_the_engine_over_many_seeds():
    verifier = tool()
    for seed in (1, 2, 3, 10**6, 2**64 + 1, 2**127):
        game, notes = new_game(Options(), 2 + seed % 3, seed)
        setup = verifier.dc_setup(seed, game.players)
        assert setup["code"] == list(game.secret_code()) and setup["seats"] == notes[0]["seats"]


@pytest.mark.parametrize(("players", "seed", "policy"), [(2, 3, "random"), (4, 8, "autopilot")])
def test_B6_a_finished_game_is_verified(players, seed, policy, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(exported(players, seed, policy)))
    done = run(str(path))
    assert done.returncode == 0, done.stdout
    assert "fair (commitment, seats, code and every answer)" in done.stdout


def tampered(data: dict, change) -> list[str]:
    data = copy.deepcopy(data)
    change(data)
    return tool().verify_digit_code(data["game"], data["entries"])


def test_B6_a_false_answer_a_changed_code_seats_or_seed_are_caught():
    data = exported(3, 12, "autopilot")
    verifier = tool()
    assert verifier.verify_digit_code(data["game"], data["entries"]) == []
    assert verifier.is_digit_code(data, data["entries"])

    def notes(d, kind):
        return [
            e["notifications"][0] for e in d["entries"] if e["notifications"][0]["type"] == kind
        ]

    def lie(d):
        asked = notes(d, "question_asked")[0]
        flip = {"odd": "even", "even": "odd", "lit": "unlit", "unlit": "lit"}
        flip |= {"greater": "less", "less": "greater"}
        answer = asked["answer"]
        asked["answer"] = answer + 1 if isinstance(answer, int) else flip[answer]

    assert any("was answered" in f for f in tampered(data, lie))
    assert tampered(data, lambda d: notes(d, "game_ended")[0].update(code=[0, 1, 0, 1, 2, 3]))
    assert tampered(data, lambda d: notes(d, "game_started")[0]["seats"].reverse())
    assert tampered(data, lambda d: d["game"].update(seed="13"))


def test_the_tool_refuses_bad_digit_code_arguments():
    assert run("--digit-code", "--seed", "1", "--players", "5").returncode == 2
    assert run("--digit-code", "--players", "2").returncode == 2
