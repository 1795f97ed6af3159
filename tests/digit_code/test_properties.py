"""Property tests over random games (hypothesis): replay, secrecy, bounds, order, ranking."""

from __future__ import annotations

import json
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from games.digit_code.engine import (
    Abort,
    EngineError,
    Game,
    Guess,
    Options,
    Resign,
    Setup,
    Timeout,
    Zombify,
    breaks_rule,
    encode_action,
    full_view,
    player_view,
    public_view,
    replay,
    replay_notifications,
    seed_commitment,
    start,
    verify,
)
from tests.digit_code.helpers import code_pattern
from tests.engines import assert_frozen_copy_plays_on

#: P3 and the server-side paragraph: what one action's notifications may be.
TURN = (
    r"(turn_timed_out )?"
    r"(question_asked|guess_made( player_eliminated)?|seat_zombified player_eliminated)"
    r" turn_ended (turn_started|game_ended)"
)
ONE_ACTION = re.compile(rf"{TURN}|seat_zombified( player_eliminated)?|game_aborted")


def random_action(game: Game, rng: random.Random):
    """Mostly questions, some guesses (valid, repeated or impossible), timeouts, and now and
    then a resignation, a moderator's zombify or an abort."""
    roll = rng.random()
    seat = game.active
    if roll < 0.55 and game.legal_actions():
        return rng.choice(game.legal_actions())
    if roll < 0.75:
        if rng.random() < 0.1:
            return Guess(seat, game.secret_code())
        if rng.random() < 0.2 and game.guesses:
            return Guess(seat, rng.choice(game.guesses)[1])  # refused: G1
        return Guess(seat, tuple(rng.randrange(10) for _ in range(6)))  # often refused: B2, B3
    if roll < 0.9:
        return Timeout(seat if rng.random() < 0.9 else rng.randrange(game.players))
    if roll < 0.95:
        return Resign(rng.randrange(game.players))
    if roll < 0.995:
        return Zombify(rng.randrange(game.players))
    return Abort("a moderator's decision")


def play(players: int, seed: int, mix: int):
    rng = random.Random(mix)
    game, first = start(Setup(Options(), players, seed))
    log: list[list[dict]] = [first]
    refusals: list[EngineError] = []
    snapshots: list[str] = [json.dumps(first), repr(game)]
    while not game.over:
        action = random_action(game, rng)
        before = game.clone()
        try:
            notes = game.apply(encode_action(action) if rng.random() < 0.5 else action)
        except EngineError as error:
            assert game == before, "a refused action changed the game"
            refusals.append(error)
            snapshots.append(json.dumps(error.as_dict()))
            continue
        log.append(notes)
        if not game.over:
            snapshots.append(json.dumps(notes))
            snapshots.append(json.dumps(public_view(game)))
            snapshots += [json.dumps(player_view(game, s)) for s in range(players)]
            snapshots.append(repr(game))
    return game, log, snapshots


GAMES = given(
    players=st.integers(2, 4),
    seed=st.integers(0, 2**128 - 1),
    mix=st.integers(0, 2**32),
)


@settings(max_examples=60, deadline=None)
@GAMES
def test_replay_of_the_history_is_the_game(players, seed, mix):
    game, log, _ = play(players, seed, mix)
    setup = Setup(Options(), players, seed)
    assert replay(setup, game.history) == game
    stored = json.loads(json.dumps([encode_action(a) for a in game.history]))
    assert replay_notifications(setup, stored) == log
    assert verify(seed_commitment(seed), setup, stored, log)
    assert replay(setup, stored).clone() == game


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**128 - 1), mix=st.integers(0, 2**32))
def test_a_frozen_copy_plays_on_as_the_game_did(players, seed, mix):
    """What a server keeps of a game is a frozen copy (`frozen()`): taken at any point, cloned,
    it plays the rest of the log to the same game and notifications, and playing on the game or
    on a clone leaves it as it was."""
    game, log, _ = play(players, seed, mix)
    at = random.Random(mix).randrange(len(game.history) + 1)
    assert_frozen_copy_plays_on(replay, Setup(Options(), players, seed), game, log, at)


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 4),
    seed=st.integers(10**12, 2**128 - 1),  # server seeds are 128 random bits: never "0"
    mix=st.integers(0, 2**32),
)
def test_G6_the_code_and_seed_appear_nowhere_before_the_end(players, seed, mix):
    game, log, snapshots = play(players, seed, mix)
    code = game.secret_code()
    pattern = code_pattern(code)
    # a wrong guess never equals the code, and the right one ends the game in the same entry
    for text in snapshots:
        assert not pattern.search(text) and str(seed) not in text
    assert log[-1][-1]["type"] in ("game_ended", "game_aborted")
    assert log[-1][-1]["code"] == list(code) and full_view(game)["secret"]["code"] == list(code)


@settings(max_examples=60, deadline=None)
@GAMES
def test_Q5_G3_every_game_ends_within_its_bounds(players, seed, mix):
    game, log, _ = play(players, seed, mix)
    # each turn asks one of 64 questions, makes one of at most 2 wrong guesses per player,
    # eliminates a seat with no action, or ends the game
    assert game.turn <= 64 + 2 * players + players + 1
    assert len(game.questions) <= 64 and all(w <= 2 for w in game.wrong)


@settings(max_examples=60, deadline=None)
@GAMES
def test_P3_the_notifications_of_every_action_come_in_the_rules_order(players, seed, mix):
    _, log, _ = play(players, seed, mix)
    assert [n["type"] for n in log[0]] == ["game_started", "turn_started"]
    for notes in log[1:]:
        types = " ".join(n["type"] for n in notes)
        assert ONE_ACTION.fullmatch(types), types
    ends = [n for notes in log for n in notes if n["type"] in ("game_ended", "game_aborted")]
    assert len(ends) == 1 and ends[0] is log[-1][-1]
    started = [n["seat"] for notes in log for n in notes if n["type"] == "turn_started"]
    ended = [n["seat"] for notes in log for n in notes if n["type"] == "turn_ended"]
    assert ended == started[: len(ended)]  # every turn ends, in order, for the seat it began


@settings(max_examples=60, deadline=None)
@GAMES
def test_G5_the_ranking(players, seed, mix):
    game, log, _ = play(players, seed, mix)
    if game.aborted is not None:
        assert game.result is None
        return
    result = game.result
    ranking = result.ranking
    assert sorted(s for rank in ranking for s in rank) == list(range(players))
    eliminated = [n["seat"] for notes in log for n in notes if n["type"] == "player_eliminated"]
    out_ranks = [rank for rank in ranking if rank[0] in eliminated]
    assert out_ranks == [(seat,) for seat in reversed(eliminated)]  # latest first, one each
    rest = ranking[: len(ranking) - len(out_ranks)]
    if result.winner is None:
        assert rest == () and len(eliminated) == players
    else:
        assert rest[0] == (result.winner,)
        in_not_winner = tuple(
            s for s in range(players) if s not in eliminated and s != result.winner
        )
        assert rest[1:] == ((in_not_winner,) if in_not_winner else ())
    for rank in ranking:
        assert list(rank) == sorted(rank)


@settings(max_examples=30, deadline=None)
@given(code=st.tuples(*[st.integers(0, 9)] * 6))
def test_G1_any_six_digits_are_a_legal_guess_exactly_when_they_keep_B2_and_B3(code):
    game, _ = start(Setup(Options(), 2, 3))
    try:
        game.apply(Guess(0, code))
    except EngineError as error:
        assert error.clause == breaks_rule(code) and error.clause in ("B2", "B3")
    else:
        assert breaks_rule(code) is None
