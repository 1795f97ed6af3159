"""The games the platform hosts: one `GameKind` per game, and the one way the platform reaches
a game's engine.

    kind = registry.get(game.kind)          # "bahama-taxi", "digit-code"; UnknownGame otherwise
    kind.engine.start(kind.setup(...))      # the engine's verbs: start, replay, views, …
    kind.offered(state, seat)               # what the seat may do, as JSON
    registry.all()                          # every kind, in the order of REGISTERED

A game is a package of its own: its pure engine (the verbs of docs/architecture.md, "The
engine") and one module, its registration, that builds a `GameKind` named `KIND`. A game is
added by that package plus one line in `REGISTERED` (docs/adding-a-game.md). The platform's
modules (tables, the log, state, clocks, pushes, the API, the sockets, moderation, ratings,
export, archive) import no game package: only this module, which imports each registration.
"""

from __future__ import annotations

import importlib
from typing import Any

from games.game_kind import GameKind, InvalidNotes, Sentence

#: Each game's registration module (it defines `KIND`), one line per game; the first is the
#: default, the game of a table created without naming one.
REGISTERED = (
    "games.bahama_taxi.kind",
    "games.digit_code.kind",
)  # fmt: skip

DEFAULT = "bahama-taxi"


__all__ = ["DEFAULT", "REGISTERED", "GameKind", "InvalidNotes", "Sentence", "UnknownGame", "all",
           "get", "keys"]  # fmt: skip


class UnknownGame(LookupError):
    """No game is registered under this key."""


def _load() -> dict[str, GameKind]:
    kinds: dict[str, GameKind] = {}
    for module in REGISTERED:
        kind = importlib.import_module(module).KIND
        if not isinstance(kind, GameKind) or kind.key in kinds:
            raise ImportError(f"{module}: KIND must be a GameKind with a key of its own")
        kinds[kind.key] = kind
    return kinds


_KINDS = _load()


def get(key: str) -> GameKind:
    """The game registered under `key`; `UnknownGame` if none."""
    try:
        return _KINDS[key]
    except (KeyError, TypeError):
        raise UnknownGame(key) from None


def all() -> tuple[GameKind, ...]:  # noqa: A001 - the registry's own verb, as in the brief
    return tuple(_KINDS.values())


def keys() -> tuple[str, ...]:
    return tuple(_KINDS)


def engine_errors() -> tuple[type[BaseException], ...]:
    """Every registered engine's `EngineError`, for an `except` that handles any game's."""
    return tuple(kind.engine.EngineError for kind in _KINDS.values())


def choices() -> list[tuple[str, Any]]:
    """(key, display name) of every game: form and serializer choices."""
    return [(kind.key, kind.name) for kind in _KINDS.values()]
