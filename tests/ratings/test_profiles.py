"""Profiles and the leaderboard, in the API and the web pages."""

from __future__ import annotations

from django.test import Client

from games.models import PlayerRating
from tests.players import finished_by_autopilot, start_game


def test_a_profile_holds_the_rating_history_and_statistics(make_player):
    ana, ben, cy = make_player(), make_player(), make_player()
    first = finished_by_autopilot([ana, ben])
    finished_by_autopilot([ana, ben, cy])
    running = start_game([ana, cy], movement="faster")
    profile = cy.get(f"/api/v1/players/{ana.user.pk}").json()
    assert profile["user"]["id"] == ana.user.pk
    stored = PlayerRating.objects.get(user=ana.user)
    assert profile["rating"]["ordinal"] == stored.ordinal and profile["rating"]["games"] == 2
    assert [point["game"] for point in profile["history"]][0] == first
    assert profile["history"][-1]["ordinal_after"] == stored.ordinal
    assert profile["games_played"] == 2 and 0 <= profile["games_won"] <= 2
    assert profile["average_income"] is not None
    assert profile["favourite_options"]["movement"] == "faster"
    assert [g["id"] for g in profile["current_games"]] == [running]


def test_a_new_player_has_the_starting_rating_and_no_history(make_player):
    ana = make_player()
    profile = ana.get(f"/api/v1/players/{ana.user.pk}").json()
    assert profile["rating"]["games"] == 0 and profile["history"] == []
    assert profile["games_played"] == 0 and profile["average_income"] is None
    assert ana.get("/api/v1/players/999999").json()["code"] == "not_found"


def test_the_leaderboard_is_paged_best_first_and_by_player_count(make_player):
    ana, ben, cy = make_player(), make_player(), make_player()
    finished_by_autopilot([ana, ben])
    finished_by_autopilot([ana, ben, cy])
    board = ana.get("/api/v1/leaderboard", count="true").json()
    assert board["count"] == 3 and board["count_capped"] is False
    ordinals = [row["ordinal"] for row in board["results"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert [row["rank"] for row in board["results"]] == [1, 2, 3]
    second = ana.client.get(ana.get("/api/v1/leaderboard", limit=1).json()["next"]).json()
    assert second["results"][0]["rank"] == 2
    assert second["results"][0]["user"] == board["results"][1]["user"]
    page = ana.get("/api/v1/leaderboard", limit=1, offset=1).json()  # deprecated
    assert page["count"] == 3 and page["results"][0]["rank"] == 2
    assert page["results"][0]["user"] == board["results"][1]["user"]
    threes = ana.get("/api/v1/leaderboard", players=3).json()["results"]
    twos = ana.get("/api/v1/leaderboard", players=2).json()["results"]
    assert len(threes) == 3 and {r["games_at_size"] for r in threes} == {1}
    assert {r["user"]["id"] for r in twos} == {ana.user.pk, ben.user.pk}
    assert ana.get("/api/v1/leaderboard", players=9).status_code == 400


def _browser(player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def test_the_profile_page_draws_the_rating_history_as_svg(make_player):
    ana, ben = make_player(), make_player()
    finished_by_autopilot([ana, ben])
    finished_by_autopilot([ana, ben])
    page = _browser(ben).get(f"/players/{ana.user.pk}")
    html = page.content.decode()
    assert page.status_code == 200
    assert '<svg id="rating-chart-bahama-taxi" role="img"' in html and "<polyline points=" in html
    assert html.count("<circle ") == 2
    empty = _browser(ben).get(f"/players/{make_player().user.pk}").content.decode()
    assert 'id="no-rating-bahama-taxi"' in empty and "<svg" not in empty


def test_the_leaderboard_page_links_to_profiles_and_table_sizes(make_player):
    ana, ben = make_player(), make_player()
    finished_by_autopilot([ana, ben])
    html = _browser(ana).get("/leaderboard").content.decode()
    assert f'href="/players/{ana.user.pk}"' in html and 'href="/leaderboard?players=4"' in html
    by_size = _browser(ana).get("/leaderboard?players=3").content.decode()
    assert 'id="no-players"' in by_size
    lobby = _browser(ana).get("/").content.decode()
    assert 'href="/leaderboard"' in lobby and f'href="/players/{ana.user.pk}"' in lobby
