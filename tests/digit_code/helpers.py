"""Small helpers for the Digit Code tests (those here need no database)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from games.digit_code.engine import (
    Ask,
    Code,
    EngineError,
    Game,
    Guess,
    Options,
    Setup,
    breaks_rule,
    kth_code,
    start,
)


def new(players: int = 2, seed: int = 1) -> Game:
    return start(Setup(Options(), players, seed))[0]


def types(notes: list[dict]) -> list[str]:
    return [note["type"] for note in notes]


def refused(game: Game, action, code: Code, clause: str | None = None) -> EngineError:
    """The action is refused with `code` (and `clause`), and the game is unchanged."""
    before = game.clone()
    history = list(game.history)
    try:
        game.apply(action)
    except EngineError as error:
        assert error.code == code, (error.code, error.message)
        if clause is not None:
            assert error.clause == clause
        assert game == before and game.history == history
        return error
    raise AssertionError(f"{action} was not refused")


def wrong_code(game: Game, avoid: tuple[int, ...] = ()) -> tuple[int, ...]:
    """A valid code that is not the game's code and was not guessed."""
    guessed = {code for _, code, _ in game.guesses} | {tuple(avoid)}
    for k in range(1000):
        code = kth_code(k)
        if code != game.secret_code() and code not in guessed:
            assert breaks_rule(code) is None
            return code
    raise AssertionError("unreachable")


def ask_first(game: Game) -> list[dict]:
    """The seat to play asks the first question not yet asked."""
    return game.apply(game.legal_actions()[0])


def guess_wrong(game: Game) -> list[dict]:
    return game.apply(Guess(game.active, wrong_code(game)))


def guess_right(game: Game) -> list[dict]:
    return game.apply(Guess(game.active, game.secret_code()))


def seed_where(predicate: Callable[[Game], bool], players: int = 2) -> Game:
    for seed in range(10_000):
        game = new(players, seed)
        if predicate(game):
            return game
    raise AssertionError("no seed found")


def as_json(value) -> str:
    return json.dumps(value, sort_keys=True)


def ask(game: Game, question) -> list[dict]:
    return game.apply(Ask(game.active, question))


def code_pattern(code: tuple[int, ...]) -> re.Pattern[str]:
    """The code written in any usual way: JSON lists, a tuple's repr, six digits in a row."""
    return re.compile(r"(, ?)?".join(map(str, code)))


def leaks(text: str, code: list[int], seed: str) -> list[str]:
    """What of the secrets (G6) a text the server sent holds: the code as a JSON list or as
    six digits in a sentence or a string, the seed."""
    found = []
    digits = "".join(map(str, code))
    if re.search(r"\[\s*" + r"\s*,\s*".join(map(str, code)) + r"\s*\]", text):
        found.append("the code as a list")
    if seed and seed in text:
        found.append("the seed")
    if '"code": "' + digits in text or f"code was {digits}" in text:
        found.append("the code as text")
    return found
