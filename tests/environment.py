"""Loaded before Django's settings (`-p tests.environment` in pyproject.toml): the test suite
runs as local development does, with DEBUG on unless the environment says otherwise (the
settings default to DEBUG off and then need a SECRET_KEY). Subprocesses the tests start (live
servers, Celery workers) inherit it unless they set their own."""

import os

os.environ.setdefault("DEBUG", "1")

# Tests play whole games through the API in seconds, users' ids recur after rollbacks, and the
# local cache outlives a test: the per-user move limit would trip them. The limit's own tests
# set the rate they test.
os.environ.setdefault("MOVE_THROTTLE_RATE", "1000000/min")
os.environ.setdefault("NOTES_THROTTLE_RATE", "1000000/min")  # likewise for private notes
# tests open far more tables from one address than people do; tests/api/test_table_limits.py
# sets a real rate
os.environ.setdefault("TABLE_CREATE_THROTTLE_RATE", "")

# This process uses no connection pool: its tests hold connections across threads and some
# kill every backend of the test database on purpose. The servers and workers the tests start
# run with the production pool (tests/e2e/server.py, tests/tasks/worker.py set their own).
os.environ.setdefault("DB_POOL_MAX_SIZE", "0")

# One Redis prefix for this run, its live servers and its workers (they inherit it), and none
# other's: two runs on one Redis server never receive each other's pushes (settings:
# REDIS_PREFIX). Tests of the prefix itself give their servers their own.
os.environ.setdefault("REDIS_PREFIX", f"test-{os.getpid()}")
# Under pytest-xdist each worker is a run of its own (its own test database: settings name it by
# pid), but inherits the controller's environment: give it its own prefix too, or two workers'
# game 1 would share one channel-layer group.
if worker := os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["REDIS_PREFIX"] = f"{os.environ['REDIS_PREFIX']}-{worker}"
