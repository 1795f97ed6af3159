"""What is pushed to WebSocket clients through the channel layer, after commit only.

Groups: `game-<id>` (everyone watching a game), `user-<id>` (one user's sockets), `lobby`, and
`account-<id>` (every socket of one user, to close them on a refusal). Each message is one of
the typed payloads below (a `type` literal, as Zulip's event_types): the consumer method that
receives it is named by its type (`game.entry` → `GameConsumer.game_entry`).

One push path: `channel_layer.group_send`, the layer's public API, from whichever thread the
commit ran on (a request's, a consumer's database thread, a Celery worker's), the same code
for Redis and the in-memory layer. In a server process the push is handed to the server's
event loop (`publish_from`, called by the ASGI application on each connection) and the thread
goes on without waiting for it: a request's thread is one of the few places in Django
(taxi_project/sync_limit.py), and a publish waits its turn on a loop busy with every other
socket and request. At most `PUSHES_PENDING` pushes of a process wait for the loop at once;
past that a thread waits for its own push, so a slow Redis slows the writers rather than
piling pushes up in memory. A process without a server loop (a Celery worker) calls
`use_own_loop()` at start: its pushes then go through one long-lived loop on a thread of its
own, as `async_to_sync` would otherwise build a new loop, and channels_redis a new connection,
for every push (6.2 ms of a timeout's 9 ms of worker CPU, BENCHMARKS.md); a worker that
appends many entries in a row (the deadline sweep) holds their pushes (`pushes_batched`) and
hands them to that loop together, one round trip of its thread for a batch; elsewhere (a test,
a management command) `async_to_sync` runs it. Pushing is best effort: a failure is logged,
never raised into a committed request; clients resync from their last seq.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import json
import logging
import threading
from collections.abc import Iterator
from functools import partial
from typing import Any, Literal, TypedDict

from asgiref.sync import async_to_sync
from celery import signature
from channels.layers import get_channel_layer
from django.conf import settings
from rest_framework.utils.encoders import JSONEncoder

log = logging.getLogger(__name__)

FRAME_VERSION = 1
LOBBY_GROUP = "lobby"


def game_group(game_id: int) -> str:
    return f"game-{game_id}"


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


def account_group(user_id: int) -> str:
    return f"account-{user_id}"


class ClockState(TypedDict):
    turn_started_at: str | None
    turn_deadline_at: str | None
    deadlines_reached: int


class EntryMessage(TypedDict):
    """A log entry, with what every socket needs to build its own frame without the database:
    the public view after it, and the legal actions that only the seat to move's sockets get.
    The channel layer carries it as an `EntryPush`."""

    type: Literal["game.entry"]
    game: int
    commitment: str  # the game's seed commitment: which game of which deployment it is
    seq: int
    clock: ClockState
    notifications: list[dict]
    public: dict
    active_seat: int | None
    legal: list[dict]


class EntryPush(TypedDict):
    """An `EntryMessage` as the channel layer carries it to the game's sockets: its `entry`
    frame encoded once, in the pieces that every socket's frame shares, around the two
    members that differ by seat (`you`, `legal_actions`). A socket joins them (`entry_frame`)
    rather than decoding and encoding the whole view itself: an entry goes to every socket
    watching the game, and each used to cost a msgpack decode and a JSON encode of it.
    Streams read only `type` and `seq`."""

    type: Literal["game.entry"]
    game: int
    commitment: str
    seq: int
    active_seat: int | None
    head: str  # the frame up to the view's own members, each followed by ", "
    legal: str  # the members of the seat to move's `legal_actions` but `resign`
    resign: list[str]  # by seat: the member `resign` adds to its `legal_actions`, or ""
    tail: str  # after the view: the clock, and the frame's end


class YourTurnMessage(TypedDict):
    """A turn began: `turn` (the game's turn number) is what a socket says it once for."""

    type: Literal["user.your_turn"]
    game: int
    version: int
    turn: int


class ChatMessage(TypedDict):
    type: Literal["game.chat"]
    message: dict


class ChatHiddenMessage(TypedDict):
    type: Literal["game.chat_hidden"]
    id: int


class LobbyTableMessage(TypedDict):
    type: Literal["lobby.table"]
    table: dict


class AccountCheckMessage(TypedDict):
    """The account's credentials or standing changed: its sockets check theirs."""

    type: Literal["account.check"]


Message = (
    EntryPush
    | EntryMessage
    | YourTurnMessage
    | ChatMessage
    | ChatHiddenMessage
    | LobbyTableMessage
    | AccountCheckMessage
)


PUSH_TIMEOUT = 15  # seconds: as long as the Redis layer waits for a server that does not answer


class _OwnLoop:
    """An event loop running on a daemon thread of its own."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="pushes", daemon=True).start()

    def run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(PUSH_TIMEOUT)


_own_loop: _OwnLoop | None = None


def use_own_loop() -> None:
    """This process has no event loop of its own to push from (a Celery worker's child)."""
    global _own_loop
    _own_loop = _OwnLoop()


_server_loop: asyncio.AbstractEventLoop | None = None
_pending_lock = threading.Lock()
_pending = 0


def publish_from(loop: asyncio.AbstractEventLoop) -> None:
    """This process serves from `loop`: pushes from its threads are handed to it."""
    global _server_loop
    _server_loop = loop


def _take_place() -> bool:
    global _pending
    with _pending_lock:
        if _pending >= settings.PUSHES_PENDING:
            return False
        _pending += 1
        return True


def _give_place_back() -> None:
    global _pending
    with _pending_lock:
        _pending -= 1


def _published(group: str, future: concurrent.futures.Future) -> None:
    _give_place_back()
    error = None if future.cancelled() else future.exception()
    if error is not None:
        log.error("push to %s failed", group, exc_info=(type(error), error, error.__traceback__))


_batch: contextvars.ContextVar[list[tuple[str, Message]] | None] = contextvars.ContextVar(
    "batch", default=None
)


@contextlib.contextmanager
def pushes_batched() -> Iterator[None]:
    """The pushes made inside (once committed: a transaction inside it commits first) are
    published together as it ends, in the order they were made, in one hand-off to the loop:
    for a worker that appends many entries in a row (the deadline sweep's batches), rather
    than a blocking round trip through its loop for each push. At most `PUSHES_PENDING` wait
    so: the next one first sends those."""
    pushes: list[tuple[str, Message]] = []
    token = _batch.set(pushes)
    try:
        yield
    finally:
        _batch.reset(token)
        _publish_all(pushes)


def _publish_all(pushes: list[tuple[str, Message]]) -> None:
    if not pushes:
        return
    try:
        if _own_loop is not None:
            _own_loop.run(_publish_each(pushes))
        else:
            async_to_sync(_publish_each)(pushes)
    except Exception:  # committed already: clients catch up by resync
        log.exception("%d pushes failed", len(pushes))
    pushes.clear()


async def _publish_each(pushes: list[tuple[str, Message]]) -> None:
    layer = get_channel_layer()
    for group, message in pushes:
        try:
            await layer.group_send(group, message)
        except Exception:  # the others go on
            log.exception("push to %s failed", group)


def _send(group: str, message: Message) -> None:
    batch = _batch.get()
    if batch is not None:
        if len(batch) >= settings.PUSHES_PENDING:
            _publish_all(batch)
        batch.append((group, message))
        return
    try:
        layer = get_channel_layer()
        if _own_loop is not None:
            _own_loop.run(layer.group_send(group, message))
            return
        loop = _server_loop
        if loop is not None and loop.is_running() and _take_place():
            publish = layer.group_send(group, message)
            try:
                future = asyncio.run_coroutine_threadsafe(publish, loop)
            except BaseException:  # the loop closed meanwhile
                publish.close()
                _give_place_back()
                raise
            future.add_done_callback(partial(_published, group))
            return
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # committed already: clients catch up by resync
        log.exception("push to %s failed", group)


def _plain(data) -> dict:
    """JSON-safe (datetimes as ISO strings), as the channel layer serialises with msgpack."""
    return json.loads(encode(data))


def encode(data) -> str:
    """Frames' JSON: DRF's encoder, so that datetimes read exactly as the HTTP API writes them."""
    return json.dumps(data, cls=JSONEncoder)


def _members(data: dict | list) -> str:
    """The JSON of a dict's members or a list's items, without the brackets: as `encode` joins
    them (", "), so that joined pieces read exactly as the whole encoded at once."""
    return encode(data)[1:-1]


def resign_offer(public: dict, seat: int | None) -> list[dict]:
    """`resign` as every engine offers it (Bahama Taxi's K3), from a public view alone (the
    same in every game: while the game runs, to a seat not already left): for those who build a
    seat's `legal_actions` from the public view and the active seat's list."""
    if seat is None or public["status"] != "playing" or public["seats"][seat]["zombie"]:
        return []
    return [{"type": "resign", "seat": seat}]


def entry_push(message: EntryMessage) -> EntryPush | EntryMessage:
    """The message the channel layer carries for `message` (the message itself if its view
    already has a member `you` or `legal_actions`, which the frame sets: no game's has)."""
    public = message["public"]
    if "you" in public or "legal_actions" in public:
        return message
    start = {"v": FRAME_VERSION, "type": "entry", "seq": message["seq"],
             "notifications": message["notifications"]}  # fmt: skip
    view = "".join(f"{member}, " for member in [_members(public)] if member)
    return EntryPush(
        type="game.entry",
        game=message["game"],
        commitment=message["commitment"],
        seq=message["seq"],
        active_seat=message["active_seat"],
        head=f'{{{_members(start)}, "view": {{{view}',
        legal=_members(message["legal"]),
        resign=[_members(resign_offer(public, seat)) for seat in range(len(public["seats"]))],
        tail=f'}}, "clock": {encode(message["clock"])}}}',
    )


def entry_frame(event: EntryPush | EntryMessage, seat: int | None) -> str:
    """The `entry` frame (docs/websocket.md) of a pushed entry for a socket of `seat` (None: a
    spectator): the view with `you` and its `legal_actions`, which are the seat to move's
    offers, then `resign` while the seat may resign. From an `EntryPush`, by joining its
    pieces; from a whole `EntryMessage` (a view of its own with `you`), by encoding it."""
    mine = seat is not None and seat == event["active_seat"]
    if "head" not in event:
        whole: EntryMessage = event  # type: ignore[assignment]
        view = dict(whole["public"])
        view["you"] = seat
        view["legal_actions"] = (whole["legal"] if mine else []) + resign_offer(view, seat)
        return encode({"v": FRAME_VERSION, "type": "entry", "seq": whole["seq"],
                       "notifications": whole["notifications"], "view": view,
                       "clock": whole["clock"]})  # fmt: skip
    push: EntryPush = event  # type: ignore[assignment]
    members = [push["legal"] if mine else ""]
    if seat is not None and seat < len(push["resign"]):
        members.append(push["resign"][seat])
    offers = ", ".join(member for member in members if member)
    you = "null" if seat is None else int(seat)
    return f'{push["head"]}"you": {you}, "legal_actions": [{offers}]{push["tail"]}'


def entry_message(
    *,
    game_id: int,
    commitment: str,
    seq: int,
    notifications: list[dict],
    current: Any,
    clock: dict,
    public: dict,
    legal: list[dict],
) -> EntryMessage:
    """The message for a log entry, taken at the state right after it (`public`: its public
    view, as clients get it; `legal`: what the seat to move is offered, but `resign`)."""
    return EntryMessage(
        type="game.entry",
        game=game_id,
        commitment=commitment,
        seq=seq,
        clock=_plain(clock),
        notifications=notifications,
        public=public,
        active_seat=current.current_player(),
        legal=legal,
    )


def entry_committed(
    *,
    game_id: int,
    message: EntryMessage,
    your_turn: int | None,
    email: bool = False,
    bot: bool = False,
) -> None:
    """A log entry committed: tell the game's sockets and, when it began a person's turn,
    that person's sockets (`your_turn`: their user id) and, if they asked for it, mailbox
    (the task is named, not imported: tasks call services, not the other way). When a
    computer opponent is to move on the new state (`bot`), its task is queued. What to tell
    is the write path's to decide (games/services/entries.py); their devices are
    games/push.py's."""
    if bot:  # first: the bot decides while its think time runs from the turn's start
        bot_turn_started(game_id=game_id, version=message["seq"], seat=message["active_seat"])
    _send(game_group(game_id), entry_push(message))
    if your_turn is None:
        return
    turn = YourTurnMessage(
        type="user.your_turn", game=game_id, version=message["seq"], turn=message["public"]["turn"]
    )
    _send(user_group(your_turn), turn)
    if email:
        try:
            signature("games.tasks.email_your_turn").delay(your_turn, game_id, message["seq"])
        except Exception:  # the broker is down: the socket and the game list still tell them
            log.exception("could not queue the turn e-mail for game %s", game_id)


def bot_turn_started(*, game_id: int, version: int, seat: int) -> None:
    """Queue the bot's move (`games.tasks.bot_play`, routed to the bots queue) at once: it
    decides during its think time and moves when due (`games.services.bots.bot_due`: its
    turn's start + BOT_THINK_SECONDS). A lost task is not fatal: the beat's `wake_bots`
    finds a bot's turn left waiting, and the turn clock, if any, waits for a bot while a bot
    worker lives (games/services/clocks.py)."""
    try:
        signature("games.tasks.bot_play").apply_async((game_id, version, seat))
    except Exception:  # the broker is down: wake_bots queues it again once it is back
        log.exception("could not queue the bot's turn in game %s", game_id)


def chat_posted(*, game_id: int, message: dict) -> None:
    _send(game_group(game_id), ChatMessage(type="game.chat", message=_plain(message)))


def chat_hidden(*, game_id: int, message_id: int) -> None:
    _send(game_group(game_id), ChatHiddenMessage(type="game.chat_hidden", id=message_id))


def table_changed(*, table: dict) -> None:
    _send(LOBBY_GROUP, LobbyTableMessage(type="lobby.table", table=_plain(table)))


def credentials_changed(*, user_id: int) -> None:
    """A token revoked, a password changed, the account suspended or banned: the user's open
    sockets check their own credentials, and those whose are gone say so and close."""
    _send(account_group(user_id), AccountCheckMessage(type="account.check"))
