"""Database triggers that make tables append-only (STYLE 2), below the ORM.

The game log (`games_gameentry`, migration 0002), the archived logs (`games_gamearchive`) and
the moderators' audit log (`games_moderationaction`) refuse any UPDATE or DELETE of a row,
whoever sends it (ORM, admin, raw SQL), on PostgreSQL and SQLite. TRUNCATE (a whole-database
reset) is not a row change.

One DELETE is let through: a log entry that an archive row of its game covers (games/archive.py
writes that row, then deletes the entries, in one transaction). With no archive row, or one
that stops short of the entry, the delete is refused as before.
"""

from __future__ import annotations

APPEND_ONLY_TABLES = ("games_gameentry", "games_moderationaction", "games_gamearchive")

# SQL true when the row being deleted (OLD) may go: its game's archive holds it
DELETABLE_WHEN = {
    "games_gameentry": (
        "EXISTS (SELECT 1 FROM games_gamearchive a"
        " WHERE a.game_id = OLD.game_id AND a.entries > OLD.seq)"
    ),
}


def _postgres_install(table: str, deletable: str | None) -> list[str]:
    allow = f"IF TG_OP = 'DELETE' AND {deletable} THEN RETURN OLD; END IF;" if deletable else ""
    return [
        f"""
        CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger AS $$
        BEGIN
            {allow}
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


def _sqlite_install(table: str, deletable: str | None) -> list[str]:
    when = {"UPDATE": "", "DELETE": f"WHEN NOT {deletable}" if deletable else ""}
    return [
        f"""
        CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table} {when[op]}
        BEGIN SELECT RAISE(ABORT, '{table} is append-only: {op} refused'); END
        """
        for op in ("UPDATE", "DELETE")
    ]


def _sqlite_uninstall(table: str) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {table}_no_{op}" for op in ("update", "delete")]


_INSTALL = {"postgresql": _postgres_install, "sqlite": _sqlite_install}
_UNINSTALL = {"postgresql": _postgres_uninstall, "sqlite": _sqlite_uninstall}


def _run(connection, statements) -> None:
    if statements is None:
        raise NotImplementedError(f"no append-only triggers for {connection.vendor}")
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)


def install(connection, table: str = "games_gameentry", *, strict: bool = False) -> None:
    """`strict`: refuse every DELETE, archive or not: what the migrations written before the
    archive table existed install (SQLite refuses to rebuild a table while a trigger names a
    table that does not exist yet)."""
    make = _INSTALL.get(connection.vendor)
    deletable = None if strict else DELETABLE_WHEN.get(table)
    _run(connection, make and make(table, deletable))


def uninstall(connection, table: str = "games_gameentry") -> None:
    make = _UNINSTALL.get(connection.vendor)
    _run(connection, make and make(table))


def install_all(connection) -> None:
    for table in APPEND_ONLY_TABLES:
        install(connection, table)


def uninstall_all(connection) -> None:
    for table in APPEND_ONLY_TABLES:
        uninstall(connection, table)
