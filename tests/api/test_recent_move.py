"""A move on the game as this process last appended it skips the read (`repository.recent`,
`moves._submit_recent`), and answers exactly as a move that reads: every guard the skipped
read stood for is checked by the write, and anything but a plain acceptance is decided on the
game as read."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import engine, repository, state
from games.models import Game, GameEntry
from games.services import entries
from tests.players import autopilot_choice, seat_players, start_game


@pytest.fixture
def game(make_player, django_capture_on_commit_callbacks):
    """A running game with a turn clock, two players by seat, and `move(version, …)`, which
    commits as a server does (so this process keeps what it appended)."""
    players = [make_player(), make_player()]
    game_id = start_game(players, movement="fast", clock="24h")
    by_seat = seat_players(game_id, players)

    class Running:
        id = game_id
        seats = by_seat

        @staticmethod
        def row() -> Game:
            return Game.objects.get(pk=game_id)

        @staticmethod
        def move(version: int, action: dict | None = None, key: str | None = None, seat=None):
            row = Game.objects.get(pk=game_id)
            player = by_seat[row.active_seat if seat is None else seat]
            with django_capture_on_commit_callbacks(execute=True):
                return player.move(game_id, action or autopilot_choice(game_id), version, key)

    state.forget_all()
    return Running


def _accepted(response) -> dict:
    assert response.status_code == 201, response.json()
    return response.json()


def _log(game_id: int) -> list:
    return list(GameEntry.objects.filter(game_id=game_id).order_by("seq").values_list("action"))


def test_the_next_move_on_the_process_that_appended_the_last_skips_the_read(
    game, django_capture_on_commit_callbacks
):
    _accepted(game.move(0))  # read: nothing of this game appended here yet
    assert repository.recent(game.id, 1) is not None and repository.recent(game.id, 0) is None
    player, action = game.seats[game.row().active_seat], autopilot_choice(game.id)
    with django_capture_on_commit_callbacks(execute=True):  # after the requests' statements
        with CaptureQueriesContext(connection) as queries:
            answer = _accepted(player.move(game.id, action, 1))
    sent = [q["sql"].strip() for q in queries if "SAVEPOINT" not in q["sql"]]
    # the device token with its user, then the write, nothing else
    assert "accounts_devicetoken" in sent[0], sent
    if connection.vendor == "postgresql":
        assert len(sent) == 2 and sent[1].startswith("WITH changed AS"), sent
        assert "appended" in sent[1] and "games_seat" in sent[1]
    else:
        assert [sql.split()[0] for sql in sent[1:]] == ["UPDATE", "INSERT", "SELECT"], sent
    row = game.row()
    assert answer["version"] == row.version == 2
    assert state.state_for(row) == state.replay_from_log(row)
    assert repository.recent(game.id, 2).game.version == 2


def test_a_move_another_process_made_since_sends_the_stale_client_to_the_read(game):
    """The game moved on elsewhere (here: a move whose commit this process did not see): a
    client at the old version is told 409 `stale_version` as by a read, even for an action
    that was illegal, and its retry of a move that was made gets the first answer."""
    _accepted(game.move(0))
    key = "moved-elsewhere"
    action = autopilot_choice(game.id)
    seat = game.row().active_seat
    first = game.seats[seat].move(game.id, action, 1, key)  # its commit unseen: cache at 1
    assert first.status_code == 201 and repository.recent(game.id, 1) is not None
    log = _log(game.id)

    stale = game.move(1, seat=seat)
    assert stale.status_code == 409 and stale.json()["code"] == "stale_version"
    assert stale.json()["current_version"] == 2
    illegal = game.move(1, {"type": "no such action"}, seat=seat)
    assert illegal.status_code == 409 and illegal.json()["code"] == "stale_version"
    retry = game.move(1, action, key, seat=seat)
    assert retry.status_code == 200 and retry.json() == first.json()
    assert _log(game.id) == log and game.row().version == 2


def test_a_deadline_a_clock_moved_without_a_version_is_fired_first(game):
    """A clock may move a game's next deadline without appending (a late bot, a retry): the
    write refuses a game whose deadline has passed, and the read fires it, as for any move."""
    _accepted(game.move(0))
    now = timezone.now()
    Game.objects.filter(pk=game.id).update(
        next_deadline_at=now - timedelta(seconds=1), turn_started_at=now - timedelta(days=2)
    )
    answer = game.move(1)
    assert answer.status_code == 409 and answer.json()["code"] == "stale_version"
    timeout = GameEntry.objects.get(game_id=game.id, seq=2)
    assert timeout.actor_id is None and timeout.action["type"] == "timeout"


@pytest.mark.parametrize(
    "changed",
    [
        {"seed_commitment": "another game under the same id"},
        {"status": Game.Status.ABORTED},
        {"next_deadline_at": timezone.now() - timedelta(seconds=1)},
        {"version": 2},
    ],
    ids=["recreated", "not running", "deadline passed", "moved on"],
)
@pytest.mark.parametrize(
    "writer", [pytest.param("_write_recent_sql", marks=pytest.mark.postgres), "_write_recent_orm"]
)
def test_the_recent_write_refuses_a_row_that_changed(game, changed, writer, monkeypatch):
    """What the skipped read would have seen, the write checks (`RECENT_APPEND_SQL` and its
    ORM equivalent): a row changed in any of these ways gets nothing written."""
    _accepted(game.move(0))
    recent = repository.recent(game.id, 1)
    Game.objects.filter(pk=game.id).update(**changed)
    if writer == "_write_recent_orm":
        monkeypatch.setattr(repository, "_write_recent_sql", repository._write_recent_orm)
    seat = recent.state.current_player()
    entry = repository.NewEntry(engine.autopilot_action(recent.state), seat=seat)
    with pytest.raises(repository.VersionConflict):
        entries.entry_append(recent, entry, expected_version=1, recent=True)
    assert GameEntry.objects.filter(game_id=game.id).count() == 2


@pytest.mark.parametrize(
    "writer", [pytest.param("_write_recent_sql", marks=pytest.mark.postgres), "_write_recent_orm"]
)
def test_the_recent_write_reads_the_seats_afresh(game, writer, monkeypatch):
    """Who is told of an entry follows the players' preferences as they are when it is
    written, not as this process last knew them."""
    monkeypatch.setattr(repository, "_write_recent_sql", getattr(repository, writer))
    for player in game.seats.values():
        player.user.email, player.user.email_on_turn = f"{player.user.username}@example.com", True
        player.user.save(update_fields=["email", "email_on_turn"])
    _accepted(game.move(0))
    recent = repository.recent(game.id, 1)
    assert all(seat.email_on_turn for seat in recent.seats if seat.seat is not None)
    for player in game.seats.values():
        player.user.email_on_turn = False
        player.user.save(update_fields=["email_on_turn"])
    seat = recent.state.current_player()
    entry = repository.NewEntry(engine.autopilot_action(recent.state), seat=seat)
    written = entries.entry_append(recent, entry, expected_version=1, recent=True)
    assert written.seq == 2 and game.row().version == 2
    assert sorted(recent.seats, key=lambda s: s.seat) == sorted(
        repository.load(game.id).seats, key=lambda s: s.seat
    )
    assert not any(seat.email_on_turn for seat in recent.seats)
