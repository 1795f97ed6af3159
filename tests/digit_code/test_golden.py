"""Golden game logs: each stored game replays to exactly the same notifications and final state,
for ever (STYLE.md "golden game logs that must replay identically forever").

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

from games.digit_code.engine import (
    Setup,
    full_view,
    replay,
    replay_notifications,
    seed_commitment,
    verify,
)

GOLDEN = Path(__file__).resolve().parent / "golden"
FILES = sorted(GOLDEN.glob("*.json"))


def canonical_sha256(value) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_golden_games_cover_the_player_counts_and_the_server_actions():
    games = [load(path) for path in FILES]
    assert {g["setup"]["players"] for g in games} == {2, 3, 4}
    kinds = {action["type"] for g in games for action in g["actions"]}
    assert kinds == {"ask", "guess", "timeout", "resign", "zombify", "abort"}
    finals = [g["final"] for g in games]
    assert {f["status"] for f in finals} == {"finished", "aborted"}
    assert any(f["result"] and f["result"]["winner"] is None for f in finals)  # G4
    assert any(f["questions_left"] == 0 for f in finals)  # Q5


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
    assert game.over
    assert final["seed"] == str(setup.seed)  # G6: revealed at the end
    assert verify(seed_commitment(setup.seed), setup, actions, notifications)
