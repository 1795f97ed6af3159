"""Single-row statements for the hottest paths (a move, a token), compiled once per process.

Django compiles every queryset and every `save()` to SQL anew; on the move path (the token, the
game row's lock, the seats, the entry's insert, the game's update) that compiling was about
40 % of a move's server CPU. The statements here are those Django would send, built once per
model, column list and database from the models' own metadata: the backend's quoting, each
field's preparation for the database (`get_db_prep_save`, `pre_save` for `auto_now_add`) and
the backend's and fields' converters for what comes back (`from_db`). Models load through
`Model.from_db`, as querysets load them. They bypass `Model.save()`, so a model written here
must have no `save()` logic and no signal receivers that matter (see each caller).
"""

from __future__ import annotations

from django.db import connections, router


class _Statement:
    """One statement for one database: its SQL and the converters of its result columns."""

    __slots__ = ("sql", "converters")

    def __init__(self, sql: str, fields, connection):
        self.sql = sql
        self.converters = []
        for index, field in enumerate(fields):
            column = field.get_col(field.model._meta.db_table)
            functions = connection.ops.get_db_converters(column) + column.get_db_converters(
                connection
            )
            if functions:
                self.converters.append((index, functions, column))

    def convert(self, row, connection) -> list:
        """`row` as the fields' Python values (`connection`: this thread's, for that database)."""
        row = list(row)
        for index, functions, column in self.converters:
            value = row[index]
            for function in functions:
                value = function(value, column, connection)
            row[index] = value
        return row


_statements: dict[tuple, _Statement] = {}


def _statement(key: tuple, connection, build) -> _Statement:
    key = (connection.alias, *key)
    statement = _statements.get(key)
    if statement is None:
        sql, fields = build(connection.ops.quote_name)
        statement = _statements[key] = _Statement(sql, fields, connection)
    return statement


def _beyond(field, value, connection) -> bool:
    """An integer the column cannot hold: no row has it (as Django's lookups conclude, rather
    than let the driver fail on it)."""
    low, high = connection.ops.integer_field_ranges.get(field.get_internal_type(), (None, None))
    return isinstance(value, int) and low is not None and not low <= value <= high


def _columns(fields, table: str, quote) -> str:
    return ", ".join(f"{quote(table)}.{quote(field.column)}" for field in fields)


def get(model, *, for_update: bool = False, **lookup):
    """`model.objects[.select_for_update()].filter(column=value).first()` for one equality
    lookup on a unique column (by field name), all concrete fields loaded; None if no row."""
    return _select(model, for_update, lookup)[0]


def get_joined(model, *, name: str, columns: str, joins: str, for_update: bool = False, **lookup):
    """`get()`, and in the same SELECT the rows that `joins` (LEFT JOINs, in SQL) reach from it:
    (the instance or None, [the values of `columns` for each joined row, as the driver gives
    them]). `name` names the statement (it is compiled once). With `for_update`, only `model`'s
    row is locked."""
    return _select(model, for_update, lookup, (name, columns, joins))


def _select(model, for_update: bool, lookup: dict, joined: tuple[str, str, str] | None = None):
    ((field_name, value),) = lookup.items()
    connection = connections[
        router.db_for_write(model) if for_update else router.db_for_read(model)
    ]
    meta = model._meta
    fields = meta.concrete_fields
    where = meta.pk if field_name == "pk" else meta.get_field(field_name)
    lock = for_update and connection.features.has_select_for_update
    name, columns, joins = joined or ("", "", "")

    def build(quote):
        table = quote(meta.db_table)
        sql = (
            f"SELECT {', '.join(filter(None, [_columns(fields, meta.db_table, quote), columns]))} "
            f"FROM {table} {joins} WHERE {table}.{quote(where.column)} = %s"
            f"{f' FOR UPDATE OF {table}' if lock else ''}"
        )
        return sql, fields

    if _beyond(where, value, connection):
        return None, []
    statement = _statement(("select", model, where.attname, lock, name), connection, build)
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, [where.get_db_prep_value(value, connection)])
        found = cursor.fetchall() if joined else cursor.fetchmany(1)
    if not found:
        return None, []
    width = len(fields)
    values = statement.convert(found[0][:width], connection)
    instance = model.from_db(connection.alias, [f.attname for f in fields], values)
    return instance, [row[width:] for row in found if any(v is not None for v in row[width:])]


def get_with(model, related: str, **lookup):
    """`model.objects.select_related(related).filter(column=value).first()` for one equality
    lookup on a unique column and one forward foreign key: both loaded in one SELECT."""
    ((name, value),) = lookup.items()
    connection = connections[router.db_for_read(model)]
    meta = model._meta
    key = meta.get_field(related)
    where = meta.pk if name == "pk" else meta.get_field(name)
    other = key.related_model
    own, theirs = meta.concrete_fields, other._meta.concrete_fields

    def build(quote):
        table, join = meta.db_table, other._meta.db_table
        sql = (
            f"SELECT {_columns(own, table, quote)}, {_columns(theirs, join, quote)} "
            f"FROM {quote(table)} INNER JOIN {quote(join)} ON "
            f"{quote(table)}.{quote(key.column)} = "
            f"{quote(join)}.{quote(key.target_field.column)} "
            f"WHERE {quote(table)}.{quote(where.column)} = %s"
        )
        return sql, [*own, *theirs]

    if _beyond(where, value, connection):
        return None
    statement = _statement(("get_with", model, related, where.attname), connection, build)
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, [where.get_db_prep_value(value, connection)])
        row = cursor.fetchone()
    if row is None:
        return None
    row = statement.convert(row, connection)
    instance = model.from_db(connection.alias, [f.attname for f in own], row[: len(own)])
    linked = other.from_db(connection.alias, [f.attname for f in theirs], row[len(own) :])
    key.set_cached_value(instance, linked)
    return instance


def insert(instance) -> None:
    """`instance.save(force_insert=True)` without `save()`'s own logic: an INSERT of every
    concrete field (`auto_now_add` filled in), the new primary key read back."""
    connection = connections[router.db_for_write(type(instance))]
    statement, params, pk_unset = _insert(instance, connection, read_pk=True)
    meta = instance._meta
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, params)
        if pk_unset:
            if connection.features.can_return_columns_from_insert:
                pk = statement.convert(cursor.fetchone(), connection)[0]
            else:
                pk = connection.ops.last_insert_id(cursor, meta.db_table, meta.pk.column)
            setattr(instance, meta.pk.attname, pk)
    _inserted(instance, connection)


def update(instance, fields: list[str]) -> None:
    """`instance.save(update_fields=fields)` without `save()`'s own logic: one UPDATE by
    primary key (`auto_now` filled in)."""
    connection = connections[router.db_for_write(type(instance))]
    statement, params = _update(instance, fields, connection)
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, params)


def insert_and_update(new, changed, fields: list[str]) -> None:
    """`insert(new)`, its primary key not read back, then `update(changed, fields)`. On
    PostgreSQL one statement, the INSERT in a data-modifying WITH (one round trip instead of
    two; it fails or succeeds whole); elsewhere the two statements."""
    connection = connections[router.db_for_write(type(new))]
    if connection.vendor != "postgresql" or router.db_for_write(type(changed)) != connection.alias:
        insert(new)
        update(changed, fields)
        return
    adding, add_params, _ = _insert(new, connection, read_pk=False)
    changing, change_params = _update(changed, fields, connection)

    def build(quote):
        return f"WITH inserted AS ({adding.sql}) {changing.sql}", []

    key = ("insert+update", type(new), adding.sql, changing.sql)
    statement = _statement(key, connection, build)
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, [*add_params, *change_params])
    _inserted(new, connection)


def _insert(instance, connection, *, read_pk: bool) -> tuple[_Statement, list, bool]:
    """The INSERT of `insert()`, its parameters, and whether the primary key is the
    database's to choose."""
    model = type(instance)
    meta = model._meta
    # as Model.save(): an automatic primary key left unset is the database's to choose
    fields = [
        f
        for f in meta.concrete_fields
        if not (f.primary_key and getattr(instance, f.attname) is None)
    ]
    returning = read_pk and connection.features.can_return_columns_from_insert

    def build(quote):
        sql = (
            f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
            f"VALUES ({', '.join(['%s'] * len(fields))})"
        )
        if returning:
            sql += f" RETURNING {quote(meta.db_table)}.{quote(meta.pk.column)}"
        return sql, [meta.pk]

    names = tuple(f.attname for f in fields)
    statement = _statement(("insert", model, names, returning), connection, build)
    params = [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]
    return statement, params, meta.pk.attname not in names


def _inserted(instance, connection) -> None:
    instance._state.adding = False
    instance._state.db = connection.alias


def _update(instance, fields: list[str], connection) -> tuple[_Statement, list]:
    """The UPDATE of `update()` and its parameters."""
    model = type(instance)
    meta = model._meta
    chosen = [meta.get_field(name) for name in fields]

    def build(quote):
        sets = ", ".join(f"{quote(f.column)} = %s" for f in chosen)
        sql = f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {quote(meta.pk.column)} = %s"
        return sql, []

    statement = _statement(("update", model, tuple(fields)), connection, build)
    params = [f.get_db_prep_save(f.pre_save(instance, False), connection) for f in chosen]
    params.append(meta.pk.get_db_prep_value(instance.pk, connection))
    return statement, params
