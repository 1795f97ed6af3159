"""'Your turn' by e-mail, for players who opted in, only while the game still waits on them."""

import pytest
from django.core import mail

from games.models import Game
from games.services import notifications
from taxi_project import celery_app
from tests.players import play_turn, seat_players, start_game


@pytest.fixture
def eager_tasks():
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


def test_a_player_who_opted_in_gets_one_mail_per_turn(
    make_player, eager_tasks, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    game_id = start_game(players, clock="24h")
    by_seat = seat_players(game_id, players)
    waiting = by_seat[1 - Game.objects.get(pk=game_id).active_seat]
    answer = waiting.client.patch(
        "/api/v1/me", {"email": "ana@example.com", "email_on_turn": True}, format="json"
    )
    assert answer.status_code == 200 and answer.json()["email_on_turn"] is True
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)  # several requests, one new turn for the waiting player
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ana@example.com"] and str(game_id) in message.subject
    assert "runs out" in message.body
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)  # the opted-in player's own turn: no mail to the other
    assert len(mail.outbox) == 1


def test_no_mail_without_opting_in(make_player, eager_tasks, django_capture_on_commit_callbacks):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    for player in players:
        player.client.patch("/api/v1/me", {"email": "x@example.com"}, format="json")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, seat_players(game_id, players))
    assert mail.outbox == []


def test_a_late_mail_task_sends_nothing_once_the_game_moved_on(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    active = Game.objects.get(pk=game_id).active_seat
    by_seat[active].user.email = "late@example.com"
    by_seat[active].user.email_on_turn = True
    by_seat[active].user.save()
    assert notifications.turn_email_send(
        user_id=by_seat[active].user.pk, game_id=game_id, version=0
    )
    play_turn(game_id, by_seat)
    mail.outbox.clear()
    assert not notifications.turn_email_send(
        user_id=by_seat[active].user.pk, game_id=game_id, version=0
    )
    assert mail.outbox == []
