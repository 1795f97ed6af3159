"""Reports come only from the game's players and spectators (who opened its
socket), once per target, and at most REPORTS_PER_HOUR an hour per reporter."""

from __future__ import annotations

import pytest

from games import moderation
from games.models import ChatMessage, Report
from games.services import chat
from tests.players import seat_players, start_game


@pytest.fixture
def game(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    return game_id, seat_players(game_id, players)


def report(player, game_id, **target):
    return player.post(f"/api/v1/games/{game_id}/reports", {"reason": "rude", **target})


def test_a_stranger_cannot_report_from_a_game(game, make_player):
    game_id, by_seat = game
    stranger = make_player()
    answers = [report(stranger, game_id, reported_user=by_seat[0].user.pk) for _ in range(60)]
    assert {a.status_code for a in answers} == {403}
    assert answers[0].json()["code"] == "report_not_allowed"
    assert Report.objects.count() == 0


def test_a_spectator_who_watched_may_report_a_chat_line(game, make_player):
    game_id, by_seat = game
    watcher = make_player()
    line = chat.chat_post(game_id=game_id, user=by_seat[0].user, text="rude words")
    moderation.spectator_seen(game_id=game_id, user=watcher.user)  # as the socket records it
    answer = report(watcher, game_id, chat_message=line.pk)
    assert answer.status_code == 201, answer.json()
    assert Report.objects.get().chat_message == line


def test_once_per_target(game):
    game_id, by_seat = game
    first = report(by_seat[0], game_id, reported_user=by_seat[1].user.pk)
    again = report(by_seat[0], game_id, reported_user=by_seat[1].user.pk)
    assert first.status_code == 201 and again.status_code == 409
    assert again.json()["code"] == "report_duplicate"
    assert Report.objects.count() == 1


def test_reports_are_rate_limited_per_reporter(game):
    game_id, by_seat = game
    lines = [  # written as the chat service writes them, without its own rate limit
        ChatMessage.objects.create(game_id=game_id, author=by_seat[1].user, seat=1, text=f"{i}")
        for i in range(moderation.REPORTS_PER_HOUR + 1)
    ]
    answers = [report(by_seat[0], game_id, chat_message=line.pk) for line in lines]
    assert [a.status_code for a in answers[:-1]] == [201] * moderation.REPORTS_PER_HOUR
    assert answers[-1].status_code == 429 and answers[-1].json()["code"] == "report_rate_limited"
