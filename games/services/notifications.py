"""What a player is told outside the game page: "your turn" by e-mail (the push to their
sockets is `games.events`; the task that sends the mail is `games.tasks.email_your_turn`).

Once per turn and channel: before a "your turn" e-mail or Web Push goes out, `notice_first`
claims it with a shared cache key (Redis `SET NX`, every process and node sees it) named by
the game, its turn, the user and the channel, so a task delivered twice, retried after a send
that did happen, or queued by two nodes tells the player once.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache
from django.core.mail import send_mail
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.middleware import user_language
from accounts.models import User
from games.models import Game, GameEntry, Seat
from games.wording import describe

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


def turn_news(game: Game, user, version: int) -> list[dict] | None:
    """If the game still waits on `user` at `version`: the notifications of the entry that
    began the turn (what happened last), for an e-mail or a push to tell. None if it moved on
    (the task ran late) or it is not the user's turn."""
    if game.version != version or game.status != Game.Status.PLAYING:
        return None
    if not Seat.objects.filter(game=game, user=user, seat=game.active_seat).exists():
        return None
    last = GameEntry.objects.filter(game=game, seq=version).first()
    return last.notifications if last is not None else []


def turn_email_send(*, user_id: int, game_id: int, version: int) -> bool:
    """Send "your turn" if the game still waits on this user at `version`."""
    game = Game.objects.filter(pk=game_id).first()
    user = User.objects.filter(pk=user_id, email_on_turn=True).exclude(email="").first()
    if game is None or user is None:
        return False
    news = turn_news(game, user, version)
    if news is None:
        return False
    deadline = game.turn_deadline_at
    # In the reader's language: their profile's, else the site's (an e-mail has no browser).
    with translation.override(user_language(user) or settings.LANGUAGE_CODE):
        values = {"user": user, "game": game.pk}
        lines = [
            _("Hello %(user)s, game %(game)s of Bahama Taxi waits on your move.") % values,
            _("Play: %(url)s") % {"url": f"{settings.SITE_URL}/games/{game.pk}"},
        ]
        if deadline is not None:
            lines.append(
                _("Your time runs out at %(time)s UTC.") % {"time": f"{deadline:%Y-%m-%d %H:%M}"}
            )
        if news:
            lines += ["", _("What happened last:")]
            lines += [f"- {describe(note)}" for note in news]
        subject = _("Your turn in game %(game)s") % values
    if not notice_first(game=game, user_id=user.pk, channel="email"):
        return False
    try:
        send_mail(subject, "\n".join(lines), None, [user.email])
    except Exception:  # the task retries: its next attempt may claim and send
        notice_unclaim(game=game, user_id=user.pk, channel="email")
        raise
    return True
