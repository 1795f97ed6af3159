"""Service markers and the CI guard.

`@pytest.mark.postgres` needs the real PostgreSQL, `@pytest.mark.redis` the real Redis.
Locally such tests skip when the service is not configured. With REQUIRE_SERVICES=1 (CI) a
missing service fails the run at start, and any service test that still ends up skipped fails
the session: a green CI must mean those tests ran. That holds under pytest-xdist too (`-n 2`,
how `dev.py test` runs the whole suite): a service test carries a `service` user property that
travels with its report from the worker to the controller, whose session decides the status.
"""

import functools
import os
from pathlib import Path

import pytest

SERVICE_MARKERS = ("postgres", "redis", "browser")
REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"

_skipped_service_tests: list[str] = []


def _database_is_postgres() -> bool:
    from django.conf import settings

    return settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def _redis_is_configured() -> bool:
    return bool(os.environ.get("REDIS_URL"))


def _browser_missing() -> bool:
    import importlib.util

    return not os.path.exists("/usr/bin/chromium") or importlib.util.find_spec("playwright") is None


def _unavailable_reasons() -> dict[str, str]:
    reasons = {}
    if _browser_missing():
        reasons["browser"] = "needs /usr/bin/chromium and playwright"
    if not _database_is_postgres():
        reasons["postgres"] = "DATABASE_URL is not a PostgreSQL URL"
    if not _redis_is_configured():
        reasons["redis"] = "REDIS_URL is unset"
    return reasons


def pytest_sessionstart(session: pytest.Session) -> None:
    if REQUIRE_SERVICES and (reasons := _unavailable_reasons()):
        raise pytest.UsageError("REQUIRE_SERVICES=1 but " + "; ".join(reasons.values()) + ".")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reasons = _unavailable_reasons()
    for item in items:
        for marker in SERVICE_MARKERS:
            if item.get_closest_marker(marker) is None:
                continue
            # copied onto each of its reports (and serialized with them by xdist)
            item.user_properties.append(("service", marker))
            if marker in reasons:
                item.add_marker(pytest.mark.skip(reason=f"needs {marker}: {reasons[marker]}"))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if (
        REQUIRE_SERVICES
        and report.skipped
        and not hasattr(report, "wasxfail")
        and any(name == "service" for name, _ in report.user_properties)
    ):
        _skipped_service_tests.append(report.nodeid)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database; at the end, before Django drops it, every other session
    on it is closed. Threads that served the app in this process keep their database
    connections until the process ends, and PostgreSQL refuses to drop a database in use:
    pytest-django would only warn, and leave the database (`_drop_own_test_database`)."""
    yield
    if _database_is_postgres():
        from django.db import connection

        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _drop_own_test_database()
    if _skipped_service_tests and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _drop_own_test_database() -> None:
    """Django drops the test database when the run ends, but PostgreSQL refuses while any
    session still uses it (a connection a test's server or thread left open): pytest-django
    then only warns, and every run would leave its database on the server. This drops this
    process's own test database (its name holds this process's id and xdist worker) if it is
    still there, closing those sessions (`WITH (FORCE)`, PostgreSQL 13+)."""
    if not _database_is_postgres():
        return
    import psycopg
    from django.conf import settings
    from psycopg import sql

    database = settings.DATABASES["default"]
    name = (database.get("TEST") or {}).get("NAME")
    if not name:
        return
    server = {"host": database.get("HOST") or None, "port": database.get("PORT") or None}
    server.update(user=database.get("USER") or None, password=database.get("PASSWORD") or None)
    try:
        connection = psycopg.connect(dbname="postgres", autocommit=True, **server)
    except psycopg.OperationalError:  # no server: this run made no database there
        return
    with connection:
        drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        connection.execute(drop)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not _skipped_service_tests:
        return
    terminalreporter.section("REQUIRE_SERVICES", sep="=", red=True, bold=True)
    terminalreporter.line(
        f"{len(_skipped_service_tests)} test(s) needing PostgreSQL or Redis were skipped; "
        "with REQUIRE_SERVICES=1 that fails the run:",
        red=True,
    )
    for nodeid in _skipped_service_tests:
        terminalreporter.line(f"  {nodeid}")


# --- Parallel runs (pytest-xdist) -------------------------------------------------------------
# `dev.py test` runs the whole suite as `-n 2 --dist loadfile`: each worker process is a run of
# its own (its test database, its Redis prefix: tests/environment.py), and gets whole files, so
# a module's live server, browser and module-scoped fixtures are set up once. On top of plain
# `loadfile`, two things:
#
# - Files that hold one Redis database for their Celery worker (tests/tasks/worker.py's
#   `isolated_redis_url`: a lock, then every key there deleted) go to one worker together:
#   on two workers at once, one would wait for the other's lock.
# - The files known to take longest go out first, so that neither worker is left with a long
#   file at the end while the other idles. Seconds measured on a quiet machine; a file missing
#   here just keeps its place in collection order.

SLOW_FILES = {
    "tests/engine/test_soak.py": 165,
    # their slowest test alone: two players' whole game in browsers, two nodes behind a proxy
    # through two kills (a CI run's --durations)
    "tests/browser/test_web_client.py": 52,
    "tests/reliability/test_multinode.py": 37,
}
SHARED_REDIS_DATABASE = "tests/tasks/worker.py: isolated_redis_url"


@functools.cache
def _scope_of(path: str) -> str:
    try:
        source = (Path(__file__).resolve().parent.parent / path).read_text()
    except OSError:
        return path
    return SHARED_REDIS_DATABASE if "isolated_redis_url(" in source else path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SlowFirstFileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _scope_of(nodeid.split("::", 1)[0])

        def schedule(self) -> None:
            if self.collection is None:  # the first call: order the work before it is sent
                self.as_collected = {n: list(c) for n, c in self.registered_collections.items()}
                for node, collection in self.registered_collections.items():
                    self.registered_collections[node] = sorted(collection, key=self._weight)
                self.sorted_index = {
                    node: {nodeid: i for i, nodeid in enumerate(collection)}
                    for node, collection in self.registered_collections.items()
                }
            super().schedule()

        # A worker runs a test by its index in its own collection, which stays in collection
        # order: the indexes sent to it and those it reports back are translated from and to the
        # sorted lists here. Without it, a worker ran other tests than the ones scheduled (a
        # file's tests split over both workers, its module fixtures set up on each).
        def _assign_work_unit(self, node) -> None:
            ordered = self.registered_collections[node]
            self.registered_collections[node] = self.as_collected[node]
            try:
                super()._assign_work_unit(node)
            finally:
                self.registered_collections[node] = ordered

        def mark_test_complete(self, node, item_index: int, duration: float = 0) -> None:
            nodeid = self.as_collected[node][item_index]
            super().mark_test_complete(node, self.sorted_index[node][nodeid], duration)

        def _weight(self, nodeid: str) -> int:
            scope = self._split_scope(nodeid)
            if scope == SHARED_REDIS_DATABASE:
                return -sum(SLOW_FILES.get(p, 0) for p in SLOW_FILES if _scope_of(p) == scope)
            return -SLOW_FILES.get(scope, 0)

    config.option.loadscopereorder = False  # keep the order above, not the count of tests
    return SlowFirstFileScheduling(config, log)


# --- The append-only log's triggers around SQLite flushes -----------------------------------
# A transactional test ends with a flush, which on SQLite DELETEs every row — exactly what the
# log's triggers refuse. So on SQLite each database test (re)installs the triggers first, and
# `committed_db` (the fixture for tests that need real commits: threads, other processes) drops
# them just before its flush. PostgreSQL flushes with TRUNCATE, which row triggers ignore.

_DB_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "committed_db"}


@pytest.fixture(autouse=True)
def _log_triggers_installed(request):
    uses_db = request.node.get_closest_marker("django_db") or _DB_FIXTURES & set(
        request.fixturenames
    )
    if uses_db:
        from django.db import connection

        request.getfixturevalue("django_db_setup")
        if connection.vendor == "sqlite":
            from games import db_guards

            with request.getfixturevalue("django_db_blocker").unblock():
                db_guards.install_all(connection)
    yield


# A transactional test's flush empties every table, the rows a data migration made too: the
# "moderators" group (games 0006). Run alone, pytest-django orders those tests after all others;
# in a parallel run whole files go to each process, so a file's committing test can come before
# another file's tests that read the group. Each database test (and `module_db`) puts it back
# first when it is missing, as the migration made it (the permissions themselves are made again
# by the flush's post_migrate): one query when it is there.


def _moderators_group_back() -> None:
    import importlib

    from django.contrib.auth.models import Group, Permission

    if Group.objects.filter(name="moderators").exists():
        return
    migration = importlib.import_module("games.migrations.0006_audit_append_only_and_moderators")
    Group.objects.create(name="moderators").permissions.set(
        [
            Permission.objects.get(content_type__app_label=app, codename=codename)
            for app, codename in migration.MODERATOR_PERMISSIONS
        ]
    )


@pytest.fixture(autouse=True)
def _migration_rows_back(request, django_db_blocker):
    if request.node.get_closest_marker("django_db") or _DB_FIXTURES & set(request.fixturenames):
        request.getfixturevalue("django_db_setup")
        with django_db_blocker.unblock():
            _moderators_group_back()
    yield


@pytest.fixture
def committed_db(request, transactional_db, django_db_blocker):
    """Like `transactional_db`: data is really committed, visible to other connections."""
    yield
    from django.db import connection

    if connection.vendor == "sqlite":
        from games import db_guards

        with django_db_blocker.unblock():
            db_guards.uninstall_all(connection)


# --- Rows shared by a module's tests --------------------------------------------------------


@pytest.fixture(scope="module")
def module_db(django_db_setup, django_db_blocker):
    """For module-scoped fixtures that write what every test of the module reads (players, a
    finished game): one transaction around the module, rolled back at its end, as Django's
    `setUpTestData` does for a class. Each test (`db`) still runs in a savepoint of its own,
    rolled back after it, so a test's changes never reach the next. Yields a context manager
    that lets the fixture reach the database. Only for modules whose tests all use `db`: a
    committing test (`transactional_db`, `committed_db`) cannot run inside it."""
    from django.db import transaction

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        _moderators_group_back()
    try:
        yield django_db_blocker.unblock
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


# --- Players and the state cache ------------------------------------------------------------


@pytest.fixture(autouse=True)
def _fresh_state_cache():
    """Test databases are rolled back; cached game states must not outlive them."""
    from games import state

    state.forget_all()
    yield
    state.forget_all()


@pytest.fixture(autouse=True)
def _no_rate_permits_left():
    """User ids recur after rollbacks, and tests clear the counters with the cache: permits a
    process holds of a count (taxi_project.cache.take) must not outlive the test either."""
    from taxi_project import cache

    cache.forget_leases()
    yield
    cache.forget_leases()


@pytest.fixture(autouse=True)
def _no_connection_leases_left():
    """User ids recur after rollbacks: a socket a test left open must not count against the
    caps of the next test's users."""
    yield
    from taxi_project import connection_limits

    connection_limits.release_all()


@pytest.fixture
def make_player(db):
    from tests.players import Player

    return Player


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing():
    """Hashing a password the production way takes most of a second; tests make many users.
    For the whole session, so module-scoped fixtures make theirs fast too; a test that needs
    the production hashers sets them (`settings.PASSWORD_HASHERS = ...`) over this."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    """Each test gets its own channel layer instance: a layer keeps asyncio locks bound to the
    event loop that used it, and every async_to_sync in a test runs a loop of its own."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()
