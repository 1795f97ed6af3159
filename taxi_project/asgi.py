"""ASGI entry point: HTTP goes to Django, WebSockets to the Channels consumers."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "taxi_project.settings")

# Set up Django before importing anything that touches models (auth middleware, consumers).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from accounts.channels_auth import websocket_stack  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

# uvicorn serves no static files; in DEBUG let Django serve them so the admin has its CSS.
http_app = ASGIStaticFilesHandler(django_asgi_app) if settings.DEBUG else django_asgi_app

application = ProtocolTypeRouter(
    {
        "http": http_app,
        # origin policy, session or token authentication: accounts/channels_auth.py
        "websocket": websocket_stack(URLRouter(websocket_urlpatterns)),
    }
)
