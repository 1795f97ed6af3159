"""The project's ASGI application, as bench/api.py serves it: `taxi_project.asgi:application`
unchanged, plus a log handler so that server errors (a 500's traceback, a failed push) reach
the server log, which bench/api.py prints when a run fails. The settings configure no logging
and Django's defaults print nothing with DEBUG off."""

import logging
import sys

from taxi_project.asgi import application  # noqa: F401

_handler = logging.StreamHandler(sys.stderr)
_handler.setLevel(logging.WARNING)
_handler.setFormatter(
    logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
)
logging.getLogger().addHandler(_handler)
