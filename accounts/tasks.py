"""Celery tasks of accounts: thin, calling services (STYLE 7)."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from accounts import push
from accounts.push_backends import PushFailed

log = logging.getLogger(__name__)

# One push is a connect and a read of a few hundred bytes, each within its own timeout
# (PUSH_CONNECT_TIMEOUT_SECONDS, PUSH_READ_TIMEOUT_SECONDS); a push service that answers a
# byte at a time would stay inside both, so the whole delivery has this bound too.
DELIVERY_SECONDS = 30


@shared_task(
    ignore_result=True,
    autoretry_for=(PushFailed,),
    retry_backoff=5,
    retry_backoff_max=600,
    max_retries=6,
    soft_time_limit=DELIVERY_SECONDS,
    time_limit=DELIVERY_SECONDS + 10,
)
def push_deliver(subscription_id: int, payload: dict) -> str:
    """Push one payload to one device; a push service that fails (not 404/410) is retried
    with exponential backoff, about an hour in all. Retrying is safe: the payload carries
    its game and `tag`, so a device shows a repeated notification once. The endpoint is
    checked again here (accounts/push_targets.py): one that is no longer a public host is
    deleted, not connected to."""
    try:
        return push.push_deliver(subscription_id=subscription_id, payload=payload)
    except SoftTimeLimitExceeded:
        log.warning("push to subscription %s took over %s s: given up", subscription_id,
                    DELIVERY_SECONDS)  # fmt: skip
        return "slow"
