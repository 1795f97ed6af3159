"""The Bahama Taxi rules engine: pure Python, no Django, no clock, no I/O, no global random.

    game, notifications = new_game(Options(movement="fast"), players=4, seed=7)
    game.legal_actions()               # [Step(seat=0, to='9S'), …]
    notifications = game.apply({"type": "step", "seat": 0, "to": "9S"})
    game.result                        # Outcome(incomes, ranking) once over; .to_json()
    replay(Setup(options, 4, 7), game.history) == game

See docs/architecture.md for the API and RULES.md for the rules each part implements.
"""

from .actions import (
    ACTION_TYPES,
    CLIENT_ACTIONS,
    PLAYER_ACTIONS,
    SERVER_ACTIONS,
    Abort,
    Action,
    Deadline,
    Decline,
    Pass,
    Pickup,
    Resign,
    Restore,
    Step,
    Stop,
    Timeout,
    Turn,
    Undo,
    Zombify,
    decode_action,
    encode_action,
)
from .autopilot import autopilot_action
from .board import AREAS, ATTRIBUTION, DISTANCE, NEIGHBOURS, distance
from .errors import Code, EngineError, IllegalAction, InvalidSetup, MalformedAction
from .game import RULES_VERSION, Game, Outcome, new_game
from .notifications import Notification
from .options import Options
from .replay import SUPPORTED_RULES_VERSIONS, Setup, replay, replay_notifications, start, verify
from .seed import seed_commitment, seed_matches
from .views import full_view, player_view, public_view

__all__ = [
    "ACTION_TYPES", "AREAS", "ATTRIBUTION", "CLIENT_ACTIONS", "DISTANCE", "NEIGHBOURS",
    "PLAYER_ACTIONS",
    "RULES_VERSION", "SERVER_ACTIONS", "SUPPORTED_RULES_VERSIONS",
    "Abort", "Action", "Code", "Deadline", "Decline", "EngineError", "Game", "IllegalAction",
    "InvalidSetup", "MalformedAction", "Notification", "Options", "Outcome", "Pass", "Pickup",
    "Restore", "Resign", "Setup",
    "Step", "Stop", "Timeout", "Turn", "Undo", "Zombify",
    "autopilot_action", "decode_action", "distance", "encode_action", "full_view", "new_game",
    "player_view", "public_view", "replay", "replay_notifications", "seed_commitment",
    "seed_matches", "start", "verify",
]  # fmt: skip
