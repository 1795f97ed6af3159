"""Celery tasks: thin, idempotent, calling services (STYLE 7)."""

from __future__ import annotations

import json
import logging
import os
import time
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from games import archive
from games.services import bots, clocks, notifications
from taxi_project.dbpool import purge_dead_connections

#: One line per bot action at INFO: when its task began, when its decision was made, when its
#: move was due and when its submit began, and each step's wall and CPU milliseconds (load,
#: view, choose, wait, submit); bench/bot_think.py reads them.
BOT_TIMINGS_LOGGER = "games.bot_timings"
timings = logging.getLogger(BOT_TIMINGS_LOGGER)


@shared_task(ignore_result=True)
def sweep_deadlines() -> int:
    """The beat tick (every second): fire the due deadlines, at most DEADLINE_SWEEP_BATCH of
    them, the earliest first; the next tick takes the rest. Ticks that pile up while the
    workers are busy expire unrun (see CELERY_BEAT_SCHEDULE); overlapping ticks share the work
    through SKIP LOCKED. A dropped database connection fails this tick and has the pool
    replace its dead connections for the next one."""
    try:
        return clocks.deadlines_sweep(limit=settings.DEADLINE_SWEEP_BATCH)
    except (OperationalError, InterfaceError):
        purge_dead_connections()
        raise


@shared_task(ignore_result=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def email_your_turn(user_id: int, game_id: int, version: int) -> bool:
    """Tell a player by e-mail that a game waits on their move; nothing if it moved on."""
    return notifications.turn_email_send(user_id=user_id, game_id=game_id, version=version)


@shared_task(ignore_result=True)
def archive_games() -> int:
    """The daily beat task: compact the logs of games over for `ARCHIVE_AFTER_DAYS`, at most
    `ARCHIVE_BATCH` a run (the next run takes the rest). Each game is its own transaction;
    two workers running it at once skip each other's games."""
    return len(archive.archive_due(days=settings.ARCHIVE_AFTER_DAYS, limit=settings.ARCHIVE_BATCH))


# Computer opponents: on the `bots` queue (settings.CELERY_TASK_ROUTES), so a busy
# bot never delays the deadline sweep.


@shared_task(bind=True, ignore_result=True, acks_late=True, reject_on_worker_lost=True)
def bot_play(self, game_id: int, version: int, seat: int) -> int:
    """Play one action of a bot seat's turn in a game still at `version` (the next one is
    queued at once); nothing if it moved on. Queued at once when the turn begins: it decides
    at once and holds its pool process until the move is due (bots.bot_action_play). Logs
    its timings (`BOT_TIMINGS_LOGGER`).

    Acknowledged once done, and put back on the queue when its pool process dies (killed
    mid-think): another process or worker plays it at once, still no earlier than the move
    is due. Running twice appends nothing twice (bots.bot_action_play)."""
    started = time.time()
    done = bots.bot_action_play(game_id=game_id, version=version, seat=seat)
    timings.info(
        "bot action %s",
        json.dumps(
            {
                "game": game_id,
                "version": version,
                "seat": seat,
                "level": done.level,
                "seq": done.seq,
                "eta": _iso(self.request.eta),  # None: queued at once
                "started": started,
                "decided_at": done.decided_at,
                "due": done.due,
                "submit_at": done.submit_at,
                "ended": time.time(),
                "pid": os.getpid(),
                "steps": done.steps,
            }
        ),
    )
    return 0 if done.seq is None else 1


def _iso(eta) -> str | None:
    """The ETA as the message carries it (ISO 8601), whichever form the request holds."""
    return eta.isoformat() if hasattr(eta, "isoformat") else eta


@shared_task(ignore_result=True)
def wake_bots() -> int:
    """The beat's look for bots' turns whose task was lost with its whole worker (nothing to
    put it back on the queue): queues each again, once per version (idempotent)."""
    quiet = settings.BOT_THINK_SECONDS + settings.BOT_LOST_AFTER_SECONDS
    waiting = bots.bot_turns_wake(older_than=timedelta(seconds=quiet))
    for game_id, version, seat in waiting:
        bot_play.delay(game_id, version, seat)
    return len(waiting)


@shared_task(ignore_result=True)
def push_notify(kind: str, game_id: int, user_ids: list[int], version: int | None, message=None):
    """Push "your turn", "game ended" or a chat message to the players' devices, those still
    due it (games/services/notifications.py; the push itself: games/push.py)."""
    return notifications.devices_notify(
        kind=kind, game_id=game_id, user_ids=user_ids, version=version, message=message
    )
