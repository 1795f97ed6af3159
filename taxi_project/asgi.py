"""ASGI entry point: HTTP goes to Django, WebSockets to the Channels consumers."""

import asyncio
import gc
import os
import warnings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "taxi_project.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

# Django's own ASGI handler (it sets Django up: import models only after this line)
django_http = get_asgi_application()

from django.urls import get_resolver  # noqa: E402

from taxi_project.body_limit import BodyLimit  # noqa: E402
from taxi_project.sync_limit import SyncLimit  # noqa: E402

# bodies over the limit never reach Django (taxi_project/body_limit.py); at most
# HTTP_CONCURRENCY requests of this process in Django at once (taxi_project/sync_limit.py)
django_asgi_app = BodyLimit(SyncLimit(django_http))

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from accounts.channels_auth import websocket_stack  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

# Static files are served by WhiteNoise's middleware inside the Django app (settings), in DEBUG
# and in production alike. It is WSGI-style middleware: under ASGI, Django reads each (small)
# file through sync_to_async and would warn about it on every file: expected, so silenced.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators", category=Warning
)

from games import events  # noqa: E402
from taxi_project.connection_limits import HandshakeLimit  # noqa: E402


class PushFromThisLoop:
    """Tells games/events.py which event loop serves this process, so a thread that commits
    hands its push to it and goes on (the loop of the connection: one per server process)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        events.publish_from(asyncio.get_running_loop())
        return await self.app(scope, receive, send)


application = ProtocolTypeRouter(
    {
        # streams and sockets being opened at once per client address are limited in front of
        # everything else (taxi_project/connection_limits.py)
        "http": PushFromThisLoop(HandshakeLimit(django_asgi_app)),
        # origin policy, session or token authentication: accounts/channels_auth.py
        "websocket": PushFromThisLoop(
            HandshakeLimit(
                # Channels' stubs take only patterns whose view is typed as an ASGI app, not
                # path()'s
                websocket_stack(URLRouter(websocket_urlpatterns))  # type: ignore[arg-type]
            )
        ),
    }
)

# What is loaded by now lives as long as the process: every view and what it imports (the URL
# patterns, loaded now rather than on the first request), Django, DRF, Channels. Out of the
# garbage collector's sight (gc.freeze), a full collection no longer walks those objects again:
# with them, each took 75–200 ms, stopping the process's every request (a server process held
# about 130,000 objects; BENCHMARKS.md, the tail).
get_resolver().url_patterns  # noqa: B018 (imports them)
gc.freeze()
