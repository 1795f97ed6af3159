"""Exactly one "your turn" per turn and channel outside the game page (e-mail, Web Push).

Before such a notice goes out, `notice_first` claims it with a shared cache key (Redis
`SET NX`: every process and node sees it) named by the game, its turn, the user and the
channel, so a task delivered twice, retried after a send that did happen, or queued by two
nodes tells the player once. The socket's own once-per-turn is games/consumers.py's.
"""

from __future__ import annotations

import logging

from django.core.cache import cache

from games.models import Game

log = logging.getLogger(__name__)

#: Seconds a turn's claimed notice is remembered: past every retry and redelivery of its task.
NOTICE_TTL = 24 * 3600


def _notice_key(game: Game, user_id: int, channel: str) -> str:
    # the seed commitment tells this game from an earlier one that had its id
    return f"your-turn:{game.pk}:{game.seed_commitment[:16]}:{game.turn_number}:{user_id}:{channel}"


def notice_first(*, game: Game, user_id: int, channel: str) -> bool:
    """Claim the one "your turn" of the game's current turn for this user on `channel`
    (`email`, `push`); False if it was claimed before. A cache that fails claims: a notice
    told twice rather than never."""
    try:
        return bool(cache.add(_notice_key(game, user_id, channel), 1, timeout=NOTICE_TTL))
    except Exception:
        log.warning("could not claim the turn notice of game %s", game.pk, exc_info=True)
        return True


def notice_unclaim(*, game: Game, user_id: int, channel: str) -> None:
    """The claimed notice could not be sent: let its retry claim it again."""
    try:
        cache.delete(_notice_key(game, user_id, channel))
    except Exception:
        log.warning("could not release the turn notice of game %s", game.pk, exc_info=True)
