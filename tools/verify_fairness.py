#!/usr/bin/env python3
"""Check a finished Bahama Taxi game's draws from its revealed seed (docs/fairness.md).

Standard library only, importing nothing of the server: a third party re-implements the
commitment, the generator, the shuffle and the setup from the documentation and checks that
the seed matches its commitment, that the setup is the one the seed fixes, and that every card
drawn during the game was the next card of the pile.

    python tools/verify_fairness.py --url https://server.example --token TOKEN --game 42
    python tools/verify_fairness.py game.json   # GET /games/{id}/export (or with "board")
Exit status 0: fair; 1: a check failed (each failure is printed); 2: bad input.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import urllib.request

WORD = 1 << 64
# The deck in board order (docs/fairness.md): ranks 2–A of spades, hearts, clubs, diamonds.
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
BOARD_ORDER = [rank + suit for suit in "SHCD" for rank in RANKS]
INITIAL_CITIZENS = 8
SHIFT_PASSENGERS = 3


def commitment(seed: int) -> str:
    return hashlib.sha256(f"bahama-taxi-seed:{seed}".encode()).hexdigest()


class Generator:
    """SHA-256 in counter mode (docs/fairness.md, section 2)."""

    def __init__(self, seed: int):
        self.key = f"bahama-taxi/game/{seed}/".encode()
        self.counter = 0

    def word(self) -> int:
        digest = hashlib.sha256(self.key + str(self.counter).encode()).digest()
        self.counter += 1
        return int.from_bytes(digest[:8], "big")

    def below(self, n: int) -> int:
        limit = WORD - WORD % n
        while True:
            word = self.word()
            if word < limit:
                return word % n

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


class Pile:
    def __init__(self, cards: list[str]):
        self.cards = cards

    def draw_citizen(self, discards: list[dict]) -> tuple[str, str] | None:
        """C1; identical pairs go to `discards` (as the notifications announce them)."""
        while len(self.cards) >= 2:
            origin, destination = self.cards.pop(), self.cards.pop()
            if origin != destination:
                return origin, destination
            discards.append(
                {
                    "type": "cards_discarded",
                    "cards": [origin, destination],
                    "reason": "identical_pair",
                    "pile": len(self.cards),
                }
            )
        return None


def setup(seed: int, players: int, shift_change: bool, areas: list[str]) -> tuple[dict, Pile]:
    """What the setup announces (its discards, then game_started), and the pile after it."""
    rng = Generator(seed)
    seat_players = list(range(players))
    rng.shuffle(seat_players)
    cards = list(areas) * (2 if players >= 5 else 1)
    rng.shuffle(cards)
    taxis: list[str] = []
    for _ in range(players):
        set_aside = []
        card = cards.pop()
        while card in taxis:
            set_aside.append(card)
            card = cards.pop()
        taxis.append(card)
        if set_aside:
            cards.extend(set_aside)
            rng.shuffle(cards)
    pile = Pile(cards)
    notes: list[dict] = []
    if players == 3:
        card = cards.pop()
        notes.append(
            {
                "type": "cards_discarded",
                "cards": [card],
                "reason": "three_players",
                "pile": len(cards),
            }
        )
    passengers: list[list[dict]] = [[] for _ in range(players)]
    if shift_change:
        for seat in range(players):
            for _ in range(SHIFT_PASSENGERS):
                citizen = pile.draw_citizen(notes)
                if citizen is not None:
                    passengers[seat].append({"origin": citizen[0], "destination": citizen[1]})
    waiting = []
    for _ in range(INITIAL_CITIZENS):
        citizen = pile.draw_citizen(notes)
        if citizen is not None:
            waiting.append({"origin": citizen[0], "destination": citizen[1]})
    notes.append(
        {
            "type": "game_started",
            "seats": [
                {"seat": s, "area": taxis[s], "player": seat_players[s]} for s in range(players)
            ],
            "passengers": passengers,
            "waiting": waiting,
            "pile": len(cards),
        }
    )
    return {"notifications": notes}, pile


def verify(game: dict, entries: list[dict], areas: list[str]) -> list[str]:
    """Every failed check, in words; empty when the game is fair."""
    failures = []
    if game.get("seed") is None:
        return ["the seed is not revealed: the game is not over"]
    seed = int(game["seed"])
    if commitment(seed) != game["seed_commitment"]:
        failures.append("the seed does not match the commitment published at the start")
    entries = sorted(entries, key=lambda entry: entry["seq"])
    if not entries or entries[0]["seq"] != 0:
        return [*failures, "the log does not start with the setup (seq 0)"]
    if [entry["seq"] for entry in entries] != list(range(len(entries))):
        failures.append("the log has gaps")
    expected, pile = setup(seed, game["players"], game["options"]["shift_change"], areas)
    setup_notes = [
        n for n in entries[0]["notifications"] if n["type"] in ("cards_discarded", "game_started")
    ]
    if setup_notes != expected["notifications"]:
        failures.append("the setup is not the one the seed fixes (seats, pile or citizens)")
    draws = 0
    for entry in entries[1:]:
        for note in entry["notifications"]:
            if note["type"] == "citizen_added":
                drawn = [note["origin"], note["destination"]]
            elif note["type"] == "cards_discarded" and note["reason"] == "identical_pair":
                drawn = note["cards"]
            else:
                continue
            draws += 1
            top = pile.cards[-2:][::-1]
            del pile.cards[-2:]
            if drawn != top or note["pile"] != len(pile.cards):
                failures.append(
                    f"entry {entry['seq']}: drew {drawn} (pile {note['pile']}), "
                    f"the seed gives {top} (pile {len(pile.cards)})"
                )
    return failures


def _fetch(url: str, token: str):
    request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def download(base: str, token: str, game_id: int) -> dict:
    """The export (one call) and the board, whose area order is the deck's."""
    base = base.rstrip("/")
    exported = _fetch(f"{base}/api/v1/games/{game_id}/export", token)
    return {**exported, "board": _fetch(f"{base}/api/v1/board", token)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", help="an exported game (JSON)")
    parser.add_argument("--url")
    parser.add_argument("--token")
    parser.add_argument("--game", type=int)
    args = parser.parse_args(argv)
    if args.file:
        with open(args.file, encoding="utf-8") as handle:
            exported = json.load(handle)
    elif args.url and args.token and args.game:
        exported = download(args.url, args.token, args.game)
    else:
        parser.error("give an exported game, or --url, --token and --game")
    board = exported.get("board")
    areas = [area["id"] for area in board["areas"]] if board else BOARD_ORDER
    failures = verify(exported["game"], exported["entries"], areas)
    for failure in failures:
        print(failure)
    if not failures:
        print(f"game {exported['game'].get('id')}: fair (commitment, setup and every draw)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
