"""Single-row statements for the hottest paths (a move, a token), compiled once per process.

Django compiles every queryset and every `save()` to SQL anew; on the move path (the token, the
game row with its seats and recent entries, the game's update and the entry's insert) that
compiling was about 40 % of a move's server CPU. The statements here are those Django would
send, built once per model, column list and database from the models' own metadata: the
backend's quoting, each field's preparation for the database (`get_db_prep_save`, `pre_save`
for `auto_now_add`) and the backend's and fields' converters for what comes back (`from_db`).
Models load through `Model.from_db`, as querysets load them. They bypass `Model.save()`, so a
model written here must have no `save()` logic and no signal receivers that matter (see each
caller).
"""

from __future__ import annotations

from contextlib import nullcontext

from django.db import connections, router, transaction


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


def beyond(field, value, connection) -> bool:
    """An integer the column cannot hold: no row has it (as Django's lookups conclude, rather
    than let the driver fail on it)."""
    low, high = connection.ops.integer_field_ranges.get(field.get_internal_type(), (None, None))
    return isinstance(value, int) and low is not None and not low <= value <= high


def _columns(fields, table: str, quote) -> str:
    return ", ".join(f"{quote(table)}.{quote(field.column)}" for field in fields)


def get(model, *, for_update: bool = False, **lookup):
    """`model.objects[.select_for_update()].filter(column=value).first()` for one equality
    lookup on a unique column (by field name), all concrete fields loaded; None if no row."""
    return _select(model, lookup, for_update=for_update)[0]


def get_and(model, *, name: str, columns: str, params=(), **lookup):
    """`get()`, and in the same SELECT the SQL expressions `columns` (with `params` for their
    `%s`: scalar subqueries, say): (the instance or None, the values of `columns` as the
    driver gives them). `name` names the statement (it is compiled once)."""
    return _select(model, lookup, name=name, columns=columns, params=params)


def _select(model, lookup: dict, *, for_update=False, name="", columns="", params=()):
    ((field_name, value),) = lookup.items()
    connection = connections[
        router.db_for_write(model) if for_update else router.db_for_read(model)
    ]
    meta = model._meta
    fields = meta.concrete_fields
    where = meta.pk if field_name == "pk" else meta.get_field(field_name)
    lock = for_update and connection.features.has_select_for_update

    def build(quote):
        table = quote(meta.db_table)
        sql = (
            f"SELECT {', '.join(filter(None, [_columns(fields, meta.db_table, quote), columns]))} "
            f"FROM {table} WHERE {table}.{quote(where.column)} = %s"
            f"{f' FOR UPDATE OF {table}' if lock else ''}"
        )
        return sql, fields

    if beyond(where, value, connection):
        return None, ()
    statement = _statement(("select", model, where.attname, lock, name), connection, build)
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, [*params, where.get_db_prep_value(value, connection)])
        row = cursor.fetchone()
    if row is None:
        return None, ()
    width = len(fields)
    values = statement.convert(row[:width], connection)
    instance = model.from_db(connection.alias, [f.attname for f in fields], values)
    return instance, row[width:]


def get_with(model, related: str, **lookup):
    """`model.objects.select_related(related).filter(column=value).first()` for one equality
    lookup on a unique column and one forward foreign key: both loaded in one SELECT."""
    return get_with_row(model, related, **lookup)[0]


def get_with_row(
    model, related: str, *, row_of=None, row_pk=None, name="", columns="", params=(), **lookup
):
    """`get_with(model, related, **lookup)`, and in the same SELECT the row of model `row_of`
    whose primary key is `row_pk` (LEFT JOINed: None if there is none) and the SQL expressions
    `columns` (scalar subqueries, with `params` for their `%s`; `name` names the statement):
    (the instance or None, the other row's instance or None, the values of `columns`).
    `row_pk` and `params` must be values the columns can hold (`beyond`)."""
    ((field_name, value),) = lookup.items()
    connection = connections[router.db_for_read(model)]
    meta = model._meta
    key = meta.get_field(related)
    where = meta.pk if field_name == "pk" else meta.get_field(field_name)
    other = key.related_model
    own, theirs = meta.concrete_fields, other._meta.concrete_fields
    extra = row_of._meta.concrete_fields if row_of is not None else []

    def build(quote):
        table, join = meta.db_table, other._meta.db_table
        listed = [_columns(own, table, quote), _columns(theirs, join, quote)]
        joins = (
            f"FROM {quote(table)} INNER JOIN {quote(join)} ON "
            f"{quote(table)}.{quote(key.column)} = {quote(join)}.{quote(key.target_field.column)}"
        )
        if row_of is not None:
            row_table = row_of._meta.db_table
            listed.append(_columns(extra, row_table, quote))
            joins += (
                f" LEFT JOIN {quote(row_table)} ON "
                f"{quote(row_table)}.{quote(row_of._meta.pk.column)} = %s"
            )
        if columns:
            listed.append(columns)
        sql = f"SELECT {', '.join(listed)} {joins} WHERE {quote(table)}.{quote(where.column)} = %s"
        return sql, [*own, *theirs, *extra]

    if beyond(where, value, connection):
        return None, None, ()
    args = [*params]
    if row_of is not None:
        args.append(row_of._meta.pk.get_db_prep_value(row_pk, connection))
    args.append(where.get_db_prep_value(value, connection))
    statement = _statement(
        ("get_with", model, related, where.attname, row_of, name), connection, build
    )
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, args)
        row = cursor.fetchone()
    if row is None:
        return None, None, ()
    width = len(own) + len(theirs) + len(extra)
    values = statement.convert(row[:width], connection)
    instance = model.from_db(connection.alias, [f.attname for f in own], values[: len(own)])
    linked = other.from_db(
        connection.alias, [f.attname for f in theirs], values[len(own) : len(own) + len(theirs)]
    )
    key.set_cached_value(instance, linked)
    found = None
    if row_of is not None:
        loaded = values[len(own) + len(theirs) : width]
        pk_index = extra.index(row_of._meta.pk)
        if loaded[pk_index] is not None:
            found = row_of.from_db(connection.alias, [f.attname for f in extra], loaded)
    return instance, found, row[width:]


def insert_if_updated(new, changed, fields: list[str], *, where: dict) -> bool:
    """`changed.save(update_fields=fields)` on the condition that its row's columns still hold
    the values of `where` (by field name: {"version": 4}, the value before the update), and
    only if that updated the row, the INSERT of `new` (its primary key not read back). True if
    both were done, False if the condition failed and nothing was written.

    On PostgreSQL one statement: the conditional UPDATE in a data-modifying WITH feeds the
    INSERT's one row (its values cast to the columns' types, as a SELECT's are not inferred
    from the INSERT's columns), so both happen or neither, in one round trip, and a statement
    that waited for another transaction's lock on the row checks the condition against what
    that transaction committed. Elsewhere the two statements, in a transaction."""
    connection = connections[router.db_for_write(type(new))]
    changing, change_params = _update(changed, fields, connection, where)
    adding, add_params, added = _insert(new, connection)
    one_statement = (
        connection.vendor == "postgresql" and router.db_for_write(type(changed)) == connection.alias
    )
    # In a caller's transaction, a savepoint: a failure (a unique key) leaves it usable.
    with (
        transaction.atomic(using=connection.alias)
        if (connection.in_atomic_block or not one_statement)
        else nullcontext()
    ):
        with connection.cursor() as cursor:
            if one_statement:
                cursor.execute(_then_insert(changing, adding, added, connection).sql,
                               [*change_params, *add_params])  # fmt: skip
                if cursor.rowcount != 1:
                    return False
            else:
                cursor.execute(changing.sql, change_params)
                if cursor.rowcount != 1:
                    return False
                cursor.execute(adding.sql, add_params)
    _inserted(new, connection)
    return True


def _then_insert(changing: _Statement, adding: _Statement, fields, connection) -> _Statement:
    """`insert_if_updated`'s statement on PostgreSQL (`fields`: those `adding` inserts)."""
    meta = fields[0].model._meta

    def build(quote):
        values = ", ".join(f"CAST(%s AS {f.cast_db_type(connection)})" for f in fields)
        sql = (
            f"WITH changed AS ({changing.sql} RETURNING 1) "
            f"INSERT INTO {quote(meta.db_table)} "
            f"({', '.join(quote(f.column) for f in fields)}) SELECT {values} FROM changed"
        )
        return sql, []

    return _statement(("update+insert", meta.model, adding.sql, changing.sql), connection, build)


def _insert(instance, connection) -> tuple[_Statement, list, list]:
    """An INSERT of every concrete field of `instance` (`auto_now_add` filled in; an automatic
    primary key left unset is the database's to choose, as in `Model.save()`), without its
    `save()` logic, its parameters, and the fields it inserts."""
    model = type(instance)
    meta = model._meta
    fields = [
        f
        for f in meta.concrete_fields
        if not (f.primary_key and getattr(instance, f.attname) is None)
    ]

    def build(quote):
        sql = (
            f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
            f"VALUES ({', '.join(['%s'] * len(fields))})"
        )
        return sql, []

    names = tuple(f.attname for f in fields)
    statement = _statement(("insert", model, names), connection, build)
    params = [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]
    return statement, params, fields


def _inserted(instance, connection) -> None:
    instance._state.adding = False
    instance._state.db = connection.alias


def _update(instance, fields: list[str], connection, where: dict) -> tuple[_Statement, list]:
    """The UPDATE of `instance`'s `fields`, by primary key and the conditions `where` (field
    name: value), and its parameters."""
    model = type(instance)
    meta = model._meta
    chosen = [meta.get_field(name) for name in fields]
    conditions = [meta.get_field(name) for name in where]

    def build(quote):
        sets = ", ".join(f"{quote(f.column)} = %s" for f in chosen)
        matches = "".join(f" AND {quote(f.column)} = %s" for f in conditions)
        sql = f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {quote(meta.pk.column)} = %s"
        return sql + matches, []

    statement = _statement(("update", model, tuple(fields), tuple(where)), connection, build)
    params = [f.get_db_prep_save(f.pre_save(instance, False), connection) for f in chosen]
    params.append(meta.pk.get_db_prep_value(instance.pk, connection))
    params.extend(f.get_db_prep_value(where[f.name], connection) for f in conditions)
    return statement, params
