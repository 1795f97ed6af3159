"""The browser tests' Chromium, shared with tests/browser; for the bot browser tests a
live server beside a real Celery worker on the bots queue (PostgreSQL, Redis), and a person
who logs in through the form; for every test here, bots without a think time (unless a test
gives one) and `queued`, the bot actions queued."""

from __future__ import annotations

import os
import uuid

import pytest

from games import events
from tests.browser.conftest import chromium  # noqa: F401 - fixtures
from tests.e2e.server import current_database_url, live_server
from tests.players import Player
from tests.tasks.worker import celery_worker, isolated_redis_url

BOT_ENV = {"BOT_THINK_SECONDS": "0"}


@pytest.fixture(scope="module")
def server_and_worker(django_db_setup):
    redis_url = isolated_redis_url(os.environ["REDIS_URL"])
    database_url = current_database_url()
    with celery_worker(database_url=database_url, redis_url=redis_url, env=BOT_ENV) as worker:
        with live_server(
            database_url=database_url,
            redis_url=redis_url,
            workers=2,
            env={**BOT_ENV, "DEBUG": "true"},  # Django serves /static/
        ) as server:
            yield server, worker


@pytest.fixture
def person(committed_db, settings):
    """(a Player, its login (username, password))."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    name = f"solo{uuid.uuid4().hex[:6]}"
    return Player(name), (name, "pw-" + name * 2)


@pytest.fixture(autouse=True)
def bots_move_when_run(settings):
    """Bots here move as soon as their task runs (no think time) unless a test sets one:
    tests/bots/test_bot_on_time.py pins the wait until the move is due."""
    settings.BOT_THINK_SECONDS = 0


@pytest.fixture
def queued(monkeypatch):
    """The bot actions queued (games.events.bot_turn_started's arguments), not sent."""
    calls = []
    monkeypatch.setattr(events, "bot_turn_started", lambda **kwargs: calls.append(kwargs))
    return calls
