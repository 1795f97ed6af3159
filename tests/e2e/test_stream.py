"""Following a game over plain HTTP — the NDJSON stream of its log entries on a live
server (uvicorn): across moves, with keep-alive lines, ending with the game; and the delay
from a move's commit to its line (BENCHMARKS.md)."""

from __future__ import annotations

import json
import queue
import threading
import time
import urllib.request
from datetime import datetime

import pytest

from games.models import Game
from tests.e2e.server import current_database_url, live_server, request_json
from tests.players import Player, autopilot_choice, seat_players, start_game

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(django_db_setup):
    env = {"STREAM_KEEPALIVE_SECONDS": "0.5"}
    with live_server(database_url=current_database_url(), workers=1, env=env) as server:
        yield server


class Follower:
    """Reads a stream in a thread: (arrival time, decoded line) in a queue."""

    def __init__(self, url: str, token: str):
        request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        self.response = opener.open(request, timeout=30)
        self.lines: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for raw in self.response:
                self.lines.put((time.time(), json.loads(raw)))
        except (OSError, ValueError, AttributeError):  # closed by the test (http.client's ways)
            pass
        self.lines.put((time.time(), None))  # the stream ended

    def next_entry(self, timeout=10) -> tuple[float, dict | None]:
        while True:
            at, line = self.lines.get(timeout=timeout)
            if line is None or "seq" in line:
                return at, line

    def close(self):
        self.response.close()


def _move(live, game_id, player, version):
    action = autopilot_choice(game_id)
    status, body = request_json(
        live.url(f"/api/v1/games/{game_id}/actions"),
        {"action": action, "version": version, "idempotency_key": f"k{version}-{time.time()}"},
        token=player.token,
    )
    assert status == 201, body
    return body


def test_the_stream_sends_each_entry_once_in_order_across_moves(live, committed_db):
    people = [Player(), Player()]
    game_id = start_game(people)
    by_seat = seat_players(game_id, people)
    watcher = Player()  # a spectator may follow a public game
    url = live.url(f"/api/v1/games/{game_id}/stream")
    follower = Follower(url, watcher.token)
    try:
        assert follower.response.headers["Content-Type"] == "application/x-ndjson"
        _, setup = follower.next_entry()
        assert setup["seq"] == 0 and setup["actor"]["kind"] == "server"
        keepalive = follower.lines.get(timeout=5)[1]  # idle: a keep-alive line
        assert set(keepalive) == {"keepalive"}
        for version in range(6):
            game = Game.objects.get(pk=game_id)
            body = _move(live, game_id, by_seat[game.active_seat], version)
            _, entry = follower.next_entry()
            assert entry["seq"] == body["seq"] == version + 1
            assert entry["notifications"] == body["notifications"]
    finally:
        follower.close()
    # from a seq on: only what comes after it
    resumed = Follower(url + "?after=4", watcher.token)
    try:
        assert [resumed.next_entry()[1]["seq"] for _ in range(2)] == [5, 6]
    finally:
        resumed.close()


def test_the_stream_ends_with_the_game(live, committed_db):
    people = [Player(), Player()]
    game_id = start_game(people)
    moderator = Player()
    follower = Follower(live.url(f"/api/v1/games/{game_id}/stream"), people[0].token)
    try:
        follower.next_entry()
        from games import moderation

        moderation.game_abort(game_id=game_id, moderator=moderator.user, reason="a test")
        _, aborted = follower.next_entry()
        assert aborted["notifications"][-1]["type"] == "game_aborted"
        assert follower.next_entry()[1] is None  # the server closed the stream
    finally:
        follower.close()


def test_a_stream_of_a_hidden_game_is_refused(live, committed_db):
    table = Player().post("/api/v1/tables", {"players": 2, "visibility": "invite"}).json()
    game_id = table["id"]
    status, body = request_json(live.url(f"/api/v1/games/{game_id}/stream"), token=Player().token)
    assert status == 404 and body["code"] == "game_not_found"


def test_every_move_reaches_the_stream_in_order_at_ten_moves_a_second(live, committed_db):
    """Another client's stream gets each of the moves made at 10 moves/s, in order, once. It
    prints the commit → line latency (the entry's `created_at`, set just before the commit,
    bounds the commit) for BENCHMARKS.md; speed is judged there, never by a test on a
    shared machine."""
    people = [Player(), Player()]
    game_id = start_game(people, movement="faster")
    by_seat = seat_players(game_id, people)
    follower = Follower(live.url(f"/api/v1/games/{game_id}/stream"), Player().token)
    delays, trips = [], []
    try:
        follower.next_entry()
        version = 0
        next_at = time.perf_counter()
        while len(delays) < 100:
            game = Game.objects.get(pk=game_id)
            if game.status != "playing":
                break
            time.sleep(max(0.0, next_at - time.perf_counter()))
            next_at += 0.1  # 10 moves a second
            sent = time.time()
            body = _move(live, game_id, by_seat[game.active_seat], version)
            arrived, entry = follower.next_entry()
            assert entry["seq"] == body["seq"]
            created = datetime.fromisoformat(entry["created_at"].replace("Z", "+00:00"))
            delays.append((arrived - created.timestamp()) * 1000)
            trips.append((arrived - sent) * 1000)
            version = body["version"]
    finally:
        follower.close()

    def p(values, q):
        values = sorted(values)
        return round(values[max(0, int(len(values) * q) - 1)], 1)

    print(
        json.dumps(
            {
                "moves": len(delays),
                "commit_to_line_ms": {"p50": p(delays, 0.5), "p99": p(delays, 0.99)},
                "send_to_line_ms": {"p50": p(trips, 0.5), "p99": p(trips, 0.99)},
            }
        )
    )
    assert len(delays) >= 50
