"""A game's engine state: replayed from its log, with a per-process cache caught up from the log.

Replay is the only way state is built (STYLE 3). The per-process cache keeps, per game, the
state at one version, as the engine's frozen copy (`frozen()`: tuples where the game plays on
lists, which a full garbage collection no longer walks, however many games the process keeps);
a caller gets a private clone, and only a committed append puts a newer state back. When the
game row's version is ahead of the cached state (the moves since landed on other processes:
with N server processes, most moves do), the missing entries are read from the log and applied
to a clone: `games/repository.py` reads them in the statement that reads the game row
(`cached_version`, `state_for(caught_up=)`), other callers with one indexed SELECT of a few
rows; nothing to write on each move. With nothing cached, the whole log is replayed. A cached
state is keyed by the game's id and seed commitment (a recreated database reuses ids).
Tests prove a cached and a caught-up state equal a replay.

Beside a state that this process appended, the cache keeps what the appender knew with it (the
game row and seats as written, `remember(…, written=)`), so that the next move of the game on
this process may skip its read (`recent`; `games/repository.py` says what guards that).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from games import log
from games.models import Game

CACHE_SIZE = 5000

_lock = threading.Lock()
# game id -> (seed commitment, version, an engine's frozen Game, what its appender wrote or None)
_cache: OrderedDict[int, tuple[str, int, Any, Any]] = OrderedDict()


def _actions(game: Game, after: int) -> list:
    """The actions of the entries after seq `after`, up to the row's version: entries
    committed since the row was read come later."""
    return log.actions(game, after=after)


def _played(state: Any, game: Game, actions: list) -> Any:
    apply = state.apply
    for action in actions:
        apply(action)
    if len(state.history) != game.version:
        raise RuntimeError(
            f"game {game.pk}: log has {len(state.history)} actions, not {game.version}"
        )
    return state


def replay_from_log(game: Game) -> Any:
    """The state after every entry of the game's log, from the database."""
    return _played(_start(game), game, _actions(game, 0))


def cached_version(game_id: int) -> int | None:
    """The version of this process's cached state of the game, if it has one (for a caller to
    read the entries after it along with the game row: `state_for(…, caught_up=)`)."""
    cached = _cache.get(game_id)
    return None if cached is None else cached[1]


def _start(game: Game) -> Any:
    """The game right after its setup, by its own engine (games/registry.py)."""
    return game.game_kind.engine.replay(game.setup, ())


def state_for(game: Game, *, caught_up: tuple[int, list] | None = None) -> Any:
    """A private copy of the game's state at `game.version` (the caller may apply to it).

    `caught_up`: (version, the actions of the log's entries after it up to `game.version`),
    read by the caller with the row (0: the whole log); used when it fits the cached state,
    else the entries are read here."""
    with _lock:
        cached = _cache.get(game.pk)
        if cached is not None and cached[0] == game.seed_commitment:
            _cache.move_to_end(game.pk)
            version, known = cached[1], cached[2].clone()
        else:
            version, known = None, None
    if version == game.version:
        return known
    if caught_up is not None and caught_up[0] == (version or 0):
        start = known if known is not None else _start(game)
        state = _played(start, game, caught_up[1])
    elif version is not None and version < game.version:
        state = _played(known, game, _actions(game, version))
    else:
        state = replay_from_log(game)
    remember(game, game.version, state.frozen())
    return state


def remember(game: Game, version: int, state: Any, *, written: Any = None) -> None:
    """Keep `state`, a frozen copy (the engine's `frozen()`), as the game's state at `version`,
    a committed one (the row's, or an append's once it committed); never over a newer state of
    the same game. `written`: what the append that made `version` wrote besides (kept until a
    newer version replaces it)."""
    with _lock:
        cached = _cache.get(game.pk)
        if cached is not None and cached[0] == game.seed_commitment:
            if cached[1] > version:
                return
            if cached[1] == version and written is None:
                written = cached[3]
        _cache[game.pk] = (game.seed_commitment, version, state, written)
        _cache.move_to_end(game.pk)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def recent(game_id: int, version: int) -> tuple[Any, Any] | None:
    """A private copy of the game's state at `version` and what the append that made it wrote
    besides, if this process made that append and has seen no later version; else None."""
    with _lock:
        cached = _cache.get(game_id)
        if cached is None or cached[1] != version or cached[3] is None:
            return None
        _cache.move_to_end(game_id)
        return cached[2].clone(), cached[3]


def forget_all() -> None:
    """Empty this process's cache."""
    with _lock:
        _cache.clear()
