"""A third party checks a finished game's draws from the docs alone
(docs/fairness.md): `tools/verify_fairness.py`, standard library only, run on games exported
through the API, with every option (RULES.md S1–S7, C1, H2)."""

from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.players import Player, finished_by_autopilot

ROOT = Path(__file__).resolve().parents[2]
VERIFIER = ROOT / "tools" / "verify_fairness.py"


def _export(player: Player, game_id: int) -> dict:
    """The game as the export endpoint gives it, in one call (the verifier's input)."""
    response = player.get(f"/api/v1/games/{game_id}/export")
    assert response.status_code == 200, response.json()
    return json.loads(response.content)


def _verify(exported: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(exported))
    return subprocess.run(
        [sys.executable, str(VERIFIER), str(path)], capture_output=True, text=True, timeout=60
    )


def test_the_verifier_imports_nothing_of_the_project():
    tree = ast.parse(VERIFIER.read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module)])
        if alias.name
    }
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


@pytest.mark.slow
@pytest.mark.parametrize(
    "players, options",
    [
        (2, {}),
        (3, {}),  # S5: one more card discarded
        (4, {"shift_change": True}),  # S6
        (2, {"pickup_before_movement": True, "movement": "fast"}),
        (5, {"pickup_before_movement": True}),  # two decks: S4 set-asides, C1 identical pairs
        (6, {"pickup_before_movement": True, "shift_change": True}),
    ],
)
def test_a_finished_game_exported_from_the_api_is_verified(players, options, db, tmp_path):
    # played by the autopilot through the write path (moves over HTTP: tests/api/test_games.py)
    people = [Player() for _ in range(players)]
    game_id = finished_by_autopilot(people, **options)
    exported = _export(people[0], game_id)
    assert exported["game"]["status"] == "finished" and exported["game"]["seed"]
    if players == 5:  # the board's order is the one the docs give (the verifier's default)
        board = people[0].client.get("/api/v1/board").json()
        exported_with_board = {**exported, "board": board}
        assert _verify(exported_with_board, tmp_path).returncode == 0
    checked = _verify(exported, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "fair" in checked.stdout


@pytest.fixture(scope="module")
def _exported_once(module_db):
    with module_db():
        people = [Player(), Player()]
        return _export(people[0], finished_by_autopilot(people))


@pytest.fixture
def exported(_exported_once):
    """One finished game's export for the tests that tamper with it, each with its own copy."""
    return copy.deepcopy(_exported_once)


def test_a_changed_seed_breaks_the_commitment(exported, tmp_path):
    exported["game"]["seed"] = str(int(exported["game"]["seed"]) + 1)
    checked = _verify(exported, tmp_path)
    assert checked.returncode == 1
    assert "does not match the commitment" in checked.stdout


def test_a_changed_draw_is_found(exported, tmp_path):
    drawn = next(
        note
        for entry in exported["entries"][1:]
        for note in entry["notifications"]
        if note["type"] == "citizen_added"
    )
    drawn["origin"], drawn["destination"] = drawn["destination"], drawn["origin"]
    checked = _verify(exported, tmp_path)
    assert checked.returncode == 1
    assert "the seed gives" in checked.stdout


def test_a_changed_setup_is_found(exported, tmp_path):
    started = next(
        n for n in exported["entries"][0]["notifications"] if n["type"] == "game_started"
    )
    started["waiting"].reverse()
    checked = _verify(exported, tmp_path)
    assert checked.returncode == 1
    assert "setup" in checked.stdout


def test_a_running_game_cannot_be_checked_yet(db, tmp_path):
    from tests.players import start_game

    people = [Player(), Player()]
    exported = _export(people[0], start_game(people))
    checked = _verify(exported, tmp_path)
    assert checked.returncode == 1 and "not over" in checked.stdout
