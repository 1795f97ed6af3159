"""Celery tasks: thin, idempotent, calling services (STYLE 7)."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from games import push
from games.services import clocks, notifications
from taxi_project.dbpool import purge_dead_connections


@shared_task(ignore_result=True)
def sweep_deadlines() -> int:
    """The beat tick (every second): fire every due deadline. Ticks that pile up while the
    workers are busy expire unrun (see CELERY_BEAT_SCHEDULE); overlapping ticks share the work
    through SKIP LOCKED. A dropped database connection fails this tick and has the pool
    replace its dead connections for the next one."""
    try:
        return clocks.deadlines_sweep()
    except (OperationalError, InterfaceError):
        purge_dead_connections()
        raise


@shared_task(ignore_result=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def email_your_turn(user_id: int, game_id: int, version: int) -> bool:
    """Tell a player by e-mail that a game waits on their move; nothing if it moved on."""
    return notifications.turn_email_send(user_id=user_id, game_id=game_id, version=version)


@shared_task(ignore_result=True)
def push_notify(kind: str, game_id: int, user_ids: list[int], version: int | None, message=None):
    """Push "your turn", "game ended" or a chat message to the players' devices (games/push.py)."""
    return push.devices_notify(
        kind=kind, game_id=game_id, user_ids=user_ids, version=version, message=message
    )
