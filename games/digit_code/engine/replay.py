"""Replay: (setup, action log) → game. The only way a game's state is ever built."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .actions import Action
from .errors import Code, InvalidSetup
from .game import RULES_VERSION, Game, Notification, new_game
from .options import Options
from .seed import seed_matches

#: Rules versions this engine can replay. A rules change gets a new version, and games stored
#: under an old one keep being replayed by the code for that version.
SUPPORTED_RULES_VERSIONS = frozenset({RULES_VERSION})


@dataclass(frozen=True, slots=True)
class Setup:
    """What fixes a game before the first action: rules version, options, players, seed."""

    options: Options
    players: int
    seed: int
    rules_version: str = RULES_VERSION

    def to_json(self) -> dict[str, object]:
        return {
            "rules_version": self.rules_version,
            "options": self.options.to_json(),
            "players": self.players,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Setup:
        players, seed, version = data["players"], data["seed"], data["rules_version"]
        if type(players) is not int or type(seed) is not int or type(version) is not str:
            raise InvalidSetup(Code.INVALID_OPTIONS, "a setup has players, seed, rules_version")
        return cls(Options.from_json(data["options"]), players, seed, version)


def start(setup: Setup) -> tuple[Game, list[Notification]]:
    if setup.rules_version not in SUPPORTED_RULES_VERSIONS:
        raise InvalidSetup(
            Code.UNSUPPORTED_RULES_VERSION,
            f"rules version {setup.rules_version!r} is not supported",
        )
    return new_game(setup.options, setup.players, setup.seed, rules_version=setup.rules_version)


def replay(setup: Setup, actions: Iterable[Action | dict[str, object]]) -> Game:
    """The game after playing `actions` (JSON objects or Action values) from `setup`."""
    game, _ = start(setup)
    apply = game.apply
    for action in actions:
        apply(action)
    return game


def replay_notifications(
    setup: Setup, actions: Iterable[Action | dict[str, object]]
) -> list[list[Notification]]:
    """The notifications of the setup and of each action, as lists in log order."""
    game, first = start(setup)
    return [first, *(game.apply(action) for action in actions)]


def verify(
    commitment: str,
    setup: Setup,
    actions: Iterable[Action | dict[str, object]],
    notifications: list[list[Notification]],
) -> bool:
    """B6: after a game, anyone holding its log checks that the revealed seed matches the
    commitment and that replaying gives exactly the notifications that were published."""
    return seed_matches(commitment, setup.seed) and (
        replay_notifications(setup, actions) == notifications
    )
