"""Digit Code's registration with the platform (games/registry.py, games/game_kind.py): its engine
(games/digit_code/engine), no table options (its JSON column stays `{}`), its page, its admin
replay panel (questions, answers and guesses per step; the code only once the game is over),
its bots (easy, strong) and its sentences for the log, pushes and the replay viewer."""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.digit_code import engine
from games.digit_code.engine import bots
from games.digit_code.engine.codes import DIGITS, POSITIONS, SEGMENTS
from games.game_kind import GameKind, InvalidNotes

NOTIFICATIONS = frozenset({
    "game_started", "turn_started", "question_asked", "guess_made", "player_eliminated",
    "turn_ended", "game_ended", "turn_timed_out", "seat_zombified", "game_aborted",
})  # fmt: skip

Who = Callable[[object], str]

# The engine's refusals in the reader's language (games/errors.py: `engine_message`); the codes
# shared with Bahama Taxi keep its sentences where they say the same.
ERROR_MESSAGES = {
    "malformed_action": gettext_lazy("This is not a well-formed action."),
    "invalid_options": gettext_lazy("These table options are not valid."),
    "invalid_players": gettext_lazy("A game of Digit Code has 2 to 4 players."),
    "unsupported_rules_version": gettext_lazy("This version of the rules is not supported."),
    "game_over": gettext_lazy("The game is over."),
    "no_such_seat": gettext_lazy("This game has no such seat."),
    "not_your_turn": gettext_lazy("It is not your turn."),
    "seat_eliminated": gettext_lazy("You are out of this game."),
    "question_already_asked": gettext_lazy("This question has already been asked."),
    "impossible_code": gettext_lazy(
        "No code looks like this: neighbouring positions differ and a digit appears at most twice."
    ),
    "guess_repeated": gettext_lazy("This code has already been guessed."),
    "already_zombie": gettext_lazy("This seat has already left the game."),
}


def _offered(state: engine.Game, seat: int | None) -> list[dict]:
    return [dict(offer) for offer in state.offered_actions(seat)]


def _choose(view: dict, seed: int, level: str) -> engine.PlayerAction:
    return bots.choose(view, seed=seed, level=level)


# ------------------------------------------------------------------------------ in words


def question_text(question: dict) -> str:
    """A question (B7's JSON) in words."""
    kind = question.get("kind")
    if kind == "count" and question.get("line") == "row":
        return _("how many LEDs of LED row %(index)s are lit") % {"index": question["index"]}
    if kind == "count":
        return _("how many LEDs of LED column %(index)s are lit") % {"index": question["index"]}
    if kind == "parity":
        return _("whether the digit at position %(position)s is odd or even") % question
    if kind == "compare":
        return _("whether the digit at position %(position)s is greater or less than the one "
                 "to its left") % question  # fmt: skip
    if kind == "led":
        return _("whether LED %(segment)s at position %(position)s is lit") % question
    raise KeyError(kind)


def answer_text(answer: object) -> str:
    words = {
        "odd": _("odd"),
        "even": _("even"),
        "greater": _("greater"),
        "less": _("less"),
        "lit": _("lit"),
        "unlit": _("unlit"),
    }
    return str(words.get(answer, answer)) if isinstance(answer, str) else str(answer)


def code_text(code: object) -> str:
    return "".join(str(digit) for digit in code) if isinstance(code, list) else "?"


def _game_started(n: dict, who: Who) -> str:
    return _("The game started: %(players)s players race to find the hidden code.") % {
        "players": len(n.get("seats", ()))
    }


def _turn_started(n: dict, who: Who) -> str:
    return _("%(seat)s's turn begins.") % {"seat": who(n["seat"])}


def _question_asked(n: dict, who: Who) -> str:
    return _("%(seat)s asked %(question)s: %(answer)s.") % {
        "seat": who(n["seat"]),
        "question": question_text(n["question"]),
        "answer": answer_text(n["answer"]),
    }


def _guess_made(n: dict, who: Who) -> str:
    values = {"seat": who(n["seat"]), "code": code_text(n["code"])}
    if n["correct"]:
        return _("%(seat)s guessed %(code)s: right!") % values
    return _("%(seat)s guessed %(code)s: wrong (%(wrong)s wrong so far).") % {
        **values,
        "wrong": n.get("wrong_guesses", 1),
    }


def _player_eliminated(n: dict, who: Who) -> str:
    return _("%(seat)s is out of the game.") % {"seat": who(n["seat"])}


def _game_ended(n: dict, who: Who) -> str:
    code = code_text(n.get("code"))
    if n.get("winner") is None:
        return _("The game ended with no winner. The code was %(code)s.") % {"code": code}
    return _("The game ended: %(seat)s won. The code was %(code)s.") % {
        "seat": who(n["winner"]),
        "code": code,
    }


def _turn_timed_out(n: dict, who: Who) -> str:
    return _("%(seat)s ran out of time (%(count)s in a row).") % {
        "seat": who(n["seat"]),
        "count": n.get("count", 1),
    }


def _seat_zombified(n: dict, who: Who) -> str:
    seat = {"seat": who(n["seat"])}
    if n.get("reason") == "timeouts":
        return _("%(seat)s timed out 3 times in a row and leaves the game.") % seat
    if n.get("reason") == "moderator":
        return _("A moderator removed %(seat)s from the game.") % seat
    return _("%(seat)s resigned.") % seat


SENTENCES = {
    "game_started": _game_started,
    "turn_started": _turn_started,
    "question_asked": _question_asked,
    "guess_made": _guess_made,
    "player_eliminated": _player_eliminated,
    "game_ended": _game_ended,
    "turn_timed_out": _turn_timed_out,
    "seat_zombified": _seat_zombified,
}


# ------------------------------------------------------------------------------ notes (C2)

NOTE_POSITIONS = tuple(str(position) for position in range(1, POSITIONS + 1))
NOTE_SEGMENTS = tuple(SEGMENTS)  # one letter each ("ab" is in the string SEGMENTS)
LED_NOTES = ("lit", "unlit")


def notes(data: object) -> dict:
    """C2's private notes, as a player's client sends them and the server stores them:
    `{"digits": {"1": [0, 7], …}, "leds": {"1": {"a": "lit", "g": "unlit"}, …}}`: per
    position ("1"–"6") the digits ruled out (distinct, 0–9), per position and LED ("a"–"g")
    `"lit"` or `"unlit"` (an unknown LED is left out). Both parts may be left out; empty
    lists and objects are dropped and digits sorted. Anything else: `InvalidNotes`, naming
    each wrong field."""
    if not isinstance(data, dict):
        raise InvalidNotes({"non_field_errors": [_("Notes are a JSON object.")]})
    errors: dict = {}
    for key in data.keys() - {"digits", "leds"}:
        errors[key] = [_('Unknown field: notes hold "digits" and "leds".')]
    digits, digit_errors = _digit_notes(data.get("digits", {}))
    leds, led_errors = _led_notes(data.get("leds", {}))
    if digit_errors:
        errors["digits"] = digit_errors
    if led_errors:
        errors["leds"] = led_errors
    if errors:
        raise InvalidNotes(errors)
    return {"digits": digits, "leds": leds}


def _positions(data: object) -> tuple[dict, object]:
    """The per-position object, or its error: an object keyed by "1"–"6"."""
    if not isinstance(data, dict):
        return {}, [_('An object keyed by position, "1" to "6".')]
    errors = {
        key: [_('No such position: positions are "1" to "6".')]
        for key in data
        if key not in NOTE_POSITIONS
    }
    return {key: value for key, value in data.items() if key in NOTE_POSITIONS}, errors


def _digit_notes(data: object) -> tuple[dict, object]:
    by_position, errors = _positions(data)
    if not isinstance(errors, dict):
        return {}, errors
    found = {}
    for position, ruled_out in by_position.items():
        if (
            not isinstance(ruled_out, list)
            or not all(type(d) is int and d in DIGITS for d in ruled_out)
            or len(set(ruled_out)) != len(ruled_out)
        ):
            errors[position] = [_("A list of distinct digits, 0 to 9.")]
        elif ruled_out:
            found[position] = sorted(ruled_out)
    return dict(sorted(found.items())), errors


def _led_notes(data: object) -> tuple[dict, object]:
    by_position, errors = _positions(data)
    if not isinstance(errors, dict):
        return {}, errors
    found = {}
    for position, leds in by_position.items():
        if not isinstance(leds, dict):
            errors[position] = [_('An object keyed by LED, "a" to "g".')]
            continue
        wrong = {}
        for segment, note in leds.items():
            if segment not in NOTE_SEGMENTS:
                wrong[segment] = [_('No such LED: LEDs are "a" to "g".')]
            elif note not in LED_NOTES:
                wrong[segment] = [_('"lit" or "unlit"; leave an unknown LED out.')]
        if wrong:
            errors[position] = wrong
        elif leds:
            found[position] = dict(sorted(leds.items()))
    return dict(sorted(found.items())), errors


# ------------------------------------------------------------------------------ admin replay


def replay_context(view: dict, before: dict | None) -> dict:
    """The admin replay panel of one step, from the full view after it (and before it): the
    public questions, answers and guesses, each seat's standing; the code and the seed only
    when the game is over (the moderator's secret box while it runs is the platform's)."""
    over = view["status"] != "playing"
    asked_before = len(before["questions"]) if before else 0
    guessed_before = len(before["guesses"]) if before else 0
    return {
        "questions": [
            {
                "seat": q["seat"],
                "text": question_text(q["question"]),
                "answer": answer_text(q["answer"]),
                "new": index >= asked_before,
            }
            for index, q in enumerate(view["questions"])
        ],
        "guesses": [
            {
                "seat": g["seat"],
                "code": code_text(g["code"]),
                "correct": g["correct"],
                "new": index >= guessed_before,
            }
            for index, g in enumerate(view["guesses"])
        ],
        "seats": view["seats"],
        "questions_left": view["questions_left"],
        "code": code_text(view["code"]) if over and "code" in view else None,
    }


KIND = GameKind(
    key="digit-code",
    name=gettext_lazy("Digit Code"),
    engine=engine,
    min_players=engine.MIN_PLAYERS,
    max_players=engine.MAX_PLAYERS,
    options_from_json=engine.Options.from_json,
    check_players=engine.check_players,
    notifications=NOTIFICATIONS,
    offered=_offered,
    bot_levels=bots.LEVELS,
    choose=_choose,
    template="web/digit_code/game.html",
    replay_template="admin/games/replay_digit_code.html",
    replay_context=replay_context,
    rating_pool="digit-code",
    sentences=SENTENCES,
    bot_seed_prefix="digit-code-bot",
    error_messages=ERROR_MESSAGES,
    notes=notes,
)
