"""What a seat is offered (`Game.offered_actions`, the views' `legal_actions`): the legal
actions on its turn, and resign (K3) at any moment while the seat is its player's."""

import pytest

from games.engine import (
    CLIENT_ACTIONS,
    SERVER_ACTIONS,
    MalformedAction,
    Options,
    Resign,
    Setup,
    player_view,
    start,
)


def _game(players=3, seed=11):
    game, _ = start(Setup(Options(), players=players, seed=seed))
    return game


def test_resign_is_offered_to_every_seat_on_its_turn_or_not_k3():
    game = _game()
    active = game.current_player()
    assert game.offered_actions(active) == [*game.legal_actions(), Resign(active)]
    for seat in range(game.players):
        if seat != active:
            assert game.offered_actions(seat) == [Resign(seat)]
    assert game.offered_actions(None) == []


def test_resign_is_not_offered_to_a_zombie_seat_nor_once_the_game_is_over_k3():
    game = _game()
    waiting = (game.current_player() + 1) % game.players
    game.apply(Resign(waiting))
    assert game.offered_actions(waiting) == []
    game.apply({"type": "abort", "reason": "test"})
    assert all(game.offered_actions(seat) == [] for seat in range(game.players))


def test_policies_never_see_resign_in_legal_actions():
    game = _game()
    assert all(not isinstance(action, Resign) for action in game.legal_actions())


def test_the_player_view_lists_what_is_offered():
    game = _game()
    active = game.current_player()
    other = (active + 1) % game.players
    assert player_view(game, other)["legal_actions"] == [{"type": "resign", "seat": other}]
    assert player_view(game, None)["legal_actions"] == []
    assert player_view(game, active)["legal_actions"][-1] == {"type": "resign", "seat": active}


def test_an_unknown_type_suggests_only_what_a_client_may_send():
    with pytest.raises(MalformedAction) as raised:
        _game().apply({"type": "jump", "seat": 0})
    suggested = set(raised.value.errors["type"].removeprefix("one of ").split(", "))
    assert suggested == CLIENT_ACTIONS
    assert not suggested & (SERVER_ACTIONS - {"resign"})
