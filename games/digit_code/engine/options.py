"""Table options and the player-count check (P1).

Digit Code has no table options: everyone plays the 3+ player rules (P1). `Options` still
exists, validated like Bahama Taxi's, so that a table's options are handled alike for every
game and a future option has its place.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Code, InvalidSetup

MIN_PLAYERS, MAX_PLAYERS = 2, 4


@dataclass(frozen=True, slots=True)
class Options:
    @classmethod
    def from_json(cls, data: object) -> Options:
        if not isinstance(data, dict):
            raise InvalidSetup(Code.INVALID_OPTIONS, "options must be an object")
        if data:
            names = ", ".join(sorted(map(str, data)))
            raise InvalidSetup(
                Code.INVALID_OPTIONS, f"unknown options: {names} (Digit Code has none)"
            )
        return cls()

    def to_json(self) -> dict[str, object]:
        return {}


def check_players(options: Options, players: object) -> int:
    """P1: 2 to 4 players. Returns the count, checked."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise InvalidSetup(Code.INVALID_PLAYERS, "players must be a whole number")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InvalidSetup(
            Code.INVALID_PLAYERS,
            f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}",
        )
    return players
