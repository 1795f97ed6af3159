"""What a player's devices are told while no page of the game is open: "your turn",
"game ended" and "a player wrote in the chat", as push notifications.

Three steps, none in the request that made the change:

1. After commit, the write path (`games/services/entries.py`, `games/services/chat.py`) calls
   `entry_committed` or `chat_posted` here, for the players who want this kind of push
   (their preferences, `User.push_*`) and have a device to push to: an entry's write path
   knows them from the seats it read with the game (games/repository.py: `SeatInfo`), a
   chat message's is one query here. If any, the task `games.tasks.push_notify` is queued
   (by name: tasks call services, not the other way).
2. That task calls the service that decides who is still due the notice
   (`games.services.notifications.devices_notify`): it drops a "your turn" the game has
   moved on from, and every player who is watching the game (a socket open on it:
   games/presence.py), and has each remaining player's payload written here in their
   language (`*_text`, `payload`) and queued, one `accounts.tasks.push_deliver` per device
   (`deliver`, by name as well).
3. `push_deliver` sends it through the subscription's backend (Web Push: encrypted, VAPID
   signed, to a public host only), deletes a subscription the push service says is gone
   (404/410) and retries other failures with backoff (accounts/push.py).

This module is an adapter at the edge: it imports no service and no task, and decides
nothing about a game; it is told what to send.

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
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from accounts.models import PushSubscription, User
from games.models import Game, GameEntry
from games.wording import describe
from taxi_project.cache import count

log = logging.getLogger(__name__)

PAYLOAD_VERSION = 1
BODY_LIMIT = 500  # characters: a payload must stay under the push services' 4 KiB
PREFERENCE = {"your_turn": "push_your_turn", "game_ended": "push_game_ended", "chat": "push_chat"}


def _queue(kind: str, game_id: int, user_ids: list[int], *, version: int | None, message=None):
    """Queue the push of `kind` to these users (those who want it and have a device)."""
    if not user_ids:
        return
    try:
        signature("games.tasks.push_notify").delay(kind, game_id, user_ids, version, message)
    except Exception:  # committed already; the socket and the game list still tell them
        log.exception("could not queue the %s push for game %s", kind, game_id)


def _wanted(kind: str, users: Q) -> list[int]:
    """Those of `users` who want pushes of `kind` and have a device to push to, by id."""
    found = (
        User.objects.filter(users, **{PREFERENCE[kind]: True})
        .filter(push_subscriptions__isnull=False)
        .values_list("pk", flat=True)
        .distinct()
    )
    return sorted(found)


def entry_committed(
    *, game_id: int, version: int, your_turn: int | None, game_ended: list[int]
) -> None:
    """A log entry committed, as seq `version`; `your_turn`: the user whose turn it began, if
    they want that push and have a device; `game_ended`: if it ended the game, the players
    who want that push and have a device."""
    if your_turn is not None:
        _queue("your_turn", game_id, [your_turn], version=version)
    _queue("game_ended", game_id, game_ended, version=version)


def chat_posted(*, game_id: int, message: dict) -> None:
    """A chat message committed (games.selectors.chat_public): the other players."""
    author = message["author"]["id"]
    try:
        user_ids = _wanted("chat", Q(seats__game_id=game_id) & ~Q(pk=author))
    except Exception:  # committed already; the socket and the chat still tell them
        log.exception("could not find whom to push the chat of game %s to", game_id)
        return
    told = {"id": message["id"], "author": message["author"], "text": message["text"]}
    _queue("chat", game_id, user_ids, version=None, message=told)


# ------------------------------------------------------------------------------ the task's part


def recipients(kind: str, user_ids: list[int]) -> QuerySet[User]:
    """Those of `user_ids` who still want pushes of `kind`."""
    return User.objects.filter(pk__in=user_ids, **{PREFERENCE[kind]: True})


def your_turn_text(game: Game, news: list[dict]) -> dict:
    """The title, and what happened last (`news`: the notifications of the entry that began
    the turn) as the body; in the active language, as every text here."""
    lines = [describe(note, game=game.kind) for note in news]
    return {"title": _("Your turn in game %(game)s") % {"game": game.pk}, "body": "\n".join(lines)}


def game_ended_text(game: Game, version: int) -> dict:
    ended = GameEntry.objects.filter(game=game, seq=version).first()
    notes = [n for n in (ended.notifications if ended else []) if n.get("type") == "game_ended"]
    body = "\n".join(describe(n, game=game.kind) for n in notes)
    return {"title": _("The game is over."), "body": body}


def chat_text(game: Game, message: dict) -> dict:
    values = {"author": message["author"]["display_name"], "game": game.pk}
    return {
        "title": str(game.game_kind.name),
        "body": _("%(author)s at game %(game)s: %(text)s") % {**values, "text": message["text"]},
    }


def payload(kind: str, game_id: int, text: dict, *, version: int | None, message=None) -> dict:
    """What a device gets (docs/api.md, "Push")."""
    found = {
        "v": PAYLOAD_VERSION,
        "type": kind,
        "game": game_id,
        "title": text["title"],
        "body": text["body"][:BODY_LIMIT],
        "url": f"/games/{game_id}",
        "tag": f"game-{game_id}-{kind}",
    }
    if kind == "chat":
        found["message"] = {
            "id": message["id"],
            "author": message["author"],
            "text": message["text"][:BODY_LIMIT],
        }
    else:
        found["version"] = version
    return found


def devices(user: User) -> list[int]:
    """The user's subscriptions one notification goes to: the most recently registered, at
    most `PUSH_SUBSCRIPTIONS_PER_ACCOUNT`."""
    return list(
        PushSubscription.objects.filter(user=user)
        .order_by("-registered", "-pk")
        .values_list("pk", flat=True)[: settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT]
    )


def within_rate(user_id: int, kind: str) -> bool:
    """Count one push of `kind` to the user; False once over the hour's limit."""
    window = int(time.time() // 3600)
    try:
        counted = count(f"push:{kind}:{user_id}:{window}", 3600 + 60)
    except (RedisError, OSError):  # the cache is down: the per-notification bound still holds
        log.warning("push rate limit skipped: the cache is unavailable", exc_info=True)
        return True
    return counted <= settings.PUSH_NOTIFICATIONS_PER_HOUR


def deliver(subscription_ids: list[int], payload: dict) -> int:
    """Queue the payload's delivery to each subscription (`accounts.tasks.push_deliver`, by
    name). Returns how many were queued."""
    for subscription_id in subscription_ids:
        signature("accounts.tasks.push_deliver").delay(subscription_id, payload)
    return len(subscription_ids)
