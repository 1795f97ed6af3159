"""Hidden information: the pile and the seed stay secret (H1); the seed is committed to and
revealed (H2)."""

import json

import pytest

from games.engine import (
    IllegalAction,
    Options,
    Setup,
    Step,
    autopilot_action,
    full_view,
    new_game,
    player_view,
    public_view,
    replay_notifications,
    seed_commitment,
    seed_matches,
    verify,
)
from games.engine.rng import Rng

SEED = 271828182845904523536028747135266249775  # 128 bits, like the server's


def running_game(turns=10):
    game, _ = new_game(Options(), 4, SEED)
    while game.turn < turns:
        game.apply(autopilot_action(game))
    return game


def test_H1_views_do_not_depend_on_the_pile_order():
    game = running_game()
    other = game.clone()
    Rng(1, "test").shuffle(other.pile)
    assert other.pile != game.pile and sorted(other.pile) == sorted(game.pile)
    for seat in (None, 0, 1, 2, 3):
        assert player_view(game, seat) == player_view(other, seat)


def test_H1_no_view_of_a_running_game_holds_the_seed_or_the_pile_order():
    game = running_game()
    for view in (public_view(game), player_view(game, 0), player_view(game, None)):
        text = json.dumps(view)
        assert "secret" not in view and "seed" not in view
        assert str(SEED) not in text
        assert json.dumps(game.pile[::-1])[1:-1] not in text
        assert view["pile"] == len(game.pile)


def test_H1_errors_do_not_reveal_the_pile():
    game = running_game()
    seat = game.active
    with pytest.raises(IllegalAction) as error:
        game.apply(Step(seat, "AS" if game.taxis[seat] != "AS" else "2S"))
    body = json.dumps(error.value.as_dict())
    assert not any(card in body for card in game.pile[-2:] if card not in game.taxis)


def test_H1_the_moderators_full_view_marks_the_secrets():
    game = running_game()
    view = full_view(game)
    assert view["secret"] == {"pile_order": game.pile[::-1], "seed": SEED}


def test_H2_the_commitment_is_public_from_the_start_and_the_seed_revealed_at_the_end():
    game, first = new_game(Options(), 3, SEED)
    commitment = public_view(game)["seed_commitment"]
    assert commitment == seed_commitment(SEED) and len(commitment) == 64
    assert str(SEED) not in json.dumps(first)
    while not game.over:
        game.apply(autopilot_action(game))
    view = public_view(game)
    assert view["seed"] == SEED and seed_matches(commitment, view["seed"])


def test_H2_anyone_can_verify_a_finished_game_from_its_log():
    setup = Setup(Options(movement="fast"), 3, SEED)
    game, first = new_game(setup.options, setup.players, setup.seed)
    published = [first]
    while not game.over:
        published.append(game.apply(autopilot_action(game)))
    commitment = seed_commitment(SEED)
    assert verify(commitment, setup, game.history, published)
    assert replay_notifications(setup, game.history) == published
    assert not verify(commitment, Setup(setup.options, 3, SEED + 1), game.history, published)
    forged = json.loads(json.dumps(published))
    forged[0][-2 if forged[0][-1]["type"] == "turn_started" else -1]["pile"] = 0
    assert not verify(commitment, setup, game.history, forged)
