"""A game's engine state: replayed from its log, with a per-process cache and a shared one.

Replay is the only way state is built (STYLE 3). The per-process cache keeps, per game, the
state at one version; a caller gets a private clone, and only a committed append puts a newer
state back. When Redis is configured, a committed state is also stored in the shared cache
(pickled, for six hours), keyed by database, game, seed commitment and version, so the next
move is not replayed when it lands on another process. A cached state is used only at the game
row's version, so a stale cache falls back to the shared one, then to replay. Tests prove
cached state equals a replay.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

from django.conf import settings
from django.core.cache import caches
from django.db import connection

from games import engine
from games.models import Game, GameEntry

CACHE_SIZE = 5000
SHARED_SECONDS = 6 * 3600  # a game idle longer than this is replayed on its next move

_lock = threading.Lock()
_cache: OrderedDict[int, tuple[int, engine.Game]] = OrderedDict()
log = logging.getLogger(__name__)


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
    state = _shared_get(game)
    if state is None:
        state = replay_from_log(game)
    _keep(game.pk, game.version, state.clone())
    return state


def remember(game: Game, version: int, state: engine.Game) -> None:
    """Keep `state` as the game's state at `version` (call only after the append committed):
    here, and for the other processes."""
    _keep(game.pk, version, state)
    shared = _shared()
    if shared is not None and game.seed_commitment:
        try:
            shared.set(_shared_key(game, version), state, SHARED_SECONDS)  # pickled by the cache
        except Exception:  # a cache: the next reader replays
            log.exception("could not share the state of game %s", game.pk)


def _keep(game_id: int, version: int, state: engine.Game) -> None:
    with _lock:
        cached = _cache.get(game_id)
        if cached is not None and cached[0] > version:
            return
        _cache[game_id] = (version, state)
        _cache.move_to_end(game_id)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def _shared():
    """The cache every process shares (Redis; taxi_project/cache.py keeps one client per
    process), or None when there is no Redis: then each process has only its own states."""
    return caches["default"] if settings.REDIS_URL else None


def _shared_key(game: Game, version: int) -> str:
    # The database name and the seed commitment: a recreated database reuses ids and versions.
    db = connection.settings_dict["NAME"]
    return f"state:{db}:{game.pk}:{game.seed_commitment}:{version}"


def _shared_get(game: Game) -> engine.Game | None:
    shared = _shared()
    if shared is None or not game.seed_commitment:
        return None
    try:
        state = shared.get(_shared_key(game, game.version))
    except Exception:
        log.exception("could not read the shared state of game %s", game.pk)
        return None
    if not isinstance(state, engine.Game) or len(state.history) != game.version:
        return None
    return state


def forget_all() -> None:
    """Empty this process's cache (the shared one is keyed so that it never goes stale)."""
    with _lock:
        _cache.clear()
