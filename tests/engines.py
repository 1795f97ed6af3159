"""Checks the tests of every engine share: what the platform asks of each engine's `Game`
(docs/adding-a-game.md), run on that engine's own random games. Free of Django, as the engines."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def assert_frozen_copy_plays_on(
    replay: Callable[[Any, list], Any], setup: Any, game: Any, log: list, at: int
) -> None:
    """What a server keeps of a game is a frozen copy (`frozen()`): taken after `at` entries of
    `game`'s history, cloned, it plays the rest of the log to the same game and notifications
    (`log`: the setup's, then each entry's); playing on the game or on a clone leaves it as it
    was."""
    history = list(game.history)
    live = replay(setup, history[:at])
    kept = live.frozen()
    for action in history[at:]:
        live.apply(action)
    assert live == game
    for _ in range(2):
        copy = kept.clone()
        assert copy.history == history[:at]
        assert [copy.apply(action) for action in history[at:]] == log[1 + at :]
        assert copy == game and copy.history == history
