"""The admin cannot change or delete log rows, even for a superuser."""

from games.models import Game, GameEntry
from tests.players import autopilot_choice, seat_players, start_game


def test_log_rows_are_read_only_in_the_admin(make_player, admin_client):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    by_seat[Game.objects.get(pk=game_id).active_seat].move(game_id, autopilot_choice(game_id), 0)
    entry = GameEntry.objects.get(game_id=game_id, seq=1)
    assert admin_client.get("/admin/games/gameentry/").status_code == 200
    page = admin_client.get(f"/admin/games/gameentry/{entry.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content
    changed = admin_client.post(f"/admin/games/gameentry/{entry.pk}/change/", {"seat": 5})
    assert changed.status_code == 403
    deleted = admin_client.post(f"/admin/games/gameentry/{entry.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 403
    assert admin_client.get("/admin/games/gameentry/add/").status_code == 403
    assert GameEntry.objects.get(pk=entry.pk).notifications == entry.notifications
    game_page = admin_client.get(f"/admin/games/game/{game_id}/change/")
    assert game_page.status_code == 200
    assert Game.objects.get(pk=game_id).seed.encode() not in game_page.content
