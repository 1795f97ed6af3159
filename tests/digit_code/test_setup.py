"""Setup (B6) and players (P1), checked against an independent recomputation with hashlib."""

from __future__ import annotations

import hashlib
import itertools

import pytest

from games import engine as bahama_taxi
from games.digit_code.engine import (
    Code,
    InvalidSetup,
    Options,
    Setup,
    new_game,
    public_view,
    seed_commitment,
    seed_matches,
    start,
)
from games.engine.rng import Rng, seat_order

from .helpers import new


class Sha256CounterMode:
    """docs/fairness.md's generator, written again from the text alone."""

    def __init__(self, key: bytes):
        self.key, self.counter = key, 0

    def below(self, n: int) -> int:
        limit = 2**64 - 2**64 % n
        while True:
            digest = hashlib.sha256(self.key + str(self.counter).encode()).digest()
            self.counter += 1
            word = int.from_bytes(digest[:8], "big")
            if word < limit:
                return word % n


def recompute(seed: int, players: int) -> tuple[list[int], tuple[int, ...]]:
    """B6 from scratch: the seat order, then the k-th valid code."""
    generator = Sha256CounterMode(f"digit-code/game/{seed}/".encode())
    seats = list(range(players))
    for i in range(players - 1, 0, -1):
        j = generator.below(i + 1)
        seats[i], seats[j] = seats[j], seats[i]
    k = generator.below(465_120)
    valid = (
        code
        for code in itertools.product(range(10), repeat=6)
        if all(
            code[a] != code[b] for a, b in ((0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5))
        )
        and all(code.count(d) <= 2 for d in range(10))
    )
    return seats, next(itertools.islice(valid, k, None))


@pytest.mark.parametrize(("seed", "players"), [(0, 2), (7, 3), (2**127 + 12345, 4), (99, 4)])
def test_B6_seats_and_code_are_the_ones_recomputed_from_the_seed(seed, players):
    game, notes = new_game(Options(), players, seed)
    seats, code = recompute(seed, players)
    assert notes[0]["seats"] == [{"seat": s, "player": p} for s, p in enumerate(seats)]
    assert list(game.seat_players) == seats
    assert game.secret_code() == code


def test_B6_the_commitment_is_sha256_of_digit_code_seed():
    for seed in (0, 7, 2**128 - 1):
        expected = hashlib.sha256(f"digit-code-seed:{seed}".encode()).hexdigest()
        assert seed_commitment(seed) == expected
        assert seed_matches(expected, seed) and not seed_matches(expected, seed + 1)
        game, notes = new_game(Options(), 2, seed)
        assert notes[0]["commitment"] == expected == public_view(game)["seed_commitment"]


def test_B6_the_seat_shuffle_is_bahama_taxis_S3_under_this_games_key():
    for seed in range(20):
        for players in (2, 3, 4):
            game, _ = new_game(Options(), players, seed)
            assert game.seat_players == seat_order(Rng(seed, namespace="digit-code"), players)
            taxi, _ = bahama_taxi.new_game(bahama_taxi.Options(), players, seed)
            assert taxi.seat_players == seat_order(Rng(seed), players)  # the same function


def test_B6_the_code_is_uniform_over_the_valid_codes():
    """Each position's digit over many seeds is spread like over all the codes (a coarse
    check that k is drawn over the whole range: below(465120), not a narrower one)."""
    ks = []
    for seed in range(400):
        game = new(2, seed)
        ks.append(int("".join(map(str, game.secret_code()))))
    assert min(ks) < 200_000 and max(ks) > 800_000
    assert len(set(ks)) == len(ks)


def test_B6_game_started_then_seat_0s_turn():
    game, notes = start(Setup(Options(), 3, 5))
    assert [n["type"] for n in notes] == ["game_started", "turn_started"]
    assert notes[0]["rules_version"] == "1"
    assert notes[1] == {"type": "turn_started", "seat": 0}
    assert game.current_player() == 0


@pytest.mark.parametrize("players", [0, 1, 5, 8, True, 2.0, "2"])
def test_P1_two_to_four_players(players):
    with pytest.raises(InvalidSetup) as caught:
        new_game(Options(), players, 1)
    assert caught.value.code == Code.INVALID_PLAYERS


@pytest.mark.parametrize("players", [2, 3, 4])
def test_P1_every_count_from_two_to_four_plays_the_same_rules(players):
    game = new(players, 3)
    assert len(game.legal_actions()) == 64 and game.players == players


def test_P1_there_are_no_table_options():
    assert Options.from_json({}) == Options() and Options().to_json() == {}
    for bad in ({"two_player_rules": True}, [], None):
        with pytest.raises(InvalidSetup) as caught:
            Options.from_json(bad)
        assert caught.value.code == Code.INVALID_OPTIONS


def test_setup_refuses_an_unknown_rules_version():
    with pytest.raises(InvalidSetup) as caught:
        start(Setup(Options(), 2, 1, rules_version="0"))
    assert caught.value.code == Code.UNSUPPORTED_RULES_VERSION
    assert Setup.from_json(Setup(Options(), 2, 1).to_json()) == Setup(Options(), 2, 1)
