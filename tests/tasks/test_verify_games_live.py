"""`manage.py verify_games` on a live system: while the deadline sweep appends timeouts to the
games it is checking, it still reports no game as differing, because it reads each game's row
and its log in one snapshot (a row read before an append and a log read after it would
"differ" without anything being wrong). On PostgreSQL, with the sweep in another thread and
connection, as the beat's worker runs it."""

from __future__ import annotations

import io
import threading
import uuid
from datetime import timedelta

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from games import tasks
from games.models import Game, GameEntry
from tests.players import Player, start_game

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

GAMES = 16


def verify() -> str:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_games", "--batch-size", "50", stdout=out, stderr=err)
    except CommandError as failed:
        return f"{failed}\n{err.getvalue()}"
    return out.getvalue().strip()


@pytest.fixture
def clocked_games(committed_db):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL=postgres://...)")
    tag = uuid.uuid4().hex[:6]
    players = [Player(f"p{n}{tag}") for n in range(3)]
    return [start_game(players, clock="1m", movement="faster") for _ in range(GAMES)]


def test_verify_games_sees_no_false_difference_while_the_sweep_appends(clocked_games):
    start = timezone.now() + timedelta(days=1)
    with time_machine.travel(start, tick=False) as traveller:
        appended = threading.Event()
        failures: list[BaseException] = []

        def sweep() -> None:
            """A minute at a time: every game times out its seat, until all are over (3
            timeouts in a row hand a seat to the autopilot; with every seat on it, it ends)."""
            try:
                for _ in range(40):
                    traveller.shift(timedelta(seconds=61))
                    if tasks.sweep_deadlines() == 0:
                        break
                    appended.set()
            except BaseException as error:  # reported by the test, not lost in the thread
                failures.append(error)
            finally:
                connection.close()

        sweeper = threading.Thread(target=sweep)
        sweeper.start()
        appended.wait(timeout=30)
        reports, overlapped = [], 0
        while sweeper.is_alive():
            before = GameEntry.objects.count()
            reports.append(verify())
            overlapped += GameEntry.objects.count() > before  # the sweep appended meanwhile
        sweeper.join()

    assert failures == []
    assert not Game.objects.filter(pk__in=clocked_games, status=Game.Status.PLAYING).exists()
    assert overlapped >= 3, (overlapped, reports)  # the check ran while games moved under it
    clean = f"{GAMES} game(s) verified, 0 differ from their log"
    assert [r for r in reports if r != clean] == []
    assert verify() == clean  # and idle, the same answer
