"""Archived logs (games/archive.py): a finished game's entries compacted into one
compressed row, and every reader of the log answering exactly as before."""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.utils import timezone

from games import archive, db_guards, log, state
from games.models import Game, GameArchive, GameEntry
from tests.players import (
    Player,
    finished_by_autopilot,
    finished_game,
    play_turn,
    seat_players,
    start_game,
)

pytestmark = pytest.mark.django_db

COLUMNS = [f.attname for f in GameEntry._meta.concrete_fields if f.attname != "id"]


def stored_rows(game_id: int) -> list[dict]:
    """Every column of every entry as the readers get it (rows or archive)."""
    game = Game.objects.get(pk=game_id)
    return [{name: getattr(e, name) for name in COLUMNS} for e in log.since(game)]


def run(command: str, *args: str) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def _shared(module_db) -> tuple[list[Player], int]:
    """Three players and a game they finished over HTTP (shift changes: S6), once per module:
    each test's archiving is rolled back after it (module_db)."""
    with module_db():
        players = [Player(), Player(), Player()]
        return players, finished_game(players, shift_change=True)


@pytest.fixture
def players(_shared) -> list[Player]:
    return _shared[0]


@pytest.fixture
def finished(_shared) -> int:
    return _shared[1]


# what differs between two renderings of one page: the CSRF token (masked anew each time) and
# the CSP nonce
per_request = re.compile(rb'(name="csrfmiddlewaretoken" value|nonce)="[^"]*"')


def everything_a_reader_sees(game_id: int, player: Player, admin_client) -> dict:
    """The answers of every reader of a finished game's log."""
    state.forget_all()  # replay from the stored log, not from this process's cache
    browser = Client()
    browser.force_login(player.user)
    game = Game.objects.get(pk=game_id)
    seen = {
        "view": player.get(f"/api/v1/games/{game_id}").json(),
        "export": player.get(f"/api/v1/games/{game_id}/export").json(),
        "export_ndjson": player.get(f"/api/v1/games/{game_id}/export", **{"as": "ndjson"}).content,
        "log_page": player.get(f"/api/v1/games/{game_id}/log", after=3, limit=7).json(),
        "verify": run("verify_games"),
    }
    for seq in (0, 1, game.version // 2, game.version):
        replay = browser.get(f"/games/{game_id}/replay", {"seq": seq})
        admin = admin_client.get(f"/admin/games/game/{game_id}/replay/", {"seq": seq})
        assert replay.status_code == admin.status_code == 200
        seen[f"replay_{seq}"] = per_request.sub(b"", replay.content)
        seen[f"admin_{seq}"] = per_request.sub(b"", admin.content)
    return seen


def test_an_archived_game_reads_exactly_as_before_everywhere(finished, players, admin_client):
    before_rows = stored_rows(finished)
    before = everything_a_reader_sees(finished, players[0], admin_client)

    out = run("archive_games", "--game", str(finished))

    assert not GameEntry.objects.filter(game_id=finished).exists()
    stored = GameArchive.objects.get(game_id=finished)
    assert stored.entries == len(before_rows) == Game.objects.get(pk=finished).version + 1
    assert "1 games archived" in out
    assert stored_rows(finished) == before_rows  # every column of every entry
    after = everything_a_reader_sees(finished, players[0], admin_client)
    for name, answer in before.items():
        assert after[name] == answer, name


def test_the_archive_is_several_times_smaller_than_the_rows_json(finished):
    done = archive.archive_game(finished)
    assert done.entries > 50
    assert done.bytes_before / done.bytes_after >= 5


def test_a_running_game_or_an_archived_one_is_not_archived(players, finished):
    running = start_game(players[:2], movement="faster")
    play_turn(running, seat_players(running, players[:2]))
    with pytest.raises(archive.NotArchivable):
        archive.archive_game(running)
    archive.archive_game(finished)
    with pytest.raises(archive.NotArchivable):
        archive.archive_game(finished)
    with pytest.raises(CommandError):
        run("archive_games", "--game", str(running))
    assert GameEntry.objects.filter(game_id=running).exists()


def test_only_games_over_for_the_configured_days_are_due(players):
    old, recent = finished_by_autopilot(players[:2]), finished_by_autopilot(players[1:])
    Game.objects.filter(pk=old).update(finished_at=timezone.now() - timedelta(days=31))

    assert archive.due(days=30) == [old]
    run("archive_games", "--days", "30")
    assert GameArchive.objects.filter(game_id=old).exists()
    assert not GameArchive.objects.filter(game_id=recent).exists()
    assert archive.due(days=30) == []


def test_the_log_still_refuses_deleting_entries_no_archive_covers(finished):
    """STYLE 2: below the ORM, a DELETE of log rows passes only once an archive row holds them."""
    with pytest.raises(DatabaseError), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM games_gameentry WHERE game_id = %s", [finished])
    assert GameEntry.objects.filter(game_id=finished).count() > 0


def test_archive_rows_are_append_only(finished):
    archive.archive_game(finished)
    for sql in (
        "UPDATE games_gamearchive SET entries = 1 WHERE game_id = %s",
        "DELETE FROM games_gamearchive WHERE game_id = %s",
    ):
        with pytest.raises(DatabaseError), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(sql, [finished])
    assert GameArchive.objects.get(game_id=finished).entries > 1


def test_verify_games_names_a_damaged_archive(finished):
    archive.archive_game(finished)
    assert "0 differ" in run("verify_games")
    db_guards.uninstall(connection, "games_gamearchive")  # what only an attacker with SQL can do
    try:
        stored = GameArchive.objects.get(game_id=finished)
        GameArchive.objects.filter(game_id=finished).update(data=bytes(stored.data)[:-1] + b"x")
    finally:
        db_guards.install(connection, "games_gamearchive")
    with pytest.raises(CommandError):
        run("verify_games")
