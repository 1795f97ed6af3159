"""Arrange a game in a chosen position, for the rule tests.

The rules need positions that random setups reach only by luck (a blocked taxi, an exhausted
pile, two citizens on one area). `arrange` starts a real game and then places the public pieces
and the pile as told; everything after that goes through the engine's public API.
"""

from __future__ import annotations

from games.engine import Options, new_game
from games.engine.game import MOVE, Game


def citizens(*pairs: str) -> list[tuple[str, str]]:
    """citizens("7H>8H", "2S>9C") → [("7H", "8H"), ("2S", "9C")]"""
    return [tuple(pair.split(">")) for pair in pairs]


def arrange(
    *,
    taxis: list[str],
    options: Options | None = None,
    waiting: list[str] = (),
    passengers: list[list[str]] | None = None,
    draws: list[str] | None = None,
    pile_size: int | None = None,
    active: int = 0,
    deadline: int = 0,
    seed: int = 1,
) -> Game:
    """A game with the taxis on `taxis` (seat order), the given citizens waiting and riding,
    and a draw pile whose next cards are `draws` (first drawn first). `pile_size` pads the pile
    below those cards with other cards so it holds that many."""
    players = len(taxis)
    options = options or Options(pickup_before_movement=players >= 5)
    game, _ = new_game(options, players, seed)
    game.taxis = list(taxis)
    game.waiting = citizens(*waiting)
    game.passengers = [citizens(*p) for p in (passengers or [[] for _ in taxis])]
    if draws is not None or pile_size is not None:
        top = list(draws or [])
        size = len(top) if pile_size is None else pile_size
        filler = [c for c in game.pile + game.discard if c not in top][: size - len(top)]
        game.pile = filler + top[::-1]  # the end of the list is the top
    game.deadline = deadline
    game.active = active
    game.phase = MOVE
    game.turn_start = taxis[active]
    game.path = []
    game.stepped = False
    game.undos = 0
    return game


def types(notifications: list[dict]) -> list[str]:
    return [n["type"] for n in notifications]
