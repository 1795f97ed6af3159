"""Database triggers that make the game log append-only (STYLE 2), below the ORM.

Installed by migration 0002 on PostgreSQL and SQLite; any UPDATE or DELETE of a log row fails,
whoever sends it (ORM, admin, raw SQL). TRUNCATE (a whole-database reset) is not a row change.
"""

from __future__ import annotations

TABLE = "games_gameentry"

_POSTGRES_INSTALL = [
    f"""
    CREATE OR REPLACE FUNCTION {TABLE}_append_only() RETURNS trigger AS $$
    BEGIN
        RAISE EXCEPTION '{TABLE} is append-only: % refused', TG_OP;
    END;
    $$ LANGUAGE plpgsql
    """,
    f"DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE}",
    f"""
    CREATE TRIGGER {TABLE}_append_only BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION {TABLE}_append_only()
    """,
]
_POSTGRES_UNINSTALL = [
    f"DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE}",
    f"DROP FUNCTION IF EXISTS {TABLE}_append_only()",
]
_SQLITE_INSTALL = [
    f"""
    CREATE TRIGGER IF NOT EXISTS {TABLE}_no_update BEFORE UPDATE ON {TABLE}
    BEGIN SELECT RAISE(ABORT, '{TABLE} is append-only: UPDATE refused'); END
    """,
    f"""
    CREATE TRIGGER IF NOT EXISTS {TABLE}_no_delete BEFORE DELETE ON {TABLE}
    BEGIN SELECT RAISE(ABORT, '{TABLE} is append-only: DELETE refused'); END
    """,
]
_SQLITE_UNINSTALL = [
    f"DROP TRIGGER IF EXISTS {TABLE}_no_update",
    f"DROP TRIGGER IF EXISTS {TABLE}_no_delete",
]


def _statements(vendor: str, install: bool) -> list[str]:
    if vendor == "postgresql":
        return _POSTGRES_INSTALL if install else _POSTGRES_UNINSTALL
    if vendor == "sqlite":
        return _SQLITE_INSTALL if install else _SQLITE_UNINSTALL
    raise NotImplementedError(f"no append-only triggers for {vendor}")


def install(connection) -> None:
    with connection.cursor() as cursor:
        for sql in _statements(connection.vendor, install=True):
            cursor.execute(sql)


def uninstall(connection) -> None:
    with connection.cursor() as cursor:
        for sql in _statements(connection.vendor, install=False):
            cursor.execute(sql)
