"""Tests of a data migration: the database taken back to before it, filled, migrated forward."""

from __future__ import annotations

from contextlib import contextmanager

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets):
    """Migrate the test database to `targets`; the apps (historical models) as they stand."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def migrate_to_latest():
    return migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


@contextmanager
def migrated_back(targets):
    """The historical apps at `targets`; the database is migrated to the latest state again
    afterwards, whatever happened (the tests that follow expect it)."""
    try:
        yield migrate(targets)
    finally:
        migrate_to_latest()
