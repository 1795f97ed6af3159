"""The bots: decisions from a player's view only, legal, deterministic; strong beats easy."""

from __future__ import annotations

import json

import pytest

from games.digit_code.engine import (
    QUESTIONS,
    Ask,
    Guess,
    Led,
    full_view,
    player_view,
    public_view,
)
from games.digit_code.engine.bots import LEVELS, choose
from games.digit_code.engine.consistent import code_at, members, tables

from .helpers import ask, guess_wrong, new


def consistent_codes(game) -> list[tuple[int, ...]]:
    answers = [(index, answer) for _, index, answer in game.questions]
    found = tables().consistent(answers, game.wrong_codes())
    return [code_at(rank) for rank in members(found)] if found.bit_count() < 50 else []


def test_the_consistent_sets_agree_with_the_questions_answers():
    game = new(2, 40)
    code = game.secret_code()
    for question in QUESTIONS[:15:3]:
        ask(game, question)
    answers = [(index, answer) for _, index, answer in game.questions]
    found = tables().consistent(answers)
    ranks = list(members(found))
    assert code in [code_at(rank) for rank in ranks]
    sample = ranks[:: max(1, len(ranks) // 200)]
    for rank in sample:
        assert all(QUESTIONS[i].answer(code_at(rank)) == a for i, a in answers)
    assert tables().consistent([]).bit_count() == 465_120


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_refuses_a_full_view_and_a_view_of_another_seat(level):
    game = new(2, 41)
    with pytest.raises(ValueError):
        choose(full_view(game), 1, level)
    with pytest.raises(ValueError):
        choose(player_view(game, 1), 1, level)
    with pytest.raises(ValueError):
        choose(player_view(game, 0), 1, "medium")


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_decides_from_the_view_alone_the_same_way_every_time(level):
    for seed in range(3):
        game = new(3, seed)
        while not game.over:
            view = player_view(game, game.active)
            action = choose(view, seed, level)
            assert choose(json.loads(json.dumps(view)), seed, level) == action
            if isinstance(action, Ask):
                assert action in game.legal_actions()
            game.apply(action)


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_guesses_the_code_when_one_code_is_left(level):
    game = new(2, 42)
    for position in range(1, 7):
        for segment in "abcdefg":
            ask(game, Led(position, segment))
    assert len(consistent_codes(game)) == 1
    assert choose(player_view(game, game.active), 0, level) == Guess(
        game.active, game.secret_code()
    )


def test_easy_asks_only_while_more_than_one_code_is_possible():
    for seed in range(4):
        game = new(2, seed)
        while not game.over:
            action = choose(player_view(game, game.active), seed, "easy")
            if isinstance(action, Guess):
                assert consistent_codes(game) == [action.code]
            game.apply(action)


def test_strong_guesses_only_codes_consistent_with_the_public_log_never_a_wrong_one_again():
    for seed in range(6):
        game = new(2, seed)
        guess_wrong(game)
        while not game.over:
            action = choose(player_view(game, game.active), seed, "strong")
            if isinstance(action, Guess):
                assert action.code in consistent_codes(game)
            game.apply(action)


def test_the_bot_never_sees_the_code_two_games_with_the_same_log_get_the_same_decision():
    """Two games with different codes whose public views are the same (no question asked yet):
    the bot's decision is the same."""
    first, second = new(2, 1), new(2, 2)
    assert first.secret_code() != second.secret_code()
    view_1, view_2 = player_view(first, 0), player_view(second, 0)
    for view in (view_1, view_2):
        del view["seed_commitment"]
    assert view_1 == view_2
    for level in LEVELS:
        assert choose(player_view(first, 0), 3, level) == choose(player_view(second, 0), 3, level)


def test_strong_wins_most_two_player_games_against_easy():
    """A small sample (bench/digit_code_bots.py measures 400 games and more)."""
    wins = 0
    for seed in range(10):
        for strong in (0, 1):
            game = new(2, 1000 + seed)
            levels = ["easy", "easy"]
            levels[strong] = "strong"
            while not game.over:
                seat = game.active
                game.apply(choose(player_view(game, seat), seed, levels[seat]))
            wins += game.result.winner == strong
    assert wins >= 15


def test_public_view_is_all_a_bot_needs():
    game = new(2, 43)
    view = {**public_view(game), "you": 0}
    assert isinstance(choose(view, 0, "strong"), Ask)
