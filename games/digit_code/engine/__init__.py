"""The Digit Code rules engine (RULES-digit-code.md): pure Python, stdlib only, no Django, no
clock, no I/O, no global random, typed (`mypy --strict`). The same verbs and shapes as Bahama
Taxi's (games/engine, docs/architecture.md "The engine"):

    game, notifications = start(Setup(Options(), players=2, seed=s))
    game.current_player()            # seat to play, None when over
    game.legal_actions()             # [Ask(0, Count("row", 1)), …]: the unasked questions
    notes = game.apply({"type": "guess", "seat": 0, "code": [0, 1, 0, 1, 2, 3]})
    game.clone(); game.over
    game.result                      # Outcome(winner, ranking); .to_json()
    player_view(game, seat)          # public state + what the seat is offered (G6-safe)
    replay(setup, game.history) == game

* `legal_actions()` lists the questions not yet asked (Q5), in C1's fixed order. A guess is
  legal too but is not listed (465,120 codes): `apply` checks it (B2, B3, G1). The views'
  `legal_actions` (`Game.offered_actions`) are offers, not actions: `{"type": "ask", "seat",
  "questions": [...]}`, `{"type": "guess", "seat"}` (add `code`), `{"type": "resign", "seat"}`.
* `apply` is all or nothing and returns the notifications in P3's order; after it returns the
  game waits on a seat still in, or is over. Actions: player `ask {seat, question}`, `guess
  {seat, code}`; server `timeout {seat}` (C1; the third timed-out turn in a row makes the seat
  absent), `zombify {seat}` (moderator), `resign {seat}`, `abort {reason}`. No `restore`: an
  elimination is final.
* Notifications: the rules' table — `game_started` {`rules_version`, `seats`, `commitment`},
  `turn_started`, `question_asked`, `guess_made`, `player_eliminated`, `turn_ended`,
  `game_ended` {`winner`, `ranking`, `code`, `seed`} — and the server's `turn_timed_out`
  {`seat`, `count`} (as Bahama Taxi's), `seat_zombified` {`seat`, `reason`}, `game_aborted`
  {`reason`, `code`, `seed`}.
* Errors (`errors.Code`): malformed `malformed_action` (with field errors), `invalid_options`;
  setup `invalid_players`, `unsupported_rules_version`; illegal (with the clause) `game_over`,
  `no_such_seat`, `not_your_turn`, `seat_eliminated`, `question_already_asked`,
  `impossible_code`, `guess_repeated`, `already_zombie`.
* Secrets (G6): the code and the seed are in no view, notification, error or repr before the
  end; `full_view` marks them `secret` for moderators. The seed's commitment and the generator
  (Bahama Taxi's, under the key "digit-code/game/<seed>/") are docs/fairness.md section 6.

The bots (`bots.choose`) are imported on their own: they build their tables at first use.
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
