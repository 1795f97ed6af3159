"""Celery tasks of accounts: thin, calling services (STYLE 7)."""

from __future__ import annotations

from celery import shared_task

from accounts import push
from accounts.push_backends import PushFailed


@shared_task(
    ignore_result=True,
    autoretry_for=(PushFailed,),
    retry_backoff=5,
    retry_backoff_max=600,
    max_retries=6,
)
def push_deliver(subscription_id: int, payload: dict) -> str:
    """Push one payload to one device; a push service that fails (not 404/410) is retried
    with exponential backoff, about an hour in all. Retrying is safe: the payload carries
    its game and `tag`, so a device shows a repeated notification once."""
    return push.push_deliver(subscription_id=subscription_id, payload=payload)
