"""Turn by turn inside one log entry, for the replay pages.

One entry may hold several turns: a timeout whose seat the autopilot then plays on, a seat
handed to the autopilot when every other seat is already on it (the rest of the game is one
entry). The engine applies an action whole, so the replay pages step through such an entry by
folding its notifications, turn by turn, onto the public view before it: the notifications
carry every public change (CONTRACT.md), and tests/web/test_replay_turns.py proves over random
games that folding all of an entry's notifications gives the engine's own view after it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable


def turn_groups(notifications: list[dict]) -> list[list[dict]]:
    """The entry's notifications cut before each `turn_started` but the first: an ordinary
    entry that ends one turn and starts the next stays one group; an entry in which the
    autopilot played on is one group per turn it played."""
    groups: list[list[dict]] = [[]]
    started = False
    for note in notifications:
        if note.get("type") == "turn_started":
            if started:
                groups.append([])
            started = True
        groups[-1].append(note)
    return [group for group in groups if group]


def _seat(view: dict, note: dict) -> dict:
    return view["seats"][note["seat"]]


def _moved(view, note):
    _seat(view, note)["area"] = note["to"]


def _turn_started(view, note):
    view["active_seat"] = note["seat"]
    view["turn_start"] = _seat(view, note)["area"]
    view["path"] = []


def _dropped(view, note):
    seat = _seat(view, note)
    area = note.get("area", note.get("destination"))
    for index, p in enumerate(seat["passengers"]):
        if p["origin"] == note["origin"] and p["destination"] == area:
            del seat["passengers"][index]
            break
    seat["income"] += note["fare"]


def _picked(view, note):
    origin = note.get("origin", note.get("area"))
    citizen = {"origin": origin, "destination": note["destination"]}
    if citizen in view["waiting"]:
        view["waiting"].remove(citizen)
    _seat(view, note)["passengers"].append(citizen)


def _added(view, note):
    view["waiting"].append({"origin": note["origin"], "destination": note["destination"]})
    view["pile"] = note.get("pile", view["pile"])


def _pile(view, note):
    view["pile"] = note.get("pile", view["pile"])


def _deadline(view, note):
    view["deadlines_reached"] = max(view["deadlines_reached"], note["number"])


def _zombified(view, note):
    _seat(view, note)["zombie"] = True


def _restored(view, note):
    _seat(view, note)["zombie"] = False


def _ended(view, note):
    view["active_seat"] = None


FOLDS: dict[str, Callable[[dict, dict], None]] = {
    "turn_started": _turn_started,
    "taxi_moved": _moved,
    "move_undone": _moved,
    "passenger_dropped_off": _dropped,
    "citizen_picked_up": _picked,
    "citizen_added": _added,
    "cards_discarded": _pile,
    "deadline_reached": _deadline,
    "seat_zombified": _zombified,
    "seat_restored": _restored,
    "game_ended": _ended,
    "game_aborted": _ended,
}


def fold(view: dict, notifications: list[dict]) -> dict:
    """The public view after `notifications`, from the view before them (not changed)."""
    after = copy.deepcopy(view)
    for note in notifications:
        change = FOLDS.get(note.get("type"))
        if change is not None:
            change(after, note)
    return after


#: The parts of a view that `fold` follows (and the test compares with the engine's).
FOLLOWED_SEAT_FIELDS = ("area", "passengers", "income", "zombie")
FOLLOWED_FIELDS = ("waiting", "pile", "deadlines_reached")


def turn_navigation(base: str, seq: int, notifications: list[dict], raw_turn) -> dict | None:
    """Which turn of entry `seq` a replay page shows (`?turn=k`, 1-based; none: the whole
    entry), and the links to the others. None when the entry holds fewer than two turns."""
    groups = turn_groups(notifications)
    if len(groups) < 2:
        return None
    try:
        wanted = int(str(raw_turn).strip())
    except (TypeError, ValueError):
        wanted = None
    turn = None if wanted is None else min(max(wanted, 1), len(groups))

    def href(k: int) -> str:
        return f"{base}?seq={seq}&turn={k}"

    return {
        "turn": turn,
        "turns": len(groups),
        "notifications": groups[turn - 1] if turn else notifications,
        "shown": [n for group in groups[:turn] for n in group] if turn else notifications,
        "first": href(1),
        "prev": href(turn - 1) if turn and turn > 1 else None,
        "next": href(turn + 1) if turn and turn < len(groups) else None,
        "whole": f"{base}?seq={seq}",
    }
