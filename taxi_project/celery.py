"""The Celery app. Configuration lives in settings under the CELERY_ prefix."""

import logging
import os
from pathlib import Path

from celery import Celery
from celery.signals import worker_process_init, worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "taxi_project.settings")

app = Celery("taxi_project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

log = logging.getLogger(__name__)

_heartbeat = None  # set while this worker tells that a bot worker is alive


@worker_process_init.connect
def _push_from_a_loop_of_its_own(**kwargs):
    """Each worker process pushes through one long-lived event loop (games/events.py)."""
    from games import events

    events.use_own_loop()


@worker_process_init.connect
def _pool_yields_the_cpu(**kwargs):
    """A pool process lowers its CPU priority so that, on a machine it shares with the web
    server, a person's request comes first; the worker's main process (its beat and timers)
    keeps its own among the worker's processes (`_session_yields`: the worker as a whole
    yields to the web server where the scheduler groups processes by session). A worker that
    consumes the bots queue only: BOT_POOL_NICENESS (a bot's search, and its wake-up when its
    move is due, come later; taxi_project/settings.py says why it is off by default). Any
    other worker consuming the default queue (the deadline sweep, pushes, e-mail):
    WORKER_POOL_NICENESS, so a burst of due deadlines takes the CPU the web server leaves;
    deadlines are fired in the same order and under load take longer."""
    from django.conf import settings

    queues = set(app.amqp.queues.consume_from or ())
    if queues == {settings.CELERY_BOT_QUEUE}:
        niceness = settings.BOT_POOL_NICENESS
    elif settings.CELERY_TASK_DEFAULT_QUEUE in queues:
        niceness = settings.WORKER_POOL_NICENESS
    else:
        niceness = 0
    if niceness:
        os.nice(niceness)
        _session_yields(niceness)


def _session_yields(niceness: int) -> None:
    """Where Linux groups processes by session for its scheduler (autogroups,
    /proc/sys/kernel/sched_autogroup_enabled), a process's niceness counts only against the
    other processes of its session: a worker started in a session of its own (by a service
    manager, in a terminal of its own, or detached) shares the CPUs with the web server's
    session as an equal, whatever its pool's niceness. So when the worker's main process leads
    its session, the session (the worker, its pool, an embedded beat) is made as nice as the
    pool: the group then yields as a whole to the web server. A worker sharing its session with
    others (`dev.py serve`) is left alone: its pool's niceness counts there already. Without
    autogroups nothing changes; in a cgroup of its own (a container, a systemd unit) the
    cgroup's CPU weight decides instead (docker/compose.yaml sets the worker's)."""
    if os.getsid(0) != os.getppid():
        return
    current = _session_niceness()
    if current is None or current >= niceness:
        return  # no autogroups here, or as nice already
    try:
        _AUTOGROUP.write_text(str(niceness))
    except OSError:
        # another pool process may have set it a moment ago (unprivileged processes may
        # change it once every 100 ms): what matters is what it reads now
        now = _session_niceness()
        if now is not None and now < niceness:
            log.warning("the worker's session could not be made %s nicer", niceness)


_AUTOGROUP = Path("/proc/self/autogroup")  # "/autogroup-N nice K"


def _session_niceness() -> int | None:
    """This session's autogroup niceness; None without autogroups."""
    try:
        return int(_AUTOGROUP.read_text().split()[-1])
    except (OSError, ValueError):
        return None


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
