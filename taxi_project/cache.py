"""A counter in any Django cache, through its public API: the rate limits' fixed windows."""

from __future__ import annotations


def count(cache, key: str, timeout: int) -> int:
    """Add one to the counter `key`, which expires `timeout` seconds after its first count;
    the new count. `add` makes it only if it is missing (SET NX on Redis), `incr` counts
    atomically across processes."""
    cache.add(key, 0, timeout)
    return cache.incr(key)
