"""What a bot may do with its turn, and the one-turn greedy choice (the `medium` level).

A *plan* is a whole decision: the atomic actions that play it in a world, and the action the bot
hands to the server. Undo is never planned (it only wastes time), so a turn comes down to where
the taxi stops and whom it picks up there (T3, T5), or a pre-movement pickup (T2). The server
gets a whole `turn` when every part of it is certain from public information; when a later part
depends on a card still to be drawn (a pre-movement pickup's replacement may change the
allowance, a second pickup at one stop depends on the first one's replacement), it gets only the
first atomic action and asks again after the draw.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ..actions import Action, Decline, Pass, Pickup, Step, Stop, Turn
from ..board import DISTANCE, NEIGHBOURS
from ..errors import EngineError
from ..game import CAPACITY, MOVE, PICKUP, Game

#: A fare worth f in k of this taxi's turns is valued f * DISCOUNT**k.
DISCOUNT = 0.9
#: The best citizen this taxi could fetch is worth this share of its discounted fare.
PROSPECT = 0.5
#: With the last citizen undeliverable, each turn an empty taxi needs to reach it costs this much
#: (less than any fare: only a tie-break that makes the taxi go and end the game).
LAST_CITIZEN_PULL = 0.01


@dataclass(frozen=True, slots=True)
class Plan:
    moves: tuple[Action, ...]  # played in a world, in order
    action: Action  # handed to the server


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def reachable(game: Game) -> dict[str, tuple[str, ...]]:
    """Every area where the active taxi may stop this turn, with a shortest path to it (T1, T3):
    no other taxi's area, never the area the turn began on."""
    seat = game.active
    left = game.allowance() - len(game.path)
    here = game.taxis[seat]
    closed = {area for other, area in enumerate(game.taxis) if other != seat}
    closed.add(game.turn_start)
    if left == 1:  # normal movement: the neighbours, as the search below finds them
        return {near: (near,) for near in NEIGHBOURS[here] if near not in closed}
    paths: dict[str, tuple[str, ...]] = {}
    queue = deque([(here, ())])
    seen = {here}
    while queue:
        area, path = queue.popleft()
        if len(path) == left:
            continue
        for near in NEIGHBOURS[area]:
            if near in closed:
                continue
            step_path = (*path, near)
            if near not in paths:
                paths[near] = step_path
            if near not in seen:
                seen.add(near)
                queue.append((near, step_path))
    return paths


def play(game: Game, plan: Plan) -> None:
    """Play the plan's moves in this world, stopping early if the turn or the game ends."""
    seat, turn = game.active, game.turn
    for move in plan.moves:
        if game.over or game.turn != turn:
            return
        game.apply(move)
    if not game.over and game.turn == turn and game.phase == PICKUP and game.active == seat:
        game.apply(Decline(seat))  # P4: pickups not planned are declined


def plans(game: Game) -> list[Plan]:
    """Every distinct decision open to the active seat now, in a fixed order."""
    seat = game.active
    if game.phase == PICKUP:
        found = [Plan((Pickup(seat, d),), Pickup(seat, d)) for d in game.pickup_choices()]
        return [*found, Plan((Decline(seat),), Decline(seat))]
    if game.phase != MOVE:
        return []
    found = [Plan((Pickup(seat, d),), Pickup(seat, d)) for d in game.pickup_choices()]  # T2
    if game.path:  # mid-move (a bot only gets here after a step it handed over alone)
        found.extend(_stops(game, seat, (), Stop(seat)))
    stops = reachable(game)
    for steps in stops.values():
        found.extend(_stops(game, seat, steps, None))
    if not stops and not game.path:
        found.append(Plan((Pass(seat),), Pass(seat)))  # T7: blocked, declining any pickup
    return found


def _stops(game: Game, seat: int, steps: tuple[str, ...], first: Action | None) -> list[Plan]:
    """Plans that stop after `steps`: picking up nobody, one citizen, or (two decks) two."""
    moves = (*(Step(seat, to) for to in steps), Stop(seat))
    trial = game.clone()
    for move in moves:
        trial.apply(move)
    if first is None:
        first = Step(seat, steps[0])
    turn = Turn(seat, steps)
    found = [Plan(moves, turn if steps else first)]
    if trial.turn != game.turn or trial.phase != PICKUP:
        return found
    choices = trial.pickup_choices()
    for destination in choices:
        pickup = Pickup(seat, destination)
        found.append(Plan((*moves, pickup), Turn(seat, steps, (destination,)) if steps else first))
    for i, one in enumerate(choices):  # P4: two citizens on one area, checked one at a time
        for two in choices[i + 1 :]:
            for pair in ((one, two), (two, one)):
                after = trial.clone()
                try:
                    after.apply(Pickup(seat, pair[0]))
                    after.apply(Pickup(seat, pair[1]))
                except EngineError:
                    continue
                found.append(Plan((*moves, Pickup(seat, pair[0]), Pickup(seat, pair[1])), first))
    return found


def value(game: Game, seat: int) -> float:
    """What the seat's income is worth now, counting fares it is on its way to earn."""
    income = game.income[seat]
    if game.over:
        return float(income)  # G3: riders pay nothing
    steps = game.allowance()
    row = DISTANCE[game.taxis[seat]]
    riding = game.passengers[seat]
    worth = float(income)
    for origin, destination in riding:
        worth += DISTANCE[origin][destination] * DISCOUNT ** _ceil_div(row[destination], steps)
    if game.pile_exhausted and len(game.waiting) == 1 and not riding:
        # G1: the last citizen can never be delivered, and picking it up ends the game, which
        # costs an empty taxi nothing and the riders of the others their fares: go for it
        origin = game.waiting[0][0]
        return worth - LAST_CITIZEN_PULL * _ceil_div(row[origin], steps)
    if len(riding) < CAPACITY and game.may_pick_up(seat) is None and game.waiting:
        best = 0.0
        for origin, destination in game.waiting:
            fare = DISTANCE[origin][destination]
            turns = _ceil_div(row[origin], steps) + _ceil_div(fare, steps)
            best = max(best, fare * DISCOUNT**turns)
        worth += PROSPECT * best
    return worth


def greedy_value(game: Game, plan: Plan) -> float:
    """The seat's value after the plan, finishing the turn greedily if the plan leaves it open."""
    seat, turn = game.active, game.turn
    trial = game.clone()
    play(trial, plan)
    if not trial.over and trial.turn == turn and trial.active == seat:
        rest = plans(trial)
        if rest:
            return max(greedy_value(trial, p) for p in rest)
    return value(trial, seat)


def ranked(game: Game) -> list[tuple[float, Plan]]:
    """Plans by greedy value, best first; ties keep the fixed order of `plans`."""
    scored = [(greedy_value(game, plan), i, plan) for i, plan in enumerate(plans(game))]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(score, plan) for score, _, plan in scored]


def greedy(game: Game) -> Plan:
    """The `medium` level: the best plan for this turn alone."""
    return ranked(game)[0][1]


def last_citizen(game: Game) -> Plan | None:
    """G1 end game: with the pile exhausted and one citizen left waiting, nobody can ever deliver
    it, and picking it up ends the game at once. For an empty taxi that may pick it up, whose
    income cannot change any more, that is never worse than waiting (the others' riders then pay
    nothing): the plan that picks it up, or else ends nearest to it; None in any other position."""
    seat = game.active
    if (
        not game.pile_exhausted
        or len(game.waiting) != 1
        or game.passengers[seat]
        or game.may_pick_up(seat) is not None
    ):
        return None
    origin = game.waiting[0][0]
    best: tuple[int, int] | None = None
    found: Plan | None = None
    for index, plan in enumerate(plans(game)):
        if any(isinstance(move, Pickup) for move in plan.moves):
            key = (0, index)
        else:
            steps = [move.to for move in plan.moves if isinstance(move, Step)]
            area = steps[-1] if steps else game.taxis[seat]
            key = (1 + DISTANCE[area][origin], index)
        if best is None or key < best:
            best, found = key, plan
    return found
