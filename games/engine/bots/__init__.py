"""Computer opponents (issue 23): a bot decides from a player's view only (H1).

    action = choose(player_view(game, seat), seed=s, level="strong")
    game.apply(action)   # the server: through the same write path as a person's move

Levels: `easy` is the autopilot (K2); `medium` plays the turn that is best this turn alone
(income now, fares on board, the best citizen in reach); `strong` plays the best of the greedy
level's plans after playing each to the end of the game in worlds sampled from the cards it
cannot see (determinization, see `worlds`).

Contract of `choose`:
* it reads the view and nothing else; a full view (with the secrets) is refused. The pile's
  order and the game's seed never reach it, so two games that differ only in the hidden pile
  make the same decision for the same bot seed;
* the same view, seed, level and budget give the same action, on any machine;
* the action is legal in the game the view was taken from: a whole `turn` when every part is
  certain, otherwise one atomic action (a pre-movement pickup, a step, a stop, a pickup, a
  decline, a pass), after which the server asks again;
* `budget` (strong only) counts playouts; the default keeps a decision under a second of CPU
  on the benchmark machine for every player count (bench/BOTS_RESULTS.md).
"""

from __future__ import annotations

from ..actions import Action
from ..autopilot import autopilot_action
from .plans import greedy
from .search import search
from .worlds import Sampler

LEVELS = ("easy", "medium", "strong")
#: Playouts per decision of the strong level (see bench/BOTS_RESULTS.md for their cost).
DEFAULT_BUDGET = 160
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
    if level == "medium":
        return greedy(sampler()).action
    return search(sampler, DEFAULT_BUDGET if budget is None else budget).action


__all__ = ["DEFAULT_BUDGET", "LEVELS", "STALL_TURNS_PER_PLAYER", "choose"]
