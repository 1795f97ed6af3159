"""Ratings per game: each game rates into its registration's pool (Bahama Taxi's `bahama-taxi`,
Digit Code's `digit-code`), a rating per (player, pool). A Digit Code game moves only Digit
Code ratings; the leaderboard, the profile and `rebuild_ratings` are per pool; ratings stored
before pools are kept as Bahama Taxi's."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games import registry
from games.models import Game, PlayerRating, RatingChange
from games.ratings import Rating
from games.services.ratings import pools, ratings_rebuilt, ratings_stored
from tests.migrations import migrate, migrated_back
from tests.players import finished_by_autopilot, played_out, start_game


def digit_code_played_out(players) -> Game:
    """A rated Digit Code game started over the API, played to its end by its autopilot (C1)
    through the write paths' append (its ratings too)."""
    game_id = start_game(players, game="digit-code")
    played_out(game_id)
    return Game.objects.get(pk=game_id)


def ratings(pool: str) -> dict[int, tuple[float, float, int]]:
    return {r.user_id: (r.mu, r.sigma, r.games) for r in PlayerRating.objects.filter(pool=pool)}


def test_the_registry_names_a_pool_per_game():
    assert pools() == ("bahama-taxi", "digit-code")
    assert registry.get("digit-code").rating_pool == "digit-code"


def test_a_rated_digit_code_game_moves_only_the_digit_code_pool(make_player):
    ana, ben = make_player(), make_player()
    finished_by_autopilot([ana, ben])
    taxi = ratings("bahama-taxi")
    assert set(taxi) == {ana.user.pk, ben.user.pk}
    game = digit_code_played_out([ana, ben])
    assert game.status == "finished" and game.rated
    assert ratings("bahama-taxi") == taxi  # untouched, games count included
    code = ratings("digit-code")
    assert set(code) == {ana.user.pk, ben.user.pk}
    assert {games for _mu, _sigma, games in code.values()} == {1}
    changes = RatingChange.objects.filter(game=game)
    assert changes.count() == 2 and set(changes.values_list("pool", flat=True)) == {"digit-code"}
    # a first Digit Code game starts from the default rating, whatever the Bahama Taxi one is
    assert {(c.mu_before, c.sigma_before) for c in changes} == {(Rating().mu, Rating().sigma)}


def test_rule_3_the_day_s_pair_limit_counts_within_a_pool(make_player):
    ana, ben = make_player(), make_player()
    for _ in range(3):  # the pair's day of Bahama Taxi is spent …
        finished_by_autopilot([ana, ben])
    assert not RatingChange.objects.filter(game_id=finished_by_autopilot([ana, ben])).exists()
    game = digit_code_played_out([ana, ben])  # … not their Digit Code's
    assert RatingChange.objects.filter(game=game).count() == 2


def test_the_leaderboard_is_per_game_and_bahama_taxi_by_default(make_player):
    ana, ben, cy = make_player(), make_player(), make_player()
    finished_by_autopilot([ana, ben])
    digit_code_played_out([ben, cy])
    default = ana.get("/api/v1/leaderboard").json()["results"]
    taxi = ana.get("/api/v1/leaderboard", game="bahama-taxi").json()["results"]
    code = ana.get("/api/v1/leaderboard", game="digit-code").json()["results"]
    assert default == taxi
    assert {row["user"]["id"] for row in taxi} == {ana.user.pk, ben.user.pk}
    assert {row["user"]["id"] for row in code} == {ben.user.pk, cy.user.pk}
    ben_code = PlayerRating.objects.get(user=ben.user, pool="digit-code")
    assert next(r for r in code if r["user"]["id"] == ben.user.pk)["ordinal"] == ben_code.ordinal
    assert [r["rank"] for r in code] == [1, 2] and code[0]["games"] == 1
    sized = ana.get("/api/v1/leaderboard", game="digit-code", players=2).json()["results"]
    assert {r["games_at_size"] for r in sized} == {1}
    assert ana.get("/api/v1/leaderboard", game="digit-code", players=3).json()["results"] == []
    refused = ana.get("/api/v1/leaderboard", game="chess")
    assert refused.status_code == 400 and set(refused.json()["errors"]) == {"game"}


def test_the_leaderboard_page_chooses_a_game(make_player):
    ana, ben, cy = make_player(), make_player(), make_player()
    finished_by_autopilot([ana, ben])
    digit_code_played_out([ben, cy])
    client = Client()
    client.force_login(ana.user)
    taxi = client.get("/leaderboard").content.decode()
    assert 'href="/leaderboard?game=digit-code"' in taxi and 'id="games"' in taxi
    assert f'href="/players/{ana.user.pk}"' in taxi and f'href="/players/{cy.user.pk}"' not in taxi
    code = client.get("/leaderboard?game=digit-code").content.decode()
    assert f'href="/players/{cy.user.pk}"' in code and f'href="/players/{ana.user.pk}"' not in code
    assert 'href="/leaderboard?game=digit-code&amp;players=4"' in code
    assert 'players=5"' not in code  # Digit Code's tables are 2 to 4
    assert 'aria-current="page">Digit Code</a>' in code
    unknown = client.get("/leaderboard?game=chess")
    assert unknown.status_code == 200 and 'aria-current="page">Bahama Taxi</a>' in (
        unknown.content.decode()
    )


def test_rebuild_ratings_per_pool_equals_the_stored_ratings(make_player, capsys):
    ana, ben, cy = make_player(), make_player(), make_player()
    finished_by_autopilot([ana, ben])
    digit_code_played_out([ana, ben])
    digit_code_played_out([ana, cy])
    for pool in pools():
        rebuilt = ratings_rebuilt(pool)
        changes, stored, games = ratings_stored(pool)
        assert set(rebuilt.ratings) == set(stored) and rebuilt.games == games
        for user, rating in rebuilt.ratings.items():
            assert rating.mu == pytest.approx(stored[user].mu, abs=1e-9)
            assert rating.sigma == pytest.approx(stored[user].sigma, abs=1e-9)
        assert set(rebuilt.changes) == set(changes)
    assert ratings_rebuilt("digit-code").games == {ana.user.pk: 2, ben.user.pk: 1, cy.user.pk: 1}
    call_command("rebuild_ratings")
    out = capsys.readouterr().out
    assert "bahama-taxi: 1 rated games, 2 players, 0 differences" in out
    assert "digit-code: 2 rated games, 3 players, 0 differences" in out
    # a tampered Digit Code rating: its pool's rebuild finds it, the other's does not
    PlayerRating.objects.filter(user=cy.user, pool="digit-code").update(mu=40.0)
    call_command("rebuild_ratings", "--pool", "bahama-taxi")
    with pytest.raises(CommandError, match="digit-code: .* 1 differences"):
        call_command("rebuild_ratings", "--pool", "digit-code")
    with pytest.raises(CommandError):
        call_command("rebuild_ratings")
    call_command("rebuild_ratings", "--pool", "digit-code", "--write")
    call_command("rebuild_ratings")
    assert PlayerRating.objects.get(user=cy.user, pool="digit-code").mu != 40.0
    assert len(ratings("bahama-taxi")) == 2  # the other pool's rows were left alone


def test_rebuild_moves_a_digit_code_game_rated_into_bahama_taxi_before_pools(make_player):
    """What the data migration leaves: every rating from before pools in Bahama Taxi's, also
    a Digit Code game's; the logs say where it belongs, and `--write` puts it there."""
    ana, ben = make_player(), make_player()
    finished_by_autopilot([ana, ben])
    game = digit_code_played_out([ana, ben])
    RatingChange.objects.filter(game=game).update(pool="bahama-taxi")
    PlayerRating.objects.filter(pool="digit-code").delete()
    with pytest.raises(CommandError):
        call_command("rebuild_ratings")
    call_command("rebuild_ratings", "--write")
    call_command("rebuild_ratings")
    assert set(RatingChange.objects.filter(game=game).values_list("pool", flat=True)) == {
        "digit-code"
    }
    assert {r.games for r in PlayerRating.objects.filter(pool="bahama-taxi")} == {1}


def test_the_profile_has_a_rating_per_game_and_bahama_taxi_at_the_top(make_player):
    ana, ben = make_player(), make_player()
    finished_by_autopilot([ana, ben])
    digit_code_played_out([ana, ben])
    digit_code_played_out([ana, ben])
    profile = ben.get(f"/api/v1/players/{ana.user.pk}").json()
    taxi = PlayerRating.objects.get(user=ana.user, pool="bahama-taxi")
    code = PlayerRating.objects.get(user=ana.user, pool="digit-code")
    assert profile["game"] == "bahama-taxi"
    assert profile["rating"]["ordinal"] == taxi.ordinal and profile["rating"]["games"] == 1
    assert profile["games_played"] == 1 and len(profile["history"]) == 1
    assert [s["game"] for s in profile["games"]] == ["bahama-taxi", "digit-code"]
    section = profile["games"][1]
    assert section["rating"]["ordinal"] == code.ordinal and section["rating"]["games"] == 2
    assert section["games_played"] == 2 and len(section["history"]) == 2
    assert section["average_income"] is None and section["favourite_options"] is None
    asked = ben.get(f"/api/v1/players/{ana.user.pk}", game="digit-code").json()
    assert asked["game"] == "digit-code" and asked["rating"] == section["rating"]
    assert asked["games"] == profile["games"]
    assert ben.get(f"/api/v1/players/{ana.user.pk}", game="chess").status_code == 400


def test_a_profile_shows_only_the_games_played_and_the_default_one(make_player):
    ana, ben, cy = make_player(), make_player(), make_player()
    digit_code_played_out([ana, ben])
    profile = ana.get(f"/api/v1/players/{ana.user.pk}").json()
    assert [s["game"] for s in profile["games"]] == ["bahama-taxi", "digit-code"]
    assert profile["rating"]["games"] == 0  # no Bahama Taxi game yet
    fresh = ana.get(f"/api/v1/players/{cy.user.pk}").json()
    assert [s["game"] for s in fresh["games"]] == ["bahama-taxi"]
    only_code = ana.get(f"/api/v1/players/{cy.user.pk}", game="digit-code").json()
    assert [s["game"] for s in only_code["games"]] == ["digit-code"]


def test_the_profile_page_has_a_section_per_game_played(make_player):
    ana, ben = make_player(), make_player()
    finished_by_autopilot([ana, ben])
    digit_code_played_out([ana, ben])
    running = start_game([ana, ben], game="digit-code")
    client = Client()
    client.force_login(ben.user)
    html = client.get(f"/players/{ana.user.pk}").content.decode()
    assert 'id="game-bahama-taxi"' in html and 'id="game-digit-code"' in html
    assert '<svg id="rating-chart-digit-code" role="img"' in html
    assert 'id="rating-chart-bahama-taxi"' in html
    code = PlayerRating.objects.get(user=ana.user, pool="digit-code")
    assert f'id="rating-ordinal-digit-code">{code.ordinal:.1f}<' in html
    assert f'href="/games/{running}"' in html
    digit_code_section = html[html.index('id="game-digit-code"') :]
    assert "Average income" not in digit_code_section.split("</section>")[0]


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_every_rating_as_bahama_taxi_s():
    users = [User.objects.create_user(username=f"old{i}", password="pw-old-pw") for i in (1, 2)]
    with migrated_back([("games", "0016_seat_notes")]) as old_apps:
        OldRating = old_apps.get_model("games", "PlayerRating")  # noqa: N806 - a model class
        for i, user in enumerate(users):
            OldRating.objects.create(
                user_id=user.pk, mu=20.0 + i, sigma=5.0, ordinal=5.0 + i, games=3 + i,
                updated_at=timezone.now(),
            )  # fmt: skip
        new_apps = migrate([("games", "0017_ratings_per_pool")])
        NewRating = new_apps.get_model("games", "PlayerRating")  # noqa: N806
        kept = {(r.user_id, r.pool, r.mu, r.games) for r in NewRating.objects.order_by("user_id")}
        assert kept == {
            (users[0].pk, "bahama-taxi", 20.0, 3),
            (users[1].pk, "bahama-taxi", 21.0, 4),
        }
