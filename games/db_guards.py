"""Database triggers that make tables append-only (STYLE 2), below the ORM.

The game log (`games_gameentry`, migration 0002) and the moderators' audit log
(`games_moderationaction`) refuse any UPDATE or DELETE of a row, whoever sends it (ORM, admin,
raw SQL), on PostgreSQL and SQLite. TRUNCATE (a whole-database reset) is not a row change.
"""

from __future__ import annotations

APPEND_ONLY_TABLES = ("games_gameentry", "games_moderationaction")


def _postgres_install(table: str) -> list[str]:
    return [
        f"""
        CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger AS $$
        BEGIN
            RAISE EXCEPTION '{table} is append-only: % refused', TG_OP;
        END;
        $$ LANGUAGE plpgsql
        """,
        f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}",
        f"""
        CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
        FOR EACH ROW EXECUTE FUNCTION {table}_append_only()
        """,
    ]


def _postgres_uninstall(table: str) -> list[str]:
    return [
        f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}",
        f"DROP FUNCTION IF EXISTS {table}_append_only()",
    ]


def _sqlite_install(table: str) -> list[str]:
    return [
        f"""
        CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table}
        BEGIN SELECT RAISE(ABORT, '{table} is append-only: {op} refused'); END
        """
        for op in ("UPDATE", "DELETE")
    ]


def _sqlite_uninstall(table: str) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {table}_no_{op}" for op in ("update", "delete")]


_STATEMENTS = {
    ("postgresql", True): _postgres_install,
    ("postgresql", False): _postgres_uninstall,
    ("sqlite", True): _sqlite_install,
    ("sqlite", False): _sqlite_uninstall,
}


def _run(connection, table: str, install: bool) -> None:
    statements = _STATEMENTS.get((connection.vendor, install))
    if statements is None:
        raise NotImplementedError(f"no append-only triggers for {connection.vendor}")
    with connection.cursor() as cursor:
        for sql in statements(table):
            cursor.execute(sql)


def install(connection, table: str = "games_gameentry") -> None:
    _run(connection, table, install=True)


def uninstall(connection, table: str = "games_gameentry") -> None:
    _run(connection, table, install=False)


def install_all(connection) -> None:
    for table in APPEND_ONLY_TABLES:
        install(connection, table)


def uninstall_all(connection) -> None:
    for table in APPEND_ONLY_TABLES:
        uninstall(connection, table)
