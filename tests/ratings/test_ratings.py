"""Ratings: rules 1–3 of games/ratings.py, 2–8 players, ties, resignations and
zombies (K3), the anti-abuse rule, and the rebuild from the games equal to the incremental
values."""

import datetime
import random
import subprocess
import sys

import pytest
from openskill.models import PlackettLuce

from games.engine import Options, Resign, Setup, autopilot_action, start
from games.ratings import (
    PAIR_GAMES_PER_DAY,
    FinishedGame,
    PairCounts,
    Rating,
    ranks,
    rate,
    rebuild,
)

DAY = datetime.date(2026, 12, 2)


def game(players, ranking, *, quit=(), day=DAY, **table):
    return FinishedGame(
        players=tuple(players),
        ranking=tuple(tuple(rank) for rank in ranking),
        ended_on=day,
        quit=frozenset(quit),
        **table,
    )


def one_per_rank(n):
    return [[seat] for seat in range(n)]


def test_ratings_module_imports_without_django():
    code = (
        "import sys, games.ratings\n"
        "print(sorted({'django', 'rest_framework'} & {m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("n", range(2, 9))
def test_G3_better_rank_better_new_rating_for_2_to_8_players(n):
    players = [f"p{i}" for i in range(n)]
    new = rate(game(players, one_per_rank(n)), {}, PairCounts())
    assert set(new) == set(players)
    mus = [new[p].mu for p in players]
    assert mus == sorted(mus, reverse=True) and len(set(mus)) == n
    assert new["p0"].mu > Rating().mu > new[f"p{n - 1}"].mu
    assert all(r.sigma < Rating().sigma for r in new.values())  # every game teaches something


@pytest.mark.parametrize("n", range(2, 9))
def test_G3_equal_incomes_share_a_rank_and_equal_priors_move_equally(n):
    players = [f"p{i}" for i in range(n)]
    ranking = [list(range(n - 1)), [n - 1]] if n > 2 else [[0, 1]]  # all but the last tie
    new = rate(game(players, ranking), {}, PairCounts())
    tied = {new[f"p{i}"] for i in range(n - 1)}
    assert len(tied) == 1
    if n == 2:
        assert new["p0"].mu == pytest.approx(Rating().mu)  # a draw between equals moves no mu


def test_the_model_is_openskill_plackett_luce_with_shared_ranks():
    priors = {"a": Rating(30, 5), "b": Rating(25, 7), "c": Rating(20, 3)}
    new = rate(game("abc", [[1], [0, 2]]), priors, PairCounts())
    model = PlackettLuce()
    expected = model.rate(
        [[model.rating(mu=r.mu, sigma=r.sigma)] for r in priors.values()], ranks=[2, 1, 2]
    )
    assert [(new[p].mu, new[p].sigma) for p in "abc"] == [
        (team[0].mu, team[0].sigma) for team in expected
    ]


def test_an_upset_moves_more_than_the_expected_result():
    strong, weak = Rating(35, 3), Rating(15, 3)
    expected = rate(game("sw", [[0], [1]]), {"s": strong, "w": weak}, PairCounts())
    upset = rate(game("sw", [[1], [0]]), {"s": strong, "w": weak}, PairCounts())
    assert strong.mu - upset["s"].mu > expected["s"].mu - strong.mu > 0


@pytest.mark.parametrize("n", range(2, 9))
def test_K3_a_resigned_or_zombie_seat_ranks_last_whatever_its_income(n):
    players = [f"p{i}" for i in range(n)]
    quitter = game(players, one_per_rank(n), quit={0})  # seat 0 had the best income
    assert ranks(quitter)[0] == n + 1 and sorted(ranks(quitter)[1:]) == list(range(2, n + 1))
    new = rate(quitter, {}, PairCounts())
    assert new["p0"].mu < Rating().mu
    assert new["p0"].mu == min(r.mu for r in new.values())
    as_if_last = rate(game(players[1:] + players[:1], one_per_rank(n)), {}, PairCounts())
    assert new == as_if_last


def test_K3_several_quitters_share_the_last_rank():
    new = rate(game("abcd", one_per_rank(4), quit={0, 2}), {}, PairCounts())
    assert new["a"] == new["c"] and new["a"].mu < new["d"].mu < new["b"].mu


@pytest.mark.parametrize(
    "table",
    [
        {"players": ("a", None), "ranking": [[0], [1]]},  # a bot seat
        {"players": ("a", "b", None, "d"), "ranking": one_per_rank(4)},
        {"players": ("a", "b"), "ranking": [[0], [1]], "rated": False},
        {"players": ("a", "b"), "ranking": [[0], [1]], "aborted": True},
    ],
)
def test_bot_unrated_and_aborted_games_change_no_rating(table):
    players, ranking = table.pop("players"), table.pop("ranking")
    priors = {"a": Rating(30, 4), "b": Rating(20, 4)}
    assert rate(game(players, ranking, **table), priors, PairCounts()) == {}
    assert rebuild([game(players, ranking, **table)]) == {}


def test_a_game_from_the_engine_rates_through_its_result():
    options = Options()
    played, _ = start(Setup(options, 4, 99))
    played.apply(Resign(2))
    while not played.over:
        played.apply(autopilot_action(played))
    finished = game("abcd", played.result["ranking"], quit={2})
    new = rate(finished, {}, PairCounts())
    assert new["c"].mu == min(r.mu for r in new.values())
    best = played.result["ranking"][0]
    assert all(new["abcd"[s]].mu > Rating().mu for s in best if s != 2)


def test_anti_abuse_a_pair_gains_nothing_after_its_first_games_in_a_day():
    games = [game("ab", [[0], [1]]) for _ in range(PAIR_GAMES_PER_DAY + 3)]
    after_limit = rebuild(games[:PAIR_GAMES_PER_DAY])
    assert after_limit["a"].mu > Rating().mu
    assert rebuild(games) == after_limit  # the games past the limit changed nothing
    next_day = game("ab", [[0], [1]], day=DAY + datetime.timedelta(days=1))
    assert rebuild([*games, next_day])["a"].mu > after_limit["a"].mu  # a new day counts again


def test_anti_abuse_a_third_account_at_the_table_does_not_reopen_the_pair():
    games = [game("ab", [[0], [1]]) for _ in range(PAIR_GAMES_PER_DAY)]
    base = rebuild(games)
    with_c = rebuild([*games, game("abc", one_per_rank(3))])
    assert with_c == base  # a and b are left out; c alone is rated against nobody
    with_cd = rebuild([*games, game("abcd", one_per_rank(4))])
    assert with_cd["a"] == base["a"] and with_cd["b"] == base["b"]
    assert with_cd["c"].mu > with_cd["d"].mu  # c and d are rated between themselves


def test_anti_abuse_other_opponents_are_unaffected():
    games = [game("ab", [[0], [1]]) for _ in range(PAIR_GAMES_PER_DAY)]
    base = rebuild(games)
    after = rebuild([*games, game("ac", [[0], [1]])])
    assert after["a"].mu > base["a"].mu


def test_the_pair_counts_the_write_path_loads_match_the_rebuild():
    pairs = PairCounts(day=DAY, games={frozenset("ab"): PAIR_GAMES_PER_DAY})
    assert rate(game("ab", [[0], [1]]), {}, pairs) == {}
    assert rate(game("ab", [[0], [1]], day=DAY + datetime.timedelta(days=1)), {}, pairs)


def random_games(count, seed):
    rng = random.Random(seed)
    accounts = [f"u{i}" for i in range(12)]  # few accounts: pairs meet often
    games = []
    for k in range(count):
        n = rng.randint(2, 8)
        seats = rng.sample(accounts, n)
        if rng.random() < 0.1:
            seats[rng.randrange(n)] = None
        incomes = [rng.randint(0, 6) for _ in range(n)]  # small range: many ties
        ranking = [
            [s for s in range(n) if incomes[s] == v] for v in sorted(set(incomes), reverse=True)
        ]
        quit = {s for s in range(n) if rng.random() < 0.1}
        day = DAY + datetime.timedelta(days=k // 15)
        games.append(game(seats, ranking, quit=quit, day=day, rated=rng.random() > 0.05))
    return games


def test_rebuild_equals_the_incremental_values():
    """The write path: load the players' ratings and the day's pair totals, rate, store."""
    games = random_games(300, seed=3)
    stored: dict = {}
    history: list[FinishedGame] = []
    for finished in games:
        humans = [p for p in finished.players if p is not None]
        priors = {p: stored[p] for p in humans if p in stored}
        pairs = PairCounts(day=finished.ended_on)
        for earlier in history:  # what a query "their rated games ending today" returns
            if earlier.ended_on == finished.ended_on and earlier.rated and not earlier.aborted:
                if None not in earlier.players:
                    pairs.count([p for p in earlier.players if p in humans], finished.ended_on)
        stored.update(rate(finished, priors, pairs))
        history.append(finished)
    assert rebuild(games) == stored
    assert len(stored) == 12


@pytest.mark.parametrize(
    ("players", "ranking", "quit"),
    [
        ("ab", [[0]], ()),  # a seat missing from the ranking
        ("ab", [[0], [1], [1]], ()),  # a seat twice
        ("ab", [[0], [1]], (2,)),  # no such seat
        ("aa", [[0], [1]], ()),  # one account, two seats
    ],
)
def test_a_malformed_result_is_refused(players, ranking, quit):
    with pytest.raises(ValueError):
        game(players, ranking, quit=quit)
