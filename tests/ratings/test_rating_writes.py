"""Ratings written with the end of a game and rebuilt from the logs: end to end through the
API. The rules themselves are pinned in tests/ratings/test_ratings.py."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from games import engine, repository, state
from games.models import Game, PlayerRating, RatingChange
from games.ratings import PairCounts, Rating, rate
from games.services import entries
from games.services.ratings import finished_game, rating_policy
from tests.players import finished_by_autopilot, play_turn, seat_players, start_game


def _play_out(game_id, players, *, resign_seat=None, max_turns=2000) -> None:
    by_seat = seat_players(game_id, players)
    if resign_seat is not None:  # after playing the turns that make a seat count (rule 4)
        turns = (settings.RATING_MIN_OWN_TURNS + 2) * len(players)
        while Game.objects.get(pk=game_id).turn_number <= turns:
            play_turn(game_id, by_seat)
        version = Game.objects.get(pk=game_id).version
        answer = by_seat[resign_seat].move(game_id, {"type": "resign"}, version)
        assert answer.status_code == 201, answer.json()
    for _ in range(max_turns):
        if Game.objects.get(pk=game_id).status != "playing":
            return
        play_turn(game_id, by_seat)
    raise AssertionError("the game did not end")


def _finished(players, *, resign_seat=None, **options) -> Game:
    game_id = start_game(players, movement="faster", **options)
    _play_out(game_id, players, resign_seat=resign_seat)
    return Game.objects.get(pk=game_id)


def _finished_fast(players, **options) -> Game:
    return Game.objects.get(pk=finished_by_autopilot(players, **options))


def _expected(game: Game, priors=None) -> dict:
    """What the pure rules give for this game, from its log."""
    players = [None] * game.players
    joined = {}
    for seat in game.seats.all():
        players[seat.seat] = seat.user_id
        joined[seat.user_id] = seat.user.date_joined
    final = state.replay_from_log(game)
    facts = finished_game(game=game, players=tuple(players), final=final, joined=joined)
    return rate(facts, priors or {}, PairCounts(), played={}, policy=rating_policy())


@pytest.mark.parametrize("count", [2, 4])
def test_a_rated_game_moves_its_players_ratings_when_it_ends(make_player, count):
    players = [make_player() for _ in range(count)]
    options = {"pickup_before_movement": True} if count > 4 else {}
    game = _finished(players, **options)
    assert game.status == "finished" and game.rated
    expected = _expected(game)
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert changes.keys() == {p.user.pk for p in players} == expected.keys()
    for user, after in expected.items():
        change = changes[user]
        assert (change.mu_before, change.sigma_before) == (Rating().mu, Rating().sigma)
        assert change.mu_after == pytest.approx(after.mu) and change.ended_at == game.finished_at
        stored = PlayerRating.objects.get(user_id=user)
        assert (stored.mu, stored.sigma, stored.games) == (change.mu_after, change.sigma_after, 1)
        assert stored.ordinal == pytest.approx(after.ordinal)
    best = game.result["ranking"][0]
    winner = next(s.user_id for s in game.seats.all() if s.seat == best[0])
    if len(best) < count:  # G3: unless every seat tied (a draw between equals moves no mu)
        assert changes[winner].mu_after > changes[winner].mu_before


def test_K3_a_resigned_player_ranks_last_and_loses_rating(make_player):
    players = [make_player() for _ in range(4)]
    game_id = start_game(players, movement="faster")
    quitter_seat = 2
    _play_out(game_id, players, resign_seat=quitter_seat)
    game = Game.objects.get(pk=game_id)
    quitter = next(s.user_id for s in game.seats.all() if s.seat == quitter_seat)
    change = RatingChange.objects.get(game=game, user_id=quitter)
    others = RatingChange.objects.filter(game=game).exclude(user_id=quitter)
    assert change.mu_after < change.mu_before
    assert all(change.mu_after < other.mu_after for other in others)
    assert {c.user_id: c.mu_after for c in others} == pytest.approx(
        {u: r.mu for u, r in _expected(game).items() if u != quitter}
    )


def test_a_second_game_starts_from_the_first_s_ratings(make_player):
    players = [make_player(), make_player()]
    first = _finished_fast(players)
    second = _finished_fast(players)
    priors = {c.user_id: Rating(c.mu_after, c.sigma_after) for c in first.rating_changes.all()}
    for change in second.rating_changes.all():
        assert Rating(change.mu_before, change.sigma_before) == priors[change.user_id]
        assert change.mu_after == pytest.approx(_expected(second, priors)[change.user_id].mu)
    assert set(PlayerRating.objects.values_list("games", flat=True)) == {2}


def test_unrated_tables_and_aborted_games_change_no_rating(make_player):
    _finished([make_player(), make_player()], rated=False)
    aborted = start_game([make_player(), make_player()], movement="faster")
    loaded = repository.load(aborted)
    entry = repository.NewEntry(engine.Abort("a moderator's test"))
    entries.entry_append(loaded, entry, expected_version=loaded.game.version)
    assert Game.objects.get(pk=aborted).status == "aborted"
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()


def test_the_rebuild_equals_the_stored_ratings_and_finds_a_tampered_row(make_player, capsys):
    ana, ben, cy = make_player(), make_player(), make_player()
    _finished_fast([ana, ben])
    _finished_fast([ben, cy, ana])
    _finished_fast([cy, ana], rated=False)
    call_command("rebuild_ratings")
    assert "0 differences" in capsys.readouterr().out

    row = PlayerRating.objects.get(user=ben.user)
    PlayerRating.objects.filter(pk=row.pk).update(mu=row.mu + 0.5)
    change = RatingChange.objects.filter(user=ana.user).first()
    RatingChange.objects.filter(pk=change.pk).update(sigma_after=change.sigma_after - 0.1)
    with pytest.raises(CommandError, match="2 differences"):
        call_command("rebuild_ratings")
    printed = capsys.readouterr().out
    assert f"player {ben.user.pk}: rating stored" in printed
    assert f"player {ana.user.pk}, game {change.game_id}: stored" in printed

    call_command("rebuild_ratings", "--write")
    call_command("rebuild_ratings")
    assert PlayerRating.objects.get(user=ben.user).mu == pytest.approx(row.mu)


def test_rule_3_repeated_pairs_stop_moving_ratings_within_a_day(make_player):
    """The pair totals are read from the day's rated games (PAIR_GAMES_PER_DAY = 3)."""
    players = [make_player(), make_player()]
    for _ in range(4):
        _finished_fast(players)
    moved = [
        RatingChange.objects.filter(game=game).count()
        for game in Game.objects.filter(status="finished").order_by("finished_at")
    ]
    assert moved == [2, 2, 2, 0]
    call_command("rebuild_ratings")
