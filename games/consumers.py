"""WebSocket consumers: a game's live log and chat (`/ws/games/<id>/`), a user's own channel
(`/ws/me/`). Frame schemas: docs/websocket.md. Every frame has `v` (schema version) and `type`.

Ordering: a game socket sends log entries strictly by seq, each once. It starts silent; the
client's `sync {after}` makes it send every entry after `after` from the database, then the
live ones, which meanwhile wait in a buffer. A live entry that is not the next seq (the channel
layer dropped one) is preceded by the missing ones, read from the database. A live entry of
another game, or of another deployment's game with this id (a foreign seed commitment), is
dropped. And since a push dies with the process that was to send it, every process looks up
the versions of the games its sockets watch every HEARTBEAT seconds (one query) and has a
socket that is behind read what it missed from the database: no entry waits longer than that.

Bounds: every socket holds a place under its account's and its client address's caps
(`MAX_SOCKETS_PER_ACCOUNT`, `MAX_SOCKETS_PER_ADDRESS`; an anonymous spectator counts by address)
from its handshake to its end; one over a cap is told why and closed with 4429
(`too_many_connections`). A socket holds no database connection while it waits: each
`database_sync_to_async` call takes one and gives it back (taxi_project/dbpool.py).

Credentials: a socket re-checks the token or session it was opened with before every move and
chat frame, and when its account's group says they changed (logout, password change,
moderation); when they are gone it says why and closes (4401 logged out, 4403 refused).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from functools import cache, cached_property

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils import translation
from django.utils.translation import gettext
from rest_framework import exceptions

from accounts.credentials import socket_credentials, socket_refusal
from accounts.middleware import scope_language
from games import events, moderation, presence, registry, selectors
from games.errors import InvalidSync, LoginRequired, MalformedFrame, UnknownFrame
from games.serializers import MAX_INT, move_data
from games.services import chat, moves
from games.throttles import socket_move_allowed
from taxi_project import connection_limits, parsers
from taxi_project.api_errors import ApiError, TooManyConnections, TooManyRequests, body_for

log = logging.getLogger(__name__)

V = events.FRAME_VERSION
MAX_FRAME = 64 * 1024
BUFFER_LIMIT = 1000
CLOSE_CODES = {401: 4401, 403: 4403, 404: 4404, 429: 4429}


@cache  # called on the event loop's thread only
def _threads(size: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(size, thread_name_prefix="socket-move")


def _mover_threads() -> ThreadPoolExecutor | None:
    """The process's threads for socket moves (`SOCKET_MOVE_CONCURRENCY` of them; None: the
    loop's default executor). Moves beyond them wait in order."""
    size = int(settings.SOCKET_MOVE_CONCURRENCY)
    return _threads(size) if size > 0 else None


def frame(kind: str, **fields) -> dict:
    return {"v": V, "type": kind, **fields}


def error_frame(error: Exception, ref=None) -> dict:
    body = body_for(error)
    return frame("error", ref=ref, **body)


class JsonConsumer(AsyncJsonWebsocketConsumer):
    """Refuses binary, oversized and non-JSON frames with an error frame, not a crash.
    Every signed-in socket also listens on its account's group, to be closed on a refusal."""

    account = None
    credentials: dict = {}
    lease: connection_limits.Lease | None = None
    disconnected = False

    async def __call__(self, scope, receive, send):
        """However the socket ends (closed; or an error, such as sending to a client that has
        just gone, which ends it without a disconnect), everything it held is given back."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            await asyncio.shield(self.let_go())

    async def websocket_disconnect(self, message):
        self.disconnected = True
        await super().websocket_disconnect(message)

    async def let_go(self) -> None:
        if not self.disconnected and hasattr(self, "user"):  # ended by an error: tidy up
            self.disconnected = True
            try:
                await self.disconnect(1006)
            except Exception:
                log.exception("a socket that failed could not leave its groups")
        await self.give_place_back()

    async def hold_place(self) -> bool:
        """Take this socket's place under its account's and address's caps; False (and the
        socket refused, 4429) when one is full."""
        try:
            self.lease = await sync_to_async(connection_limits.lease_take, thread_sensitive=False)(
                connection_limits.SOCKET,
                user=self.user,
                address=connection_limits.socket_address(self.scope),
            )
        except TooManyConnections as error:
            await self.refuse(error)
            return False
        self.lease.start()
        return True

    async def give_place_back(self) -> None:
        lease, self.lease = self.lease, None
        if lease is not None:  # shielded: it must go back even if this task is cancelled
            await asyncio.shield(sync_to_async(lease.release, thread_sensitive=False)())

    async def dispatch(self, message):
        """Every frame this socket sends speaks its owner's language (docs/i18n.md).

        Channels' own dispatch first gives back the database connection of the process's one
        thread for synchronous work (a thread hop) before every message, frame or push; here no
        handler touches the database outside `database_sync_to_async`, which takes a pooled
        connection and gives it back within the call, so a message costs no hop but its own."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        with translation.override(self.language):
            await handler(message)

    @cached_property
    def language(self) -> str:
        return scope_language(self.scope)

    async def join_account(self, user) -> None:
        if user.is_authenticated:
            self.credentials = socket_credentials(self.scope)
            self.account = events.account_group(user.pk)
            await self.channel_layer.group_add(self.account, self.channel_name)

    async def leave_account(self) -> None:
        if self.account:
            await self.channel_layer.group_discard(self.account, self.channel_name)

    async def account_check(self, event):
        """The account's credentials or standing changed: close if this socket's are gone."""
        await self.credentials_hold()

    async def credentials_hold(self) -> bool:
        """True if the socket's credentials still stand; else say why, close, and False."""
        if not self.user.is_authenticated:
            return True
        refusal = await database_sync_to_async(socket_refusal)(
            user_id=self.user.pk, **self.credentials
        )
        if refusal is None:
            return True
        await self.closed_for(refusal)
        return False

    async def closed_for(self, refusal: tuple[int, str, str]) -> None:
        """The socket's credentials are gone: say why, and close."""
        close_code, code, message = refusal
        await self.send_json(frame("error", code=code, message=message))
        await self.close(code=close_code)

    @classmethod
    async def encode_json(cls, content):
        return events.encode(content)  # datetimes exactly as the HTTP API renders them

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        if text_data is None or len(text_data) > MAX_FRAME:
            message = gettext("Send JSON text frames of at most %(max)s bytes.")
            await self.send_json(error_frame(MalformedFrame(message % {"max": MAX_FRAME})))
            return
        try:
            content = parsers.loads(text_data)
        except parsers.TooDeep as error:
            await self.send_json(error_frame(MalformedFrame(str(error))))
            return
        except ValueError:
            await self.send_json(error_frame(MalformedFrame(gettext("This frame is not JSON."))))
            return
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            await self.send_json(error_frame(MalformedFrame()))
            return
        await self.receive_json(content)

    async def refuse(self, error: Exception) -> None:
        """Accept, say why in an error frame, close with 4401/4403/4404."""
        await self.accept()
        await self.send_json(error_frame(error))
        status = getattr(error, "status_code", 403)
        await self.close(code=CLOSE_CODES.get(status, 4403))


class GameConsumer(JsonConsumer):
    group = None

    async def connect(self):
        self.game_id = self.scope["url_route"]["kwargs"]["game_id"]
        self.user = self.scope.get("user") or AnonymousUser()
        if not await self.hold_place():
            return
        try:
            access = await database_sync_to_async(selectors.socket_access)(
                game_id=self.game_id, user=self.user
            )
        except ApiError as error:
            await self.refuse(error)
            return
        self.seat = access["seat"]
        if self.seat is None and self.user.is_authenticated:
            await database_sync_to_async(moderation.spectator_seen)(
                game_id=self.game_id, user=self.user
            )
        self.commitment = access["commitment"]  # "" until the game starts
        self.last_seq: int | None = None  # nothing sent yet: live entries wait for `sync`
        self.buffer: list[dict] = []
        self.group = events.game_group(self.game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.join_account(self.user)
        await self.accept()
        await self.send_json(frame("hello", game=self.game_id, seat=self.seat, **access["hello"]))
        watch.add(self)
        await presence.arrived(self)  # no push to a player watching (games/push.py)

    async def disconnect(self, code):
        watch.discard(self)
        if self.group:
            await presence.left(self)
            await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.leave_account()

    async def receive_json(self, content, **kwargs):
        kind = content["type"]
        ref = content.get("ref") if isinstance(content.get("ref"), str | int) else None
        try:
            if kind == "sync":
                await self.sync(content.get("after"))
            elif kind == "move":
                await self.move(content, ref)
            elif kind == "chat":
                if not self.user.is_authenticated:
                    raise LoginRequired(gettext("Log in to write here."))
                if await self.credentials_hold():
                    await database_sync_to_async(chat.chat_post)(
                        game_id=self.game_id, user=self.user, text=content.get("text")
                    )
            elif kind == "ping":
                await self.send_json(frame("pong", ref=ref))
            else:
                raise UnknownFrame(UnknownFrame.default_detail % {"type": repr(kind)})
        except (ApiError, *registry.engine_errors(), exceptions.APIException) as error:
            await self.send_json(error_frame(error, ref))

    async def sync(self, after) -> None:
        if isinstance(after, bool) or not isinstance(after, int) or not -1 <= after <= MAX_INT:
            raise InvalidSync()
        entries, view, version, clock = await database_sync_to_async(self._since)(after)
        if after > version:
            raise InvalidSync(gettext("The game is at seq %(seq)s.") % {"seq": version})
        for index, entry in enumerate(entries):
            last = index == len(entries) - 1
            await self.send_json(frame("entry", **entry, view=view if last else None))
        self.last_seq = version
        buffered, self.buffer = self.buffer, []
        for event in buffered:
            await self.deliver(event)
        await self.send_json(frame("synced", version=self.last_seq, clock=clock))

    def _since(self, after: int):
        for _ in range(2):
            if not self.commitment:  # opened on a waiting table: seats are drawn at the start
                self.seat, self.commitment = self._seat_and_commitment()
            entries, view, version = selectors.entries_since(
                game_id=self.game_id, after=after, seat=self.seat
            )
            # started between the two reads: read again with the seat the start drew (the
            # entries after `version` come live, and `deliver` learns no seat once synced)
            if version < 0 or self.commitment:
                break
        game = selectors.Game.objects.get(pk=self.game_id)
        return entries, view, version, selectors.clock_of(game)

    async def move(self, content, ref) -> None:
        """The checks of `POST …/actions` in its order (credentials, the move limit, the body,
        then the service), in one call on one of the process's `SOCKET_MOVE_CONCURRENCY`
        threads for moves: a move frame costs one thread hop and one pooled connection, and
        moves of different games run side by side rather than one at a time on the process's
        single thread for synchronous work. Few of them: every thread running Django shares
        the interpreter lock with the event loop, which delivers every socket's frames; with
        six, an entry reached the players' sockets 100 ms (p50) after its move was answered,
        with three 10 ms (BENCHMARKS.md, the tail)."""
        if not self.user.is_authenticated:
            raise LoginRequired()
        refusal, result = await database_sync_to_async(
            self._move, thread_sensitive=False, executor=_mover_threads()
        )(content)
        if refusal is not None:
            await self.closed_for(refusal)
            return
        assert result is not None
        await self.send_json(
            frame("move_accepted", ref=ref, seq=result.body["seq"], replayed=result.replayed)
        )

    def _move(self, content) -> tuple[tuple[int, str, str] | None, moves.MoveResult | None]:
        refusal = socket_refusal(user_id=self.user.pk, **self.credentials)
        if refusal is not None:
            return refusal, None
        if not socket_move_allowed(self.user):
            raise TooManyRequests()
        data = move_data(content)
        return None, moves.move_submit(
            game_id=self.game_id,
            user=self.user,
            action=data["action"],
            version=data["version"],
            idempotency_key=data["idempotency_key"],
        )

    # ------------------------------------------------------------------ from the channel layer

    async def game_entry(self, event):
        if event.get("game") != self.game_id or (
            self.commitment and event.get("commitment") != self.commitment
        ):  # not this game: another deployment's on a shared Redis, or a stray message
            log.warning("game %s socket dropped a foreign entry", self.game_id)
            return
        if self.last_seq is None:
            self.buffer.append(event)
            del self.buffer[:-BUFFER_LIMIT]  # what falls out is refetched as a gap
            return
        await self.deliver(event)

    async def deliver(self, event) -> None:
        seq = event["seq"]
        if seq <= self.last_seq:
            return
        if self.last_seq < 0:  # the game started: seats are drawn now (S3), the seed committed
            if not await self.started(event.get("commitment")):
                return
        if seq > self.last_seq + 1:
            missing, _, _ = await database_sync_to_async(selectors.entries_since)(
                game_id=self.game_id, after=self.last_seq, seat=None, before=seq
            )
            for entry in missing:
                await self.send_json(frame("entry", **entry, view=None))
        await self.send(text_data=events.entry_frame(event, self.seat))
        self.last_seq = seq

    async def started(self, commitment: str | None) -> bool:
        """The table this socket watched has started: its seat and commitment, from the
        database; False if `commitment` is not this game's (a foreign push)."""
        self.seat, self.commitment = await database_sync_to_async(self._seat_and_commitment)()
        return commitment is None or commitment == self.commitment

    def _seat_and_commitment(self):
        game = selectors.Game.objects.get(pk=self.game_id)
        seat = selectors.seat_for(game_id=self.game_id, user=self.user) if (
            self.user.is_authenticated
        ) else None  # fmt: skip
        return seat, game.seed_commitment

    async def game_behind(self, event):
        """The heartbeat found the game ahead of this socket (a push was lost): catch up."""
        if self.last_seq is None or event["version"] <= self.last_seq:
            return
        if self.last_seq < 0:
            await self.started(None)
        entries, view, version = await database_sync_to_async(selectors.entries_since)(
            game_id=self.game_id, after=self.last_seq, seat=self.seat
        )
        for index, entry in enumerate(entries):
            last = index == len(entries) - 1
            await self.send_json(frame("entry", **entry, view=view if last else None))
        self.last_seq = max(self.last_seq, version)

    async def game_chat(self, event):
        await self.send_json(frame("chat", message=event["message"]))

    async def game_chat_hidden(self, event):
        await self.send_json(frame("chat_hidden", id=event["id"]))


class UserConsumer(JsonConsumer):
    """One user's sockets: "your turn" in any game, and the lobby's open tables."""

    groups_joined: tuple[str, ...] = ()

    async def connect(self):
        self.user = self.scope.get("user") or AnonymousUser()
        if not await self.hold_place():
            return
        try:
            waiting = await database_sync_to_async(selectors.user_socket_access)(user=self.user)
            # (game, turn): the turns this socket has said "your turn" for (its hello says the
            # turns already waiting): keyed on the turn, as the version moves within a turn
            self.told = set(waiting)
        except ApiError as error:
            await self.refuse(error)
            return
        self.groups_joined = (events.user_group(self.user.pk), events.LOBBY_GROUP)
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.join_account(self.user)
        await self.accept()
        await self.send_json(
            frame("hello", user=self.user.pk, your_turn=[game for game, _ in sorted(waiting)])
        )
        watch.add(self)

    async def disconnect(self, code):
        watch.discard(self)
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        await self.leave_account()

    async def receive_json(self, content, **kwargs):
        if content["type"] == "ping":
            await self.send_json(frame("pong", ref=content.get("ref")))
        else:
            unknown = UnknownFrame(UnknownFrame.default_detail % {"type": repr(content["type"])})
            await self.send_json(error_frame(unknown))

    async def user_your_turn(self, event):
        """Once per turn: from the push, or from the heartbeat when the push was lost."""
        told = (event["game"], event["turn"])
        if told not in self.told:
            self.told.add(told)
            await self.send_json(
                frame("your_turn", game=told[0], version=event["version"], turn=told[1])
            )

    async def lobby_table(self, event):
        await self.send_json(frame("table", table=event["table"]))


class _Watch:
    """This process's sockets, and every HEARTBEAT seconds one look at the database: the
    version of every game its game sockets watch, and the games waiting on the users of its
    user sockets. A socket that is behind (its push died with the process that was to send
    it) is told through its own channel, so it catches up in order with what it receives."""

    def __init__(self):
        self.games: dict[int, set[GameConsumer]] = {}
        self.users: dict[int, set[UserConsumer]] = {}
        self.task: asyncio.Task | None = None

    def _sockets(self, consumer) -> tuple[dict, int]:
        if isinstance(consumer, GameConsumer):
            return self.games, consumer.game_id
        return self.users, consumer.user.pk

    def add(self, consumer) -> None:
        sockets, key = self._sockets(consumer)
        sockets.setdefault(key, set()).add(consumer)
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self.run())

    def discard(self, consumer) -> None:
        sockets, key = self._sockets(consumer)
        found = sockets.get(key)
        if found is not None:
            found.discard(consumer)
            if not found:
                del sockets[key]

    async def run(self) -> None:
        while self.games or self.users:
            await asyncio.sleep(settings.SOCKET_HEARTBEAT_SECONDS)
            await presence.renew(self.games)  # these sockets still watch their games
            try:
                versions, waiting = await database_sync_to_async(selectors.heartbeat)(
                    games=list(self.games), users=list(self.users)
                )
                await self.tell(versions, waiting)
            except Exception:  # the database is away: the next beat tries again
                log.exception("socket heartbeat failed")

    async def tell(
        self, versions: dict[int, int], waiting: list[tuple[int, int, int, int]]
    ) -> None:
        for game_id, version in versions.items():
            for socket in list(self.games.get(game_id, ())):
                if socket.last_seq is not None and version > socket.last_seq:
                    behind = {"type": "game.behind", "version": version}
                    await socket.channel_layer.send(socket.channel_name, behind)
        for user_id, game_id, version, turn_number in waiting:
            for socket in list(self.users.get(user_id, ())):
                if (game_id, turn_number) not in socket.told:
                    turn = {"type": "user.your_turn", "game": game_id, "version": version,
                            "turn": turn_number}  # fmt: skip
                    await socket.channel_layer.send(socket.channel_name, turn)


watch = _Watch()
