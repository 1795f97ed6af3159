"""What the platform knows of one game (`GameKind`): each game's registration module builds
one, and games/registry.py holds them all (docs/adding-a-game.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

Sentence = Callable[[dict, Callable[[object], str]], str]


class InvalidNotes(ValueError):
    """Private notes a game's validator refuses (`GameKind.notes`): `errors` names each wrong
    field with its messages, nested as the notes are (the API's 400 `invalid` `errors`)."""

    def __init__(self, errors: dict) -> None:
        super().__init__(errors)
        self.errors = errors


@dataclass(frozen=True, repr=False)
class GameKind:
    """What the platform knows of one game. `engine` is the game's engine module, with the
    verbs every engine has: `Setup`, `Options`, `start`, `replay`, `replay_notifications`,
    `public_view`, `player_view`, `full_view`, `decode_action`, `encode_action`,
    `autopilot_action`, `seed_commitment`, `seed_matches`, `EngineError` (and its `Code`),
    the action types `Timeout`, `Zombify`, `Resign`, `Abort` and the sets `PLAYER_ACTIONS`,
    `SERVER_ACTIONS`, `CLIENT_ACTIONS`."""

    key: str  # stable: stored in `Game.kind`, sent as the API's `game`
    name: Any  # the display name, translatable (a lazy string)
    engine: ModuleType
    min_players: int
    max_players: int
    #: table options: JSON (a client's, or the stored column) → the engine's `Options`, or the
    #: engine's `InvalidSetup` (`invalid_options`); the defaults are `options_from_json({})`
    options_from_json: Callable[[object], Any]
    #: the player-count check of its rules: (options, players) → None, or `InvalidSetup`
    check_players: Callable[[Any, int], Any]
    #: the notification types its log holds (the rules' table and the server's)
    notifications: frozenset[str]
    #: what its seat is offered as JSON (the engine's `offered_actions`, encoded if need be)
    offered: Callable[[Any, int | None], list[dict]]
    #: computer opponents: levels, and `choose(view, seed, level) -> Action`
    bot_levels: tuple[str, ...]
    choose: Callable[[dict, int, str], Any]
    template: str  # the game page's template (games/web.py renders it at /games/<id>/)
    replay_template: str  # the admin replay viewer's panel of one step
    #: the admin replay's hook: (full view at a step, before it or None) → the template's context
    replay_context: Callable[[dict, dict | None], dict] | None
    rating_pool: str  # the ratings pool its rated games move (a rating per (user, pool))
    #: the log's sentences for people (games/wording.py), by notification type, over the
    #: platform's generic ones
    sentences: Mapping[str, Sentence] = field(default_factory=dict)
    #: its engine's refusals in the reader's language (the engine speaks English only), by
    #: code, and by (code, clause) where one code covers several rules (games/errors.py)
    error_messages: Mapping[str, Any] = field(default_factory=dict)
    clause_messages: Mapping[tuple[str, str], Any] = field(default_factory=dict)
    wall_clock_deadlines: bool = False  # D4 of Bahama Taxi: `deadline1_at`, `deadline2_at`
    restore: bool = False  # a moderator may give a zombie seat back to its player
    #: the platform's columns holding its options (Bahama Taxi's own); else the JSON column
    option_columns: tuple[str, ...] = ()
    bot_seed_prefix: str = ""  # a bot's decision seed: SHA-256 of prefix:game:version:seat
    #: a player's private notes on their seat, if the game keeps any (Digit Code's C2): JSON
    #: → the notes as stored, or `InvalidNotes`; `notes({})` is the empty notes. None: the
    #: game has no notes (the notes endpoint answers 404 `notes_not_offered`)
    notes: Callable[[object], dict] | None = None

    def __repr__(self) -> str:
        return f"<GameKind {self.key}>"

    def default_options(self) -> Any:
        return self.options_from_json({})

    def options_of(self, game) -> Any:
        """A `Game` row's options as the engine's `Options`."""
        if self.option_columns:
            return self.options_from_json(
                {name: getattr(game, name) for name in self.option_columns}
            )
        return self.options_from_json(game.game_options or {})

    def setup(self, *, options, players: int, seed: int, rules_version: str | None = None):
        if rules_version:
            return self.engine.Setup(
                options=options, players=players, seed=seed, rules_version=rules_version
            )
        return self.engine.Setup(options=options, players=players, seed=seed)

    def is_engine_error(self, error: BaseException) -> bool:
        return isinstance(error, self.engine.EngineError)

    def deadlines_reached(self, state) -> int:
        """The wall-clock deadlines the state holds (0 for a game without them)."""
        return state.deadline if self.wall_clock_deadlines else 0
