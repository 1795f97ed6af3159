"""Table options (RULES.md "Options") and the setup checks that depend on them."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Code, InvalidSetup
from .notifications import OptionsJson

MOVEMENTS = ("normal", "fast", "faster")
MIN_PLAYERS, MAX_PLAYERS = 2, 8

#: T1: steps allowed per turn, indexed by the number of deadlines reached (0, 1, 2).
ALLOWANCE: dict[str, tuple[int, int, int]] = {
    "normal": (1, 1, 1),
    "fast": (2, 3, 4),
    "faster": (3, 5, 7),
}


@dataclass(frozen=True, slots=True)
class Options:
    shift_change: bool = False
    pickup_before_movement: bool = False
    movement: str = "normal"

    def __post_init__(self) -> None:
        for name in ("shift_change", "pickup_before_movement"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidSetup(Code.INVALID_OPTIONS, f"{name} must be true or false")
        if self.movement not in MOVEMENTS:
            raise InvalidSetup(
                Code.INVALID_OPTIONS, f"movement must be one of {', '.join(MOVEMENTS)}"
            )

    @classmethod
    def from_json(cls, data: object) -> Options:
        if not isinstance(data, dict):
            raise InvalidSetup(Code.INVALID_OPTIONS, "options must be an object")
        unknown = set(data) - {"shift_change", "pickup_before_movement", "movement"}
        if unknown:
            names = ", ".join(sorted(unknown))
            raise InvalidSetup(Code.INVALID_OPTIONS, f"unknown options: {names}")
        return cls(**data)

    def to_json(self) -> OptionsJson:
        # written out: dataclasses.asdict deep-copies each value, and every view calls this
        return {
            "shift_change": self.shift_change,
            "pickup_before_movement": self.pickup_before_movement,
            "movement": self.movement,
        }


def check_players(options: Options, players: int) -> None:
    """RULES.md Options: 2–8 players; 5–8 only with pickup_before_movement on."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise InvalidSetup(Code.INVALID_PLAYERS, "players must be a whole number")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InvalidSetup(
            Code.INVALID_PLAYERS,
            f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}",
        )
    if players >= 5 and not options.pickup_before_movement:
        raise InvalidSetup(
            Code.PICKUP_BEFORE_MOVEMENT_REQUIRED,
            "5 to 8 players need the pickup_before_movement option on",
        )
