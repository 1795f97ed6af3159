"""One "your turn" per turn by Web Push and by e-mail: a task delivered twice (a redelivery,
a retry after a send that did happen, two nodes) tells the player once; a send that failed
is tried again by its retry."""

from __future__ import annotations

import pytest
from django.core import mail

from games.models import Game
from games.services import notifications
from games.tasks import push_notify
from tests.players import play_turn, seat_players, start_game
from tests.push.conftest import subscribe

pytestmark = pytest.mark.usefixtures("eager_tasks")


def test_a_your_turn_push_task_run_twice_pushes_once(make_player, endpoint):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    active = seat_players(game_id, players)[Game.objects.get(pk=game_id).active_seat]
    subscribe(active, endpoint)
    version = Game.objects.get(pk=game_id).version
    assert push_notify.delay("your_turn", game_id, [active.user.pk], version).get() == 1
    assert push_notify.delay("your_turn", game_id, [active.user.pk], version).get() == 0
    assert [p["type"] for p in endpoint.payloads()] == ["your_turn"]


def test_five_turns_five_pushes_and_five_mails_each_task_run_twice(
    make_player, endpoint, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    game_id = start_game(players, clock="24h")
    by_seat = seat_players(game_id, players)
    me = by_seat[1 - Game.objects.get(pk=game_id).active_seat]
    me.client.patch("/api/v1/me", {"email": "me@example.com", "email_on_turn": True}, format="json")
    subscribe(me, endpoint)
    mail.outbox.clear()
    for _ in range(10):  # five turns of mine
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            play_turn(game_id, by_seat)
        for callback in callbacks:  # every commit's work done again: a redelivery
            callback()
    mine = [m for m in mail.outbox if m.to == ["me@example.com"]]
    assert len(mine) == 5
    assert [p["type"] for p in endpoint.payloads()].count("your_turn") == 5


def test_a_mail_that_failed_to_send_is_sent_by_its_retry(make_player, monkeypatch):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    game = Game.objects.get(pk=game_id)
    user = seat_players(game_id, players)[game.active_seat].user
    user.email, user.email_on_turn = "retry@example.com", True
    user.save()
    real_send = notifications.send_mail

    def fails_once(*args, **kwargs):
        monkeypatch.setattr(notifications, "send_mail", real_send)
        raise OSError("the mail server hung up")

    monkeypatch.setattr(notifications, "send_mail", fails_once)
    mail.outbox.clear()
    send = {"user_id": user.pk, "game_id": game_id, "version": game.version}
    with pytest.raises(OSError):
        notifications.turn_email_send(**send)
    assert notifications.turn_email_send(**send)  # the retry
    assert not notifications.turn_email_send(**send)  # and a redelivery after it
    assert len(mail.outbox) == 1
