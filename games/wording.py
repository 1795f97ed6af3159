"""Notifications (CONTRACT.md vocabulary) in words, for people: the admin replay viewer today,
e-mails and the web client's log tomorrow.

Players are named when the caller knows their names (`describe(n, names={0: "Ana"})`: each
seat's `seat_name`, the one name a seat is shown with anywhere), else shown by seat, 1-based
("Seat 1" is seat 0); areas as rank and suit symbol ("10♥"). Every
sentence goes through gettext with named placeholders, so a translation may reorder them; the
strings are looked up when `describe` is called, so importing this module needs no request and
no active language.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import registry

if TYPE_CHECKING:
    from games.models import Seat

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


def area_label(area_id) -> str:
    """`10H` → `10♥`, `AS` → `A♠`; anything else is returned unchanged (as text)."""
    text = str(area_id)
    symbol = SUIT_SYMBOLS.get(text[-1:])
    return text[:-1] + symbol if symbol and len(text) > 1 else text


def seat_label(seat) -> str:
    """Seat 0 is "Seat 1": people count from one."""
    if isinstance(seat, int) and not isinstance(seat, bool):
        return _("Seat %(number)s") % {"number": seat + 1}
    return _("Seat %(number)s") % {"number": seat}


def seat_name(seat: Seat, table: Iterable[Seat] = ()) -> str:
    """The one name a seat is shown with, wherever it is shown (the game and replay pages, the
    lobby, the API's seat data, the log, the admin): its player's, or for a computer opponent
    "Computer N (level)", N its place among the table's computer seats in the order they were
    chosen (`table`: the game's seats; join order, so the number is the one the lobby's form
    chose it under, and it never changes from the table's opening to its replay). Without
    `table` the seat's join order counts, which is the same: a table's bots are seated right
    after its creator (games/services/tables.py)."""
    if not seat.bot_level:
        return str(seat.user)
    orders = sorted(s.join_order for s in table if s.bot_level)
    number = orders.index(seat.join_order) + 1 if seat.join_order in orders else seat.join_order
    return computer_name(str(seat.get_bot_level_display()), number)


def computer_name(level: str, number: int) -> str:
    """A computer opponent's name: "Computer 2 (strong)"; `level`: the level's label."""
    return _("Computer %(number)s (%(level)s)") % {"number": number, "level": level}


def _seats(seats, who) -> str:
    return ", ".join(who(seat) for seat in seats)


def _cards(cards) -> str:
    return ", ".join(area_label(card) for card in cards)


def competition_ranks(ranking) -> list[tuple[int, list]]:
    """(rank, seats) per group of tied seats, ranks as in sport ("1224"): a group's rank is one
    more than the number of seats ranked before it, so three tied seconds are followed by a
    fifth, not a third."""
    ranks, before = [], 0
    for seats in ranking:
        seats = list(seats)
        ranks.append((before + 1, seats))
        before += len(seats)
    return ranks


def _game_started(n: dict, who: Callable[[object], str]) -> str:
    pile = n.get("pile", 0)
    return ngettext(
        "The game started: %(taxis)s taxis, %(waiting)s citizens waiting, "
        "%(pile)s card in the pile.",
        "The game started: %(taxis)s taxis, %(waiting)s citizens waiting, "
        "%(pile)s cards in the pile.",
        pile,
    ) % {"taxis": len(n.get("seats", ())), "waiting": len(n.get("waiting", ())), "pile": pile}


def _turn_started(n: dict, who: Callable[[object], str]) -> str:
    allowance = n.get("allowance", 0)
    return ngettext(
        "%(seat)s's turn begins: up to %(allowance)s step.",
        "%(seat)s's turn begins: up to %(allowance)s steps.",
        allowance,
    ) % {"seat": who(n["seat"]), "allowance": allowance}


def _taxi_moved(n: dict, who: Callable[[object], str]) -> str:
    return _("%(seat)s moved from %(from)s to %(to)s.") % {
        "seat": who(n["seat"]),
        "from": area_label(n["from"]),
        "to": area_label(n["to"]),
    }


def _move_undone(n: dict, who: Callable[[object], str]) -> str:
    return _("%(seat)s took back the step to %(from)s and is back on %(to)s.") % {
        "seat": who(n["seat"]),
        "from": area_label(n["from"]),
        "to": area_label(n["to"]),
    }


def _passenger_dropped_off(n: dict, who: Callable[[object], str]) -> str:
    return _("%(seat)s dropped off a passenger from %(origin)s at %(area)s, fare %(fare)s.") % {
        "seat": who(n["seat"]),
        "origin": area_label(n["origin"]),
        "area": area_label(n.get("area", n.get("destination"))),
        "fare": n["fare"],
    }


def _citizen_picked_up(n: dict, who: Callable[[object], str]) -> str:
    return _("%(seat)s picked up a citizen at %(area)s going to %(destination)s.") % {
        "seat": who(n["seat"]),
        "area": area_label(n.get("area", n.get("origin"))),
        "destination": area_label(n["destination"]),
    }


def _citizen_added(n: dict, who: Callable[[object], str]) -> str:
    pile = n.get("pile", 0)
    return ngettext(
        "A new citizen waits at %(origin)s to go to %(destination)s (%(pile)s card left).",
        "A new citizen waits at %(origin)s to go to %(destination)s (%(pile)s cards left).",
        pile,
    ) % {
        "origin": area_label(n["origin"]),
        "destination": area_label(n["destination"]),
        "pile": pile,
    }


def _deadline_reached(n: dict, who: Callable[[object], str]) -> str:
    causes = {
        "pile": _("the draw pile is exhausted"),
        "waiting": _("at most 4 citizens are waiting"),
        "clock": _("the table's time for it has passed"),
    }
    cause = causes.get(n.get("cause"))
    if cause is None:
        return _("Deadline %(number)s reached.") % {"number": n["number"]}
    return _("Deadline %(number)s reached: %(cause)s.") % {"number": n["number"], "cause": cause}


def _turn_passed(n: dict, who: Callable[[object], str]) -> str:
    return _("%(seat)s is blocked and passes.") % {"seat": who(n["seat"])}


def _turn_ended(n: dict, who: Callable[[object], str]) -> str:
    return _("%(seat)s's turn ended.") % {"seat": who(n["seat"])}


def _cards_discarded(n: dict, who: Callable[[object], str]) -> str:
    values = {"cards": _cards(n.get("cards", ())), "pile": n.get("pile", 0)}
    reason = n.get("reason")
    if reason == "three_players":
        text = ngettext(
            "With three players, %(cards)s was discarded from the pile (%(pile)s card left).",
            "With three players, %(cards)s was discarded from the pile (%(pile)s cards left).",
            values["pile"],
        )
    elif reason == "identical_pair":
        text = ngettext(
            "An identical pair (%(cards)s) was discarded (%(pile)s card left).",
            "An identical pair (%(cards)s) was discarded (%(pile)s cards left).",
            values["pile"],
        )
    else:
        text = ngettext(
            "Discarded: %(cards)s (%(pile)s card left).",
            "Discarded: %(cards)s (%(pile)s cards left).",
            values["pile"],
        )
    return text % values


def _game_ended(n: dict, who: Callable[[object], str]) -> str:
    incomes = n.get("incomes", [])
    places = []
    for rank, seats in competition_ranks(n.get("ranking", [])):
        income = incomes[seats[0]] if seats and seats[0] < len(incomes) else "?"
        places.append(
            _("%(rank)s. %(seats)s (%(income)s)")
            % {"rank": rank, "seats": _seats(seats, who), "income": income}
        )
    return _("The game ended. Ranking: %(ranking)s.") % {"ranking": "; ".join(places)}


def _turn_timed_out(n: dict, who: Callable[[object], str]) -> str:
    return _("%(seat)s ran out of time (%(count)s in a row); the autopilot plays the turn.") % {
        "seat": who(n["seat"]),
        "count": n.get("count", 1),
    }


def _seat_zombified(n: dict, who: Callable[[object], str]) -> str:
    seat = {"seat": who(n["seat"])}
    reason = n.get("reason")
    if reason == "timeouts":
        return _("%(seat)s timed out 3 times in a row; the autopilot plays it from now on.") % seat
    if reason == "moderator":
        return _("A moderator handed %(seat)s to the autopilot.") % seat
    if reason == "resigned":
        return _("%(seat)s resigned; the autopilot plays it from now on.") % seat
    return _("The autopilot plays %(seat)s from now on.") % seat


def _seat_restored(n: dict, who: Callable[[object], str]) -> str:
    return _("%(seat)s is played by its player again.") % {"seat": who(n["seat"])}


def _game_aborted(n: dict, who: Callable[[object], str]) -> str:
    reason = str(n.get("reason") or "").strip().rstrip(".")
    if not reason:
        return _("The game was aborted.")
    return _("The game was aborted: %(reason)s.") % {"reason": reason}


SENTENCES: dict[str, Callable[[dict, Callable[[object], str]], str]] = {
    "game_started": _game_started,
    "turn_started": _turn_started,
    "taxi_moved": _taxi_moved,
    "move_undone": _move_undone,
    "passenger_dropped_off": _passenger_dropped_off,
    "citizen_picked_up": _citizen_picked_up,
    "citizen_added": _citizen_added,
    "deadline_reached": _deadline_reached,
    "turn_passed": _turn_passed,
    "turn_ended": _turn_ended,
    "cards_discarded": _cards_discarded,
    "game_ended": _game_ended,
    "turn_timed_out": _turn_timed_out,
    "seat_zombified": _seat_zombified,
    "seat_restored": _seat_restored,
    "game_aborted": _game_aborted,
}


def player_namer(names: Mapping[int, str] | None) -> Callable[[object], str]:
    """A seat as its player's name when known, else as "Seat N"."""

    def who(seat) -> str:
        name = (names or {}).get(seat)
        return str(name) if name else seat_label(seat)

    return who


def describe(
    notification: dict, names: Mapping[int, str] | None = None, game: str | None = None
) -> str:
    """One English sentence (or its translation) for a notification, naming players by
    `names` (seat → display name) where given; `game`: the key of the game whose log it is
    (games/registry.py: its own sentences over these; None: Bahama Taxi's). A type this
    module does not know yet, or a notification missing a field, is shown as its JSON rather
    than raising: a moderator must always be able to read the log."""
    sentences = registry.get(game).sentences if game is not None else {}
    kind = notification.get("type") if isinstance(notification, dict) else None
    sentence = sentences.get(kind) or SENTENCES.get(kind)
    if sentence is not None:
        try:
            return sentence(notification, player_namer(names))
        except (KeyError, TypeError, IndexError):
            pass
    return _("Unrecognised notification: %(json)s") % {
        "json": json.dumps(notification, sort_keys=True, ensure_ascii=False, default=str)
    }
