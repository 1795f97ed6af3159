"""The autopilot (K2): a legal, sensible next action for the seat to move.

Heads for the nearest destination of a passenger, else for the nearest citizen it may pick up;
picks up whenever allowed (the longest fare first); never undoes. It plays timed-out turns, zombie
seats and `simulate --policy autopilot`. Deterministic: ties go to the first area in board order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import Action, Decline, Pass, Pickup, Step, Stop
from .board import AREA_INDEX, DISTANCE

if TYPE_CHECKING:
    from .game import Game


def _targets(game: Game, seat: int) -> set[str]:
    riding = game.passengers[seat]
    if riding:
        return {c[1] for c in riding}
    if game.may_pick_up(seat) is None:
        return {c[0] for c in game.waiting}
    return set()


def _distance_to(area: str, targets: set[str]) -> int:
    row = DISTANCE[area]
    return min(row[t] for t in targets)


def autopilot_action(game: Game) -> Action:
    seat = game.active
    here = game.taxis[seat]
    choices = game.pickup_choices()
    if choices:
        fares = DISTANCE[here]
        return Pickup(seat, max(choices, key=lambda d: (fares[d], -AREA_INDEX[d])))
    if game.phase == "pickup":
        return Decline(seat)
    steps = game.step_choices()
    targets = _targets(game, seat)
    if not game.path:
        if not steps:
            return Pass(seat)
        if not targets:
            return Step(seat, steps[0])
        return Step(seat, min(steps, key=lambda a: _distance_to(a, targets)))
    if not steps or not targets or here in targets:
        return Stop(seat)
    best = min(steps, key=lambda a: _distance_to(a, targets))
    if _distance_to(best, targets) >= _distance_to(here, targets):
        return Stop(seat)
    return Step(seat, best)
