import socket
from types import SimpleNamespace

import pytest

from accounts import push_targets
from taxi_project import celery_app
from tests.push.endpoint import Listener, PushEndpoint

# The tests' push service (tests/push/endpoint.py) listens on loopback, where the server never
# pushes (accounts/push_targets.py). These tests trust that one network, explicitly, as a
# deployment may trust a push service of its own; tests/push/test_targets.py trusts nothing.
LOCAL_ENDPOINTS = {"PUSH_TRUSTED_NETWORKS": ["127.0.0.1/32"], "PUSH_INSECURE_ENDPOINTS": True}


@pytest.fixture(autouse=True)
def local_endpoints(settings):
    for name, value in LOCAL_ENDPOINTS.items():
        setattr(settings, name, value)
    # the tests register many subscriptions from one address, and users' ids recur after a
    # rollback: the limits' own tests set the limits they test
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "push_register": "1000000/hour",
        },
    }
    settings.PUSH_NOTIFICATIONS_PER_HOUR = 1_000_000


@pytest.fixture
def listener():
    with Listener("127.0.0.1") as running:
        yield running


@pytest.fixture
def rebound():
    """Where a second lookup of a name would lead: another loopback address."""
    with Listener("127.0.0.2") as running:
        yield running


@pytest.fixture
def untrusted(settings):
    settings.PUSH_TRUSTED_NETWORKS = []


@pytest.fixture
def dns(monkeypatch):
    """The resolver at its one seam (`accounts.push_targets.resolve`): `answers[name]` in turn,
    the last one staying; and any other lookup of those names (`socket.getaddrinfo`, recorded
    in `system_lookups`) gets `elsewhere[name]`, what a rebinding DNS server would answer."""
    answers: dict[str, list[list[str]]] = {}  # name -> the seam's answers, in turn (last stays)
    elsewhere: dict[str, tuple[str, int]] = {}  # name -> what any other lookup gets
    system_lookups: list[str] = []
    real_getaddrinfo = socket.getaddrinfo

    def resolve(host: str, port: int) -> list[str]:
        queue = answers.get(host)
        if not queue:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return queue.pop(0) if len(queue) > 1 else queue[0]

    def getaddrinfo(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        name = name.rstrip(".")
        if name in answers or name in elsewhere:
            system_lookups.append(name)
            address, to_port = elsewhere.get(name, ("127.0.0.1", port))
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(to_port)))]
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(push_targets, "resolve", resolve)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return SimpleNamespace(answers=answers, elsewhere=elsewhere, system_lookups=system_lookups)


@pytest.fixture
def eager_tasks():
    """Tasks run in the process that queues them, retries included: the path is the same as
    on a worker minus the broker (tests/push/test_live_worker.py has the broker)."""
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


@pytest.fixture
def endpoint():
    with PushEndpoint() as running:
        yield running


@pytest.fixture
def make_endpoint():
    started = []

    def make(**kwargs) -> PushEndpoint:
        running = PushEndpoint(**kwargs).__enter__()
        started.append(running)
        return running

    yield make
    for running in started:
        running.__exit__(None, None, None)


def subscribe(player, endpoint: PushEndpoint, **extra) -> dict:
    """The player's device registers the endpoint's subscription with its token."""
    answer = player.post("/api/v1/me/push-subscriptions", {**endpoint.subscription(), **extra})
    assert answer.status_code == 201, answer.json()
    return answer.json()
