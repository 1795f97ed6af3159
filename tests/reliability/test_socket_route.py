"""docker/haproxy.cfg sends WebSockets (`/ws/`) to the `sockets` backend, each node's workers
for them (taxi_project/serve.py --socket-port), and every other request to `web`."""

from __future__ import annotations

import asyncio
import contextlib
import os
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from tests.e2e.server import current_database_url
from tests.reliability.multinode import HEALTH_HOST, Node, Proxy, haproxy_binary


@pytest.mark.postgres
@pytest.mark.redis
def test_sockets_go_to_the_sockets_backend_and_requests_to_web(django_db_setup, committed_db):
    if haproxy_binary() is None:
        pytest.skip("needs Debian's haproxy (apt-get install haproxy; .ci/run does)")
    node = Node("A", database_url=current_database_url(), redis_url=os.environ["REDIS_URL"], env={})
    proxy = None
    try:
        node.start()
        proxy = Proxy([node, node])
        proxy.start()
        before = proxy.sessions()

        request = urllib.request.Request(proxy.url("/healthz"), headers={"Host": HEALTH_HOST})
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200

        async def open_socket():
            # a game that does not exist: the node refuses it, once it has the socket
            with contextlib.suppress(InvalidHandshake, ConnectionClosed):
                async with connect(proxy.ws_url("/ws/games/999999/"), proxy=None) as ws:
                    await asyncio.wait_for(ws.recv(), 10)

        asyncio.run(open_socket())
        after = proxy.sessions()
        assert after["web"] - before["web"] == 1, proxy.log_tail()
        assert after["sockets"] - before["sockets"] == 1, proxy.log_tail()
    finally:
        if proxy is not None:
            proxy.close()
        node.stop()
