"""The game repository (games/repository.py): its two hand-written statements read and write
exactly what their ORM equivalents do, and they name every column of the models they touch,
so a field added to Game or GameEntry cannot silently skip the move path."""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from games import engine, repository, state
from games.models import Game, GameEntry
from tests.players import autopilot_choice, seat_players, start_game

SKIPPED_ON_APPEND = {"id", "game", "created_at"}  # the row's own id; the game; the clock


def _played(make_player, moves: int) -> int:
    players = [make_player(), make_player()]
    game_id = start_game(players, movement="fast", clock="24h")
    by_seat = seat_players(game_id, players)
    for version in range(moves):
        game = Game.objects.get(pk=game_id)
        answer = by_seat[game.active_seat].move(game_id, autopilot_choice(game_id), version)
        assert answer.status_code == 201, answer.json()
    return game_id


def test_the_statements_name_every_column_of_their_models():
    entry_columns = {f.column for f in GameEntry._meta.concrete_fields} - {"id"}
    for append in (repository.APPEND_SQL, repository.RECENT_APPEND_SQL):
        for column in entry_columns:
            assert column in append, column
        for name in repository.SUMMARY_FIELDS:
            assert f"{Game._meta.get_field(name).column} = " in append
    assert {GameEntry._meta.get_field(n).column for n in repository.ENTRY_FIELDS} == entry_columns
    assert Game._meta.db_table in repository.LOAD_SQL
    assert GameEntry._meta.db_table in repository.APPEND_SQL


@pytest.mark.postgres
def test_load_sql_returns_what_the_orm_does(make_player):
    game_id = _played(make_player, 7)
    for after in (0, 3, 7):
        found = list(Game.objects.raw(repository.LOAD_SQL, [after, game_id]))[0]
        orm_game, orm_seats, orm_actions = repository._load_orm(game_id, after)
        fields = [f.attname for f in Game._meta.concrete_fields]
        assert [getattr(found, f) for f in fields] == [getattr(orm_game, f) for f in fields]
        sql_game, sql_seats, sql_actions = repository._load_sql(game_id, after)
        assert [getattr(sql_game, f) for f in fields] == [getattr(orm_game, f) for f in fields]
        assert sql_game._state.adding is False and sql_game._state.db == orm_game._state.db
        assert sorted(sql_seats, key=lambda s: s.seat) == sorted(orm_seats, key=lambda s: s.seat)
        assert sql_actions == orm_actions
        assert json.loads(found.actions_json or "[]") == orm_actions
        assert len(orm_actions) == 7 - after


@pytest.mark.postgres
def test_append_sql_writes_the_rows_the_orm_writes(make_player):
    """The same action appended to two games at the same point, one by `APPEND_SQL`, the
    other by the ORM: the same game rows and log entries, but for ids and clocks."""
    ids = [_played(make_player, 0), _played(make_player, 0)]
    for game_id in ids:  # both games in the same state: the second replays the first's seed
        Game.objects.filter(pk=game_id).update(
            seed=Game.objects.get(pk=ids[0]).seed, seed_commitment=f"c{game_id}"
        )
    state.forget_all()
    rows = []
    for game_id, write in zip(ids, (repository._write_sql, repository._write_orm), strict=True):
        loaded = repository.load(game_id)
        seat = loaded.state.current_player()
        action = engine.autopilot_action(loaded.state)
        loaded.state.apply(action)
        repository.summarise(loaded.game, loaded.state, version=1)
        row = GameEntry(
            game=loaded.game, seq=1, actor_id=loaded.seats[0].user_id, seat=seat,
            action=engine.encode_action(action), notifications=[{"type": "x", "seat": seat}],
            idempotency_key=f"key-{game_id}", response={"seq": 1, "n": None},
        )  # fmt: skip
        row.created_at = timezone.now()
        with transaction.atomic():
            assert write(loaded.game, row, 0) is True
        with transaction.atomic():
            assert write(loaded.game, row, 0) is False  # not at version 0 any more
        rows.append(
            (
                Game.objects.filter(pk=game_id).values(*repository.SUMMARY_FIELDS).get(),
                GameEntry.objects.filter(game_id=game_id, seq=1)
                .values(*(set(repository.ENTRY_FIELDS) - SKIPPED_ON_APPEND - {"actor"}))
                .get(),
            )
        )
    (sql_game, sql_entry), (orm_game, orm_entry) = rows
    for clock in ("turn_started_at", "next_deadline_at", "finished_at"):
        sql_game.pop(clock), orm_game.pop(clock)
    sql_entry["idempotency_key"] = orm_entry["idempotency_key"] = None
    assert sql_game == orm_game and sql_game["version"] == 1
    assert sql_entry == orm_entry


@pytest.mark.postgres
def test_a_refused_append_leaves_the_callers_transaction_usable(make_player):
    """An idempotency key used before refusing the entry inside a caller's transaction rolls
    back only the append: the transaction goes on (the mover is answered the earlier entry's
    answer). Server entries have no key: the version check alone keeps their seq free."""
    game_id = _played(make_player, 1)
    first = GameEntry.objects.get(game_id=game_id, seq=1)
    with transaction.atomic():
        loaded = repository.load(game_id, lock=True)
        row = GameEntry(
            game=loaded.game, seq=2, notifications=[], action=first.action, actor=first.actor,
            seat=first.seat, idempotency_key=first.idempotency_key,
        )  # fmt: skip
        row.created_at = timezone.now()
        with pytest.raises(IntegrityError):
            repository._write_sql(loaded.game, row, 1)
        assert Game.objects.filter(pk=game_id).exists()  # the transaction still answers
    assert connection.is_usable()
    assert Game.objects.get(pk=game_id).version == 1


def test_append_refuses_a_version_it_was_not_loaded_at(make_player):
    game_id = _played(make_player, 2)
    loaded = repository.load(game_id)
    entry = repository.NewEntry(engine.Timeout(loaded.state.current_player()))
    with pytest.raises(repository.VersionConflict):
        repository.append(loaded, entry, expected_version=1)
    assert GameEntry.objects.filter(game_id=game_id).count() == 3


def test_an_engine_refusal_writes_nothing_and_leaves_the_state_as_it_was(make_player):
    game_id = _played(make_player, 2)
    loaded = repository.load(game_id)
    before = loaded.state.clone()
    other = 1 - loaded.state.current_player()
    with pytest.raises(engine.EngineError):
        repository.append(loaded, repository.NewEntry(engine.Stop(other)), expected_version=2)
    assert loaded.state == before
    assert Game.objects.get(pk=game_id).version == 2


def test_load_of_a_missing_game(db):
    with pytest.raises(repository.GameNotFound):
        repository.load(10**12)
    with pytest.raises(repository.GameNotFound):
        repository.load(10**30)  # more than a bigint holds
