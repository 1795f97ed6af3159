"""The game's random generator (rule S2), fixed forever by this file.

The stdlib's `random.shuffle` may change between Python versions, and a stored game must replay
identically on any version, so shuffles draw from SHA-256 in counter mode over the seed. Each
game keys the generator with its own namespace ("bahama-taxi", "digit-code": docs/fairness.md),
so the same seed gives each game its own draws.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

_WORD = 1 << 64
T = TypeVar("T")


class Rng:
    __slots__ = ("_key", "_counter")

    def __init__(self, seed: int, stream: str = "game", *, namespace: str = "bahama-taxi"):
        self._key = f"{namespace}/{stream}/{seed}/".encode()
        self._counter = 0

    def _word(self) -> int:
        digest = hashlib.sha256(self._key + str(self._counter).encode()).digest()
        self._counter += 1
        return int.from_bytes(digest[:8], "big")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), without modulo bias."""
        limit = _WORD - _WORD % n
        while True:
            word = self._word()
            if word < limit:
                return word % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]


def seat_order(rng: Rng, players: int) -> tuple[int, ...]:
    """S3, the seat order: seat → index of its player in joining order, a shuffle of
    0 … players − 1. The first draws of every game's generator."""
    seat_players = list(range(players))
    rng.shuffle(seat_players)
    return tuple(seat_players)
