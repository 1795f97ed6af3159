"""The Digit Code rules engine (RULES-digit-code.md): pure Python, stdlib only, no Django, no
clock, no I/O, no global random. The same verbs and shapes as Bahama Taxi's (games/engine):

    game, notifications = start(Setup(Options(), players=2, seed=7))
    game.legal_actions()             # [Ask(seat=0, question=Count(line='row', index=1)), …]
    notifications = game.apply({"type": "guess", "seat": 0, "code": [0, 1, 0, 1, 2, 3]})
    replay(Setup(Options(), 2, 7), game.history) == game

See docs/architecture.md for the API and RULES-digit-code.md for the rules each part implements.
The bots (`bots.choose`) are imported on their own: they build tables at first use.
"""

from .actions import (
    ACTION_TYPES,
    CLIENT_ACTIONS,
    PLAYER_ACTIONS,
    SERVER_ACTIONS,
    Abort,
    Action,
    Ask,
    Guess,
    PlayerAction,
    Resign,
    Timeout,
    Zombify,
    decode_action,
    encode_action,
)
from .autopilot import autopilot_action, smallest_consistent_code
from .codes import CODE_COUNT, breaks_rule, kth_code
from .errors import Code, EngineError, IllegalAction, InvalidSetup, MalformedAction
from .game import RULES_VERSION, Game, Notification, Outcome, new_game
from .options import MAX_PLAYERS, MIN_PLAYERS, Options, check_players
from .questions import QUESTIONS, Compare, Count, Led, Parity, Question, decode_question
from .replay import SUPPORTED_RULES_VERSIONS, Setup, replay, replay_notifications, start, verify
from .seed import seed_commitment, seed_matches
from .views import full_view, player_view, public_view

__all__ = [
    "ACTION_TYPES", "CLIENT_ACTIONS", "CODE_COUNT", "MAX_PLAYERS", "MIN_PLAYERS",
    "PLAYER_ACTIONS", "QUESTIONS", "RULES_VERSION", "SERVER_ACTIONS", "SUPPORTED_RULES_VERSIONS",
    "Abort", "Action", "Ask", "Code", "Compare", "Count", "EngineError", "Game", "Guess",
    "IllegalAction", "InvalidSetup", "Led", "MalformedAction", "Notification", "Options",
    "Outcome", "Parity", "PlayerAction", "Question", "Resign", "Setup", "Timeout", "Zombify",
    "autopilot_action", "breaks_rule", "check_players", "decode_action", "decode_question",
    "encode_action", "full_view", "kth_code", "new_game", "player_view", "public_view", "replay",
    "replay_notifications", "seed_commitment", "seed_matches", "smallest_consistent_code",
    "start", "verify",
]  # fmt: skip
