"""H2: the seed is committed to by a hash when the game starts and revealed when it ends."""

from __future__ import annotations

import hashlib
import hmac


def seed_commitment(seed: int) -> str:
    """A SHA-256 hash of the seed, public from the start. Server seeds are 128 random bits, so
    the hash cannot be reversed by trying seeds."""
    return hashlib.sha256(f"bahama-taxi-seed:{seed}".encode()).hexdigest()


def seed_matches(commitment: str, seed: int) -> bool:
    return hmac.compare_digest(commitment, seed_commitment(seed))
