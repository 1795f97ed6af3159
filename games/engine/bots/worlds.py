"""Determinization: plausible whole games rebuilt from what one player can see (H1).

A bot never reads the game itself, only `player_view(game, seat)`. Everything drawn is public,
so the cards still in the draw pile are known as a multiset: the deck(s) (S1) less the discards,
the waiting citizens and every passenger. Only their order is secret. A *world* is a `Game`
whose public part equals the view and whose pile is one sampled order of those cards; a search
plays its futures in many worlds and so weighs every order the player cannot rule out.
"""

from __future__ import annotations

from collections import Counter

from ..board import AREAS
from ..game import OVER, UNDO_LIMIT, Game
from ..options import ALLOWANCE, Options
from ..rng import Rng


def unseen_cards(view: dict) -> list[str]:
    """The cards of the draw pile as the view's player knows them: sorted, order unknown."""
    if "secret" in view:
        raise ValueError("a bot decides from a player's view, never from the full view")
    deck = Counter(AREAS * (2 if view["players"] >= 5 else 1))  # S1
    seen = Counter(view["discarded"])
    for citizen in view["waiting"]:
        seen[citizen["origin"]] += 1
        seen[citizen["destination"]] += 1
    for seat in view["seats"]:
        for citizen in seat["passengers"]:
            seen[citizen["origin"]] += 1
            seen[citizen["destination"]] += 1
    if seen - deck:
        raise ValueError("the view shows cards the deck does not hold")
    cards = sorted((deck - seen).elements())
    if len(cards) != view["pile"]:
        raise ValueError(f"the view's pile holds {view['pile']} cards, not {len(cards)}")
    return cards


def world(view: dict, pile: list[str]) -> Game:
    """A game equal to the view in everything public, with `pile` as its draw pile (the end of
    the list is the top). It has no seed and no history: it is for searching, not for storing."""
    if view["phase"] == OVER:
        raise ValueError("the game is over")
    options = Options.from_json(view["options"])
    seats = view["seats"]
    game = Game.__new__(Game)
    game.rules_version = view["rules_version"]
    game.options = options
    game.players = view["players"]
    game.seed = None
    game.seat_players = tuple(seat["player"] for seat in seats)
    game.pile = list(pile)
    game.discard = list(view["discarded"])
    game.taxis = [seat["area"] for seat in seats]
    game.passengers = [[(c["origin"], c["destination"]) for c in s["passengers"]] for s in seats]
    game.income = [seat["income"] for seat in seats]
    game.waiting = [(c["origin"], c["destination"]) for c in view["waiting"]]
    game.deadline = view["deadlines_reached"]
    game.active = view["active_seat"]
    game.phase = view["phase"]
    game.turn_start = view["turn_start"]
    game.path = list(view["path"])
    game.undos = UNDO_LIMIT - view["undos_left"]
    game.stepped = bool(game.path) or game.undos > 0  # T2: an undone step still counts
    game.turn = view["turn"]
    game.zombies = [seat["zombie"] for seat in seats]
    game.timeouts = [seat["timeouts"] for seat in seats]
    game.result = None
    game.aborted = None
    game.history = []
    game._out = None
    game._allowances = ALLOWANCE[options.movement]
    return game


class Sampler:
    """Worlds for one decision, drawn from the bot's own seed: the same view and seed give the
    same worlds, and nothing but the view goes in."""

    def __init__(self, view: dict, seed: int):
        self._view = view
        self._cards = unseen_cards(view)
        self._rng = Rng(seed, stream="bot-worlds")

    def __call__(self) -> Game:
        pile = self._cards[:]
        self._rng.shuffle(pile)
        return world(self._view, pile)
