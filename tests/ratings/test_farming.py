"""Rating farming does not pay (games/ratings.py, rules 4 and 5), end to end with the server's
settings: throwaway accounts that resign to a farmer, at once or after a few turns, move the
farmer's rating not at all, while established players still move each other's. The stored
ratings stay a replay of the logs (`manage.py rebuild_ratings`)."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.conf import settings
from django.core.management import call_command

from accounts.models import User
from games import engine, repository
from games.models import Game, PlayerRating, RatingChange
from games.services import entries
from tests.players import play_turn, seat_players, start_game

DAY_0 = datetime.datetime(2026, 11, 2, 9, 0, tzinfo=datetime.UTC)


def _finish_by_autopilot(game_id: int) -> Game:
    """The seats still to move play the rest by the autopilot, through the write path."""
    loaded = repository.load(game_id)
    users = {seat.seat: seat.user_id for seat in loaded.seats}
    while not loaded.state.over:
        seat = loaded.state.current_player()
        entry = repository.NewEntry(
            engine.autopilot_action(loaded.state), actor=User(pk=users[seat]), seat=seat
        )
        entries.entry_append(loaded, entry, expected_version=loaded.game.version)
    return Game.objects.get(pk=game_id)


def _resigning_game(farmer, throwaway, *, own_turns: int) -> Game:
    """The throwaway plays `own_turns` turns of its own (over HTTP), resigns, and the farmer
    plays the game out."""
    game_id = start_game([farmer, throwaway], movement="faster")
    by_seat = seat_players(game_id, [farmer, throwaway])
    seat = next(s for s, p in by_seat.items() if p is throwaway)
    played = 0
    while played < own_turns:
        played += Game.objects.get(pk=game_id).active_seat == seat
        play_turn(game_id, by_seat)
    answer = throwaway.move(game_id, {"type": "resign"}, Game.objects.get(pk=game_id).version)
    assert answer.status_code == 201, answer.json()
    return _finish_by_autopilot(game_id)


def _rating(player) -> PlayerRating:
    return PlayerRating.objects.get(user=player.user)


@pytest.fixture
def veterans(make_player):
    """Four accounts made on day 0 that played five rated games each by day 1; on day 4 they
    are established (RATING_PROVISIONAL_GAMES = 5, RATING_PROVISIONAL_DAYS = 3)."""
    assert settings.RATING_PROVISIONAL_GAMES == 5 and settings.RATING_PROVISIONAL_DAYS == 3
    with time_machine.travel(DAY_0, tick=True):
        players = [make_player() for _ in range(4)]
    for day, games in ((0, 3), (1, 2)):  # three a day at most between a pair (rule 3)
        with time_machine.travel(DAY_0 + datetime.timedelta(days=day), tick=True):
            for _ in range(games):
                game_id = start_game(players, movement="faster")
                _finish_by_autopilot(game_id)
    assert [_rating(p).games for p in players] == [5, 5, 5, 5]
    return players


@pytest.mark.parametrize(
    "own_turns",
    [0, 2, settings.RATING_MIN_OWN_TURNS + 2],  # + 2: a blocked taxi's turn is no one's
    ids=["resign-at-move-0", "a-couple-of-turns", "enough-turns"],
)
def test_ten_throwaway_accounts_resigning_to_the_farmer_do_not_raise_its_rating(
    veterans, make_player, own_turns
):
    farmer = veterans[0]
    with time_machine.travel(DAY_0 + datetime.timedelta(days=4), tick=True):
        before = _rating(farmer)
        farmed = [_resigning_game(farmer, make_player(), own_turns=own_turns) for _ in range(10)]
        assert all(game.status == "finished" and game.rated for game in farmed)
        after = _rating(farmer)
        assert (after.mu, after.sigma, after.games) == (before.mu, before.sigma, before.games)
        # rule 4: who did not play their turns moves nobody; rule 5: who did only learns
        moved = RatingChange.objects.filter(game__in=farmed)
        if own_turns < settings.RATING_MIN_OWN_TURNS:
            assert not moved.exists()
        else:
            assert moved.count() == 10 and not moved.filter(user=farmer.user).exists()
            assert all(change.mu_after < change.mu_before for change in moved)

        honest = start_game(veterans[:2], movement="faster")  # established against established
        _finish_by_autopilot(honest)
        assert RatingChange.objects.filter(game_id=honest).count() == 2
        assert _rating(farmer).games == before.games + 1
    call_command("rebuild_ratings")  # the stored ratings are still a replay of the logs
