"""Moderation through the admin pages: each action, its effect on the game or the player, its
audit record; the moderators group's permissions."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.db import DatabaseError, transaction
from rest_framework.test import APIClient

from games.models import AppendOnlyError, ChatMessage, Game, GameEntry, ModerationAction, Report
from games.services import chat
from tests.players import Player, play_turn, seat_players, start_game


@pytest.fixture
def moderator(db):
    person = Player("mod")
    person.user.is_staff = True
    person.user.save()
    person.user.groups.add(Group.objects.get(name="moderators"))
    from django.test import Client

    client = Client()
    client.force_login(person.user)
    person.admin = client
    return person


@pytest.fixture
def game(make_player):
    players = [make_player(), make_player(), make_player()]
    game_id = start_game(players)
    return game_id, players, seat_players(game_id, players)


def last_notifications(game_id):
    return GameEntry.objects.filter(game_id=game_id).order_by("-seq").first().notifications


def test_moderators_group_holds_exactly_view_and_moderate(db):
    group = Group.objects.get(name="moderators")
    codenames = sorted(p.codename for p in group.permissions.all())
    assert codenames == sorted([
        "moderate", "view_user", "view_game", "view_seat", "view_gameentry",
        "view_chatmessage", "view_report", "view_moderationaction",
    ])  # fmt: skip


def test_moderator_sees_the_lists_and_filters(moderator, game):
    for url in (
        "/admin/accounts/user/", "/admin/accounts/user/?access=banned", "/admin/games/game/",
        "/admin/games/game/?status__exact=playing", "/admin/games/gameentry/",
        "/admin/games/chatmessage/", "/admin/games/report/?status__exact=open",
        "/admin/games/moderationaction/",
    ):  # fmt: skip
        assert moderator.admin.get(url).status_code == 200, url


def test_moderator_cannot_change_or_delete_log_rows_or_users(moderator, game):
    game_id, _, _ = game
    entry = GameEntry.objects.get(game_id=game_id, seq=0)
    assert (
        moderator.admin.post(
            f"/admin/games/gameentry/{entry.pk}/delete/", {"post": "yes"}
        ).status_code
        == 403
    )
    assert moderator.admin.post(f"/admin/games/gameentry/{entry.pk}/change/", {}).status_code == 403
    user = Game.objects.get(pk=game_id).created_by
    assert (
        moderator.admin.post(f"/admin/accounts/user/{user.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert GameEntry.objects.filter(pk=entry.pk).exists()


def test_a_player_cannot_reach_the_admin(make_player):
    player = make_player()
    from django.test import Client

    client = Client()
    client.force_login(player.user)
    response = client.get("/admin/games/game/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_abort_a_game(moderator, game):
    game_id, _, _ = game
    page = moderator.admin.get(f"/admin/games/game/{game_id}/moderate/")
    assert page.status_code == 200 and b"reason" in page.content
    refused = moderator.admin.post(f"/admin/games/game/{game_id}/moderate/", {"action": "abort"})
    assert refused.status_code == 200 and Game.objects.get(pk=game_id).status == "playing"
    done = moderator.admin.post(
        f"/admin/games/game/{game_id}/moderate/", {"action": "abort", "reason": "cheating ring"}
    )
    assert done.status_code == 302
    game_row = Game.objects.get(pk=game_id)
    assert game_row.status == "aborted" and game_row.result is None
    assert last_notifications(game_id) == [{"type": "game_aborted", "reason": "cheating ring"}]
    entry = GameEntry.objects.filter(game_id=game_id).order_by("-seq").first()
    assert entry.actor == moderator.user and entry.seat is None
    record = ModerationAction.objects.get()
    assert (record.kind, record.moderator, record.game_id, record.reason) == (
        "game_abort",
        moderator.user,
        game_id,
        "cheating ring",
    )


def test_hand_a_seat_to_the_autopilot_and_back(moderator, game):
    game_id, _, by_seat = game
    url = f"/admin/games/game/{game_id}/moderate/"
    moderator.admin.post(url, {"action": "zombify", "seat": 2, "reason": "away"})
    assert {"type": "seat_zombified", "seat": 2, "reason": "moderator"} in last_notifications(
        game_id
    )
    for _ in range(3):
        game_row = Game.objects.get(pk=game_id)
        assert game_row.active_seat != 2  # the autopilot plays seat 2 at once
        play_turn(game_id, by_seat)
    moderator.admin.post(url, {"action": "restore", "seat": 2, "reason": "back"})
    assert {"type": "seat_restored", "seat": 2} in last_notifications(game_id)
    twice = moderator.admin.post(url, {"action": "restore", "seat": 2, "reason": "again"})
    assert twice.status_code == 200 and b"not played by the autopilot" in twice.content
    assert [r.kind for r in ModerationAction.objects.order_by("pk")] == [
        "seat_zombify",
        "seat_restore",
    ]


def test_suspend_refuses_the_player_everywhere_and_hands_running_seats_to_the_autopilot(
    moderator, game
):
    game_id, players, by_seat = game
    target = by_seat[1]
    done = moderator.admin.post(
        f"/admin/accounts/user/{target.user.pk}/moderate/",
        {"action": "suspend", "hours": 48, "reason": "abuse in chat"},
    )
    assert done.status_code == 302
    target.user.refresh_from_db()
    assert target.user.suspended_until is not None
    refused = target.get("/api/v1/me")
    assert refused.status_code == 403 and refused.json()["code"] == "account_suspended"
    login = APIClient().post(
        "/api/v1/auth/login", {"username": target.user.username, "password": "x"}, format="json"
    )
    assert login.json()["code"] in ("invalid_credentials", "account_suspended")
    assert {"type": "seat_zombified", "seat": 1, "reason": "moderator"} in [
        n for e in GameEntry.objects.filter(game_id=game_id) for n in e.notifications
    ]
    record = ModerationAction.objects.get(kind="user_suspend")
    assert record.user == target.user and record.details["games_to_autopilot"] == [game_id]
    moderator.admin.post(
        f"/admin/accounts/user/{target.user.pk}/moderate/", {"action": "lift", "reason": "ok"}
    )
    assert target.get("/api/v1/me").status_code == 200


def test_ban(moderator, game):
    _, _, by_seat = game
    moderator.admin.post(
        f"/admin/accounts/user/{by_seat[0].user.pk}/moderate/", {"action": "ban", "reason": "bot"}
    )
    assert by_seat[0].get("/api/v1/me").json()["code"] == "account_banned"


def test_hide_a_chat_message_and_close_a_report(moderator, game):

    game_id, _, by_seat = game
    message = chat.chat_post(game_id=game_id, user=by_seat[0].user, text="rude words")
    reported = by_seat[1].post(
        f"/api/v1/games/{game_id}/reports", {"reason": "insulted me", "chat_message": message.pk}
    )
    assert reported.status_code == 201
    report = Report.objects.get()
    assert report.reported_user == by_seat[0].user and report.status == "open"
    assert moderator.admin.get("/admin/games/report/").content.count(b"Close with a note") == 1
    hidden = moderator.admin.post(
        f"/admin/games/chatmessage/{message.pk}/hide/", {"reason": "insult"}
    )
    assert hidden.status_code == 302
    assert ChatMessage.objects.get(pk=message.pk).hidden_at is not None
    assert by_seat[2].get(f"/api/v1/games/{game_id}/chat").json() == []
    moderator.admin.post(f"/admin/games/report/{report.pk}/close/", {"reason": "message hidden"})
    report.refresh_from_db()
    assert report.status == "closed" and report.resolution == "message hidden"
    assert report.closed_by == moderator.user
    assert [r.kind for r in ModerationAction.objects.order_by("pk")] == [
        "chat_hide",
        "report_close",
    ]


def test_reports_are_validated(game):
    game_id, _, by_seat = game
    cases = [
        ({"reason": "x"}, "report_target_required"),
        ({"reason": "", "reported_user": by_seat[1].user.pk}, "invalid"),
        ({"reason": "me", "reported_user": by_seat[0].user.pk}, "report_self"),
        ({"reason": "who", "reported_user": 999999}, "player_not_found"),
        ({"reason": "what", "chat_message": 999999}, "message_not_found"),
    ]
    for body, code in cases:
        response = by_seat[0].post(f"/api/v1/games/{game_id}/reports", body)
        assert response.json()["code"] == code, (body, response.json())
    assert Report.objects.count() == 0


def test_without_the_moderate_permission_no_moderation(game):
    game_id, _, _ = game
    staff = Player("staff")
    staff.user.is_staff = True
    staff.user.save()
    from django.contrib.auth.models import Permission
    from django.test import Client

    staff.user.user_permissions.add(Permission.objects.get(codename="view_game"))
    client = Client()
    client.force_login(staff.user)
    url = f"/admin/games/game/{game_id}/moderate/"
    assert client.get(url).status_code == 403
    assert client.post(url, {"action": "abort", "reason": "x"}).status_code == 403
    assert Game.objects.get(pk=game_id).status == "playing"


def test_the_audit_log_is_append_only(moderator, game):
    game_id, _, _ = game
    moderator.admin.post(
        f"/admin/games/game/{game_id}/moderate/", {"action": "abort", "reason": "r"}
    )
    record = ModerationAction.objects.get()
    with pytest.raises(AppendOnlyError):
        record.delete()
    with pytest.raises(DatabaseError, match="append-only"):
        with transaction.atomic():
            ModerationAction.objects.filter(pk=record.pk).update(reason="nothing happened")
    assert (
        moderator.admin.post(
            f"/admin/games/moderationaction/{record.pk}/delete/", {"post": "yes"}
        ).status_code
        == 403
    )
