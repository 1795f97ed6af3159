"""End to end: a real uvicorn server in another process (2 workers sharing the Redis channel
layer), real WebSocket clients (`websockets`) and real HTTP requests, against the committed
test database. What the in-process consumer tests (tests/ws) cannot show: frames crossing
processes through Redis, the handshake as uvicorn does it, sockets that really close and
come back.

Moves are chosen as tests/players.py does (the autopilot on the server-side state, read from
the database by this process); the move itself always goes over HTTP or over a socket.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import threading
import time
import uuid
from collections.abc import Callable

import pytest
from django.db import connection
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from accounts.models import DeviceToken, User
from games.models import Game
from tests.e2e.server import LiveServer, current_database_url, live_server, request_json
from tests.players import autopilot_choice

pytestmark = [pytest.mark.redis, pytest.mark.slow]

WAIT = 10.0  # seconds for anything expected to arrive
SETTLE = 0.3  # after the last expected frame: time for a duplicate or a stray frame to show


# ---------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def live(django_db_setup):
    """One server for the module, on the test database (set up by then). Every test commits
    its data (`committed_db`) and the flush after it empties the tables for the next."""
    redis_url = os.environ.get("REDIS_URL")
    with live_server(
        database_url=current_database_url(),
        redis_url=redis_url,
        workers=2 if redis_url else 1,  # in-memory layer: groups live in one process only
    ) as server:
        yield server


@pytest.fixture
def clients(committed_db, live):
    """The event loop of the test's WebSocket clients, in a thread of its own (the test stays
    synchronous, with the database at hand). Shows the server's log if the test fails."""
    log_from = len(live.log())
    loop = ClientLoop()
    yield loop
    loop.close()
    assert live.alive(), "the server died"
    new = [
        line
        for line in live.log()[log_from:].splitlines()
        if not line.startswith("INFO:")  # one per connection: noise
    ]
    if new:
        print("--- server log during the test ---", *new[-80:], sep="\n")  # on failure only


# ---------------------------------------------------------------------------------- clients


class ClientLoop:
    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="ws-clients")
        self.thread.daemon = True
        self.thread.start()
        self.sockets: list[Socket] = []

    def run(self, coroutine, timeout: float = WAIT):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def socket(self, server: LiveServer, path: str, person=None, **kwargs) -> Socket:
        """Connect (handshake done, reader running) and return the socket."""
        sock = Socket(self, server.ws_url(path), person, origin=kwargs.pop("origin", server.origin))
        self.run(sock.open(**kwargs))
        self.sockets.append(sock)
        return sock

    def close(self) -> None:
        for sock in self.sockets:
            try:
                self.run(sock.shut(), timeout=5)
            except Exception:  # noqa: BLE001 - closing everything whatever happens
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


class Socket:
    """A real WebSocket client that records every frame it receives, in order."""

    def __init__(self, loop: ClientLoop, url: str, person=None, *, origin: str | None):
        self.loop = loop
        self.url = url
        self.person = person
        self.origin = origin
        self.frames: list[dict] = []
        self.cond = threading.Condition()
        self.closed = False
        self.close_code: int | None = None
        self.ws = None
        self.reader = None

    async def open(self, token: str | None = None) -> None:
        token = token or (self.person.token if self.person else None)
        headers = [("Authorization", f"Token {token}")] if token else []
        self.ws = await connect(
            self.url, origin=self.origin, additional_headers=headers, proxy=None, open_timeout=WAIT
        )
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                frame = json.loads(message)
                with self.cond:
                    self.frames.append(frame)
                    self.cond.notify_all()
        except ConnectionClosed:
            pass
        finally:
            with self.cond:
                self.closed = True
                self.close_code = self.ws.close_code
                self.cond.notify_all()

    async def shut(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await self.reader

    # -- from the test's thread
    def send(self, frame: dict) -> None:
        self.loop.run(self.ws.send(json.dumps(frame)))

    def close(self) -> None:
        self.loop.run(self.shut())

    def mark(self) -> int:
        with self.cond:
            return len(self.frames)

    def wait(self, what: str, predicate: Callable[[list[dict]], object], timeout=WAIT):
        with self.cond:
            self.cond.wait_for(lambda: predicate(self.frames) or self.closed, timeout)
            found = predicate(self.frames)
            if not found:
                state = f"closed ({self.close_code})" if self.closed else "open"
                raise AssertionError(
                    f"{self.url} ({state}): no {what} within {timeout} s: {self.frames}"
                )
            return found

    def frame(self, kind: str, *, start: int = 0, ref=None) -> dict:
        """The first frame of that type (and ref) from index `start`, waiting for it."""

        def find(frames):
            return next(
                (
                    f
                    for f in frames[start:]
                    if f["type"] == kind and (ref is None or f.get("ref") == ref)
                ),
                None,
            )

        return self.wait(f"{kind} frame (ref {ref})", find)

    def wait_closed(self, timeout=WAIT) -> int | None:
        self.wait("close", lambda _frames: self.closed, timeout)
        return self.close_code

    def entries(self) -> list[dict]:
        with self.cond:
            return [f for f in self.frames if f["type"] == "entry"]

    def wait_entry(self, seq: int) -> None:
        self.wait(
            f"entry {seq}", lambda fs: any(f["type"] == "entry" and f["seq"] >= seq for f in fs)
        )

    def sync(self, after: int) -> dict:
        start = self.mark()
        self.send({"type": "sync", "after": after})
        return self.frame("synced", start=start)

    def kinds(self, *types: str) -> list[dict]:
        with self.cond:
            return [f for f in self.frames if f["type"] in types]


# ---------------------------------------------------------------------------------- people


_names = itertools.count()


class Person:
    """A user and its API token, talking to the live server over HTTP."""

    def __init__(self, server: LiveServer, user_id: int, token: str):
        self.server = server
        self.id = user_id
        self.token = token

    @classmethod
    def create(cls, server):
        """Straight into the database (committed): no password to hash, so it is fast."""
        user = User.objects.create_user(username=f"e2e{next(_names)}-{uuid.uuid4().hex[:6]}")
        return cls(server, user.pk, DeviceToken.objects.create(user=user)[1])

    @classmethod
    def signup(cls, server):
        """Through the API, as the apps do: the token comes with the new account."""
        name = f"e2e{next(_names)}-{uuid.uuid4().hex[:6]}"
        status, body = request_json(
            server.url("/api/v1/auth/signup"),
            {"username": name, "password": "Palm-" + uuid.uuid4().hex},
        )
        assert status == 201, body
        return cls(server, body["user"]["id"], body["token"])

    def get(self, path: str):
        return request_json(self.server.url(path), token=self.token)

    def post(self, path: str, data: dict | None = None):
        return request_json(self.server.url(path), data or {}, method="POST", token=self.token)


class Table:
    """A started game at a live server, its players by seat."""

    def __init__(self, server: LiveServer, players: list[Person], **options):
        status, body = players[0].post("/api/v1/tables", {"players": len(players), **options})
        assert status == 201, body
        self.id = body["id"]
        for person in players[1:]:
            status, body = person.post(f"/api/v1/tables/{self.id}/join")
            assert status == 200, body
        status, detail = players[0].get(f"/api/v1/games/{self.id}")
        assert status == 200 and detail["status"] == "playing", detail
        by_id = {p.id: p for p in players}
        self.by_seat = {s["seat"]: by_id[s["user"]["id"]] for s in detail["seats"]}
        self.seat_of = {p.id: seat for seat, p in self.by_seat.items()}
        self.path = f"/ws/games/{self.id}/"
        self.active_after = {0: Game.objects.get(pk=self.id).active_seat}  # seq → seat to move

    def play(self, via: Socket | None = None, ref: str | None = None) -> int:
        """One move by the player to move, chosen by the autopilot, over HTTP or over `via`
        (that player's socket); returns its seq and records whose turn it is after it."""
        game = Game.objects.get(pk=self.id)
        assert game.status == Game.Status.PLAYING, "the game ended: play fewer moves"
        seat, version = game.active_seat, game.version
        move = {
            "action": autopilot_choice(self.id),
            "version": version,
            "idempotency_key": uuid.uuid4().hex,
        }
        if via is None:
            status, body = self.by_seat[seat].post(f"/api/v1/games/{self.id}/actions", move)
            assert status == 201, body
            seq = body["seq"]
        else:
            assert via.person is self.by_seat[seat], "a move goes over the mover's socket"
            start = via.mark()
            via.send({"type": "move", "ref": ref, **move})
            answer = via.wait(
                f"answer to {ref}",
                lambda fs: next((f for f in fs[start:] if f.get("ref") == ref), None),
            )
            assert answer["type"] == "move_accepted" and not answer["replayed"], answer
            seq = answer["seq"]
        assert seq == version + 1
        self.active_after[seq] = Game.objects.get(pk=self.id).active_seat
        return seq

    def log(self, person: Person) -> list[dict]:
        entries, after = [], None
        while True:
            query = f"?limit=500&after={after}" if after is not None else "?limit=500"
            status, page = person.get(f"/api/v1/games/{self.id}/log{query}")
            assert status == 200, page
            entries += page["entries"]
            if page["next_after"] is None:
                return entries
            after = page["next_after"]


def assert_seqs(sock: Socket, expected: list[int]) -> None:
    seqs = [f["seq"] for f in sock.entries()]
    if seqs != expected:
        got = " ".join(describe(f) for f in sock.kinds("entry", "synced", "hello"))
        raise AssertionError(f"{sock.url}: entries {seqs}, expected {expected}; frames: {got}")


def describe(frame: dict) -> str:
    if frame["type"] == "entry":
        return f"{frame['seq']}{'' if frame['view'] is None else '+view'}"
    return f"{frame['type']}({frame.get('version')})"


# ---------------------------------------------------------------------------------- idle


# Regression: redis-py 8 reads with a 5 s socket timeout by default, the very time
# channels_redis blocks in BZPOPMIN waiting for messages, so idle sockets dropped (1006) every
# 5 s; settings now give the layer's connections a longer socket timeout. First in the module:
# consumers of earlier tests' closed sockets would otherwise take the hit instead.
def test_idle_sockets_stay_open(live, clients):
    alice, bob = Person.create(live), Person.create(live)
    table = Table(live, [alice, bob])
    sockets = [clients.socket(live, table.path, p) for p in (alice, bob, None, None)]
    sockets += [clients.socket(live, "/ws/me/", p) for p in (alice, bob)]
    for sock in sockets:
        sock.frame("hello")
    time.sleep(6.5)  # longer than one blocking read of the channel layer (5 s)
    closed = [(sock.url, sock.close_code) for sock in sockets if sock.closed]
    assert closed == [], f"sockets closed while idle: {closed}"


# ---------------------------------------------------------------------------------- (a)


def test_players_and_a_spectator_get_every_entry_once_in_order_with_their_own_view(live, clients):
    alice, bob, watcher = Person.signup(live), Person.create(live), Person.create(live)
    me = {p.id: clients.socket(live, "/ws/me/", p) for p in (alice, bob)}
    for sock in me.values():
        assert sock.frame("hello")["your_turn"] == []
    table = Table(live, [alice, bob])
    game_sockets = {p.id: clients.socket(live, table.path, p) for p in (alice, bob, watcher)}
    for person_id, sock in game_sockets.items():
        hello = sock.frame("hello")
        assert (hello["game"], hello["version"], hello["status"]) == (table.id, 0, "playing")
        assert hello["seat"] == table.seat_of.get(person_id)
        assert sock.sync(-1)["version"] == 0

    sent = {person_id: [] for person_id in game_sockets}  # refs of the moves sent per socket
    for i in range(24):  # each player's first move and every third over the mover's socket
        mover = table.by_seat[Game.objects.get(pk=table.id).active_seat]
        if i % 3 == 2 or not sent[mover.id]:
            sent[mover.id].append(f"m{i}")
            table.play(via=game_sockets[mover.id], ref=f"m{i}")
        else:
            table.play()  # over HTTP
    final = max(table.active_after)
    for sock in game_sockets.values():
        sock.wait_entry(final)
    time.sleep(SETTLE)

    log = table.log(alice)
    assert [e["seq"] for e in log] == list(range(final + 1))
    stored = [(e["seq"], e["notifications"]) for e in log]
    for person_id, sock in game_sockets.items():
        seat = table.seat_of.get(person_id)
        entries = sock.entries()
        # each entry exactly once, in seq order, notifications as stored in the log
        assert [(f["seq"], f["notifications"]) for f in entries] == stored
        for f in entries:
            view = f["view"]
            if view is None:  # entries replayed by a sync carry no view, except the last
                continue
            assert view["you"] == seat
            assert view["active_seat"] == table.active_after[f["seq"]]
            if seat is None:
                assert view["legal_actions"] == []
            else:
                my_turn = table.active_after[f["seq"]] == seat
                playable = [a for a in view["legal_actions"] if a["type"] != "resign"]
                assert bool(playable) == my_turn, (f["seq"], seat, view)
        # the last frame shows what the HTTP API shows this person now
        person = table.by_seat.get(seat, watcher)
        status, detail = person.get(f"/api/v1/games/{table.id}")
        assert entries[-1]["view"] == detail["view"]
    # data meant for one client: each move_accepted only on the socket that sent the move
    assert sent[alice.id] and sent[bob.id] and not sent[watcher.id]
    for person_id, sock in game_sockets.items():
        assert [f["ref"] for f in sock.kinds("move_accepted")] == sent[person_id]
        assert sock.kinds("error") == []

    # /ws/me/: the lobby saw the table open and start; "your turn" once for every entry that
    # began that player's turn (seq 0 included: the sockets were open before the game started)
    turns_begun = {
        entry["seq"]: n["seat"]
        for entry in table.log(alice)
        for n in entry["notifications"]
        if n["type"] == "turn_started"
    }
    for person_id, sock in me.items():
        tables = [f["table"] for f in sock.kinds("table") if f["table"]["id"] == table.id]
        assert [t["status"] for t in tables] == ["open", "playing"]
        seat = table.seat_of[person_id]
        expected = {seq for seq, began in turns_begun.items() if began == seat}
        assert expected
        got = [f["version"] for f in sock.kinds("your_turn") if f["game"] == table.id]
        assert sorted(got) == sorted(expected) and len(got) == len(set(got))


# ---------------------------------------------------------------------------------- (b)


def test_a_client_that_reconnects_gets_exactly_the_missed_entries_then_live_ones(live, clients):
    alice, bob = Person.create(live), Person.create(live)
    table = Table(live, [alice, bob])
    first = clients.socket(live, table.path, bob)
    first.frame("hello")
    first.sync(-1)
    for _ in range(3):
        table.play()
    first.wait_entry(3)
    last_seen = first.entries()[-1]["seq"]
    first.close()
    assert first.closed
    for _ in range(5):  # missed while away
        table.play()

    again = clients.socket(live, table.path, bob)
    assert again.frame("hello")["version"] == 8
    for _ in range(2):  # after hello, before the client's sync: these wait in the buffer
        table.play()
    synced = again.sync(last_seen)
    assert synced["version"] == 10
    for _ in range(3):
        table.play()
    again.wait_entry(13)
    time.sleep(SETTLE)

    assert_seqs(first, [0, 1, 2, 3])
    assert_seqs(again, list(range(4, 14)))
    types = [(f["type"], f.get("seq")) for f in again.frames if f["type"] != "hello"]
    assert types.index(("synced", None)) == 7  # 4..10, then synced, then the live ones
    assert all(f["view"] is not None for f in again.entries()[-3:])


# Regression: a sync read the game row, then its entries unbounded by the version just read;
# a move committed in between gave a duplicate entry or a crashed consumer. Reads are now
# bounded by `seq <= version`.
def test_syncing_while_moves_are_made_concurrently_leaves_no_gap_and_no_duplicate(live, clients):
    alice, bob, watcher = Person.create(live), Person.create(live), Person.create(live)
    table = Table(live, [alice, bob])
    for _ in range(2):
        table.play()
    people = [alice, bob, watcher, None]  # None: an anonymous spectator of the public table
    staying = clients.socket(live, table.path, watcher)
    staying.frame("hello")
    staying.sync(-1)

    moves = 40
    progress: list[int] = []
    failures: list[BaseException] = []

    def mover():
        try:
            for _ in range(moves):
                progress.append(table.play())
        except BaseException as error:  # noqa: BLE001 - reported by the test
            failures.append(error)
        finally:
            connection.close()  # this thread's own database connection

    def when(count: int) -> None:
        deadline = time.monotonic() + 30
        while len(progress) < count and not failures and thread.is_alive():
            assert time.monotonic() < deadline
            time.sleep(0.002)

    # connected before the moves start; each syncs at a different moment while they go on
    early = [clients.socket(live, table.path, people[i % 4]) for i in range(6)]
    for sock in early:
        sock.frame("hello")
    plan: list[tuple[Socket, int]] = []
    thread = threading.Thread(target=mover, name="mover")
    thread.start()
    try:
        for i, sock in enumerate(early):
            when(2 + 5 * i)
            after = -1 if i % 2 == 0 else 1  # everything, or "I had up to seq 1"
            sock.send({"type": "sync", "after": after})
            plan.append((sock, after))
        # connected while the moves go on, syncing straight after hello from its version
        for i in range(4):
            when(4 + 8 * i)
            sock = clients.socket(live, table.path, people[(i + 1) % 4])
            after = sock.frame("hello")["version"] - (i % 2)
            sock.send({"type": "sync", "after": after})
            plan.append((sock, after))
    finally:
        thread.join(60)
    assert not failures, failures
    final = 2 + moves
    assert Game.objects.get(pk=table.id).version == final
    for sock, _after in [*plan, (staying, -1)]:
        sock.wait_entry(final)
    time.sleep(SETTLE)

    assert_seqs(staying, list(range(final + 1)))
    for sock, after in plan:
        assert_seqs(sock, list(range(after + 1, final + 1)))
        synced = sock.kinds("synced")
        assert len(synced) == 1
        position = sock.frames.index(synced[0])
        before = [f["seq"] for f in sock.frames[:position] if f["type"] == "entry"]
        assert before == list(range(after + 1, synced[0]["version"] + 1))
        assert sock.entries()[-1]["view"] is not None
        assert sock.kinds("error") == []


# ---------------------------------------------------------------------------------- (c)


def test_refused_without_auth_and_from_a_foreign_origin(live, clients):
    owner, outsider = Person.create(live), Person.create(live)
    status, body = owner.post("/api/v1/tables", {"players": 2, "visibility": "invite"})
    assert status == 201, body
    invite = f"/ws/games/{body['id']}/"

    refused = [
        (invite, None, {}, 4401, "not_authenticated"),  # anonymous at an invite-only table
        (invite, None, {"token": "no-such-token", "origin": None}, 4401, "not_authenticated"),
        (invite, outsider, {}, 4404, "game_not_found"),  # signed in, not invited
        ("/ws/me/", None, {}, 4401, "not_authenticated"),
    ]
    for path, person, options, close_code, code in refused:
        sock = clients.socket(live, path, person, **options)
        assert sock.wait_closed() == close_code, (path, sock.frames)
        assert [(f["type"], f["code"]) for f in sock.frames] == [("error", code)]

    # the handshake itself is refused (HTTP 403): a foreign Origin, even with a token; no
    # Origin and no token
    for path, person, origin in [
        (invite, owner, "http://evil.example"),
        ("/ws/me/", owner, "http://evil.example"),
        (invite, None, "http://evil.example"),
        (invite, owner, "http://127.0.0.1.evil.example"),
        ("/ws/me/", None, None),
    ]:
        with pytest.raises(InvalidStatus) as refused_handshake:
            clients.socket(live, path, person, origin=origin)
        assert refused_handshake.value.response.status_code == 403

    # what is allowed: the owner with a token and no Origin (a native app), or with ours
    for origin in (None, live.origin, live.origin.replace("127.0.0.1", "localhost")):
        sock = clients.socket(live, invite, owner, origin=origin)
        assert sock.frame("hello")["seat"] is None  # the table has not started: no seat yet
        sock.close()


# ---------------------------------------------------------------------------------- (d)


def test_answers_to_one_client_reach_that_client_only(live, clients):
    alice, bob, watcher = Person.create(live), Person.create(live), Person.create(live)
    table = Table(live, [alice, bob])
    game = Game.objects.get(pk=table.id)
    mover, other = table.by_seat[game.active_seat], table.by_seat[1 - game.active_seat]
    sockets = {
        "mover": clients.socket(live, table.path, mover),
        "mover_2nd_tab": clients.socket(live, table.path, mover),
        "other": clients.socket(live, table.path, other),
        "watcher": clients.socket(live, table.path, watcher),
        "anonymous": clients.socket(live, table.path),
    }
    for sock in sockets.values():
        sock.frame("hello")
        sock.sync(-1)

    action = autopilot_choice(table.id)
    move = {"type": "move", "action": action, "version": 0, "idempotency_key": "k1"}

    def say(name: str, frame: dict) -> dict:
        sock = sockets[name]
        start = sock.mark()
        sock.send(frame)
        ref = frame["ref"]
        return sock.wait(f"answer to {ref}", lambda fs: next((f for f in fs[start:]), None))

    assert say("mover", {**move, "ref": "stale", "version": 3})["code"] == "stale_version"
    bad = {**move, "ref": "bad", "action": {"type": "fly"}, "idempotency_key": "k0"}
    assert say("mover", bad)["code"] == "malformed_action"
    assert say("other", {**move, "ref": "turn", "idempotency_key": "k2"})["code"] in (
        "not_your_turn",
        "not_your_seat",
    )
    assert say("watcher", {**move, "ref": "spectator"})["code"] == "not_a_player"
    assert say("anonymous", {**move, "ref": "anon"})["code"] == "not_authenticated"
    ok = sockets["mover"]
    start = ok.mark()
    ok.send({**move, "ref": "ok"})
    assert ok.frame("move_accepted", start=start, ref="ok")["seq"] == 1
    ok.send({**move, "ref": "retry"})
    assert ok.frame("move_accepted", start=start, ref="retry")["replayed"] is True
    for sock in sockets.values():
        sock.wait_entry(1)
    time.sleep(SETTLE)

    private = {
        name: [(f["type"], f.get("ref")) for f in sock.kinds("move_accepted", "error")]
        for name, sock in sockets.items()
    }
    assert private == {
        "mover": [
            ("error", "stale"),
            ("error", "bad"),
            ("move_accepted", "ok"),
            ("move_accepted", "retry"),
        ],
        "mover_2nd_tab": [],
        "other": [("error", "turn")],
        "watcher": [("error", "spectator")],
        "anonymous": [("error", "anon")],
    }
    for sock in sockets.values():
        assert_seqs(sock, [0, 1])


# ---------------------------------------------------------------------------------- (e)


def test_chat_reaches_both_players_and_the_sixth_message_in_ten_seconds_is_refused(live, clients):
    alice, bob, watcher = Person.create(live), Person.create(live), Person.create(live)
    table = Table(live, [alice, bob])
    sockets = {p.id: clients.socket(live, table.path, p) for p in (alice, bob, watcher)}
    for sock in sockets.values():
        sock.frame("hello")
    said = []

    def chat(person: Person, text: str) -> None:
        sockets[person.id].send({"type": "chat", "text": text})
        said.append((table.seat_of[person.id], text))
        for sock in sockets.values():  # everyone at the table gets it, the writer too
            sock.wait(
                f"chat {text!r}", lambda fs: sum(f["type"] == "chat" for f in fs) >= len(said)
            )

    started = time.monotonic()
    chat(alice, "good luck!")
    chat(bob, "you too")
    for i in range(4):
        chat(alice, f"a{i}")
    start = sockets[alice.id].mark()
    sockets[alice.id].send({"type": "chat", "text": "one too many"})
    refused = sockets[alice.id].frame("error", start=start)
    assert time.monotonic() - started < 10, "too slow to test the 10 s window"
    assert refused["code"] == "chat_rate_limited"
    chat(bob, "bob may still write")
    time.sleep(SETTLE)

    for person_id, sock in sockets.items():
        messages = [f["message"] for f in sock.kinds("chat")]
        assert [(m["seat"], m["text"]) for m in messages] == said
        assert [m["author"]["id"] for m in messages[:2]] == [alice.id, bob.id]
        errors = sock.kinds("error")
        assert [e["code"] for e in errors] == (
            ["chat_rate_limited"] if person_id == alice.id else []
        )
