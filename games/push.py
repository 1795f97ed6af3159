"""What a player's devices are told while no page of the game is open: "your turn",
"game ended" and "a player wrote in the chat", as push notifications.

Three steps, none in the request that made the change:

1. After commit, `games/events.py` calls `entry_committed` or `chat_posted` here. One query
   finds the players who want this kind of push (their preferences, `User.push_*`) and have a
   device to push to; if any, the task `games.tasks.push_notify` is queued (by name: tasks
   call services, not the other way).
2. That task (`devices_notify`) drops a "your turn" the game has moved on from, and every
   player who is watching the game (a socket open on it: games/presence.py), writes each
   remaining player's payload in their language and queues one `accounts.tasks.push_deliver`
   per device.
3. `push_deliver` sends it through the subscription's backend (Web Push: encrypted, VAPID
   signed, to a public host only), deletes a subscription the push service says is gone
   (404/410) and retries other failures with backoff (accounts/push.py).

Bounded per account: one notification goes to at most `PUSH_SUBSCRIPTIONS_PER_ACCOUNT`
devices (the most recently registered), and each kind of notification is pushed at most
`PUSH_NOTIFICATIONS_PER_HOUR` times an hour (counted in the shared cache; beyond it the game
list and the socket still tell). Each kind has its own count, so a flood of chat cannot
silence "your turn".

The payload (docs/api.md, "Push"): `{"v": 1, "type", "game", "title", "body", "url", "tag"}`,
plus `version` for "your turn" and "game ended" and `message` for chat.
"""

from __future__ import annotations

import logging
import time

from celery import signature
from django.conf import settings
from django.db.models import Q
from django.utils import translation
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from accounts.middleware import user_language
from accounts.models import PushSubscription, User
from accounts.tasks import push_deliver
from games import presence
from games.models import ChatMessage, Game, GameEntry
from games.services import notifications, turn_notices
from games.wording import describe
from taxi_project.cache import count

log = logging.getLogger(__name__)

PAYLOAD_VERSION = 1
BODY_LIMIT = 500  # characters: a payload must stay under the push services' 4 KiB
PREFERENCE = {"your_turn": "push_your_turn", "game_ended": "push_game_ended", "chat": "push_chat"}


def _queue(kind: str, game_id: int, users: Q, *, version: int | None, message=None) -> None:
    try:
        wanted = (
            User.objects.filter(users, **{PREFERENCE[kind]: True})
            .filter(push_subscriptions__isnull=False)
            .values_list("pk", flat=True)
            .distinct()
        )
        user_ids = sorted(wanted)
        if user_ids:
            signature("games.tasks.push_notify").delay(kind, game_id, user_ids, version, message)
    except Exception:  # committed already; the socket and the game list still tell them
        log.exception("could not queue the %s push for game %s", kind, game_id)


def entry_committed(*, game_id: int, message: dict, your_turn: int | None) -> None:
    """A log entry committed (`message`: games.events.EntryMessage); `your_turn`: the user
    whose turn it began."""
    version = message["seq"]
    if your_turn is not None:
        _queue("your_turn", game_id, Q(pk=your_turn), version=version)
    if any(note.get("type") == "game_ended" for note in message["notifications"]):
        _queue("game_ended", game_id, Q(seats__game_id=game_id), version=version)


def chat_posted(*, game_id: int, message: dict) -> None:
    """A chat message committed (games.selectors.chat_public): the other players."""
    author = message["author"]["id"]
    players = Q(seats__game_id=game_id) & ~Q(pk=author)
    _queue("chat", game_id, players, version=None, message=message)


# ------------------------------------------------------------------------------ the task's part


def _your_turn(game: Game, user: User, version: int) -> dict | None:
    """Still this user's turn at `version`: the title, and what happened last as the body."""
    news = notifications.turn_news(game, user, version)
    if news is None:
        return None
    lines = [describe(note) for note in news]
    return {"title": _("Your turn in game %(game)s") % {"game": game.pk}, "body": "\n".join(lines)}


def _game_ended(game: Game, version: int) -> dict:
    ended = GameEntry.objects.filter(game=game, seq=version).first()
    notes = [n for n in (ended.notifications if ended else []) if n.get("type") == "game_ended"]
    return {"title": _("The game is over."), "body": "\n".join(describe(n) for n in notes)}


def _chat(game: Game, message: dict) -> dict:
    values = {"author": message["author"]["display_name"], "game": game.pk}
    return {
        "title": "Bahama Taxi",
        "body": _("%(author)s at game %(game)s: %(text)s") % {**values, "text": message["text"]},
    }


def _within_rate(user_id: int, kind: str) -> bool:
    """Count one push of `kind` to the user; False once over the hour's limit."""
    window = int(time.time() // 3600)
    try:
        counted = count(f"push:{kind}:{user_id}:{window}", 3600 + 60)
    except (RedisError, OSError):  # the cache is down: the per-notification bound still holds
        log.warning("push rate limit skipped: the cache is unavailable", exc_info=True)
        return True
    return counted <= settings.PUSH_NOTIFICATIONS_PER_HOUR


def devices_notify(
    *, kind: str, game_id: int, user_ids: list[int], version: int | None, message=None
) -> int:
    """Queue the push of `kind` to each device of each of `user_ids` who still wants it and is
    not watching the game. Returns how many deliveries were queued."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return 0
    if (
        kind == "chat"
        and not ChatMessage.objects.filter(pk=message["id"], hidden_at__isnull=True).exists()
    ):
        return 0  # a moderator hid it meanwhile
    users = User.objects.filter(pk__in=user_ids, **{PREFERENCE[kind]: True})
    queued = 0
    for user in users:
        if presence.watching(game_id=game_id, user_id=user.pk):
            continue
        with translation.override(user_language(user) or settings.LANGUAGE_CODE):
            if kind == "your_turn":
                text = _your_turn(game, user, version)
            elif kind == "game_ended":
                text = _game_ended(game, version)
            else:
                text = _chat(game, message)
        if text is None:
            continue
        payload = {
            "v": PAYLOAD_VERSION,
            "type": kind,
            "game": game_id,
            "title": text["title"],
            "body": text["body"][:BODY_LIMIT],
            "url": f"/games/{game_id}",
            "tag": f"game-{game_id}-{kind}",
        }
        if kind == "chat":
            payload["message"] = {
                "id": message["id"],
                "author": message["author"],
                "text": message["text"][:BODY_LIMIT],
            }
        else:
            payload["version"] = version
        devices = (
            PushSubscription.objects.filter(user=user)
            .order_by("-registered", "-pk")
            .values_list("pk", flat=True)[: settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT]
        )
        devices = list(devices)
        if not devices:
            continue
        if kind == "your_turn" and not turn_notices.notice_first(
            game=game, user_id=user.pk, channel="push"
        ):
            continue  # this turn's push went out already (a task run twice)
        if not _within_rate(user.pk, kind):
            continue
        for subscription_id in devices:
            push_deliver.delay(subscription_id, payload)
            queued += 1
    return queued
