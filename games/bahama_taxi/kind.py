"""Bahama Taxi's registration with the platform (games/registry.py, games/game_kind.py): the
engine in games/engine, its three table options kept in `Game`'s own columns, the board page,
the admin's board replay (games/admin_replay.py draws it), the bots of games/engine/bots."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games import engine
from games.engine.bots import LEVELS, choose
from games.engine.errors import Code
from games.engine.options import MAX_PLAYERS, MIN_PLAYERS, check_players
from games.game_kind import GameKind

NOTIFICATIONS = frozenset({
    "game_started", "turn_started", "taxi_moved", "move_undone", "passenger_dropped_off",
    "citizen_picked_up", "citizen_added", "deadline_reached", "turn_passed", "turn_ended",
    "cards_discarded", "game_ended", "turn_timed_out", "seat_zombified", "seat_restored",
    "game_aborted",
})  # fmt: skip


# The engine's refusals in the reader's language (games/errors.py: `engine_message`).
ERROR_MESSAGES = {
    Code.MALFORMED_ACTION: _("This is not a well-formed action."),
    Code.INVALID_OPTIONS: _("These table options are not valid."),
    Code.INVALID_PLAYERS: _("A game has 2 to 8 players."),
    Code.PICKUP_BEFORE_MOVEMENT_REQUIRED: _(
        "5 to 8 players need the option “pickup before movement”."
    ),
    Code.UNSUPPORTED_RULES_VERSION: _("This version of the rules is not supported."),
    Code.GAME_OVER: _("The game is over."),
    Code.NO_SUCH_SEAT: _("This game has no such seat."),
    Code.NOT_YOUR_TURN: _("It is not your turn."),
    Code.NOT_ADJACENT: _("The taxi can only move to a neighbouring area."),
    Code.AREA_OCCUPIED: _("Another taxi is on that area."),
    Code.START_AREA: _("The taxi cannot go back to the area where it began this turn."),
    Code.ALLOWANCE_EXCEEDED: _("No steps are left this turn."),
    Code.STEP_REQUIRED: _("The first step of a turn is mandatory."),
    Code.MOVEMENT_OVER: _("The taxi has already stopped this turn."),
    Code.NOTHING_TO_UNDO: _("There is no step to take back."),
    Code.UNDO_LIMIT: _("At most 5 steps can be taken back per turn."),
    Code.NO_SUCH_CITIZEN: _("No citizen waits here to go there."),
    Code.PICKUP_NOT_ALLOWED: _("This pickup is not allowed now."),
    Code.NOT_PICKING_UP: _("There is nothing to decline before the stop."),
    Code.NOT_BLOCKED: _("The taxi can move, so it cannot pass."),
    Code.DEADLINE_ALREADY_REACHED: _("This deadline has already been reached."),
    Code.ALREADY_ZOMBIE: _("The autopilot already plays this seat."),
    Code.NOT_ZOMBIE: _("This seat is not played by the autopilot."),
}
CLAUSE_MESSAGES = {
    ("pickup_not_allowed", "P1"): _("A taxi carries at most 3 passengers."),
    ("pickup_not_allowed", "P2"): _(
        "Once the draw pile is exhausted, a taxi with 2 passengers cannot pick up a third."
    ),
    ("pickup_not_allowed", "P3"): _(
        "While at most 4 citizens are waiting, only an empty taxi may pick up."
    ),
    ("pickup_not_allowed", "T2"): _("A pickup before movement is no longer possible this turn."),
    ("pickup_not_allowed", "T5"): _("Pickups happen at the stop."),
}


def _offered(state: engine.Game, seat: int | None) -> list[dict]:
    return [engine.encode_action(action) for action in state.offered_actions(seat)]


def _choose(view: dict, seed: int, level: str) -> engine.Action:
    return choose(view, seed=seed, level=level)


KIND = GameKind(
    key="bahama-taxi",
    name=_("Bahama Taxi"),
    engine=engine,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    options_from_json=engine.Options.from_json,
    check_players=check_players,
    notifications=NOTIFICATIONS,
    offered=_offered,
    bot_levels=LEVELS,
    choose=_choose,
    template="web/game.html",
    replay_template="admin/games/replay.html",
    replay_context=None,  # the board viewer of games/admin_replay.py
    rating_pool="bahama-taxi",
    wall_clock_deadlines=True,
    restore=True,
    option_columns=("shift_change", "pickup_before_movement", "movement"),
    bot_seed_prefix="bahama-taxi-bot",
    error_messages={str(code): message for code, message in ERROR_MESSAGES.items()},
    clause_messages=CLAUSE_MESSAGES,
)
