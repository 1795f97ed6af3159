"""The searching levels: determinized Monte Carlo over whole turns, in worlds sampled from the
cards the bot cannot see.

Every candidate turn is played in the same sampled worlds (common random numbers: each candidate
meets the same hidden piles, so their comparison is not drowned in the luck of the draw). After
the candidate, every seat (this one too) plays the quick playout policy (`policy.quick_turn`)
for `horizon` further turns, and the position is judged by the seat's value less the best other
seat's (`plans.value`: income, riders' fares discounted by the turns to their destinations, the
best citizen in reach); a game that ends in the playout is judged by its final margin plus a
bonus for the win. Halfway through the budget the worse half of the candidates is dropped
(successive halving), so the playouts go where the choice is close.

The budget counts playouts, not seconds: the engine reads no clock, and a fixed count keeps a
decision the same for the same view and seed on any machine.
"""

from __future__ import annotations

from collections.abc import Callable

from ..actions import Step
from ..game import Game
from .plans import Plan, plans, play, ranked, value
from .policy import quick_turn

#: Candidate turns kept from the greedy ranking (with the playout policy's own choice).
KEEP = 8
#: A win is worth this many fares of margin.
WIN_BONUS = 10.0
#: Turns played after the candidate before the position is judged.
HORIZON = 12


def final_incomes(game: Game) -> list[int]:
    """The incomes of a finished game: the one place the bots read the engine's result."""
    assert game.result is not None
    return list(game.result.incomes)


def score(game: Game, seat: int) -> float:
    """The seat's margin over the best other seat: final (with the win bonus) once the game
    is over, else as `plans.value` judges the position."""
    if game.over and game.aborted is None:
        incomes = final_incomes(game)
        mine = incomes[seat]
        best_other = max(income for other, income in enumerate(incomes) if other != seat)
        if mine > best_other:
            won = 1.0
        elif mine == best_other:
            won = 1.0 / sum(1 for income in incomes if income == mine)
        else:
            won = 0.0
        return mine - best_other + WIN_BONUS * won
    mine = value(game, seat)
    return mine - max(value(game, other) for other in range(game.players) if other != seat)


def rollout(game: Game, seat: int, plan: Plan, horizon: int) -> float:
    """Play the plan in this world, finish its turn and `horizon` more with the policy, and
    score the result for `seat`."""
    turn = game.turn
    play(game, plan)
    if not game.over and game.turn == turn and game.active == seat:
        quick_turn(game)  # a plan handed over as one atomic action: finish its turn
    end = game.turn + horizon
    while not game.over and game.turn < end:
        quick_turn(game)
    return score(game, seat)


def candidates(game: Game, keep: int) -> list[Plan]:
    """The turns worth searching: every plan if few, else the greedy ranking's best `keep` and
    the plans that stop where the playout policy would."""
    every = plans(game)
    if len(every) <= keep:
        return every
    best = [plan for _, plan in ranked(game)[:keep]]
    trial = game.clone()
    quick_turn(trial)
    where = trial.taxis[game.active]
    for plan in every:
        stops = [m for m in plan.moves if isinstance(m, Step)]
        if plan not in best and stops and stops[-1].to == where:
            best.append(plan)
    return best


def search(
    worlds: Callable[[], Game], budget: int, keep: int = KEEP, horizon: int = HORIZON
) -> Plan:
    """The candidate with the best average score over about `budget` playouts in worlds from
    `worlds()` (each call a fresh world: a sample of the unseen cards for a bot, the true pile
    for the benchmark's oracle)."""
    base = worlds()
    seat = base.active
    alive = candidates(base, keep)
    if len(alive) == 1:
        return alive[0]
    totals = [0.0] * len(alive)
    rounds = [0] * len(alive)
    first_half = max(1, budget // 2 // len(alive))
    for _ in range(first_half):
        sample = worlds()
        for i, plan in enumerate(alive):
            totals[i] += rollout(sample.clone(), seat, plan, horizon)
            rounds[i] += 1
    order = sorted(range(len(alive)), key=lambda i: (-totals[i], i))
    kept = sorted(order[: max(2, (len(alive) + 1) // 2)])
    second_half = max(0, (budget - first_half * len(alive)) // len(kept))
    for _ in range(second_half):
        sample = worlds()
        for i in kept:
            totals[i] += rollout(sample.clone(), seat, alive[i], horizon)
            rounds[i] += 1
    best = max(kept, key=lambda i: (totals[i] / rounds[i], -i))
    return alive[best]


__all__ = ["HORIZON", "KEEP", "WIN_BONUS", "candidates", "rollout", "score", "search"]
