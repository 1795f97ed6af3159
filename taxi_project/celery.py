"""The Celery app. Configuration lives in settings under the CELERY_ prefix."""

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "taxi_project.settings")

app = Celery("taxi_project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _push_through_one_loop(**kwargs):
    """Workers push to the sockets through one event loop per process (see games.events)."""
    from games import events

    events.use_own_loop()
