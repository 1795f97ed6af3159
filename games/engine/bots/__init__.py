"""Computer opponents: a bot decides from a player's view only (H1).

    action = choose(player_view(game, seat), seed=s, level="strong")
    game.apply(action)   # the server: through the same write path as a person's move

Levels (budgets in playouts, so a decision is the same on any machine; their CPU cost and
strength are in bench/BOTS_RESULTS.md):

* `easy`: the autopilot (K2), no search;
* `medium`: the search of `strong` with a tenth of its playouts (`BUDGETS["medium"]`);
* `strong`: determinized Monte Carlo over whole turns (`search`): the candidate turns are each
  played in the same worlds sampled from the cards the bot cannot see (`worlds`), followed by a
  few turns of a quick playout policy for every seat (`policy`), and judged by the margin over
  the best other seat.

Every level with a search goes for the last citizen once nobody can deliver it
(`plans.last_citizen`).

Contract of `choose`:
* it reads the view and nothing else; a full view (with the secrets) is refused. The pile's
  order and the game's seed never reach it, so two games that differ only in the hidden pile
  make the same decision for the same bot seed;
* the same view, seed, level and budget give the same action, on any machine;
* the action is legal in the game the view was taken from: a whole `turn` when every part is
  certain, otherwise one atomic action (a pre-movement pickup, a step, a stop, a pickup, a
  decline, a pass), after which the server asks again;
* `budget` (medium and strong) counts playouts; the defaults (`default_budget`: `BUDGETS` times
  the movement option's `MOVEMENT_SHARE`) keep a strong decision under 250 ms of CPU at p99 on
  the benchmark machine (bench/BOTS_RESULTS.md).
"""

from __future__ import annotations

from ..actions import Action
from ..autopilot import autopilot_action
from .plans import last_citizen
from .search import search
from .worlds import Sampler, unseen_cards, world

LEVELS = ("easy", "medium", "strong")
#: Playouts per decision of each searching level under normal movement (see
#: bench/BOTS_RESULTS.md for their cost and strength).
BUDGETS = {"medium": 16, "strong": 160}
DEFAULT_BUDGET = BUDGETS["strong"]
#: The share of that budget under each movement option: a turn of fast and faster movement has
#: many more stops to weigh and playouts of more steps, and a decision must stay within the
#: same CPU time (250 ms at p99 for strong).
MOVEMENT_SHARE = {"normal": 1.0, "fast": 0.75, "faster": 0.6}


def default_budget(level: str, movement: str) -> int:
    """The playouts a decision of `level` gets at a table with this movement option."""
    return max(1, round(BUDGETS[level] * MOVEMENT_SHARE[movement]))


#: Each level's think budget on the server, in milliseconds: a bot's first entry of its turn is
#: due `BOT_THINK_SECONDS` after the entry that began the turn, and must be committed at most
#: this much later at p99 while the server carries the api bench's paced load
#: (bench/bot_think.py measures it; docs/bots-and-ratings.md). It holds the decision's CPU
#: (engine alone, bench/BOTS_RESULTS.md: easy < 1 ms, medium p99 ≤ 23 ms, strong p99 ≤ 208 ms
#: over every option set) plus the worker's share of a busy machine, should the decision end
#: past the due time; the server decides during the think time, so what normally falls past
#: it is the wake-up and the move's write.
LATENESS_BUDGET_MS = {"easy": 100, "medium": 150, "strong": 250}

#: K4 for bots: past this many turns per player a bot plays the autopilot, which makes
#: progress, so a table of bots always ends (a search may find that blocking a taxi for ever
#: keeps it from losing). Games of autopilots last about 60 turns per player.
STALL_TURNS_PER_PLAYER = 250


def choose(view: dict, seed: int, level: str = "strong", budget: int | None = None) -> Action:
    """The bot's next action for the seat the view belongs to (see the module's contract)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    seat = view["you"]
    if seat is None or seat != view["active_seat"]:
        raise ValueError("a bot chooses only for the seat to move, from that seat's view")
    sampler = Sampler(view, seed)
    if level == "easy" or view["turn"] > STALL_TURNS_PER_PLAYER * view["players"]:
        return autopilot_action(sampler())
    if view["pile_exhausted"] and len(view["waiting"]) == 1:  # the order of the pile is moot
        ending = last_citizen(world(view, unseen_cards(view)))
        if ending is not None:
            return ending.action
    if budget is None:
        budget = default_budget(level, view["options"]["movement"])
    return search(sampler, budget).action


__all__ = [
    "BUDGETS", "DEFAULT_BUDGET", "LEVELS", "MOVEMENT_SHARE", "STALL_TURNS_PER_PLAYER", "choose",
    "default_budget",
]  # fmt: skip
