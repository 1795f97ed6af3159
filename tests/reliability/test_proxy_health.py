"""A node busy with slow requests stays in the proxy's rotation.

docker/haproxy.cfg checks `/healthz` every second and takes a node out after two checks
answered later than a second, cutting every request on it with a 502. With `HTTP_CONCURRENCY`
on, requests beyond the limit wait in the event loop; a health check queued behind a burst of
sign-ups (each hashing a password the production way, hundreds of milliseconds of CPU) would
time out, and the proxy would cut the sign-ups in progress. `/healthz` is never queued
(taxi_project/sync_limit.py)."""

from __future__ import annotations

import concurrent.futures
import os
import uuid

import pytest

from tests.e2e.server import current_database_url, request_json
from tests.reliability.multinode import Node, Proxy, haproxy_binary, start_together


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
def test_a_burst_of_sign_ups_through_the_proxy_with_the_request_limit_on_is_all_answered(
    django_db_setup, committed_db
):
    if haproxy_binary() is None:
        pytest.skip("needs Debian's haproxy (apt-get install haproxy; .ci/run does)")
    env = {"HTTP_CONCURRENCY": "4"}
    nodes = [
        Node(name, database_url=current_database_url(), redis_url=os.environ["REDIS_URL"], env=env)
        for name in ("A", "B")
    ]
    proxy = None
    try:
        start_together(nodes)
        proxy = Proxy(nodes)
        proxy.start()

        def sign_up(_):
            name = f"burst{uuid.uuid4().hex[:10]}"
            return request_json(
                proxy.url("/api/v1/auth/signup"),
                {"username": name, "password": f"Burst-pw-{uuid.uuid4().hex}"},
                timeout=60,
            )[0]

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(sign_up, range(16)))
        assert statuses == [201] * 16, proxy.log_tail()
        assert proxy.servers() == {"node_a": "UP", "node_b": "UP"}
        assert "is DOWN" not in proxy.log_tail(100_000), proxy.log_tail()
    finally:
        if proxy is not None:
            proxy.close()
        for node in nodes:
            node.stop()
