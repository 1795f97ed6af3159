"""Several nodes on one machine, as production runs them: two web nodes (uvicorn) behind
Debian's HAProxy running docker/haproxy.cfg, two Celery workers and one separate beat, one
PostgreSQL (the committed test database), one Redis (this run's key prefix). Helpers, and the
precise meaning of "each entry exactly once on every socket": tests/reliability/multinode.py.

Played games: each player's requests go in turn to node A, node B and the proxy, a retry
(same idempotency key) too. Clocked games nobody plays: 2-second turns, timed out by the
workers until both seats are zombies (K3) and the autopilot finishes the game. Every game is
watched by three sockets (its two players, a signed-in spectator), first opened on A, B and
the proxy, reconnecting in turn to the others and catching up from their last seq.

Mid-play, while the first batch of clocked games is due: worker 1 is SIGKILLed (its group: the
worker and its pool process) and started again. Then, as the second batch falls due, node A is
SIGKILLed: its sockets die, its requests in flight are cut; the proxy marks it down and
sends everything to B. A is started again on its port and the proxy takes it back.

Then, from the database: every acknowledged move is in the log once at its seq and nothing
else is (faults.lost_or_duplicated); every game replays to its row (verify_games); each clocked
game finished, every timeout for the seat to move, one per turn, none early (K1/K3); every
watcher got entries 0..version exactly once in order; every answered move sent again,
unchanged, to A, B and the proxy gets 200 and the very body of its first answer.

Two quick tests pin what the proxy and the image rely on without timing luck: the proxy's retry
policy against stub nodes (a move a node never answered goes to the other node, a new table
never twice), and the image's health check naming a Host that ALLOWED_HOSTS lets through.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

import pytest
from django.http.request import split_domain_port, validate_host
from django.utils import timezone

from games.models import Game, GameEntry
from tests.e2e.server import HOST, ROOT, current_database_url, free_port
from tests.e2e.test_live import Person, Table
from tests.reliability.faults import Tally, lost_or_duplicated, stop_drivers, verify_games
from tests.reliability.multinode import (
    AlternatingDriver,
    Node,
    Proxy,
    Rotation,
    Watcher,
    Watchers,
    busy,
    haproxy_binary,
    named,
    replay_differences,
    start_together,
    wait_until,
)
from tests.smoke.test_production_shape import Beat
from tests.tasks.test_celery_live import LIMIT, assert_each_timeout_once, give_limit, timeouts
from tests.tasks.worker import CeleryWorker, worker_env

PLAYED = 4  # games played over HTTP
CLOCKED = 6  # games per batch left to the clock (two batches)
TICK = 0.5  # DEADLINE_TICK_SECONDS of the beat
MOVES = 20  # moves between one step of the scenario and the next
NODE_ENV = {
    "DB_POOL_MAX_SIZE": "4",  # 2 nodes + 2 workers on a PostgreSQL shared with other runs
    "SOCKET_HEARTBEAT_SECONDS": "2",  # a push lost with node A reaches its sockets in 2 s
}


def due_now(game_ids: list[int]) -> bool:
    """Whether a turn of these games is past its deadline and not yet timed out."""
    return Game.objects.filter(
        pk__in=game_ids, status=Game.Status.PLAYING, next_deadline_at__lte=timezone.now()
    ).exists()


@pytest.fixture
def cluster(django_db_setup, committed_db):
    if haproxy_binary() is None:
        pytest.skip("needs Debian's haproxy (apt-get install haproxy; .ci/run does)")
    database_url, redis_url = current_database_url(), os.environ["REDIS_URL"]
    nodes = [Node(name, database_url=database_url, redis_url=redis_url, env=NODE_ENV)
             for name in ("A", "B")]  # fmt: skip
    workers = [
        CeleryWorker(database_url=named(database_url, f"taxi-worker-{i}"), redis_url=redis_url,
                     concurrency=1, beat=False, env={"DB_POOL_MAX_SIZE": "2"},
                     workdir=Path(tempfile.mkdtemp()))
        for i in (1, 2)
    ]  # fmt: skip
    beat_env = {"DEADLINE_TICK_SECONDS": str(TICK)}
    beat = Beat(env=worker_env(database_url=database_url, redis_url=redis_url, extra=beat_env),
                workdir=Path(tempfile.mkdtemp()))  # fmt: skip
    proxy = Proxy(nodes)
    failed = True
    try:
        start_together([*nodes, *workers])  # the beat's process starts meanwhile too
        beat.wait_ready()
        proxy.start()
        yield nodes, proxy, workers, beat
        failed = False
    finally:
        if failed:
            for node in nodes:
                tail = node.logs[-1] if node.logs else node.server.log() if node.server else ""
                print(f"--- node {node.name} ---\n{tail[-3000:]}")
            print(f"--- haproxy ---\n{proxy.log_tail()}\n--- beat ---\n{beat.log()[-3000:]}")
            for worker in workers:
                print(f"--- worker ---\n{worker.log_tail(3000)}")
        for close in (proxy.close, *(n.stop for n in nodes), *(w.close for w in workers),
                      beat.stop):  # fmt: skip
            with contextlib.suppress(Exception):
                close()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
def test_two_nodes_two_workers_and_a_proxy_lose_and_double_nothing_across_two_kills(cluster):
    (a, b), proxy, workers, beat = cluster
    targets = [("A", a), ("B", b), ("proxy", proxy)]
    people = [Person.create(proxy) for _ in range(2 * (PLAYED + 2 * CLOCKED) + 1)]
    spectator = people.pop()
    pairs = [people[i : i + 2] for i in range(0, len(people), 2)]
    played = [Table(proxy, pair, movement="faster") for pair in pairs[:PLAYED]]
    first = [Table(proxy, pair, clock="30s") for pair in pairs[PLAYED : PLAYED + CLOCKED]]
    second = [Table(proxy, pair, clock="30s") for pair in pairs[PLAYED + CLOCKED :]]
    tables = [*played, *first, *second]
    ids = [table.id for table in tables]
    clocked = [table.id for table in (*first, *second)]
    # No clock until give_limit: the table's own 30-s turn could run out first, and the turn
    # give_limit then shortens would have begun at that timeout rather than at seq 0.
    Game.objects.filter(pk__in=clocked).update(turn_seconds=None, next_deadline_at=None)

    watchers = Watchers()
    tally, stop = Tally(), threading.Event()
    drivers = []
    try:
        for table in tables:
            for turn, token in enumerate(
                (table.by_seat[0].token, table.by_seat[1].token, spectator.token)
            ):
                watchers.add(Watcher(table.id, token, targets, start=turn))
        wait_until(lambda: all(w.last >= 0 for w in watchers.all), timeout=30,
                   what="every socket's first sync")  # fmt: skip

        drivers = [
            AlternatingDriver(Rotation([a, b, proxy], start=i), table.id,
                              {seat: p.token for seat, p in table.by_seat.items()}, tally, stop,
                              seed=table.id)
            for i, table in enumerate(played)
        ]  # fmt: skip
        for driver in drivers:
            driver.start()

        def moves(count: int) -> None:
            wait_until(lambda: len(tally.acks) >= count or not any(d.is_alive() for d in drivers),
                       timeout=60, what=f"{count} moves")  # fmt: skip

        moves(MOVES)

        # Worker 1 dies while the first batch is due (both workers sweep it, SKIP LOCKED).
        first_timeouts = GameEntry.objects.filter(
            game_id__in=[t.id for t in first], action__type="timeout"
        )
        # Killed while one of its connections is busy (a statement or a transaction open): most
        # often a deadline half applied. Sampled every 2 ms: on a loaded machine the sampling
        # may miss every busy moment of the batch, and then worker 1 dies between two deadlines,
        # which must lose and double nothing as well.
        give_limit([t.id for t in first], due_in=LIMIT * 0)  # due now
        first_ids = [t.id for t in first]
        with contextlib.suppress(AssertionError):
            wait_until(lambda: due_now(first_ids) and busy("taxi-worker-1"), timeout=30,
                       interval=0.002, what="worker 1 busy while deadlines are due")  # fmt: skip
        workers[0].kill(signal.SIGKILL)
        timeouts_at_worker_kill = first_timeouts.count()
        workers[0].start()
        moves(len(tally.acks) + MOVES)

        # Node A dies as the second batch falls due, with requests and sockets on it.
        # (the proxy's sockets on A are not told apart from its sockets on B: not counted)
        give_limit([t.id for t in second], due_in=LIMIT / 4)
        sockets_on_a = sum(1 for w in watchers.all if w.sessions and w.sessions[-1].target == "A")
        wait_until(lambda: busy(a.application_name), timeout=30, interval=0.002,
                   what="node A to be serving a request")  # fmt: skip
        a.kill()
        acks_at_node_kill = len(tally.acks)
        wait_until(lambda: proxy.servers().get("node_a") == "DOWN", timeout=10,
                   what="the proxy to mark node A down")  # fmt: skip
        moves(acks_at_node_kill + MOVES)
        a.start()
        wait_until(lambda: proxy.servers().get("node_a") == "UP", timeout=20,
                   what="the proxy to take node A back")  # fmt: skip
        moves(len(tally.acks) + MOVES)
    finally:
        if drivers:
            stop_drivers(drivers, stop)

    try:
        wait_until(
            lambda: not Game.objects.filter(pk__in=clocked, status=Game.Status.PLAYING).exists(),
            timeout=60, what="every clocked game to be timed out to its end",
        )  # fmt: skip
        versions = dict(Game.objects.filter(pk__in=ids).values_list("pk", "version"))
        wait_until(lambda: watchers.caught_up(versions), timeout=30,
                   what="every socket to reach its game's version")  # fmt: skip
    finally:
        watchers.close()

    # Moves: each acknowledged one in the log once, at its seq; nothing else there.
    assert lost_or_duplicated(tally.acks, [t.id for t in played]) == {}
    differ, report = verify_games(ids)
    assert differ == 0, report
    assert 500 not in tally.statuses, tally.statuses

    # Deadlines (K1, K3): each turn timed out at most once, for the seat to move, not early;
    # and none was lost: every clocked game reached its end.
    applied = 0
    for game_id in clocked:
        game = Game.objects.get(pk=game_id)
        log = list(GameEntry.objects.filter(game_id=game_id).order_by("seq"))
        assert [e.seq for e in log] == list(range(game.version + 1)), f"gaps in game {game_id}"
        assert_each_timeout_once(game_id, log)
        applied += len(timeouts(game_id))

    # Sockets: every watcher, every entry 0..version once, in order, across its sessions.
    problems = {
        f"game {w.game} watcher {i}": w.problems(versions[w.game])
        for i, w in enumerate(watchers.all)
        if w.problems(versions[w.game])
    }
    assert problems == {}, json.dumps(problems, indent=1)
    assert [w.errors for w in watchers.all if w.errors] == []
    reconnected = [w for w in watchers.all if len(w.sessions) > 1]
    assert len(reconnected) >= sockets_on_a > 0, "node A's sockets did not come back"

    # Retries: every answered move, sent again unchanged to A, B and the proxy, answered 200
    # with the first answer's body.
    answers = [answer for driver in drivers for answer in driver.answers]
    assert len(answers) == len(tally.acks)
    assert replay_differences(answers, [a, b, proxy]) == []

    for worker in workers:
        assert worker.errors() == [], worker.log_tail()

    figures = {
        "games": {"played": len(played), "clocked": len(clocked)},
        "entries": sum(v + 1 for v in versions.values()),
        "moves_acknowledged": len(tally.acks),
        "moves_answered_after_a_retry": sum(1 for answer in answers if answer.attempts > 1),
        "moves_first_answered_as_a_replay": sum(1 for answer in answers if answer.status == 200),
        "replays_checked": len(answers) * 3,
        "requests_without_answer": tally.broken,
        "answers_by_status": dict(sorted(tally.statuses.items())),
        "unavailable_answers": {
            " ".join(map(str, key)): n
            for key, n in sum((d.unavailable for d in drivers), Counter()).items()
        },
        "timeouts_applied": applied,
        "timeouts_at_worker_kill": timeouts_at_worker_kill,
        "sockets": len(watchers.all),
        "socket_sessions": sum(len(w.sessions) for w in watchers.all),
        "sockets_on_node_a_at_kill": sockets_on_a,
        "sockets_reconnected": len(reconnected),
        "failed_socket_opens": sum(w.failed_opens for w in watchers.all),
        "entry_frames": sum(len(w.seqs) for w in watchers.all),
        "kills": {"web node": a.kills, "worker": workers[0].starts - 1},
        "lost": 0, "duplicated": 0, "deadlines_applied_twice": 0,
    }  # fmt: skip
    print(f"\nmultinode: {json.dumps(figures)}")


# ---------------------------------------------------------------------------------- health checks


def dockerfile_health_check() -> list[str]:
    text = (ROOT / "docker" / "Dockerfile").read_text().replace("\\\n", " ")
    return json.loads(re.search(r"^HEALTHCHECK .*?CMD (\[.*\])\s*$", text, re.M).group(1))


@pytest.mark.parametrize(
    "allowed_hosts", ["taxi.example.org", "taxi.example.org,127.0.0.1", ".example.org", "*"]
)
def test_the_image_health_check_names_a_host_the_server_allows(allowed_hosts):
    """Django answers 400 to a Host outside ALLOWED_HOSTS, /healthz included: a check naming
    127.0.0.1:8000 marked every container unhealthy under ALLOWED_HOSTS=taxi.example.org, and
    the proxy (compose: depends on healthy nodes) never started."""
    hosts = []

    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hosts.append(self.headers["Host"])
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    port = free_port()
    with http.server.HTTPServer((HOST, port), Health) as stub:
        threading.Thread(target=stub.serve_forever, daemon=True).start()
        command = [
            arg.replace("http://127.0.0.1:8000", f"http://{HOST}:{port}")
            for arg in dockerfile_health_check()
        ]
        assert command[0] == "python"
        env = {"PATH": os.environ["PATH"], "ALLOWED_HOSTS": allowed_hosts}
        checked = subprocess.run([sys.executable, *command[1:]], env=env, timeout=30)
        stub.shutdown()
    assert checked.returncode == 0
    domain, _port = split_domain_port(hosts[0])
    assert validate_host(domain, allowed_hosts.split(",")), hosts


# ---------------------------------------------------------------------------------- retry policy


class _StubNode(http.server.ThreadingHTTPServer):
    """A node for docker/haproxy.cfg: healthy; `dies` says whether it reads a POST's whole body
    and then closes without answering (a node killed mid-request) or answers 200."""

    def __init__(self, name: str, dies: bool):
        self.name, self.dies, self.posts = name, dies, Counter()
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                self.answer(b'{"status": "ok"}')

            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                stub.posts[self.path] += 1
                if stub.dies:
                    self.close_connection = True  # no answer at all
                    return
                self.answer(json.dumps({"node": stub.name}).encode())

            def answer(self, body: bytes):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__((HOST, free_port()), Handler)
        self.address = f"{HOST}:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def handle_error(self, request, client_address):
        pass  # the proxy closing its side of a connection the stub dropped: expected


def _post_in_two_packets(port: int, path: str) -> int:
    """POST with the headers and the body sent apart, as urllib and many clients do."""
    import http.client
    import time

    body = json.dumps({"action": {"type": "end"}, "version": 1, "idempotency_key": "k"}).encode()
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        connection.putrequest("POST", path)
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders()
        time.sleep(0.05)
        connection.send(body)
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.skipif(haproxy_binary() is None, reason="needs haproxy")
def test_the_proxy_resends_a_move_but_no_other_post_to_the_other_node():
    """docker/haproxy.cfg: a request a node received and never answered is sent to the other
    node only if a repeat is harmless: a move (its idempotency key makes the server answer a
    repeat with the first answer), never e.g. a new table."""
    dying, healthy = _StubNode("A", dies=True), _StubNode("B", dies=False)
    proxy = Proxy([dying, healthy])
    try:
        proxy.start()
        moves = [_post_in_two_packets(proxy.port, "/api/v1/games/7/actions") for _ in range(4)]
        tables = [_post_in_two_packets(proxy.port, "/api/v1/tables") for _ in range(4)]
    finally:
        proxy.close()
        for stub in (dying, healthy):
            stub.shutdown()
            stub.server_close()
    # round robin: about half of each went to A first
    assert dying.posts["/api/v1/games/7/actions"] >= 1 and dying.posts["/api/v1/tables"] >= 1
    assert moves == [200] * 4, "a move A did not answer was not sent to B"
    assert healthy.posts["/api/v1/games/7/actions"] == 4
    assert tables.count(502) == dying.posts["/api/v1/tables"], "a new table was sent twice"
    assert healthy.posts["/api/v1/tables"] == 4 - dying.posts["/api/v1/tables"]


def _get_from(port: int, source: str) -> int | str:
    """GET /healthz through the proxy from the local address `source`: the status, or
    "refused" when the proxy drops the connection at its accept."""
    import http.client

    connection = http.client.HTTPConnection(HOST, port, timeout=5, source_address=(source, 0))
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    except (ConnectionResetError, ConnectionRefusedError, http.client.RemoteDisconnected):
        return "refused"
    finally:
        connection.close()


@pytest.mark.skipif(haproxy_binary() is None, reason="needs haproxy")
def test_the_proxy_refuses_a_flood_of_connections_from_one_address_and_only_from_it():
    """docker/haproxy.cfg counts new connections per client address over 10 s and connections
    open at once (TAXI_PROXY_CONN_RATE, TAXI_PROXY_CONN_CUR): past either, that address's
    connections are dropped at the accept, before a node sees them; other addresses are
    served as before."""
    import socket
    import time

    nodes = [_StubNode("A", dies=False), _StubNode("B", dies=False)]
    proxy = Proxy(nodes)
    proxy.env.update(TAXI_PROXY_CONN_RATE="5", TAXI_PROXY_CONN_CUR="3")
    held: list[socket.socket] = []
    try:
        proxy.start()
        flood = [_get_from(proxy.port, "127.0.0.66") for _ in range(8)]
        assert flood[:5] == [200] * 5 and flood[5:] == ["refused"] * 3
        assert _get_from(proxy.port, "127.0.0.77") == 200  # another address: served
        # connections held open at once, from a third address; each answered once, so the
        # proxy has accepted it and counts it (the kernel completes a connection before the
        # proxy's accept, and one not yet accepted is not counted)
        for _ in range(3):
            sock = socket.create_connection((HOST, proxy.port), source_address=("127.0.0.88", 0))
            held.append(sock)
            sock.settimeout(5)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: proxy\r\n\r\n")
            assert sock.recv(64).startswith(b"HTTP/1.1 200")
        assert _get_from(proxy.port, "127.0.0.88") == "refused"
        held.pop().close()
        time.sleep(0.2)  # the count drops when one closes
        assert _get_from(proxy.port, "127.0.0.88") == 200  # its 5th connection in 10 s: served
    finally:
        for sock in held:
            sock.close()
        proxy.close()
        for stub in nodes:
            stub.shutdown()
            stub.server_close()
