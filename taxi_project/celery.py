"""The Celery app. Configuration lives in settings under the CELERY_ prefix."""

import os

from celery import Celery
from celery.signals import worker_process_init, worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "taxi_project.settings")

app = Celery("taxi_project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_heartbeat = None  # set while this worker tells that a bot worker is alive


@worker_process_init.connect
def _push_from_a_loop_of_its_own(**kwargs):
    """Each worker process pushes through one long-lived event loop (games/events.py)."""
    from games import events

    events.use_own_loop()


@worker_process_init.connect
def _bots_yield_the_cpu(**kwargs):
    """A pool process of a worker that consumes the bots queue only lowers its CPU priority by
    BOT_POOL_NICENESS: on a machine it shares with the web server, a bot's search waits for a
    person's request rather than the other way round, and its wake-up when its move is due
    comes later too (taxi_project/settings.py says why it is off by default). The worker's
    main process keeps its own."""
    from django.conf import settings

    queues = set(app.amqp.queues.consume_from or ())
    if settings.BOT_POOL_NICENESS and queues == {settings.CELERY_BOT_QUEUE}:
        os.nice(settings.BOT_POOL_NICENESS)


@worker_process_init.connect
def _background_yields_the_cpu(**kwargs):
    """A pool process of a worker that consumes the default queue (the deadline sweep, pushes,
    e-mail) lowers its CPU priority by WORKER_POOL_NICENESS: a burst of due deadlines then
    takes the CPU the web server leaves rather than the other way round. Deadlines are fired
    in the same order; under load they take longer. The worker's main process (its beat and
    timers) keeps its own."""
    from django.conf import settings

    queues = set(app.amqp.queues.consume_from or ())
    if settings.WORKER_POOL_NICENESS and settings.CELERY_TASK_DEFAULT_QUEUE in queues:
        os.nice(settings.WORKER_POOL_NICENESS)


@worker_ready.connect
def _tell_a_bot_worker_lives(sender=None, **kwargs):
    """A worker consuming the bots queue says so, from its main process, for as long as it
    lives (games/services/bot_workers.py): the clock then leaves bots' turns to the bots."""
    global _heartbeat
    from django.conf import settings

    from games.services import bot_workers

    if settings.CELERY_BOT_QUEUE in (sender.app.amqp.queues.consume_from or {}):
        _heartbeat = bot_workers.keep_alive(sender.hostname)


@worker_shutdown.connect
def _stop_telling(**kwargs):
    if _heartbeat is not None:
        _heartbeat.set()
