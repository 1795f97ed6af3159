"""`python -m games.engine simulate`: whole games with the engine alone, as JSON Lines.

See CONTRACT.md "The simulator". Game k of `--games N` uses seed `seed + k`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import NoReturn, TypedDict

from .autopilot import autopilot_action
from .errors import InvalidSetup
from .game import RULES_VERSION, Game
from .notifications import Notification, OptionsJson, Result
from .options import MOVEMENTS, Options, check_players
from .replay import Setup, start
from .rng import Rng

POLICIES = ("autopilot", "random")


class SimulatedOptions(OptionsJson):
    players: int


class SimulatedGame(TypedDict):
    """One line of the simulator's output (CONTRACT.md "The simulator")."""

    rules_version: str
    seed: int
    options: SimulatedOptions
    notifications: list[Notification]
    result: Result | None  # None: cut off after `max_turns`


def play(
    setup: Setup, *, policy: str = "autopilot", max_turns: int = 2000
) -> tuple[Game, list[Notification]]:
    """Play one game: the game as it ended (`game.result` is None if it was cut off after
    `max_turns`) and every notification. The one play loop: the CLI, the benchmarks and the
    soak test all play through it."""
    game, notifications = start(setup)
    chooser = Rng(setup.seed, stream="random-policy")
    while not game.over and game.turn <= max_turns:
        if policy == "random":
            legal = game.legal_actions()
            action = legal[chooser.below(len(legal))]
        else:
            action = autopilot_action(game)
        notifications.extend(game.apply(action))
    return game, notifications


def simulate(
    *,
    players: int,
    seed: int,
    games: int = 1,
    options: Options | None = None,
    policy: str = "autopilot",
    max_turns: int = 2000,
) -> Iterator[SimulatedGame]:
    options = options or Options()
    for k in range(games):
        setup = Setup(options=options, players=players, seed=seed + k)
        game, notifications = play(setup, policy=policy, max_turns=max_turns)
        yield {
            "rules_version": RULES_VERSION,
            "seed": seed + k,
            "options": {"players": players, **options.to_json()},
            "notifications": notifications,
            "result": None if game.result is None else game.result.to_json(),
        }


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit status 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or _Parser(prog="python -m games.engine simulate")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--games", type=_positive, default=1)
    parser.add_argument("--shift-change", action="store_true")
    parser.add_argument("--pickup-before-movement", action="store_true")
    parser.add_argument("--movement", choices=MOVEMENTS, default="normal")
    parser.add_argument("--policy", choices=POLICIES, default="autopilot")
    parser.add_argument("--max-turns", type=_positive, default=2000)
    return parser


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    options = Options(
        shift_change=args.shift_change,
        pickup_before_movement=args.pickup_before_movement,
        movement=args.movement,
    )
    try:
        check_players(options, args.players)
    except InvalidSetup as error:
        parser.error(error.message)
    out = sys.stdout
    for line in simulate(
        players=args.players,
        seed=args.seed,
        games=args.games,
        options=options,
        policy=args.policy,
        max_turns=args.max_turns,
    ):
        out.write(json.dumps(line, separators=(",", ":")) + "\n")
    return 0
