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
