"""The bots worker's pool processes yield the CPU to the web server when asked
(BOT_POOL_NICENESS), and only a worker that consumes nothing but the bots queue does."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from taxi_project import celery as celery_module


@pytest.fixture
def niced(monkeypatch):
    calls = []
    monkeypatch.setattr(celery_module.os, "nice", calls.append)
    return calls


def _consuming(monkeypatch, *queues):
    """The app as a worker started with `-Q <queues>` sees it (only what the handler reads)."""
    consume_from = {name: object() for name in queues}
    worker_app = SimpleNamespace(
        amqp=SimpleNamespace(queues=SimpleNamespace(consume_from=consume_from))
    )
    monkeypatch.setattr(celery_module, "app", worker_app)


def test_a_bots_worker_s_pool_process_lowers_its_priority(settings, monkeypatch, niced):
    settings.BOT_POOL_NICENESS = 5
    _consuming(monkeypatch, settings.CELERY_BOT_QUEUE)
    celery_module._pool_yields_the_cpu()
    assert niced == [5]


def test_a_worker_that_also_sweeps_deadlines_keeps_its_priority(settings, monkeypatch, niced):
    settings.BOT_POOL_NICENESS = 5
    settings.WORKER_POOL_NICENESS = 0  # the default queue's own (tests/tasks/test_celery_live.py)
    _consuming(monkeypatch, settings.CELERY_BOT_QUEUE, settings.CELERY_TASK_DEFAULT_QUEUE)
    celery_module._pool_yields_the_cpu()
    assert niced == []


def test_no_niceness_by_default(settings, monkeypatch, niced):
    settings.BOT_POOL_NICENESS = 0
    _consuming(monkeypatch, settings.CELERY_BOT_QUEUE)
    celery_module._pool_yields_the_cpu()
    assert niced == []
