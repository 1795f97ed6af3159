import pytest

from taxi_project import celery_app
from tests.push.endpoint import PushEndpoint


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
