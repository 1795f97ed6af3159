"""The project's ASGI application, as bench/api.py serves it: `taxi_project.asgi:application`
unchanged, plus a log handler so that server errors (a 500's traceback, a failed push) reach
the server log, which bench/api.py prints when a run fails. The settings configure no logging
and Django's defaults print nothing with DEBUG off.

With `BENCH_PROBE_DIR` set (bench/api.py sets it unless `--no-probe`), each worker also runs
bench/_probe.py: where each request's time went, gc pauses, the event loop's lag."""

import logging
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "taxi_project.settings")
_PROBE_DIR = os.environ.get("BENCH_PROBE_DIR")
if _PROBE_DIR:
    from django.conf import settings

    # first in the chain, before the handler is built (taxi_project/asgi.py builds it on import)
    settings.MIDDLEWARE = ["bench._probe.ProbeMiddleware", *settings.MIDDLEWARE]

from taxi_project.asgi import application  # noqa: E402

if _PROBE_DIR:
    from bench._probe import Probe

    application = Probe(application, _PROBE_DIR)  # type: ignore[assignment]

_handler = logging.StreamHandler(sys.stderr)
_handler.setLevel(logging.WARNING)
_handler.setFormatter(
    logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
)
logging.getLogger().addHandler(_handler)
