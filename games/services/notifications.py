"""What a player is told outside the game page: "your turn" by e-mail (the task that sends
it is `games.tasks.email_your_turn`), and "your turn", "game ended" and chat on their devices
(the task is `games.tasks.push_notify`; the push itself, its words and its delivery are
`games.push`'s). Whether a notice is still due is decided here: the push to the game's
sockets is `games.events`.

Once per turn and channel: a "your turn" e-mail or Web Push is claimed first
(`games.services.turn_notices`).
"""

from __future__ import annotations

from django.conf import settings
from django.core.mail import send_mail
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.middleware import user_language
from accounts.models import User
from games import presence, push
from games.models import ChatMessage, Game, GameEntry, Seat
from games.services.turn_notices import notice_first, notice_unclaim
from games.wording import describe


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
        values = {"user": user, "game": game.pk, "name": game.game_kind.name}
        lines = [
            _("Hello %(user)s, game %(game)s of %(name)s waits on your move.") % values,
            _("Play: %(url)s") % {"url": f"{settings.SITE_URL}/games/{game.pk}"},
        ]
        if deadline is not None:
            lines.append(
                _("Your time runs out at %(time)s UTC.") % {"time": f"{deadline:%Y-%m-%d %H:%M}"}
            )
        if news:
            lines += ["", _("What happened last:")]
            lines += [f"- {describe(note, game=game.kind)}" for note in news]
        subject = _("Your turn in game %(game)s") % values
    if not notice_first(game=game, user_id=user.pk, channel="email"):
        return False
    try:
        send_mail(subject, "\n".join(lines), None, [user.email])
    except Exception:  # the task retries: its next attempt may claim and send
        notice_unclaim(game=game, user_id=user.pk, channel="email")
        raise
    return True


def devices_notify(
    *, kind: str, game_id: int, user_ids: list[int], version: int | None, message=None
) -> int:
    """Push `kind` ("your_turn", "game_ended", "chat") to the devices of each of `user_ids`
    who still wants it, is not watching the game, and is still due it: a "your turn" the game
    has not moved on from, told once per turn, a chat message not hidden meanwhile, at most
    `PUSH_NOTIFICATIONS_PER_HOUR` of a kind an hour. Returns how many deliveries were queued."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return 0
    if (
        kind == "chat"
        and not ChatMessage.objects.filter(pk=message["id"], hidden_at__isnull=True).exists()
    ):
        return 0  # a moderator hid it meanwhile
    queued = 0
    for user in push.recipients(kind, user_ids):
        if presence.watching(game_id=game_id, user_id=user.pk):
            continue
        with translation.override(user_language(user) or settings.LANGUAGE_CODE):
            if kind == "your_turn":
                news = turn_news(game, user, version)
                text = None if news is None else push.your_turn_text(game, news)
            elif kind == "game_ended":
                text = push.game_ended_text(game, version)
            else:
                text = push.chat_text(game, message)
        if text is None:
            continue
        devices = push.devices(user)
        if not devices:
            continue
        if kind == "your_turn" and not notice_first(game=game, user_id=user.pk, channel="push"):
            continue  # this turn's push went out already (a task run twice)
        if not push.within_rate(user.pk, kind):
            continue
        told = push.payload(kind, game_id, text, version=version, message=message)
        queued += push.deliver(devices, told)
    return queued
