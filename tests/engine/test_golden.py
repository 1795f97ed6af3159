"""Golden game logs: each stored game replays to exactly the same notifications and final state,
for ever (S2, H2; STYLE.md "golden game logs that must replay identically forever").

The files in golden/ were written once by golden/make_golden.py (run by hand, never here). If
one of these tests fails, the engine now plays a stored game differently: that breaks every
stored game of this rules version. Fix the engine, or give the change a new rules version; do
not regenerate the files.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from games.engine import (
    Setup,
    full_view,
    replay,
    replay_notifications,
    seed_commitment,
    verify,
)
from tests.engine.invariants import Referee, check_invariants

GOLDEN = Path(__file__).resolve().parent / "golden"
FILES = sorted(GOLDEN.glob("*.json"))


def canonical_sha256(value) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_golden_games_cover_the_tables_and_the_server_actions():
    """Six complete games: 2, 3, 4 players normal; 4 faster with shift change; 5 fast with
    pickup before movement; 8 faster with both options; among them an undo (T4), a timeout
    (K2), a clock deadline (D4) and a whole-turn action (T5)."""
    games = [load(path) for path in FILES]
    tables = {
        (g["setup"]["players"], g["setup"]["options"]["movement"],
         g["setup"]["options"]["shift_change"], g["setup"]["options"]["pickup_before_movement"])
        for g in games
    }  # fmt: skip
    assert tables >= {
        (2, "normal", False, False),
        (3, "normal", False, False),
        (4, "normal", False, False),
        (4, "faster", True, False),
        (5, "fast", False, True),
        (8, "faster", True, True),
    }
    kinds = {action["type"] for g in games for action in g["actions"]}
    assert kinds >= {"step", "stop", "pickup", "decline", "undo", "timeout", "deadline", "turn"}


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_a_golden_game_replays_identically(path):
    data = load(path)
    setup = Setup.from_json(data["setup"])
    actions = data["actions"]

    notifications = replay_notifications(setup, actions)
    assert canonical_sha256(notifications) == data["notifications_sha256"], (
        f"{path.name}: the engine now gives other notifications for this stored game"
    )

    game = replay(setup, actions)
    final = json.loads(json.dumps(full_view(game)))
    for key in sorted(set(final) | set(data["final"])):
        assert final.get(key) == data["final"].get(key), f"{path.name}: final view {key!r}"
    assert game.over and game.aborted is None, "a golden game is a complete game (G1, G2)"
    assert final["seed"] == setup.seed  # H2: revealed at the end
    assert verify(seed_commitment(setup.seed), setup, actions, notifications)

    referee = Referee(setup.players, setup.options)
    check_invariants(referee, game, [n for part in notifications for n in part], finished=True)
