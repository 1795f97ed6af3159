"""The playout policy of the searching levels: a quick, opportunistic turn for any seat.

A search plays thousands of turns per decision, for its own seat and for the others, so the
policy must be cheap and must play the way a sensible opponent does: deliver when a rider's
destination is in reach (the largest income this turn), otherwise stop where a citizen waits
that the taxi may pick up (a fare in hand), otherwise end nearest to a fare (a rider's
destination, or with no rider a waiting citizen's origin). It reads nothing hidden: the moves it
plays draw cards in the world being searched, never in the real game.
"""

from __future__ import annotations

from ..actions import Decline, Pass, Pickup, Step, Stop
from ..board import DISTANCE
from ..game import CAPACITY, FEW_WAITING, MOVE, PICKUP, Game
from .plans import reachable

FAR = 1_000


def _may_pick_up(riders: int, pile: int, waiting: int) -> bool:
    """P1-P3 for a taxi carrying `riders`, counted before the pickup."""
    if riders >= CAPACITY:
        return False
    if riders >= 2 and pile < 2:
        return False
    return not (riders >= 1 and waiting <= FEW_WAITING)


def quick_turn(game: Game) -> None:
    """Play the rest of the active seat's turn in `game` with the playout policy."""
    seat, turn = game.active, game.turn
    while not game.over and game.turn == turn and game.phase == MOVE and not game.path:
        before = game.pickup_choices()  # T2: take a fare in hand before moving
        if not before:
            break
        here = DISTANCE[game.taxis[seat]]
        game.apply(Pickup(seat, max(before, key=here.__getitem__)))
    if game.over or game.turn != turn:
        return
    if game.phase == MOVE:
        stop, path = _best_stop(game, seat)
        if path is None:
            if game.path:
                game.apply(Stop(seat))
            else:
                game.apply(Pass(seat))  # T7: blocked
                return
        else:
            for to in path:
                game.apply(Step(seat, to))
            game.apply(Stop(seat))
        if game.over or game.turn != turn:
            return
    while game.phase == PICKUP and game.turn == turn and not game.over:
        choices = game.pickup_choices()
        if not choices:
            game.apply(Decline(seat))
            return
        riders = game.passengers[seat]
        game.apply(Pickup(seat, min(choices, key=lambda d: _nearest(d, riders))))


def _nearest(area: str, riders: list[tuple[str, str]]) -> int:
    row = DISTANCE[area]
    return min((row[d] for _, d in riders), default=0)


def _best_stop(game: Game, seat: int) -> tuple[str, tuple[str, ...] | None]:
    """The stop the policy picks: (area, path), path None for stopping where the taxi is."""
    riders = game.passengers[seat]
    waiting = game.waiting
    may = _may_pick_up
    pile, count = len(game.pile), len(waiting)
    at: dict[str, list[str]] = {}
    for origin, destination in waiting:
        at.setdefault(origin, []).append(destination)
    best_key: tuple[int, int, int] | None = None
    best: tuple[str, tuple[str, ...] | None] = (game.taxis[seat], None)
    options: list[tuple[str, tuple[str, ...] | None]] = []
    if game.path:
        options.append((game.taxis[seat], None))
    options.extend(reachable(game).items())
    for stop, path in options:
        income = 0
        staying = riders
        if riders:
            staying = []
            for citizen in riders:
                if citizen[1] == stop:
                    income += DISTANCE[citizen[0]][stop]
                else:
                    staying.append(citizen)
        row = DISTANCE[stop]
        taken = 0
        distance = min([row[d] for _, d in staying]) if staying else FAR
        if may(len(staying), pile, count):
            here = at.get(stop)
            if here:
                taken = 1
                distance = min(distance, min([row[d] for d in here]))
            elif not staying and at:
                distance = min([row[o] for o in at])
        key = (-income, -taken, distance)
        if best_key is None or key < best_key:
            best_key, best = key, (stop, path)
    return best
