#!/usr/bin/env python3
"""Check a finished game's draws from its revealed seed (docs/fairness.md).

Standard library only, importing nothing of the server: a third party re-implements the
commitment, the generator, the shuffle and the setup from the documentation and checks that
the seed matches its commitment, that the setup is the one the seed fixes, and (Bahama Taxi)
that every card drawn during the game was the next card of the pile, or (Digit Code) that the
code revealed at the end is the one the seed fixes and every answer given was that code's.

    python tools/verify_fairness.py --url https://server.example --token TOKEN --game 42
    python tools/verify_fairness.py game.json   # GET /games/{id}/export (or with "board")
    python tools/verify_fairness.py --digit-code --seed SEED --players N   # the setup alone
Exit status 0: fair; 1: a check failed (each failure is printed); 2: bad input.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
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
    """SHA-256 in counter mode (docs/fairness.md, section 2), under a game's namespace."""

    def __init__(self, seed: int, namespace: str = "bahama-taxi"):
        self.key = f"{namespace}/game/{seed}/".encode()
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


# ---------------------------------------------------------------------- Digit Code (section 6)

DC_NEIGHBOURS = [(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)]
DC_LIT = ["abcdef", "bc", "abdeg", "abcdg", "bcfg", "acdfg", "acdefg", "abc", "abcdefg", "abcdfg"]
DC_CODES = 465_120


def dc_commitment(seed: int) -> str:
    return hashlib.sha256(f"digit-code-seed:{seed}".encode()).hexdigest()


def dc_valid(code: tuple[int, ...]) -> bool:
    """B2: neighbours differ; B3: no digit more than twice."""
    if any(code[a] == code[b] for a, b in DC_NEIGHBOURS):
        return False
    return all(code.count(digit) <= 2 for digit in range(10))


def dc_setup(seed: int, players: int) -> dict:
    """B6: the seat order (S3's shuffle), then k = below(465120) and the k-th valid code of the
    six-digit numbers in ascending order."""
    rng = Generator(seed, namespace="digit-code")
    seat_players = list(range(players))
    rng.shuffle(seat_players)
    k = rng.below(DC_CODES)
    valid = (c for c in itertools.product(range(10), repeat=6) if dc_valid(c))
    code = next(itertools.islice(valid, k, None))
    return {
        "commitment": dc_commitment(seed),
        "seats": [{"seat": s, "player": p} for s, p in enumerate(seat_players)],
        "k": k,
        "code": list(code),
    }


def dc_answer(question: dict, code: list[int]):
    """Q1–Q4: what the code answers (positions 1–6, LED lines of B5)."""
    kind = question["kind"]
    if kind == "count":
        index = question["index"] - 1
        if question["line"] == "row":  # rows 1-3: a, g, d of positions 1-3; 4-6: of 4-6
            first, segment = 3 * (index // 3), "agd"[index % 3]
            leds = [(first + offset, segment) for offset in range(3)]
        else:  # columns: f, e then b, c of positions 1 and 4, 2 and 5, 3 and 6
            top, pair = index // 2, ("fe", "bc")[index % 2]
            leds = [(p, s) for p in (top, top + 3) for s in pair]
        return sum(segment in DC_LIT[code[p]] for p, segment in leds)
    digit = code[question["position"] - 1]
    if kind == "parity":
        return "odd" if digit % 2 else "even"
    if kind == "compare":
        return "greater" if digit > code[question["position"] - 2] else "less"
    return "lit" if question["segment"] in DC_LIT[digit] else "unlit"


def is_digit_code(exported: dict, entries: list[dict]) -> bool:
    if exported.get("game", {}).get("game") in ("digit_code", "digit-code"):
        return True
    first = [n for e in entries if e.get("seq") == 0 for n in e.get("notifications", [])]
    return any(n.get("type") == "game_started" and "commitment" in n for n in first)


def verify_digit_code(game: dict, entries: list[dict]) -> list[str]:
    """Every failed check of a finished Digit Code game, in words; empty when it is fair."""
    entries = sorted(entries, key=lambda entry: entry["seq"])
    notes = [(e["seq"], n) for e in entries for n in e["notifications"]]
    ends = [n for _, n in notes if n["type"] in ("game_ended", "game_aborted")]
    if not ends:
        return ["the seed is not revealed: the game is not over"]
    seed = int(game["seed"] if game.get("seed") is not None else ends[-1]["seed"])
    failures = []
    started = [n for _, n in notes if n["type"] == "game_started"]
    players = game.get("players") or (len(started[0]["seats"]) if started else 0)
    expected = dc_setup(seed, players)
    published = {game.get("seed_commitment"), *(n.get("commitment") for n in started)} - {None}
    if published != {expected["commitment"]}:
        failures.append("the seed does not match the commitment published at the start")
    if not started or started[0]["seats"] != expected["seats"]:
        failures.append("the seat order is not the one the seed fixes")
    code = expected["code"]
    for end in ends:
        if end["code"] != code or str(end["seed"]) != str(seed):
            failures.append(f"the revealed code {end['code']} is not the seed's {code}")
    for seq, note in notes:
        if note["type"] == "question_asked":
            truth = dc_answer(note["question"], code)
            if note["answer"] != truth:
                failures.append(
                    f"entry {seq}: {note['question']} was answered {note['answer']!r}, "
                    f"the code gives {truth!r}"
                )
        elif note["type"] == "guess_made" and note["correct"] != (note["code"] == code):
            failures.append(f"entry {seq}: the guess {note['code']} was judged wrongly")
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
    parser.add_argument(
        "--digit-code", action="store_true", help="print a Digit Code setup from --seed"
    )
    parser.add_argument("--seed", type=int, help="with --digit-code: the revealed seed")
    parser.add_argument("--players", type=int, help="with --digit-code: 2 to 4")
    args = parser.parse_args(argv)
    if args.digit_code:
        if args.seed is None or args.seed < 0 or args.players not in (2, 3, 4):
            parser.error("--digit-code needs --seed (a whole number) and --players (2 to 4)")
        print(json.dumps(dc_setup(args.seed, args.players)))
        return 0
    if args.file:
        with open(args.file, encoding="utf-8") as handle:
            exported = json.load(handle)
    elif args.url and args.token and args.game:
        exported = download(args.url, args.token, args.game)
    else:
        parser.error("give an exported game, or --url, --token and --game")
    if is_digit_code(exported, exported["entries"]):
        failures = verify_digit_code(exported["game"], exported["entries"])
        checked = "commitment, seats, code and every answer"
    else:
        board = exported.get("board")
        areas = [area["id"] for area in board["areas"]] if board else BOARD_ORDER
        failures = verify(exported["game"], exported["entries"], areas)
        checked = "commitment, setup and every draw"
    for failure in failures:
        print(failure)
    if not failures:
        print(f"game {exported['game'].get('id')}: fair ({checked})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
