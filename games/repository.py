"""The game repository: the one way a write path reads a game, and the one writer of its log.

    loaded = repository.load(game_id)                       # row, seats, engine state
    row = repository.prepare(loaded, NewEntry(action, actor=user, seat=seat,
                                              idempotency_key=key),
                             expected_version=version)      # the action applied, unsaved
    repository.write(loaded, row, expected_version=version) # or VersionConflict

`load` returns the game row, its seats and the engine state at the row's version. The state
comes from this process's cache (`games/state.py`) caught up with the log entries it lacks,
read in the same statement as the row, or from a replay of the whole log: callers never see
the difference (tests prove both equal a replay). `append` applies the action to the loaded
state (an `EngineError` writes nothing), writes the entry and the row's summary only if the
row is still at `expected_version` (else `VersionConflict`), and once the transaction commits
keeps the new state in the cache: `prepare` and `write`, the two halves of `append`. Storage
stores: what follows an entry (the answer stored with it, the ratings a game's end moves, the
push after commit) is decided by the write path, `games/services/entries.py`, which every
service that appends calls. In the spirit of the eventsourcing library's repository and Cosmic
Python's unit of work: one aggregate (a game), optimistic concurrency on its version.

Statements a move runs are written out in SQL for PostgreSQL: the read (`LOAD_SQL`) and the
conditional append (`APPEND_SQL`), or, for a move on the game as this process last appended
it (`recent`), only the append with the read's guards (`RECENT_APPEND_SQL`). Each docstring
gives its ORM equivalent, which is the code path on other databases: tests/api/test_repository.py
proves both write and read the same rows, and tests/api/test_recent_move.py that both refuse
alike what the skipped read stood for.
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import connections, router, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from accounts.models import PushSubscription
from games import log, state
from games.models import Game, GameEntry, Seat


class GameNotFound(Exception):
    """No game has this id."""


class VersionConflict(Exception):
    """The game row was no longer at the version an append expected; nothing was written."""


@dataclass(frozen=True)
class SeatInfo:
    seat: int | None
    user_id: int
    email_on_turn: bool  # and has an address
    bot: str = ""  # a computer opponent's level (games/services/bots.py); "" for a person
    # wants "your turn" / "game ended" pushed and has a device to push to (games/push.py)
    push_your_turn: bool = False
    push_game_ended: bool = False


@dataclass
class Loaded:
    """A game as a write path needs it: the row, its seats, and a private copy of the engine
    state at the row's version (the caller's to apply to, through `append`; None while the
    table is open)."""

    game: Game
    seats: list[SeatInfo]
    state: Any  # the game's engine `Game` (games/registry.py); None while the table is open

    def seat_of(self, user_id: int) -> SeatInfo | None:
        return next((s for s in self.seats if s.user_id == user_id), None)


@dataclass(frozen=True)
class NewEntry:
    """What a caller appends: an action, who took it, and the client's idempotency key."""

    action: Any  # an action of the game's engine
    actor: object = None  # a User, or None for the server (clocks, deadlines)
    seat: int | None = None
    idempotency_key: str | None = None


# ------------------------------------------------------------------------------------ reading

SEATS_SQL = """
(SELECT json_agg(json_build_array(s.seat, s.user_id, u.email_on_turn, u.email, s.bot_level,
                                  u.push_your_turn, u.push_game_ended,
                                  EXISTS (SELECT 1 FROM accounts_pushsubscription p
                                           WHERE p.user_id = s.user_id)))::text
   FROM games_seat s JOIN accounts_user u ON u.id = s.user_id
  WHERE s.game_id = {game_id})"""
"""A game's seats as `_seat_infos` reads them, one JSON array (`_seats` is the ORM's)."""

LOAD_SQL = f"""
SELECT g.*,
       {SEATS_SQL.format(game_id="g.id")} AS seats_json,
       (SELECT json_agg(e.action ORDER BY e.seq)::text
          FROM games_gameentry e
         WHERE e.game_id = g.id AND e.seq > %s) AS actions_json
  FROM games_game g
 WHERE g.id = %s
"""
"""A game row, its seats and the actions of its log after seq `after`, in one snapshot (so the
actions are exactly those up to the row's version). Parameters: after, game id. The ORM
equivalent, three queries (`_load_orm`):

    Game.objects.filter(pk=game_id).first()
    Seat.objects.filter(game_id=game_id).values_list(*SEAT_COLUMNS, Exists(<a push subscription>))
    GameEntry.objects.filter(game_id=game_id, seq__gt=after, seq__lte=game.version)
        .order_by("seq").values_list("action", flat=True)
"""


def load(game_id: int, *, lock: bool = False) -> Loaded:
    """The game, its seats and its state at the row's version; `GameNotFound` if none.

    `lock`: inside a transaction, lock the row first (`SELECT … FOR UPDATE`): for writers that
    must see no other append until they commit (clocks, moderators). A move does not lock:
    `append` checks the version in the statement that writes."""
    if lock:
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None:
            raise GameNotFound(game_id)
        return loaded_from(game)
    after = state.cached_version(game_id) or 0
    if _vendor(Game) == "postgresql" and _fits(game_id):
        game, seats, actions = _load_sql(game_id, after)
    else:
        game, seats, actions = _load_orm(game_id, after)
    actions = log.actions(game, after=after, found=actions)  # an archived game has no rows
    return Loaded(game, seats, _state(game, caught_up=(after, actions)))


def recent(game_id: int, version: int) -> Loaded | None:
    """The game at `version` as this process appended it, without reading the database: the
    row and seats as written and a private copy of the state; None unless this process made
    the append that made `version` and has seen no later one.

    It may be stale (another process appended since; a clock moved the row's next deadline),
    and the seats' preferences may have changed since: write it with `recent=True`, whose
    statement appends only if the row is still at `version`, of the same game, running and
    with nothing due, and reads the seats afresh; on `VersionConflict`, `load` and start
    again. A process where a game's moves keep landing (a player's actions within a turn
    over one connection) so skips one round trip a move."""
    found = state.recent(game_id, version)
    if found is None:
        return None
    current, (values, seats) = found
    alias = router.db_for_write(Game)
    return Loaded(Game.from_db(alias, _ATTNAMES, list(values)), list(seats), current)


_ATTNAMES = [field.attname for field in Game._meta.concrete_fields]


def _load_sql(game_id: int, after: int) -> tuple[Game, list[SeatInfo], list]:
    """`LOAD_SQL`, its row made a Game as the ORM makes one (`Model.from_db`, each field's
    `from_db_value`), without a query set's work per statement."""
    connection = connections[router.db_for_write(Game)]
    with connection.cursor() as cursor:
        cursor.execute(LOAD_SQL, [after, game_id])
        row = cursor.fetchone()
        if row is None:
            raise GameNotFound(game_id)
        columns = dict(zip((column.name for column in cursor.description), row, strict=True))
    values = []
    for field in Game._meta.concrete_fields:
        value = columns[field.column]
        if hasattr(field, "from_db_value"):
            value = field.from_db_value(value, None, connection)
        values.append(value)
    game = Game.from_db(connection.alias, [f.attname for f in Game._meta.concrete_fields], values)
    seats = _seat_infos(json.loads(columns["seats_json"] or "[]"))
    return game, seats, json.loads(columns["actions_json"] or "[]")


def _state(game: Game, caught_up=None) -> Any:
    """The state at the row's version; None before the game starts (no setup, no log)."""
    if game.status in (Game.Status.OPEN, Game.Status.CANCELLED):
        return None
    return state.state_for(game, caught_up=caught_up)


def _load_orm(game_id: int, after: int) -> tuple[Game, list[SeatInfo], list]:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise GameNotFound(game_id)
    actions = list(
        GameEntry.objects.filter(game_id=game_id, seq__gt=after, seq__lte=game.version)
        .order_by("seq")
        .values_list("action", flat=True)
    )
    return game, _seats(game_id), actions


def loaded_from(game: Game) -> Loaded:
    """A row the caller has already read (and locked), with its seats and state."""
    return Loaded(game, _seats(game.pk), _state(game))


NO_BOUND = datetime(1970, 1, 1, tzinfo=UTC)  # before any deadline


@dataclass(frozen=True)
class Claimed:
    """A due game a sweep has locked: its id, and its version and next deadline when claimed."""

    game_id: int
    version: int
    deadline: datetime


def claim_due(now: datetime, after: datetime | None = None, *, count: int = 1) -> list[Claimed]:
    """Inside a transaction: lock up to `count` running games whose next deadline is at or
    before `now` (and not before `after`), the earliest first, skipping rows other
    transactions hold (several workers share the sweep, and a game being moved is left for
    later). One statement for all of them; `load` then reads each (its snapshot, taken after
    the lock, holds every entry up to the locked row's version).

    `after`: the deadline of the game a sweep claimed last. Each game it fires leaves its old
    entry at the front of the index (`game_due_deadline`) until a vacuum; read from the start,
    every claim would walk over all of them again (a backlog of n games: n²/2 entries). With
    the bound the scan begins where the last claim left off. Games due at the same instant
    share the bound, so a claim still walks over those fired before it; and when the table's
    statistics have not yet seen a burst fall due, PostgreSQL reads and sorts every due row
    instead. Either is paid once per batch: 10,000 games due at once cost 0.29 ms of claim a
    game in batches of 16, against 1.3 ms claimed one at a time (bench/deadlines.py, B)."""
    return [Claimed(*row) for row in claim_query(now, after, count=count)]


def claim_query(now: datetime, after: datetime | None = None, *, count: int = 1) -> QuerySet:
    """`claim_due`'s statement, unevaluated (bench/deadlines.py explains its plan): rows of
    (id, version, next deadline)."""
    skip_locked = connections[router.db_for_write(Game)].features.has_select_for_update_skip_locked
    due = Game.objects.filter(
        status=Game.Status.PLAYING,
        next_deadline_at__lte=now,
        next_deadline_at__gte=after or NO_BOUND,
    )
    return (
        due.order_by("next_deadline_at")
        .select_for_update(skip_locked=skip_locked)
        .values_list("pk", "version", "next_deadline_at")[:count]
    )


SEAT_COLUMNS = (
    "seat", "user_id", "user__email_on_turn", "user__email", "bot_level", "user__push_your_turn",
    "user__push_game_ended",
)  # fmt: skip


def _seats(game_id: int) -> list[SeatInfo]:
    device = Exists(PushSubscription.objects.filter(user_id=OuterRef("user_id")))
    return _seat_infos(Seat.objects.filter(game_id=game_id).values_list(*SEAT_COLUMNS, device))


def _seat_infos(rows) -> list[SeatInfo]:
    """(seat, user id, wants turn e-mails, e-mail address, bot level, wants "your turn"
    pushed, wants "game ended" pushed, has a device to push to) rows as SeatInfo."""
    return [
        SeatInfo(
            seat, user, bool(wants and email), bot, bool(turn and device), bool(ended and device)
        )
        for seat, user, wants, email, bot, turn, ended, device in rows
    ]


def version_now(game_id: int) -> int:
    return Game.objects.filter(pk=game_id).values_list("version", flat=True).get()


def _vendor(model) -> str:
    return connections[router.db_for_write(model)].vendor


def _fits(game_id: int) -> bool:
    """An id a bigint column can hold (the ORM answers "no such row" for others by itself)."""
    return isinstance(game_id, int) and 0 < game_id < 2**63


# ------------------------------------------------------------------------------------ writing

SUMMARY_FIELDS = (
    "version", "active_seat", "status", "finished_at", "result", "turn_number",
    "turn_started_at", "deadlines_reached", "next_deadline_at",
)  # fmt: skip
ENTRY_FIELDS = (
    "game", "seq", "actor", "seat", "action", "notifications", "idempotency_key", "response",
    "created_at",
)  # fmt: skip

_UPDATE_SQL = """
    UPDATE games_game
       SET version = %s, active_seat = %s, status = %s, finished_at = %s,
           result = CAST(%s AS jsonb), turn_number = %s, turn_started_at = %s,
           deadlines_reached = %s, next_deadline_at = %s
     WHERE id = %s AND version = %s"""
_INSERT_SQL = """
INSERT INTO games_gameentry
       (game_id, seq, actor_id, seat, action, notifications, idempotency_key, response,
        created_at)
SELECT id, CAST(%s AS integer), CAST(%s AS bigint), CAST(%s AS smallint), CAST(%s AS jsonb),
       CAST(%s AS jsonb), CAST(%s AS varchar), CAST(%s AS jsonb), CAST(%s AS timestamptz)
  FROM changed"""

APPEND_SQL = f"""
WITH changed AS ({_UPDATE_SQL}
 RETURNING id
){_INSERT_SQL}
"""
"""The game row's summary (`SUMMARY_FIELDS`) updated only if the row is still at the expected
version, and the entry (`ENTRY_FIELDS`) inserted only if it was: both or neither, in one
statement. The UPDATE locks the row; a statement that waited for another transaction's lock
re-checks the version that transaction committed. Parameters: the summary, the game id, the
expected version, then the entry. The ORM equivalent (`_write_orm`), in a transaction:

    if Game.objects.filter(pk=game.pk, version=expected).update(**summary) == 1:
        GameEntry.objects.create(**entry)
"""

RECENT_APPEND_SQL = f"""
WITH changed AS ({_UPDATE_SQL}
       AND seed_commitment = %s AND status = '{Game.Status.PLAYING.value}'
       AND (next_deadline_at IS NULL OR next_deadline_at > %s)
 RETURNING id
), appended AS ({_INSERT_SQL}
 RETURNING game_id
)
SELECT {SEATS_SQL.format(game_id="appended.game_id")} FROM appended
"""
"""`APPEND_SQL` for a game as `recent` gave it rather than as read: it writes only if the row
is still at the expected version, of the game with the seed commitment given (a recreated
database reuses ids), running, and with its next deadline after the instant given (a clock
may move it without a version); and it answers the game's seats, read afresh (their
preferences say who is told of the entry), or no row if it wrote nothing. Parameters: the
summary, the game id, the expected version, the seed commitment, the instant, then the entry.
The ORM equivalent (`_write_orm`), in a transaction: `APPEND_SQL`'s filter with those
conditions added, then `_seats`.
"""


def append(loaded: Loaded, entry: NewEntry, *, expected_version: int) -> GameEntry:
    """`prepare` then `write`: the entry stored, and nothing else (no answer, no rating, no
    push): the write paths call `games.services.entries.entry_append`, which does both halves
    and decides what follows."""
    row = prepare(loaded, entry, expected_version=expected_version)
    write(loaded, row, expected_version=expected_version)
    return row


def prepare(loaded: Loaded, entry: NewEntry, *, expected_version: int) -> GameEntry:
    """Apply `entry.action` to the loaded state and make the entry it becomes, seq
    `expected_version + 1`, unsaved; the game row (unsaved too) gets its summary after it.

    Raises `VersionConflict` (loaded at another version) or the engine's `EngineError`: then
    nothing has changed, neither the state nor the row."""
    game, current = loaded.game, loaded.state
    if game.version != expected_version:
        raise VersionConflict(game.pk)
    notifications = current.apply(entry.action)
    seq = expected_version + 1
    now = timezone.now()  # one instant: the entry's, and that of the turn it may begin
    summarise(game, current, version=seq, now=now)
    return GameEntry(
        game=game,
        seq=seq,
        actor=entry.actor,
        seat=entry.seat,
        action=game.game_kind.engine.encode_action(entry.action),
        notifications=notifications,
        idempotency_key=entry.idempotency_key,
        created_at=now,
    )


def write(loaded: Loaded, row: GameEntry, *, expected_version: int, recent: bool = False) -> None:
    """Write a prepared entry and the game row's summary, if the row is still at
    `expected_version`: one statement (`APPEND_SQL`), in the caller's transaction if any.
    `recent`: `loaded` came from `recent`, not `load`: its statement (`RECENT_APPEND_SQL`)
    guards what was not read, and `loaded.seats` are read afresh with the write.

    Raises `VersionConflict` (another append came first, or for `recent` the row changed
    otherwise; nothing written), or `IntegrityError` when a unique key refuses the entry (the
    idempotency key was used before; nothing written, the caller's transaction still usable).
    Either leaves `loaded` stale: load again. Once the transaction commits, this process
    caches the state after the entry, with the row and seats as written."""
    game = loaded.game
    on_postgresql = _vendor(GameEntry) == "postgresql"
    if recent:
        write_recent = _write_recent_sql if on_postgresql else _write_recent_orm
        seats = write_recent(game, row, expected_version, timezone.now())
        if seats is None:
            raise VersionConflict(game.pk)
        loaded.seats = seats
    elif not (_write_sql if on_postgresql else _write_orm)(game, row, expected_version):
        raise VersionConflict(game.pk)
    _remember_on_commit(game, row.seq, loaded.state, loaded.seats)


def _remember_on_commit(game: Game, seq: int, current: Any, seats: list[SeatInfo]) -> None:
    # taken now: the state may be played on before the commit (a deadline, then a timeout)
    snapshot = current.frozen()
    written = (tuple(getattr(game, name) for name in _ATTNAMES), tuple(seats))
    transaction.on_commit(lambda: state.remember(game, seq, snapshot, written=written))


def _write_sql(game: Game, row: GameEntry, expected: int) -> bool:
    return _append_sql(APPEND_SQL, game, row, [game.pk, expected]) == 1


def _write_recent_sql(
    game: Game, row: GameEntry, expected: int, now: datetime
) -> list[SeatInfo] | None:
    guards = [game.pk, expected, game.seed_commitment, now]
    found = _append_sql(RECENT_APPEND_SQL, game, row, guards, answered=True)
    return None if found is None else _seat_infos(json.loads(found[0] or "[]"))


def _append_sql(sql: str, game: Game, row: GameEntry, guards: list, *, answered: bool = False):
    """`sql` executed with the summary, `guards` and the entry: the rows it wrote, or if
    `answered` the row it answered (None: none)."""
    connection = connections[router.db_for_write(GameEntry)]
    params = [_prepared(game, name, connection) for name in SUMMARY_FIELDS]
    params += guards
    params += [_prepared(row, name, connection) for name in ENTRY_FIELDS[1:]]
    # One statement is atomic on its own: in autocommit no BEGIN or COMMIT round trip. In a
    # caller's transaction, a savepoint, so that an idempotency key's refusal leaves the
    # transaction usable. An entry without a key (the server's: a timeout, a deadline) has
    # none to refuse it, and the version check rules out a seq already taken: no savepoint,
    # two round trips fewer for each timeout of a sweep's batch.
    guarded = connection.in_atomic_block and row.idempotency_key is not None
    with transaction.atomic(using=connection.alias) if guarded else nullcontext():
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if not answered:
                return cursor.rowcount
            return cursor.fetchone()


def _prepared(instance, name: str, connection):
    model_field = instance._meta.get_field(name)
    return model_field.get_db_prep_save(getattr(instance, model_field.attname), connection)


def _write_orm(game: Game, row: GameEntry, expected: int, *guards: Q) -> bool:
    summary = {name: getattr(game, name) for name in SUMMARY_FIELDS}
    with transaction.atomic(using=router.db_for_write(GameEntry)):
        if Game.objects.filter(*guards, pk=game.pk, version=expected).update(**summary) != 1:
            return False
        row.save(force_insert=True)
    return True


def _write_recent_orm(
    game: Game, row: GameEntry, expected: int, now: datetime
) -> list[SeatInfo] | None:
    guard = Q(seed_commitment=game.seed_commitment, status=Game.Status.PLAYING) & (
        Q(next_deadline_at__isnull=True) | Q(next_deadline_at__gt=now)
    )
    return _seats(game.pk) if _write_orm(game, row, expected, guard) else None


def begin(game: Game, started: Any, notifications: list[dict]) -> Loaded:
    """The log's first entry (seq 0: the setup, no action) of a game its caller has locked
    and set up, and the row's summary; cached after commit like any entry. Returns the game
    as a write path holds it (for its caller to tell the players)."""
    GameEntry.objects.create(game=game, seq=0, action=None, notifications=notifications)
    summarise(game, started, version=0)
    game.save()
    seats = _seats(game.pk)
    _remember_on_commit(game, 0, started, seats)
    return Loaded(game, seats, started)


def summarise(game: Game, current: Any, *, version: int, now: datetime | None = None) -> None:
    """The game row's summary of its log after `current`; a new turn restarts the clock.
    `now`: the time of the entry (the present if not given; bench/_history.py makes up a past)."""
    now = now or timezone.now()
    game.version = version
    game.active_seat = current.current_player()
    if current.turn != game.turn_number or game.turn_started_at is None:
        game.turn_number = current.turn
        game.turn_started_at = now
    game.deadlines_reached = game.game_kind.deadlines_reached(current)
    if current.over:
        game.status = Game.Status.ABORTED if current.aborted else Game.Status.FINISHED
        game.finished_at = now
        game.result = None if current.result is None else current.result.to_json()
    game.next_deadline_at = game.compute_next_deadline()
