"""The skeleton works: HTTP, the user model, the database, the channel layer, Celery, ASGI."""

import importlib
import subprocess
import sys
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.db import OperationalError, connection, transaction


@pytest.mark.django_db
def test_healthz_answers_ok_when_the_database_answers(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_does_not(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise OperationalError("database is down")

    monkeypatch.setattr(connection, "cursor", broken_cursor)

    response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json() == {"status": "error", "code": "database_unavailable"}


@pytest.mark.django_db
def test_custom_user_model_creates_and_authenticates_users():
    User = get_user_model()
    assert settings.AUTH_USER_MODEL == "accounts.User"
    assert User._meta.label == "accounts.User"

    user = User.objects.create_user(
        username="ana", password="correct horse battery", display_name="Ana the Driver"
    )

    assert authenticate(username="ana", password="correct horse battery") == user
    assert authenticate(username="ana", password="wrong") is None
    assert User.objects.get(pk=user.pk).display_name == "Ana the Driver"


@pytest.mark.postgres
@pytest.mark.django_db
def test_database_is_postgresql():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()
    assert version.startswith("PostgreSQL")


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_servers_connections_compile_no_statement_just_in_time():
    """A short statement the planner costs high on a large table (the finished-games count)
    spent more time in JIT compilation than running: the connections turn JIT off."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone() == ("off",)
        cursor.execute("SET LOCAL jit_above_cost = 0")  # with JIT on, even this would compile
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM games_game")
        (plan,) = cursor.fetchone()
    assert "JIT" not in plan[0]


def _channel_layer_round_trip(layer) -> dict:
    async def round_trip():
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "taxi.ping", "nonce": nonce})
        return await layer.receive(channel)

    nonce = uuid.uuid4().hex
    message = async_to_sync(round_trip)()
    assert message == {"type": "taxi.ping", "nonce": nonce}
    return message


def test_channel_layer_round_trip():
    _channel_layer_round_trip(get_channel_layer())


@pytest.mark.redis
def test_channel_layer_is_redis():
    from channels_redis.pubsub import RedisPubSubChannelLayer

    layer = get_channel_layer()
    assert isinstance(layer, RedisPubSubChannelLayer)
    _channel_layer_round_trip(layer)


def test_celery_broker_follows_redis_url():
    from taxi_project import celery_app

    if settings.REDIS_URL:
        assert celery_app.conf.broker_url == settings.REDIS_URL
    else:
        assert celery_app.conf.broker_url.startswith("sqla+sqlite:///")


@pytest.mark.redis
def test_celery_broker_is_reachable():
    from taxi_project import celery_app

    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1)
        assert conn.transport.driver_type == "redis"


def test_asgi_application_imports():
    from channels.routing import ProtocolTypeRouter

    asgi = importlib.import_module("taxi_project.asgi")

    assert isinstance(asgi.application, ProtocolTypeRouter)
    assert set(asgi.application.application_mapping) == {"http", "websocket"}


def test_a_server_process_keeps_what_it_loaded_out_of_the_collectors_sight():
    """Django, DRF and every view stay for the process's life: after taxi_project.asgi, a full
    garbage collection no longer walks them (gc.freeze), only what requests left since."""
    probe = "import gc, taxi_project.asgi; print(gc.get_freeze_count(), len(gc.get_objects()))"
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    frozen, tracked = map(int, found.stdout.split())
    assert frozen > 50_000 and tracked < frozen / 10


def _settings_with(env: dict) -> dict:
    """The Redis-related settings a process started with `env` would have."""
    code = (
        "import json, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'taxi_project.settings';"
        "from django.conf import settings as s; print(json.dumps([s.REDIS_PREFIX,"
        " s.CACHES['default']['KEY_PREFIX'], s.CHANNEL_LAYERS['default']['CONFIG']['prefix'],"
        " s.CELERY_BROKER_TRANSPORT_OPTIONS['global_keyprefix'],"
        " s.CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS['global_keyprefix']]))"
    )
    import json
    import os

    full = {k: v for k, v in os.environ.items() if k not in ("REDIS_PREFIX", "DATABASE_URL")}
    full.update(DEBUG="1", REDIS_URL="redis://127.0.0.1:6379/0", **env)
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_every_redis_key_and_channel_carries_the_deployments_prefix():
    """Cache keys, channel-layer channels, Celery's queues and results all
    start with REDIS_PREFIX, which by default is derived from the database, so two
    deployments on two databases differ without anyone setting it."""
    one = _settings_with({"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/production"})
    two = _settings_with({"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/staging"})
    again = _settings_with({"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/production"})
    assert one == again and one[0] != two[0]
    for found in (one, two):
        assert all(value.startswith(found[0]) for value in found[1:]), found
    chosen = _settings_with({"REDIS_PREFIX": "blue"})
    assert chosen[0] == "blue" and all(value.startswith("blue") for value in chosen[1:])


def test_every_task_and_thread_of_a_process_uses_one_cache_object():
    """`taxi_project.cache.shared`: whichever asyncio task (a socket) or thread (a request)
    asks, the process's one cache object, and so one Redis pool, not one per socket."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from taxi_project.cache import shared

    async def socket() -> int:
        await asyncio.sleep(0)
        return id(shared())

    async def sockets() -> list[int]:
        return await asyncio.gather(*(socket() for _ in range(5)))

    with ThreadPoolExecutor(3) as threads:
        from_threads = list(threads.map(lambda _: id(shared()), range(6)))
    assert len({*asyncio.run(sockets()), *from_threads, id(shared())}) == 1
