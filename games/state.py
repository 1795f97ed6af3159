"""A game's engine state: replayed from its log, with a per-process cache.

Replay is the only way state is built (STYLE 3). The cache keeps, per game, the state at one
version; a caller gets a private clone, and only a committed append puts a newer state back. A
cached state is used only when its version is the game row's version, so a stale cache (another
process moved the game) falls back to replay. Tests prove cached state equals a full replay.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from games import engine
from games.models import Game, GameEntry

CACHE_SIZE = 5000

_lock = threading.Lock()
_cache: OrderedDict[int, tuple[int, engine.Game]] = OrderedDict()


def replay_from_log(game: Game) -> engine.Game:
    """The state after every entry of the game's log, from the database."""
    actions = (
        # bounded by the row's version: entries committed since the row was read come later
        GameEntry.objects.filter(game_id=game.pk, seq__gte=1, seq__lte=game.version)
        .order_by("seq")
        .values_list("action", flat=True)
    )
    state = engine.replay(game.setup, actions.iterator())
    if len(state.history) != game.version:
        raise RuntimeError(
            f"game {game.pk}: log has {len(state.history)} actions, not {game.version}"
        )
    return state


def state_for(game: Game) -> engine.Game:
    """A private copy of the game's state at `game.version` (the caller may apply to it)."""
    with _lock:
        cached = _cache.get(game.pk)
        if cached is not None and cached[0] == game.version:
            _cache.move_to_end(game.pk)
            return cached[1].clone()
    state = replay_from_log(game)
    remember(game.pk, game.version, state.clone())
    return state


def remember(game_id: int, version: int, state: engine.Game) -> None:
    """Keep `state` as the game's state at `version` (call only after the append committed)."""
    with _lock:
        cached = _cache.get(game_id)
        if cached is not None and cached[0] > version:
            return
        _cache[game_id] = (version, state)
        _cache.move_to_end(game_id)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def forget_all() -> None:
    with _lock:
        _cache.clear()
