"""Write the golden game logs of tests/engine/golden/. Run by hand, never by the tests:

    python tests/engine/golden/make_golden.py            # writes the files that do not exist
    python tests/engine/golden/make_golden.py --force    # rewrites them all

A golden log pins the engine's behaviour for ever: test_golden.py replays each file and
demands the very same notifications and final state. Rewriting one means accepting that stored
games replay differently — that takes a new rules version (SUPPORTED_RULES_VERSIONS), not
--force. Every game here is deterministic: its seeds are below and the random policy draws from
a `random.Random` seeded here, so running this again gives byte-identical files.

Each file: {"about", "setup": Setup.to_json(), "actions": [encoded actions],
"notifications_sha256": SHA-256 of the canonical JSON of replay_notifications(setup, actions),
"final": full_view(game) of the finished game}.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the repository root, for `games`

from games.engine import (  # noqa: E402
    Deadline,
    Game,
    Options,
    Pickup,
    Resign,
    Restore,
    Setup,
    Step,
    Timeout,
    Turn,
    Undo,
    Zombify,
    autopilot_action,
    encode_action,
    full_view,
    replay,
    replay_notifications,
    start,
)

MAX_TURNS = 2000


def canonical_sha256(value) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------- policies


def random_policy(rng: random.Random, *, share: float = 1.0):
    """Uniform over legal_actions() with probability `share`, else the autopilot."""

    def choose(game: Game):
        if rng.random() >= share:
            return autopilot_action(game)
        legal = game.legal_actions()
        return legal[rng.randrange(len(legal))]

    return choose


def whole_turn(game: Game) -> Turn:
    """The autopilot's turn for the active seat, as one `turn` action (T5)."""
    trial = game.clone()
    turn, before, steps, after = game.turn, [], [], []
    while not trial.over and trial.turn == turn:
        action = autopilot_action(trial)
        if isinstance(action, Pickup):
            (after if steps else before).append(action.destination)
        elif isinstance(action, Step):
            steps.append(action.to)
        trial.apply(action)
    return Turn(game.active, tuple(steps), tuple(after), tuple(before))


class Scripted:
    """The autopilot, except for the server entries and special moves planned by turn number:
    `plan[turn]` is a list of what to do in that turn, in order, before the autopilot finishes
    it. Items: "step+undo" (a step, then its undo, T4), "step" (the autopilot's next action),
    "timeout" (K2), "turn" (the whole turn as one action, T5), ("deadline", n) (D4 clock),
    ("zombify", seat), ("restore", seat), ("resign", seat) (K3)."""

    def __init__(self, plan: dict[int, list]):
        self.plan = {turn: list(items) for turn, items in plan.items()}

    def done(self) -> bool:
        return not any(self.plan.values())

    def __call__(self, game: Game):
        todo = self.plan.get(game.turn)
        if not todo:
            return autopilot_action(game)
        item = todo.pop(0)
        if item == "step+undo":
            step = next(a for a in game.legal_actions() if isinstance(a, Step))
            todo.insert(0, "undo")
            return step
        if item == "undo":
            return Undo(game.active)
        if item == "step":
            return autopilot_action(game)
        if item == "timeout":
            return Timeout(game.active)
        if item == "turn":
            return whole_turn(game)
        kind, value = item
        return {"deadline": Deadline, "zombify": Zombify, "restore": Restore,
                "resign": Resign}[kind](value)  # fmt: skip


# ---------------------------------------------------------------------- the games

# Turn t is seat (t - 1) % players's turn; a plan only names turns a human seat plays (the
# autopilot plays zombies' turns inside the action before), and `play` checks all of it ran.
CRAFTED_PLAN = {
    2: ["step+undo"],
    3: ["timeout"],
    4: [("deadline", 1)],  # the clock reaches the 1st deadline: faster now allows 5 steps
    5: ["turn"],
    6: ["step", "timeout"],  # a timeout in the middle of a turn
    7: [("zombify", 3)],  # seat 3's turn 8 is then played inside this action
    9: ["step+undo", "step+undo", "step"],
    11: [("restore", 3)],
    14: ["turn"],
}

EIGHT_PLAN = {
    # seat 5 times out on three of its turns in a row and becomes a zombie (K3) ...
    6: ["timeout"], 14: ["timeout"], 22: ["timeout"],
    31: ["turn"],
    40: [("deadline", 2)],  # the clock reaches both deadlines at once (D4)
    41: ["step+undo"],
    # ... a moderator gives seat 5 back; seat 7 resigns.
    45: [("restore", 5)],
    50: [("resign", 7)],
}  # fmt: skip

GAMES: list[tuple[str, str, Setup, Callable[[], Callable[[Game], object]]]] = [
    ("2p-normal-autopilot.json", "2 players, normal; the autopilot for every seat",
     Setup(Options(), 2, 0x5EED_0002_A11C_E5), lambda: autopilot_action),
    ("3p-normal-random.json", "3 players, normal; uniform random legal actions (seeded)",
     Setup(Options(), 3, 0x5EED_0003_B0B),
     lambda: random_policy(random.Random(3))),
    ("4p-normal-mixed.json", "4 players, normal; each action random (40%) or the autopilot",
     Setup(Options(), 4, 0x5EED_0004_CAFE),
     lambda: random_policy(random.Random(4), share=0.4)),
    ("4p-faster-shift-change-crafted.json",
     "4 players, faster, shift change; the autopilot with an undo, timeouts (one mid-turn), a "
     "clock deadline, whole-turn actions, a zombie seat and its restoration",
     Setup(Options(shift_change=True, movement="faster"), 4, 0x5EED_0004_FA57),
     lambda: Scripted(CRAFTED_PLAN)),
    ("5p-fast-pickup-before-random.json",
     "5 players, fast, pickup before movement; each action random (70%) or the autopilot",
     Setup(Options(pickup_before_movement=True, movement="fast"), 5, 0x5EED_0005_F00D),
     lambda: random_policy(random.Random(5), share=0.7)),
    ("8p-faster-both-options-crafted.json",
     "8 players, faster, shift change and pickup before movement; the autopilot with three "
     "timeouts in a row (a zombie), both deadlines by the clock, a whole-turn action, an undo, "
     "a restoration and a resignation",
     Setup(Options(shift_change=True, pickup_before_movement=True, movement="faster"), 8,
           0x5EED_0008_BEEF),
     lambda: Scripted(EIGHT_PLAN)),
]  # fmt: skip


def play(setup: Setup, policy) -> tuple[Game, list[dict]]:
    game, _ = start(setup)
    while not game.over and game.turn <= MAX_TURNS:
        game.apply(policy(game))
    if not game.over or game.aborted is not None:
        raise SystemExit(f"{setup} did not finish in {MAX_TURNS} turns: pick another seed")
    if isinstance(policy, Scripted) and not policy.done():
        raise SystemExit(f"{setup}: the plan did not all run (a planned turn was automatic)")
    return game, [encode_action(a) for a in game.history]


def golden(about: str, setup: Setup, policy) -> dict:
    game, actions = play(setup, policy)
    stored = json.loads(json.dumps(actions))
    notifications = replay_notifications(setup, stored)
    assert replay(setup, stored) == game
    return {
        "about": about,
        "setup": setup.to_json(),
        "notifications_sha256": canonical_sha256(notifications),
        "actions": stored,
        "final": full_view(game),
    }


def dumps(data: dict) -> str:
    """Readable and diffable: one action per line, the final view indented."""
    lines = ["{"]
    for key in ("about", "setup", "notifications_sha256"):
        lines.append(f"  {json.dumps(key)}: {json.dumps(data[key])},")
    lines.append('  "actions": [')
    actions = [json.dumps(a, separators=(", ", ": ")) for a in data["actions"]]
    lines.extend(f"    {a}," for a in actions[:-1])
    lines.append(f"    {actions[-1]}")
    lines.append("  ],")
    final = json.dumps(data["final"], indent=2).replace("\n", "\n  ")
    lines.append(f'  "final": {final}')
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(json.dumps(data))
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="rewrite existing files")
    args = parser.parse_args(argv)
    for name, about, setup, make_policy in GAMES:
        path = HERE / name
        if path.exists() and not args.force:
            print(f"{path.name}: exists, kept (--force rewrites it)")
            continue
        data = golden(about, setup, make_policy())
        path.write_text(dumps(data), encoding="utf-8")
        types = {a["type"] for a in data["actions"]}
        print(f"{path.name}: {len(data['actions'])} actions, {data['final']['turn']} turns, "
              f"action types {sorted(types)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
