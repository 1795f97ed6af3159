"""Ratings: rules 1–5 of games/ratings.py, 2–8 players, ties, resignations and zombies (K3),
the anti-abuse rules (repeated pairs, real play, provisional accounts), and the rebuild from the
games equal to the incremental values."""

import datetime
import random
import subprocess
import sys

import pytest
from openskill.models import PlackettLuce

from games.engine import Options, Resign, Setup, Timeout, autopilot_action, start
from games.ratings import (
    PAIR_GAMES_PER_DAY,
    FinishedGame,
    PairCounts,
    Policy,
    Rating,
    own_turns,
    ranks,
)
from games.ratings import rate as rate_with
from games.ratings import rebuild as rebuild_with

DAY = datetime.date(2026, 12, 2)
POLICY = Policy(min_own_turns=5, provisional_games=5, provisional_age=datetime.timedelta(days=3))
OLD = datetime.timedelta(days=30)  # past the provisional age
PLAYED = 20  # own turns of a seat that played the game


def game(players, ranking, *, quit=(), day=DAY, own=None, ages=None, **table):
    players = tuple(players)
    return FinishedGame(
        players=players,
        ranking=tuple(tuple(rank) for rank in ranking),
        ended_on=day,
        quit=frozenset(quit),
        own_turns=tuple(own or [PLAYED] * len(players)),
        ages=tuple(ages or [None if p is None else OLD for p in players]),
        **table,
    )


def rate(finished, priors, pairs, played=None, policy=POLICY):
    # Players absent from `played` have no rated game yet: all provisional, so every one is
    # rated against every other, which is how rules 1-3 are pinned here.
    return rate_with(finished, priors, pairs, played=played or {}, policy=policy)


def rebuild(games, policy=POLICY):
    return rebuild_with(games, policy=policy)


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
    finished = game("abcd", played.result.ranking, quit={2})
    new = rate(finished, {}, PairCounts())
    assert new["c"].mu == min(r.mu for r in new.values())
    best = played.result.ranking[0]
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
    joined = {a: rng.uniform(0, 6) for a in accounts}  # days after DAY: some young a while
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
        days = k / 15
        own = [rng.choice([0, 2, 4, 5, 12, 30]) for _ in range(n)]  # some below the minimum
        ages = [
            None if p is None else datetime.timedelta(days=max(0.0, days - joined[p]))
            for p in seats
        ]
        day = DAY + datetime.timedelta(days=int(days))
        table = {"rated": rng.random() > 0.05}
        games.append(game(seats, ranking, quit=quit, day=day, own=own, ages=ages, **table))
    return games


def test_rebuild_equals_the_incremental_values():
    """The write path: load the players' ratings, their rated games and the day's pair
    totals, rate, store."""
    games = random_games(300, seed=3)
    stored: dict = {}
    played: dict = {}
    history: list[FinishedGame] = []
    for finished in games:
        humans = [p for p in finished.players if p is not None]
        priors = {p: stored[p] for p in humans if p in stored}
        pairs = PairCounts(day=finished.ended_on)
        for earlier in history:  # what a query "their rated games ending today" returns
            if earlier.ended_on == finished.ended_on and earlier.rated and not earlier.aborted:
                if None not in earlier.players:
                    pairs.count([p for p in earlier.players if p in humans], finished.ended_on)
        moved = rate(finished, priors, pairs, played={p: played.get(p, 0) for p in humans})
        stored.update(moved)
        for player in moved:
            played[player] = played.get(player, 0) + 1
        history.append(finished)
    assert rebuild(games) == stored
    assert len(stored) == 12
    assert min(played.values()) > POLICY.provisional_games  # rule 5 went both ways


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


def test_own_turns_and_ages_are_one_per_seat():
    with pytest.raises(ValueError):
        game("ab", [[0], [1]], own=[PLAYED])
    with pytest.raises(ValueError):
        game("ab", [[0], [1]], ages=[OLD])


# --- Rule 4: real play -----------------------------------------------------------------------


def _played_out(setup, actions=()):
    played, _ = start(setup)
    for action in actions:
        played.apply(action)
    while not played.over:
        played.apply(autopilot_action(played))
    return played


def test_K3_own_turns_leave_out_a_resignation_and_the_autopilot_s_turns():
    setup = Setup(Options(), 3, 7)
    played = _played_out(setup, [Resign(1)])  # seat 1 resigns before its first turn
    counted = own_turns(setup, played.history)
    assert counted[1] == 0
    assert counted[0] >= 5 and counted[2] >= 5
    assert own_turns(setup, [a for a in played.history]) == counted  # Action values
    from games.engine import encode_action

    assert own_turns(setup, [encode_action(a) for a in played.history]) == counted  # JSON


def test_K2_a_timed_out_turn_is_not_the_player_s_own():
    setup = Setup(Options(), 2, 11)
    played, _ = start(setup)
    played.apply(Timeout(0))  # seat 0's first turn: the autopilot plays it
    for _ in range(4):  # then seats 1, 0, 1, 0 play theirs
        turn = played.turn
        while played.turn == turn:
            played.apply(autopilot_action(played))
    assert played.turn == 6
    assert own_turns(setup, played.history) == (2, 2)


def test_rule_4_a_seat_that_did_not_play_is_left_out_as_if_empty():
    resigned_at_once = game("abc", one_per_rank(3), quit={2}, own=[PLAYED, PLAYED, 0])
    assert set(rate(resigned_at_once, {}, PairCounts())) == {"a", "b"}
    assert rate(resigned_at_once, {}, PairCounts()) == rate(
        game("ab", one_per_rank(2)), {}, PairCounts()
    )
    two_seats = game("ab", [[0], [1]], quit={1}, own=[PLAYED, POLICY.min_own_turns - 1])
    assert rate(two_seats, {}, PairCounts()) == {}  # the winner gains nothing either
    enough = game("ab", [[0], [1]], quit={1}, own=[PLAYED, POLICY.min_own_turns])
    assert set(rate(enough, {}, PairCounts())) == {"a", "b"}


# --- Rule 5: provisional accounts ------------------------------------------------------------

VETERAN = {"f": 40, "h": 40}  # rated games so far


def test_rule_5_a_provisional_account_moves_no_established_rating():
    priors = {"f": Rating(30, 2), "n": Rating()}
    new = rate(game("fn", [[0], [1]]), priors, PairCounts(), played=VETERAN)
    assert set(new) == {"n"}  # the newcomer learns; the veteran's rating stays
    assert new["n"].mu < Rating().mu


@pytest.mark.parametrize(
    ("played", "age"),
    [
        (POLICY.provisional_games - 1, OLD),  # old enough, too few games
        (POLICY.provisional_games, POLICY.provisional_age - datetime.timedelta(seconds=1)),
    ],
    ids=["few-games", "young"],
)
def test_rule_5_provisional_until_enough_games_and_age(played, age):
    new = rate(
        game("fn", [[0], [1]], ages=[OLD, age]), {}, PairCounts(), played={**VETERAN, "n": played}
    )
    assert set(new) == {"n"}
    established = rate(
        game("fn", [[0], [1]], ages=[OLD, POLICY.provisional_age]),
        {},
        PairCounts(),
        played={**VETERAN, "n": POLICY.provisional_games},
    )
    assert set(established) == {"f", "n"}


def test_rule_5_established_players_are_rated_among_themselves():
    priors = {"f": Rating(30, 3), "h": Rating(28, 3)}
    mixed = rate(game("fnh", one_per_rank(3)), priors, PairCounts(), played=VETERAN)
    alone = rate(game("fh", [[0], [1]]), priors, PairCounts(), played=VETERAN)
    assert mixed["f"] == alone["f"] and mixed["h"] == alone["h"]
    everyone = rate(game("fnh", one_per_rank(3)), priors, PairCounts())  # all provisional
    assert mixed["n"] == everyone["n"]  # the newcomer is rated against both


def test_farming_with_ten_throwaway_accounts_gains_the_farmer_nothing():
    """Ten new accounts each resign at once to an established farmer, then ten more each
    play a few turns of their own and resign: the farmer's rating does not move."""
    policy = Policy(min_own_turns=5, provisional_games=3, provisional_age=OLD / 2)
    history = [game("fh", [[d % 2], [1 - d % 2]]) for d in range(3)]  # a rated past
    fresh = datetime.timedelta(minutes=5)
    resign_at_once = [
        game(("f", f"t{i}"), [[1], [0]], quit={1}, own=[PLAYED, 0], ages=[OLD, fresh])
        for i in range(10)
    ]
    play_then_resign = [
        game(("f", f"s{i}"), [[1], [0]], quit={1}, own=[PLAYED, 5], ages=[OLD, fresh])
        for i in range(10)
    ]
    before = rebuild_with(history, policy=policy)
    after = rebuild_with([*history, *resign_at_once, *play_then_resign], policy=policy)
    assert after["f"] == before["f"]
    assert not any(f"t{i}" in after for i in range(10))  # who did not play: nothing moves
    assert all(after[f"s{i}"].mu < Rating().mu for i in range(10))  # who played and quit lost
    tomorrow = DAY + datetime.timedelta(days=1)  # today, rule 3 already stops f and h
    honest = rebuild_with([*history, game("fh", [[0], [1]], day=tomorrow)], policy=policy)
    assert honest["f"].mu > before["f"].mu  # established players still move each other
