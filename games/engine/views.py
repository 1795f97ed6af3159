"""What a player, a spectator or a moderator may see of a game (H1, H2).

Everything drawn is public; the draw pile is a count and the seed a commitment while the game
runs. `full_view` adds the pile order and the seed: for finished games, and for moderators
(who must see it clearly marked as secret while the game runs).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from .actions import encode_action
from .game import OVER, UNDO_LIMIT, Game, citizen_json
from .notifications import CitizenJson, OptionsJson, Result
from .seed import seed_commitment


class SeatView(TypedDict):
    seat: int
    player: int  # index of the seat's player in joining order (S3)
    area: str
    passengers: list[CitizenJson]
    income: int
    zombie: bool
    timeouts: int


class PublicView(TypedDict):
    rules_version: str
    options: OptionsJson
    players: int
    status: Literal["playing", "finished", "aborted"]
    seed_commitment: str
    turn: int
    active_seat: int | None  # None once the game is over
    phase: str  # "move", "pickup" or "over"
    allowance: int
    turn_start: str
    path: list[str]
    undos_left: int
    deadlines_reached: int
    pile: int
    pile_exhausted: bool
    discarded: list[str]
    waiting: list[CitizenJson]
    seats: list[SeatView]
    result: Result | None
    abort_reason: str | None
    seed: NotRequired[int]  # once the game is over (H2)


class PlayerView(PublicView):
    you: int | None  # None: a spectator
    legal_actions: list[dict[str, object]]  # encoded actions


class Secret(TypedDict):
    pile_order: list[str]  # from the top down
    seed: int


class FullView(PublicView):
    secret: Secret


def public_view(game: Game) -> PublicView:
    over = game.phase == OVER
    status: Literal["playing", "finished", "aborted"] = (
        "aborted" if game.aborted is not None else ("finished" if over else "playing")
    )
    view: PublicView = {
        "rules_version": game.rules_version,
        "options": game.options.to_json(),
        "players": game.players,
        "status": status,
        "seed_commitment": seed_commitment(game.seed),
        "turn": game.turn,
        "active_seat": None if over else game.active,
        "phase": game.phase,
        "allowance": game.allowance(),
        "turn_start": game.turn_start,
        "path": list(game.path),
        "undos_left": UNDO_LIMIT - game.undos,
        "deadlines_reached": game.deadline,
        "pile": len(game.pile),
        "pile_exhausted": game.pile_exhausted,
        "discarded": list(game.discard),
        "waiting": [citizen_json(c) for c in game.waiting],
        "seats": [
            {
                "seat": seat,
                "player": game.seat_players[seat],
                "area": game.taxis[seat],
                "passengers": [citizen_json(c) for c in game.passengers[seat]],
                "income": game.income[seat],
                "zombie": game.zombies[seat],
                "timeouts": game.timeouts[seat],
            }
            for seat in range(game.players)
        ],
        "result": None if game.result is None else game.result.to_json(),
        "abort_reason": game.aborted,
    }
    if over:
        view["seed"] = game.seed  # H2: revealed at the end, so anyone can verify the shuffles
    return view


def player_view(
    game: Game, seat: int | None = None, *, public: PublicView | None = None
) -> PlayerView:
    """The view for seat `seat` (None: a spectator), with that seat's legal actions.
    `public`: `public_view(game)`, if the caller has it already (shared, not copied: neither
    may change it afterwards)."""
    return {
        **(public_view(game) if public is None else public),
        "you": seat,
        "legal_actions": [encode_action(a) for a in game.offered_actions(seat)],
    }


def full_view(game: Game) -> FullView:
    """Everything, including secrets: the pile from its top down, and the seed."""
    return {**public_view(game), "secret": {"pile_order": game.pile[::-1], "seed": game.seed}}
