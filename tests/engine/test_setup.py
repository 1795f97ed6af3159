"""Setup (S1–S7) and drawing citizens (C1)."""

from collections import Counter

import pytest

from games.engine import Options, Pickup, Step, Stop, new_game
from tests.engine.scenario import arrange, types

PBM = Options(pickup_before_movement=True)


def card_count(game):
    riding = sum(len(p) for p in game.passengers)
    return len(game.pile) + len(game.discard) + 2 * len(game.waiting) + 2 * riding


@pytest.mark.parametrize(("players", "cards"), [(2, 52), (3, 52), (4, 52), (5, 104), (8, 104)])
def test_S1_one_deck_up_to_four_players_two_decks_from_five(players, cards):
    game, _ = new_game(PBM, players, seed=3)
    assert card_count(game) == cards
    every_card = Counter(game.pile + game.discard)
    for origin, destination in game.waiting:
        every_card.update([origin, destination])
    assert set(every_card.values()) == {cards // 52}


def test_S2_same_seed_same_game_other_seed_other_game():
    first = new_game(Options(), 4, seed=11)
    again = new_game(Options(), 4, seed=11)
    other = new_game(Options(), 4, seed=12)
    assert first[1] == again[1] and first[0] == again[0]
    assert first[1] != other[1]


def test_S3_seat_order_is_drawn_at_random():
    orders = set()
    for seed in range(40):
        game, notes = new_game(Options(), 4, seed)
        assert sorted(game.seat_players) == [0, 1, 2, 3]
        assert [s["player"] for s in notes[0]["seats"]] == list(game.seat_players)
        orders.add(game.seat_players)
    assert len(orders) > 10  # not a fixed or rotating order


def test_S3_play_goes_in_seat_order():
    game, notes = new_game(Options(), 3, seed=5)
    seen = [n["seat"] for n in notes if n["type"] == "turn_started"]
    for _ in range(6):
        seat = game.active
        notes = game.apply(Step(seat, game.step_choices()[0]))
        notes += game.apply(Stop(seat)) if not game.over and game.active == seat else []
        if game.phase == "pickup":
            notes += game.apply({"type": "decline", "seat": seat})
        seen += [n["seat"] for n in notes if n["type"] == "turn_started"]
    assert seen == [0, 1, 2, 0, 1, 2, 0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_S4_each_taxi_starts_on_its_drawn_card_which_is_discarded(players):
    game, notes = new_game(Options(), players, seed=21)
    started = next(n for n in notes if n["type"] == "game_started")
    assert [s["area"] for s in started["seats"]] == game.taxis
    assert game.discard[:players] == game.taxis
    assert len(set(game.taxis)) == players


def test_S4_two_decks_start_areas_are_unique_and_set_aside_cards_go_back():
    for seed in range(300):
        game, _ = new_game(PBM, 8, seed)
        assert len(set(game.taxis)) == 8
        assert card_count(game) == 104  # the set-aside cards are back in the pile


def test_S5_three_players_discard_one_more_card_to_make_the_pile_even():
    game, notes = new_game(Options(), 3, seed=4)
    (discard,) = [n for n in notes if n["type"] == "cards_discarded"]
    assert discard["reason"] == "three_players" and len(discard["cards"]) == 1
    assert discard["pile"] == 52 - 3 - 1
    assert len(game.pile) == 52 - 3 - 1 - 16
    assert len(game.pile) % 2 == 0
    assert types(notes) == ["cards_discarded", "game_started", "turn_started"]
    for players in (2, 4):
        assert "cards_discarded" not in types(new_game(Options(), players, 4)[1])


def test_S6_shift_change_fills_every_taxi_with_three_passengers():
    game, notes = new_game(Options(shift_change=True), 4, seed=8)
    started = notes[0]
    assert [len(p) for p in game.passengers] == [3, 3, 3, 3]
    assert started["passengers"] == [
        [{"origin": o, "destination": d} for o, d in riding] for riding in game.passengers
    ]
    assert "citizen_added" not in types(notes)
    assert len(game.pile) == 52 - 4 - 24 - 16
    assert all(len(p) == 0 for p in new_game(Options(), 4, 8)[0].passengers)


def test_S7_eight_citizens_wait_on_their_origins():
    game, notes = new_game(Options(), 2, seed=9)
    assert len(game.waiting) == 8
    assert notes[0]["waiting"] == [{"origin": o, "destination": d} for o, d in game.waiting]
    assert notes[0]["pile"] == len(game.pile) == 52 - 2 - 16


def test_C1_first_card_is_the_origin_second_the_destination():
    game = arrange(
        taxis=["8H", "2D"],
        waiting=["9H>5D", "2C>3C", "4C>5C", "6C>7C", "8C>9C", "JC>QC"],
        draws=["7H", "3S"],
        pile_size=10,
    )
    game.apply(Step(0, "9H"))
    notes = game.apply(Stop(0))
    notes += game.apply(Pickup(0, "5D"))
    added = next(n for n in notes if n["type"] == "citizen_added")
    assert (added["origin"], added["destination"], added["pile"]) == ("7H", "3S", 8)
    assert ("7H", "3S") in game.waiting


def test_C1_identical_pair_is_discarded_and_another_pair_drawn():
    game = arrange(
        taxis=["8H", "2D", "4S", "5S", "6S"],
        waiting=["9H>5D", "2C>3C", "4C>5C", "6C>7C", "8C>9C", "JC>QC"],
        draws=["7H", "7H", "KS", "KS", "3S", "4H"],
        pile_size=12,
    )
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    notes = game.apply(Pickup(0, "5D"))
    assert types(notes)[:4] == [
        "citizen_picked_up",
        "cards_discarded",
        "cards_discarded",
        "citizen_added",
    ]
    assert notes[1] == {
        "type": "cards_discarded",
        "cards": ["7H", "7H"],
        "reason": "identical_pair",
        "pile": 10,
    }
    assert notes[2]["cards"] == ["KS", "KS"] and notes[2]["pile"] == 8
    assert (notes[3]["origin"], notes[3]["destination"]) == ("3S", "4H")


def test_C1_no_citizen_is_drawn_from_an_exhausted_pile():
    game = arrange(taxis=["8H", "2D"], waiting=["9H>5D", "2C>3C", "4C>5C"], draws=["7H"])
    game.apply(Step(0, "9H"))
    game.apply(Stop(0))
    notes = game.apply(Pickup(0, "5D"))
    assert "citizen_added" not in types(notes)
    assert game.pile == ["7H"]
