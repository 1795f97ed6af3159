"""A computer opponent's entries carry the actor kind `bot` (a person's `player`), in the log
API, the export and the admin's filter; a bot table stays unrated."""

from __future__ import annotations

import pytest

from games import selectors
from games.models import Game, GameEntry, PlayerRating, RatingChange
from taxi_project import celery_app
from tests.bots.test_bot_seats import seat_players
from tests.players import play_turn


@pytest.fixture
def a_bot_game(make_player, django_capture_on_commit_callbacks):
    """A person and two bots, a few turns in (the bots' tasks run eagerly after each commit)."""
    celery_app.conf.task_always_eager = True
    try:
        ana = make_player()
        with django_capture_on_commit_callbacks(execute=True):
            body = {"players": 3, "movement": "faster", "bots": ["easy", "medium"]}
            game_id = ana.post("/api/v1/tables", body).json()["id"]
        people = seat_players(game_id, [ana])
        for _ in range(4):
            with django_capture_on_commit_callbacks(execute=True):
                play_turn(game_id, people)
    finally:
        celery_app.conf.task_always_eager = False
    return ana, game_id, people


def _kinds(entries: list[dict]) -> dict[str, set]:
    found: dict[str, set] = {}
    for entry in entries:
        found.setdefault(entry["actor"]["kind"], set()).add(entry["actor"]["seat"])
    return found


def test_bots_entries_are_of_kind_bot_and_a_person_s_of_kind_player(a_bot_game):
    ana, game_id, people = a_bot_game
    bot_seats = set(range(3)) - set(people)
    log = ana.get(f"/api/v1/games/{game_id}/log", limit=500).json()["entries"]
    kinds = _kinds(log)
    assert kinds["bot"] == bot_seats and kinds["player"] == set(people)
    assert kinds["server"] == {None}  # the setup
    export = ana.get(f"/api/v1/games/{game_id}/export").json()
    assert _kinds(export["entries"]) == kinds
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()


def test_the_admin_filters_the_log_by_actor_kind(a_bot_game, admin_client):
    _ana, game_id, people = a_bot_game
    entries = GameEntry.objects.filter(game_id=game_id)
    by_bots = entries.exclude(seat__in=list(people)).exclude(seat__isnull=True)
    for kind, expected in (
        ("bot", by_bots.count()),
        ("player", entries.filter(seat__in=list(people)).count()),
        ("server", entries.filter(actor__isnull=True).count()),
    ):
        answer = admin_client.get(f"/admin/games/gameentry/?game__id={game_id}&actor_kind={kind}")
        assert answer.status_code == 200
        assert answer.context["cl"].result_count == expected > 0, kind
    game = Game.objects.get(pk=game_id)
    assert selectors.entries_by_actor_kind(entries, "moderator").count() == 0
    assert selectors.bot_seats(game) == frozenset(set(range(3)) - set(people))
