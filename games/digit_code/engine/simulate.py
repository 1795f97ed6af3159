"""`python -m games.digit_code.engine simulate`: whole games with the engine alone, as JSON Lines.

The shape of Bahama Taxi's simulator (CONTRACT.md "The simulator"): one line per game,
`{"rules_version", "seed", "options": {"players"}, "notifications": [...], "result":
{"winner", "ranking"} | null}`; game k of `--games N` uses seed `seed + k`. Policies:
`autopilot` (C1) for every seat; `random`: each turn, with probability 1/(q + 1) a guess of a
random valid code not guessed before, else one of the q questions not yet asked, uniformly
(from a generator of its own, keyed by the seed); `easy`, `strong`: the bots of `bots.py`, each
seat deciding from its own view. Every game ends within 64 + 2·players turns (Q5, G3), so
`--max-turns` only matters when set lower; a game cut off by it has `"result": null`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import NoReturn

from games.engine.rng import Rng

from .actions import Guess, PlayerAction
from .autopilot import autopilot_action
from .codes import breaks_rule
from .errors import InvalidSetup
from .game import RULES_VERSION, Game, Notification
from .options import Options, check_players
from .replay import Setup, start
from .seed import RNG_NAMESPACE
from .views import player_view

POLICIES = ("autopilot", "random", "easy", "strong")
MAX_TURNS = 1000


def random_action(game: Game, rng: Rng) -> PlayerAction:
    legal = game.legal_actions()
    if rng.below(len(legal) + 1) < len(legal):
        return legal[rng.below(len(legal))]
    guessed = {code for _, code, _ in game.guesses}
    while True:
        code = tuple(rng.below(10) for _ in range(6))
        if breaks_rule(code) is None and code not in guessed:
            return Guess(game.active, code)


def play(
    setup: Setup, *, policy: str = "autopilot", max_turns: int = MAX_TURNS
) -> tuple[Game, list[Notification]]:
    """Play one game: the game as it ended (`game.result` is None if it was cut off after
    `max_turns`) and every notification."""
    from .bots import choose  # the bots' tables are built only for the bots' policies

    game, notifications = start(setup)
    chooser = Rng(setup.seed, stream="random-policy", namespace=RNG_NAMESPACE)
    while not game.over and game.turn <= max_turns:
        action: PlayerAction
        if policy == "random":
            action = random_action(game, chooser)
        elif policy in ("easy", "strong"):
            seat = game.active
            action = choose(player_view(game, seat), seed=setup.seed + seat, level=policy)
        else:
            action = autopilot_action(game)
        notifications.extend(game.apply(action))
    return game, notifications


def simulate(
    *,
    players: int,
    seed: int,
    games: int = 1,
    policy: str = "autopilot",
    max_turns: int = MAX_TURNS,
) -> Iterator[dict[str, object]]:
    options = Options()
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


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit status 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or Parser(prog="python -m games.digit_code.engine simulate")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--games", type=_positive, default=1)
    parser.add_argument("--policy", choices=POLICIES, default="autopilot")
    parser.add_argument("--max-turns", type=_positive, default=MAX_TURNS)
    return parser


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        check_players(Options(), args.players)
    except InvalidSetup as error:
        parser.error(error.message)
    out = sys.stdout
    for line in simulate(
        players=args.players,
        seed=args.seed,
        games=args.games,
        policy=args.policy,
        max_turns=args.max_turns,
    ):
        out.write(json.dumps(line, separators=(",", ":")) + "\n")
    return 0
