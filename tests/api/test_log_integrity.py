"""The log under concurrency and tampering: one winner per version, no gaps, no rewrites."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.db import DatabaseError, connection, connections, transaction

from games.models import AppendOnlyError, Game, GameEntry
from tests.players import Player, autopilot_choice, seat_players, start_game


def test_twenty_parallel_submissions_against_one_version_one_wins(committed_db):
    players = [Player(), Player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    mover = by_seat[Game.objects.get(pk=game_id).active_seat]
    action = autopilot_choice(game_id)
    barrier = threading.Barrier(20)
    results: list[tuple[int, dict]] = []
    lock = threading.Lock()

    def submit():
        try:
            barrier.wait()
            response = mover.move(game_id, action, 0, key=uuid.uuid4().hex)
            with lock:
                results.append((response.status_code, response.json()))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(status for status, _ in results)
    assert statuses == [201] + [409] * 19, results
    assert {body["code"] for status, body in results if status == 409} == {"stale_version"}
    seqs = list(GameEntry.objects.filter(game_id=game_id).values_list("seq", flat=True))
    assert seqs == [0, 1]
    assert Game.objects.get(pk=game_id).version == 1


def test_parallel_games_keep_gapless_logs(committed_db):
    """Two games, each moved by its own players in threads, many moves each."""
    games = []
    for _ in range(2):
        players = [Player(), Player()]
        game_id = start_game(players)
        games.append((game_id, seat_players(game_id, players)))

    def play(game_id, by_seat):
        try:
            for _ in range(25):
                game = Game.objects.get(pk=game_id)
                if game.status != "playing":
                    break
                response = by_seat[game.active_seat].move(
                    game_id, autopilot_choice(game_id), game.version
                )
                assert response.status_code == 201, response.json()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=play, args=game) for game in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for game_id, _ in games:
        game = Game.objects.get(pk=game_id)
        seqs = list(GameEntry.objects.filter(game_id=game_id).values_list("seq", flat=True))
        assert seqs == list(range(game.version + 1)) and game.version >= 25


@pytest.fixture
def logged_game(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    by_seat[Game.objects.get(pk=game_id).active_seat].move(game_id, autopilot_choice(game_id), 0)
    return game_id


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE games_gameentry SET notifications = '[]' WHERE game_id = %s",
        "UPDATE games_gameentry SET seq = seq + 100 WHERE game_id = %s",
        "DELETE FROM games_gameentry WHERE game_id = %s",
    ],
)
def test_the_database_refuses_to_change_or_delete_log_rows(logged_game, sql):
    with pytest.raises(DatabaseError, match="append-only"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [logged_game])
    assert GameEntry.objects.filter(game_id=logged_game).count() == 2


def test_the_orm_refuses_too(logged_game):
    entry = GameEntry.objects.get(game_id=logged_game, seq=1)
    entry.notifications = []
    with pytest.raises(AppendOnlyError):
        entry.save()
    with pytest.raises(AppendOnlyError):
        entry.delete()
    with pytest.raises(DatabaseError, match="append-only"):
        with transaction.atomic():
            GameEntry.objects.filter(game_id=logged_game).update(seat=None)
    with pytest.raises(DatabaseError, match="append-only"):
        with transaction.atomic():
            GameEntry.objects.filter(game_id=logged_game).delete()


def test_a_second_row_for_the_same_seq_is_refused(logged_game):
    with pytest.raises(DatabaseError):
        with transaction.atomic():
            GameEntry.objects.create(game_id=logged_game, seq=1, notifications=[])


@pytest.mark.postgres
def test_triggers_are_installed_on_postgresql(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = 'games_gameentry'::regclass "
            "AND NOT tgisinternal"
        )
        assert cursor.fetchall() == [("games_gameentry_append_only",)]
