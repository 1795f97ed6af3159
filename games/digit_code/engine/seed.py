"""B6: the seed is committed to by a hash when the game starts and revealed when it ends."""

from __future__ import annotations

import hashlib
import hmac

#: The generator's namespace (games/engine/rng.py): its key is "digit-code/game/<seed>/".
RNG_NAMESPACE = "digit-code"


def seed_commitment(seed: int) -> str:
    """hex(SHA-256(UTF-8("digit-code-seed:" + decimal(seed)))), public from the start."""
    return hashlib.sha256(f"digit-code-seed:{seed}".encode()).hexdigest()


def seed_matches(commitment: str, seed: int) -> bool:
    return hmac.compare_digest(commitment, seed_commitment(seed))
