"""Write the golden game logs of tests/digit_code/golden/. Run by hand, never by the tests:

    python tests/digit_code/golden/make_golden.py            # writes the files that do not exist
    python tests/digit_code/golden/make_golden.py --force    # rewrites them all

A golden log pins the engine's behaviour for ever: test_golden.py replays each file and demands
the very same notifications and final state. Rewriting one means accepting that stored games
replay differently — that takes a new rules version (SUPPORTED_RULES_VERSIONS), not --force.
Every game here is deterministic: its seeds are below, and the policies draw from generators
seeded here, so running this again gives byte-identical files (the stored actions, not the
policies, are what the tests replay).

Each file: {"about", "setup": Setup.to_json(), "actions": [encoded actions],
"notifications_sha256": SHA-256 of the canonical JSON of replay_notifications(setup, actions),
"final": full_view(game) of the finished game}.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the repository root, for `games`

from games.digit_code.engine import (  # noqa: E402
    Abort,
    Action,
    Game,
    Options,
    Resign,
    Setup,
    Timeout,
    Zombify,
    autopilot_action,
    encode_action,
    full_view,
    player_view,
    replay,
    replay_notifications,
    start,
)
from games.digit_code.engine.bots import choose  # noqa: E402
from games.digit_code.engine.seed import RNG_NAMESPACE  # noqa: E402
from games.digit_code.engine.simulate import random_action  # noqa: E402
from games.engine.rng import Rng  # noqa: E402

Policy = Callable[[Game], Action]


def canonical_sha256(value: object) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def bots(levels: list[str], seed: int) -> Policy:
    return lambda game: choose(player_view(game, game.active), seed, levels[game.active])


def random_policy(seed: int) -> Policy:
    rng = Rng(seed, stream="golden", namespace=RNG_NAMESPACE)
    return lambda game: random_action(game, rng)


def with_events(policy: Policy, events: dict[int, Action]) -> Policy:
    """The policy, but at the given turns the server's action instead (once each)."""
    done: set[int] = set()

    def choose_action(game: Game) -> Action:
        if game.turn in events and game.turn not in done:
            done.add(game.turn)
            return events[game.turn]
        return policy(game)

    return choose_action


GAMES: dict[str, tuple[str, Setup, Callable[[], Policy]]] = {
    "2p-autopilot": (
        "two autopilots (C1): every question in C1's order, then the one code left (Q5)",
        Setup(Options(), 2, 20250807),
        lambda: autopilot_action,
    ),
    "3p-random": (
        "three random players: questions, valid random guesses, eliminations (G3)",
        Setup(Options(), 3, 2**127 + 3),
        lambda: random_policy(3),
    ),
    "4p-bots-server-actions": (
        "strong and easy bots; a timeout (C1), a resignation out of turn, a moderator's "
        "zombify, and an absent seat (third timeout in a row)",
        Setup(Options(), 4, 987654321987654321),
        lambda: with_events(
            bots(["strong", "easy", "strong", "easy"], 11),
            {2: Timeout(1), 3: Resign(3), 4: Zombify(0), 5: Timeout(1), 7: Timeout(1)},
        ),
    ),
    "2p-strong-vs-easy": (
        "the strong bot against the easy one",
        Setup(Options(), 2, 31337),
        lambda: bots(["easy", "strong"], 5),
    ),
    "2p-aborted": (
        "a game a moderator aborts: the code and the seed are revealed (G6)",
        Setup(Options(), 2, 424242),
        lambda: with_events(bots(["easy", "easy"], 2), {5: Abort("a moderator's decision")}),
    ),
}


def play(setup: Setup, policy: Policy) -> list[Action]:
    game, _ = start(setup)
    actions: list[Action] = []
    while not game.over:
        action = policy(game)
        game.apply(action)
        actions.append(action)
    return actions


def write(name: str, force: bool) -> None:
    path = HERE / f"{name}.json"
    if path.exists() and not force:
        print(f"{path.name}: exists, kept")
        return
    about, setup, policy = GAMES[name]
    actions = [encode_action(a) for a in play(setup, policy())]
    game = replay(setup, actions)
    data = {
        "about": about,
        "setup": setup.to_json(),
        "actions": actions,
        "notifications_sha256": canonical_sha256(replay_notifications(setup, actions)),
        "final": full_view(game),
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{path.name}: {len(actions)} actions")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()
    for name in GAMES:
        write(name, args.force)


if __name__ == "__main__":
    main()
