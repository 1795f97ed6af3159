"""Deadlines with the real thing: a Celery worker with its embedded beat (tests/tasks/worker.py)
sweeping the committed test database over Redis, as in production.

Games are started over the HTTP API or through the services, then given a 2-second turn limit
by rewriting their clock columns consistently (`turn_seconds=2`, `turn_started_at`, and
`next_deadline_at = turn_started_at + 2 s`). Needs Redis (the broker) and PostgreSQL (SKIP
LOCKED between the pool processes); the worker uses Redis database 15, see worker.py.
"""

from __future__ import annotations

import os
import random
import signal
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from games import engine, state
from games.models import Game, GameEntry
from games.services import clocks, tables
from tests.e2e.server import current_database_url
from tests.players import Player, autopilot_choice, seat_players, start_game
from tests.tasks.worker import celery_worker, isolated_redis_url

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

LIMIT = timedelta(seconds=2)  # the turn limit the games are given
LATENESS = timedelta(seconds=3)  # a deadline must be applied within this
TICK_SLACK = timedelta(milliseconds=100)  # clock resolution between our process and the worker
POOL_NICENESS = 3  # the worker's pool runs this much nicer (WORKER_POOL_NICENESS)


# ---------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def _shared_worker(django_db_setup):
    """One worker (and beat) for the module: it starts in seconds, tests take about as long."""
    with celery_worker(
        database_url=current_database_url(),
        redis_url=isolated_redis_url(os.environ["REDIS_URL"]),
        concurrency=2,
        env={"WORKER_POOL_NICENESS": str(POOL_NICENESS)},
    ) as worker:
        yield worker


@pytest.fixture
def worker(_shared_worker, committed_db):
    if not _shared_worker.alive():  # an earlier test killed it and failed before restarting
        _shared_worker.start()
    since = _shared_worker.log_size()
    yield _shared_worker
    errors = _shared_worker.errors(since)
    assert not errors, "the worker logged errors:\n" + "\n".join(errors)


# ---------------------------------------------------------------------------------- helpers


def wait_for(predicate, *, timeout: float, interval: float = 0.05, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def give_limit(game_ids, *, due_in: timedelta = LIMIT) -> object:
    """Give the games a 2-second turn limit, the running turn due in `due_in` (0: due now).
    Returns the deadline."""
    now = timezone.now()
    deadline = now + due_in
    Game.objects.filter(pk__in=list(game_ids), status=Game.Status.PLAYING).update(
        turn_seconds=int(LIMIT.total_seconds()),
        turn_started_at=deadline - LIMIT,
        next_deadline_at=deadline,
    )
    return deadline


def quiet(game_id: int) -> None:
    """No clock any more: the worker leaves the game alone for the rest of the test."""
    Game.objects.filter(pk=game_id).update(turn_seconds=None, next_deadline_at=None)


def entries(game_id: int) -> list[GameEntry]:
    return list(GameEntry.objects.filter(game_id=game_id).order_by("seq"))


def timeouts(game_id: int) -> list[GameEntry]:
    return list(GameEntry.objects.filter(game_id=game_id, action__type="timeout").order_by("seq"))


def nth_timeout_of(game_id: int, seat: int, n: int) -> GameEntry | None:
    mine = [e for e in timeouts(game_id) if e.action["seat"] == seat]
    return mine[n - 1] if len(mine) >= n else None


def play_turn_racing_the_clock(game_id: int, by_seat: dict, seat: int) -> None:
    """`seat` plays its turn over HTTP with sensible moves until the turn is no longer its own.
    The turn has a 2-second clock: a move refused because the worker timed the turn out first
    (the game moved on under us) ends the turn too."""
    while True:
        game = Game.objects.get(pk=game_id)
        if game.status != Game.Status.PLAYING or game.active_seat != seat:
            return
        response = by_seat[seat].move(game_id, autopilot_choice(game_id), game.version)
        if response.status_code != 201:
            moved_on = Game.objects.get(pk=game_id).version != game.version
            assert moved_on, response.json()  # refused for another reason than the race


def two_players() -> list[Player]:
    return [Player(), Player()]


# ---------------------------------------------------------------------------------- (a)


def test_a_timed_out_turn_is_played_within_3_s_of_its_deadline(worker):
    players = two_players()
    game_id = start_game(players, clock="30s")
    seat = Game.objects.get(pk=game_id).active_seat
    deadline = give_limit([game_id])

    entry = wait_for(
        lambda: next(iter(timeouts(game_id)), None),
        timeout=(deadline - timezone.now()).total_seconds() + 10,
        what="the timeout entry",
    )
    quiet(game_id)
    assert entry.seq == 1 and entry.actor is None
    assert entry.action == {"type": "timeout", "seat": seat}
    assert entry.notifications[0] == {"type": "turn_timed_out", "seat": seat, "count": 1}
    assert deadline - TICK_SLACK <= entry.created_at <= deadline + LATENESS, (
        f"applied {(entry.created_at - deadline).total_seconds():+.3f} s after its deadline"
    )
    assert {"type": "turn_ended", "seat": seat} in entry.notifications  # the autopilot's turn


# ---------------------------------------------------------------------------------- (b)


def test_b_three_timeouts_in_a_row_make_a_zombie(worker):
    players = two_players()
    game_id = start_game(players, clock="30s")
    by_seat = seat_players(game_id, players)
    absent = Game.objects.get(pk=game_id).active_seat
    present = 1 - absent
    give_limit([game_id])

    for count in (1, 2, 3):
        entry = wait_for(
            lambda: nth_timeout_of(game_id, absent, count),  # noqa: B023 - called at once
            timeout=LIMIT.total_seconds() + 8,
            what=f"timeout #{count} of seat {absent}",
        )
        timed_out = entry.notifications[0]
        assert timed_out == {"type": "turn_timed_out", "seat": absent, "count": count}
        if count < 3:
            # the other player plays its own turn meanwhile (its clock runs too)
            play_turn_racing_the_clock(game_id, by_seat, present)
    quiet(game_id)

    zombified = [
        (e.seq, n) for e in entries(game_id) for n in e.notifications
        if n["type"] == "seat_zombified"
    ]  # fmt: skip
    assert zombified == [
        (entry.seq, {"type": "seat_zombified", "seat": absent, "reason": "timeouts"})
    ]
    game = Game.objects.get(pk=game_id)
    assert game.status != Game.Status.PLAYING or game.active_seat == present  # never waits on it


# ---------------------------------------------------------------------------------- (c)


def test_c_a_wall_clock_deadline_is_recorded_and_raises_the_allowance(worker):
    players = two_players()
    game_id = start_game(players, movement="fast")  # no turn clock
    assert players[0].get(f"/api/v1/games/{game_id}").json()["view"]["allowance"] == 2
    deadline = timezone.now() + LIMIT
    Game.objects.filter(pk=game_id).update(deadline1_at=deadline, next_deadline_at=deadline)

    entry = wait_for(
        lambda: GameEntry.objects.filter(game_id=game_id, action__type="deadline").first(),
        timeout=LIMIT.total_seconds() + 10,
        what="the deadline entry",
    )
    assert entry.action == {"type": "deadline", "number": 1} and entry.actor is None
    assert entry.notifications == [{"type": "deadline_reached", "number": 1, "cause": "clock"}]
    assert deadline - TICK_SLACK <= entry.created_at <= deadline + LATENESS, (
        f"applied {(entry.created_at - deadline).total_seconds():+.3f} s after the deadline"
    )
    view = players[0].get(f"/api/v1/games/{game_id}").json()["view"]
    assert view["allowance"] == 3 and view["deadlines_reached"] == 1
    game = Game.objects.get(pk=game_id)
    assert game.deadlines_reached == 1 and game.next_deadline_at is None


# ---------------------------------------------------------------------------------- (d)

# The sweep commits its due games a batch at a time (clocks.CLAIM_BATCH), so the count of
# fired games moves by batches: the kill comes once one or two batches are in, with at least
# three still to fire, so that it lands mid-sweep even on a slow machine.
KILL_GAMES = 5 * clocks.CLAIM_BATCH
OVERDUE = timedelta(seconds=5)  # these games, due every 2 s, keep a worker busy on a loaded machine


def test_d_a_killed_worker_loses_no_deadline_and_applies_none_twice(worker):
    game_ids = []
    for i in range(KILL_GAMES):
        if i % clocks.CLAIM_BATCH == 0:  # a pair per batch: an account's tables are capped
            first, second = Player(), Player()
        game = tables.table_create(
            user=first.user, players=2, options=engine.Options(), clock="30s"
        )
        tables.table_join(game_id=game.pk, user=second.user)
        game_ids.append(game.pk)
    due = GameEntry.objects.filter(game_id__in=game_ids, action__type="timeout")

    give_limit(game_ids, due_in=timedelta(0))  # all due at once, now
    target = random.randint(3, 2 * clocks.CLAIM_BATCH)  # kill once this many are done
    wait_for(lambda: due.count() >= target, timeout=10, interval=0.005, what="the sweep")
    worker.kill(signal.SIGKILL)  # the worker, its pool processes and beat, mid-transaction
    done_at_kill = due.count()
    assert done_at_kill < KILL_GAMES, "the worker was killed after it had finished: no test"

    worker.start()  # a new worker and a fresh beat

    # Every game's first timeout, and the next one (its turn 2 s later) by the new worker: a
    # deadline lost in the crash would leave its game waiting here for ever.
    def behind():
        return [
            game_id
            for game_id in game_ids
            if len(timeouts(game_id)) < 2
            and Game.objects.filter(pk=game_id, status=Game.Status.PLAYING).exists()
        ]

    try:
        wait_for(lambda: not behind(), timeout=40, interval=0.2, what="2 timeouts per game")
    except AssertionError:
        raise AssertionError(f"games without their due timeouts: {behind()}") from None
    now = timezone.now()
    overdue = {
        game.pk: (now - game.next_deadline_at).total_seconds()
        for game in Game.objects.filter(pk__in=game_ids, status=Game.Status.PLAYING)
        if game.next_deadline_at is None or game.next_deadline_at < now - OVERDUE
    }
    assert overdue == {}, f"deadlines lost (seconds overdue): {overdue}"
    worker.stop()  # a still log for the checks below

    for game_id in game_ids:
        game = Game.objects.get(pk=game_id)
        log = entries(game_id)
        assert [e.seq for e in log] == list(range(game.version + 1)), f"gaps in game {game_id}"
        assert_each_timeout_once(game_id, log)
        replayed = state.replay_from_log(game)  # raises if the log and version disagree
        assert replayed.current_player() == game.active_seat
        assert replayed.turn == game.turn_number
        assert replayed.over == (game.status in (Game.Status.FINISHED, Game.Status.ABORTED))
        notifications = engine.replay_notifications(game.setup, [e.action for e in log[1:]])
        assert notifications == [e.notifications for e in log], f"game {game_id}"
    print(f"killed with {done_at_kill}/{KILL_GAMES} first timeouts committed (target {target})")


def assert_each_timeout_once(game_id: int, log: list[GameEntry]) -> None:
    """Every `turn_timed_out` is for the seat whose turn it was, at most one per turn, and not
    before that turn's 2 seconds were up."""
    turn_seat, turn_began, timed_out = None, None, False
    for entry in log:
        for note in entry.notifications:
            if note["type"] == "turn_started":
                turn_seat, timed_out = note["seat"], False
                turn_began = entry.created_at if entry.seq > 0 else None
            elif note["type"] == "turn_timed_out":
                where = f"game {game_id} #{entry.seq}"
                assert not timed_out, f"{where}: a second timeout in one turn"
                assert note["seat"] == turn_seat, f"{where}: timed out a seat not to move"
                if turn_began is not None:  # (the first turn's clock was set by the test)
                    early = turn_began + LIMIT - TICK_SLACK - entry.created_at
                    assert early <= timedelta(0), f"{where}: {early} early"
                timed_out = True


def test_e_the_pool_yields_the_cpu_and_the_beat_keeps_its_priority(worker):
    """WORKER_POOL_NICENESS: the processes that fire deadlines run nicer than the web server,
    the worker's main process (its beat and timers) at the priority it was started with."""
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    children = Path(f"/proc/{worker.pid}/task/{worker.pid}/children").read_text().split()
    pool = [int(pid) for pid in children]
    assert len(pool) >= 2  # --concurrency 2 (the embedded beat may add a process of its own)
    priorities = sorted(os.getpriority(os.PRIO_PROCESS, pid) for pid in pool)
    assert priorities.count(ours + POOL_NICENESS) == 2
    assert set(priorities) <= {ours, ours + POOL_NICENESS}
    assert os.getpriority(os.PRIO_PROCESS, worker.pid) == ours


def test_e_the_worker_yields_as_a_whole_where_its_session_is_a_scheduling_group(worker):
    """Under Linux's autogroups a niceness counts only within a session, and this worker leads
    one of its own (as a service manager or a terminal of its own starts it): its session is
    made as nice as its pool, or it would share the CPUs with the web server as an equal."""
    group = Path(f"/proc/{worker.pid}/autogroup")
    if not group.exists():
        pytest.skip("this kernel does not group processes by session")
    assert os.getsid(worker.pid) == worker.pid  # tests/tasks/worker.py: a session of its own
    assert group.read_text().split()[-2:] == ["nice", str(POOL_NICENESS)]
