"""Celery tasks: thin, idempotent, calling services (STYLE 7)."""

from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(ignore_result=True)
def sweep_deadlines() -> int:
    """The beat tick (every second): fire every due deadline. Ticks that pile up while the
    workers are busy expire unrun (see CELERY_BEAT_SCHEDULE); overlapping ticks share the work
    through SKIP LOCKED."""
    return services.deadlines_sweep()


@shared_task(ignore_result=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def email_your_turn(user_id: int, game_id: int, version: int) -> bool:
    """Tell a player by e-mail that a game waits on their move; nothing if it moved on."""
    return services.turn_email_send(user_id=user_id, game_id=game_id, version=version)
