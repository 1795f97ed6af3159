"""The browser tests' Chromium, shared with tests/browser; and for the bot browser tests a
live server beside a real Celery worker on the bots queue (PostgreSQL, Redis), and a person
who logs in through the form."""

from __future__ import annotations

import os
import uuid

import pytest

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
