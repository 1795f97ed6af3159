"""The `strong` level: determinized Monte Carlo over whole futures.

The plans the greedy level ranks best are each played in the same sampled worlds (common random
numbers: every plan meets the same hidden piles, so the comparison is not drowned in the luck of
the draw), and every world is played to the end of the game by the autopilot (K2) for every
seat. A plan scores its average final margin over the best other seat, plus a bonus for winning
(a shared first place shares it). The budget counts playouts, not seconds: the engine reads no
clock, and a fixed count keeps a decision the same for the same seed on any machine.
"""

from __future__ import annotations

from collections.abc import Callable

from ..autopilot import autopilot_action
from ..game import Game
from .plans import Plan, play, ranked, value

#: Plans kept from the greedy ranking for the playouts.
KEEP = 6
#: A win is worth this many fares of margin.
WIN_BONUS = 10.0
#: A playout ends after this many turns even if the game does not (K4 keeps it far away).
PLAYOUT_TURNS = 2000


def playout(game: Game) -> None:
    """Play the game on to its end with the autopilot for every seat (K4: it ends)."""
    limit = game.turn + PLAYOUT_TURNS
    while not game.over and game.turn < limit:
        game.apply(autopilot_action(game))


def score(game: Game, seat: int) -> float:
    if game.over and game.result is not None:
        incomes = game.result.incomes
        best_other = max(income for other, income in enumerate(incomes) if other != seat)
        mine = incomes[seat]
        if mine > best_other:
            won = 1.0
        elif mine == best_other:
            won = 1.0 / sum(1 for income in incomes if income == mine)
        else:
            won = 0.0
        return mine - best_other + WIN_BONUS * won
    # cut off or aborted: judge what is on the board
    mine = value(game, seat)
    return mine - max(value(game, other) for other in range(game.players) if other != seat)


def search(worlds: Callable[[], Game], budget: int, keep: int = KEEP) -> Plan:
    """The plan with the best average score over `budget` playouts in worlds from `worlds()`:
    the greedy level's best `keep` plans (fewer if the budget is smaller) each played in
    `budget // keep` worlds.

    `worlds` returns a fresh world on each call; its public part is what the bot sees, its pile
    is the sampler's business (a sample of the unseen cards for a bot, the true pile for the
    benchmark's oracle)."""
    base = worlds()
    seat = base.active
    candidates = [plan for _, plan in ranked(base)[: max(1, min(keep, budget))]]
    if len(candidates) == 1:
        return candidates[0]
    rounds = max(1, budget // len(candidates))
    totals = [0.0] * len(candidates)
    for _ in range(rounds):
        sample = worlds()
        for i, plan in enumerate(candidates):
            game = sample.clone()
            turn = game.turn
            play(game, plan)
            while not game.over and game.turn == turn and game.active == seat:
                play(game, ranked(game)[0][1])  # a plan that leaves the turn open: finish it
            playout(game)
            totals[i] += score(game, seat)
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    return candidates[best]


__all__ = ["KEEP", "PLAYOUT_TURNS", "WIN_BONUS", "playout", "score", "search"]
