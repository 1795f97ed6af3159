"""WSGI entry point (HTTP only; WebSockets need asgi.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "taxi_project.settings")

application = get_wsgi_application()
