"""The Celery app. Configuration lives in settings under the CELERY_ prefix."""

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "taxi_project.settings")

app = Celery("taxi_project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _push_from_a_loop_of_its_own(**kwargs):
    """Each worker process pushes through one long-lived event loop (games/events.py)."""
    from games import events

    events.use_own_loop()
