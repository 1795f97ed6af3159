"""Replay: (setup, action log) → game. The only way a game's state is ever built (S2)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from .actions import Action
from .errors import Code, InvalidSetup
from .game import RULES_VERSION, Game, new_game
from .notifications import Notification, OptionsJson
from .options import Options
from .seed import seed_matches

#: Rules versions this engine can replay. A rules change gets a new version, and games stored
#: under an old one keep being replayed by the code for that version.
SUPPORTED_RULES_VERSIONS = frozenset({RULES_VERSION})

#: An action as played (`Game.apply` takes either)
Played = Action | Mapping[str, object]


class SetupJson(TypedDict):
    rules_version: str
    options: OptionsJson
    players: int
    seed: int


@dataclass(frozen=True, slots=True)
class Setup:
    """What fixes a game before the first action: rules version, options, players, seed."""

    options: Options
    players: int
    seed: int
    rules_version: str = RULES_VERSION

    def to_json(self) -> SetupJson:
        return {
            "rules_version": self.rules_version,
            "options": self.options.to_json(),
            "players": self.players,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Setup:
        return cls(
            options=Options.from_json(data["options"]),
            players=data["players"],
            seed=data["seed"],
            rules_version=data["rules_version"],
        )


def start(setup: Setup) -> tuple[Game, list[Notification]]:
    if setup.rules_version not in SUPPORTED_RULES_VERSIONS:
        raise InvalidSetup(
            Code.UNSUPPORTED_RULES_VERSION,
            f"rules version {setup.rules_version!r} is not supported",
        )
    return new_game(setup.options, setup.players, setup.seed, rules_version=setup.rules_version)


def replay(setup: Setup, actions: Iterable[Played]) -> Game:
    """The game after playing `actions` (JSON objects or Action values) from `setup`."""
    game, _ = start(setup)
    apply = game.apply
    for action in actions:
        apply(action)
    return game


def replay_notifications(setup: Setup, actions: Iterable[Played]) -> list[list[Notification]]:
    """The notifications of the setup and of each action, as lists in log order."""
    game, first = start(setup)
    return [first, *(game.apply(action) for action in actions)]


def verify(
    commitment: str,
    setup: Setup,
    actions: Iterable[Played],
    notifications: list[list[Notification]],
) -> bool:
    """H2: after a game, anyone holding its log checks that the revealed seed matches the
    commitment and that replaying gives exactly the notifications that were published."""
    return seed_matches(commitment, setup.seed) and (
        replay_notifications(setup, actions) == notifications
    )
