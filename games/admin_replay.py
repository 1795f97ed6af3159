"""The moderators' replay viewer: a game as it stood after any entry of its log.

GET /admin/games/game/<id>/replay/?seq=N shows the state after entry N (0: right after the
setup; k: after the k-th action; default: the last), built by the engine's replay of the stored
log (STYLE 3: replay is the only way state is built), with the board drawn as inline SVG, every
seat, the entry's action and its notifications in words. While a game runs the pile order is a
secret (H1): it is shown to moderators only, in a box that says so; the seed stays hidden until
the game is over (H2).

GameAdmin wires it in: `def get_urls(self): return replay_urls(self) + super().get_urls()`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import log, registry
from games.models import STATUS_WORDS, Game, GameEntry
from games.replay_turns import fold, turn_navigation
from games.wording import area_label, competition_ranks, describe, seat_label, seat_name

LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"

#: Taxi colours by seat: the Okabe–Ito palette (told apart with the common colour-vision
#: deficiencies) with purple for its black, which would read as a black suit's outline.
SEAT_COLOURS: tuple[tuple[str, str, object], ...] = (
    ("#E69F00", "#000000", gettext_lazy("orange")),
    ("#56B4E9", "#000000", gettext_lazy("sky blue")),
    ("#009E73", "#FFFFFF", gettext_lazy("green")),
    ("#F0E442", "#000000", gettext_lazy("yellow")),
    ("#0072B2", "#FFFFFF", gettext_lazy("blue")),
    ("#D55E00", "#FFFFFF", gettext_lazy("vermilion")),
    ("#CC79A7", "#000000", gettext_lazy("pink")),
    ("#5D3A9B", "#FFFFFF", gettext_lazy("purple")),
)
SUIT_COLOURS = {"S": "#222222", "C": "#222222", "H": "#D32F2F", "D": "#D32F2F"}
AREA_RADIUS = 35.7  # board/README.md: circle radii in the 0..1000 box
ACE_RADIUS = 26.8

#: The key that follows each navigation link (games/static/games/replay.js).
NAV_KEYS = {"first": "Home", "prev": "ArrowLeft", "next": "ArrowRight", "last": "End"}

#: Bahama Taxi's engine (through its registration): the board this viewer draws
engine = registry.get("bahama-taxi").engine
AREA_INFO, EDGES = engine.board.AREA_INFO, engine.board.EDGES
_AREA_BY_ID = {info["id"]: info for info in AREA_INFO}


def replay_urls(model_admin) -> list[URLPattern]:
    """The viewer's URL, to put before the ModelAdmin's own (its `<path:object_id>/` catch-all
    would take it otherwise)."""
    opts = model_admin.model._meta

    def view(request, game_id: int):
        return replay_view(request, model_admin, game_id)

    return [
        path(
            "<int:game_id>/replay/",
            model_admin.admin_site.admin_view(view),
            name=f"{opts.app_label}_{opts.model_name}_replay",
        )
    ]


# ------------------------------------------------------------------------------ the view


def replay_view(request, model_admin, game_id: int):
    if not model_admin.has_view_permission(request):
        raise PermissionDenied
    game = model_admin.get_object(request, str(game_id))
    if game is None:
        raise Http404(_("No game with id %(id)s.") % {"id": game_id})
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "game": game,
        "title": _("Replay of game %(id)s") % {"id": game.pk},
        "attribution": engine.ATTRIBUTION,
        "license_url": LICENSE_URL,
    }
    last = log.last_seq(game)
    if last is None or not game.seed:
        context["problem"] = _("This game has not started: there is no log to replay.")
        return TemplateResponse(request, "admin/games/replay.html", context)
    seq, message = _requested_seq(request.GET.get("seq"), last)
    kind = game.game_kind
    try:
        step = replay_step(game, seq)
        own_panel = kind.replay_context is not None  # a game with a replay panel of its own
        before = replay_step(game, seq - 1).view if own_panel and seq > 0 else None
    except (*registry.engine_errors(), LogGap) as error:
        problem = _("The log of this game does not replay to step %(seq)s: %(error)s")
        context["problem"] = problem % {"seq": seq, "error": error}
        return TemplateResponse(request, "admin/games/replay.html", context)
    names = _seat_names(game)
    if kind.replay_context is not None:
        context.update(
            {
                **_step_header(request.path, game.pk, seq, last, message),
                "entry": _entry_panel(step, names, kind),
                "panel": _named(kind.replay_context(step.view, before), names),
                "result": _result_panel(game, names) if game.over else None,
            }
        )
        return TemplateResponse(request, kind.replay_template, context)
    view = step.view
    shown = step.notifications
    turns = (
        turn_navigation(request.path, seq, step.entry.notifications, request.GET.get("turn"))
        if seq > 0
        else None
    )
    if turns and turns["turn"]:  # one turn of an entry that holds several, folded
        view = fold(engine.full_view(replay_step(game, seq - 1).state), turns["shown"])
        shown = turns["notifications"]
    context.update(
        {
            **_step_header(request.path, game.pk, seq, last, message),
            "board": board_drawing(view, shown),
            "turns": turns,
            "seats": _seat_rows(view, names),
            "facts": _facts(view, game),
            "waiting": [_citizen(c) for c in view["waiting"]],
            "entry": _entry_panel(step, names, kind),
            "secret": _secret_panel(step.view, game),  # the pile after the whole entry
            "result": _result_panel(game, names) if game.over else None,
            "colours": _legend(view, names),
        }
    )
    return TemplateResponse(request, "admin/games/replay.html", context)


def _requested_seq(raw: str | None, last: int) -> tuple[int, str | None]:
    """The step to show and, when the request asked for another one, why."""
    if raw is None or raw.strip() == "":
        return last, None
    try:
        wanted = int(raw.strip())
    except ValueError:
        return last, _("“%(raw)s” is not a step number; showing the last step, %(last)s.") % {
            "raw": raw[:40],
            "last": last,
        }
    if wanted < 0:
        return 0, _("There is no step %(seq)s; showing the setup, step 0.") % {"seq": wanted}
    if wanted > last:
        return last, _("There is no step %(seq)s: the log ends at step %(last)s, shown here.") % {
            "seq": wanted,
            "last": last,
        }
    return wanted, None


# ------------------------------------------------------------------------------ the replay


class LogGap(Exception):
    """The stored log is not seq 0, 1, 2, … without holes."""


@dataclass
class ReplayStep:
    seq: int
    state: object  # the game's engine `Game`
    view: dict  # engine.full_view of the state: secrets included, for moderators
    entry: GameEntry
    notifications: list[dict]  # as the replay makes them
    matches_log: bool  # the stored notifications are the replayed ones


def replay_step(game: Game, seq: int) -> ReplayStep:
    """The game after entry `seq`, replayed by the engine from the stored setup and actions."""
    rows = list(log.values(log.since(game, after=0, upto=seq), "seq", "action"))
    if [number for number, _action in rows] != list(range(1, seq + 1)):
        raise LogGap(_("entries are missing before step %(seq)s") % {"seq": seq})
    actions = [action for _number, action in rows]
    engine = game.game_kind.engine
    if seq == 0:
        state, notifications = engine.start(game.setup)
    else:
        state = engine.replay(game.setup, actions[:-1])
        notifications = state.apply(actions[-1])
    entry = next(iter(log.since(game, after=seq - 1, upto=seq)), None)
    if entry is None:
        raise LogGap(_("step %(seq)s is missing") % {"seq": seq})
    return ReplayStep(
        seq=seq,
        state=state,
        view=engine.full_view(state),
        entry=entry,
        notifications=notifications,
        matches_log=entry.notifications == notifications,
    )


# ------------------------------------------------------------------------------ panels


def _step_header(path: str, game_id: int, seq: int, last: int, message: str | None) -> dict:
    """What every game's replay page shows above its own panels: title, step, note, links."""
    return {
        "title": _("Replay of game %(id)s — step %(seq)s of %(last)s")
        % {"id": game_id, "seq": seq, "last": last},
        "seq": seq,
        "last": last,
        "message": message,
        "nav": _navigation(path, seq, last),
    }


def _navigation(base: str, seq: int, last: int) -> list[dict]:
    def link(key, label, target, enabled):
        return {
            "id": f"replay-{key}",
            "label": label,
            "key": NAV_KEYS[key],
            "href": f"{base}?seq={target}" if enabled else None,
            "seq": target,
        }

    return [
        link("first", _("« First"), 0, seq > 0),
        link("prev", _("‹ Previous"), seq - 1, seq > 0),
        link("next", _("Next ›"), seq + 1, seq < last),
        link("last", _("Last »"), last, seq < last),
    ]


def _seat_names(game: Game) -> dict[int, str]:
    """Seat → the name players see it under (games/wording.py: seat_name)."""
    table = list(game.seats.select_related("user"))
    return {seat.seat: seat_name(seat, table) for seat in table if seat.seat is not None}


def _colour(seat: int) -> tuple[str, str, object]:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def _citizen(citizen: dict) -> dict:
    return {
        "origin": citizen["origin"],
        "destination": citizen["destination"],
        "origin_label": area_label(citizen["origin"]),
        "destination_label": area_label(citizen["destination"]),
        "fare": engine.distance(citizen["origin"], citizen["destination"]),
    }


def _seat_rows(view: dict, names: dict[int, str]) -> list[dict]:
    rows = []
    for seat in view["seats"]:
        number = seat["seat"]
        fill, ink, colour_name = _colour(number)
        rows.append(
            {
                "seat": number,
                "label": seat_label(number),
                "fill": fill,
                "ink": ink,
                "colour_name": colour_name,
                "player": names.get(number, "?"),
                "area": seat["area"],
                "area_label": area_label(seat["area"]),
                "passengers": [_citizen(c) for c in seat["passengers"]],
                "income": seat["income"],
                "zombie": seat["zombie"],
                "timeouts": seat["timeouts"],
                "active": number == view["active_seat"],
            }
        )
    return rows


PHASE_WORDS = {
    "move": gettext_lazy("moving"),
    "pickup": gettext_lazy("picking up"),
    "over": gettext_lazy("over"),
}
MOVEMENT_WORDS = {
    "normal": gettext_lazy("normal"),
    "fast": gettext_lazy("fast"),
    "faster": gettext_lazy("faster"),
}


def _facts(view: dict, game: Game) -> list[tuple[str, object]]:
    active = view["active_seat"]
    options = view["options"]
    return [
        (_("status at this step"), STATUS_WORDS.get(view["status"], view["status"])),
        (_("turn"), view["turn"]),
        (_("whose turn"), seat_label(active) if active is not None else "—"),
        (_("phase"), PHASE_WORDS.get(view["phase"], view["phase"])),
        (_("allowance (steps this turn)"), view["allowance"]),
        (
            _("path this turn"),
            " → ".join(area_label(a) for a in [view["turn_start"], *view["path"]]),
        ),
        (_("undos left"), view["undos_left"]),
        (_("cards in the pile"), view["pile"]),
        (_("pile exhausted"), _("yes") if view["pile_exhausted"] else _("no")),
        (_("deadlines reached"), view["deadlines_reached"]),
        (_("citizens waiting"), len(view["waiting"])),
        (
            _("options"),
            _("movement %(movement)s, shift change %(shift)s, pickup before movement %(pbm)s")
            % {
                "movement": MOVEMENT_WORDS.get(options["movement"], options["movement"]),
                "shift": _("on") if options["shift_change"] else _("off"),
                "pbm": _("on") if options["pickup_before_movement"] else _("off"),
            },
        ),
        (_("rules version"), view["rules_version"]),
    ]


def _actor(entry: GameEntry, names: dict[int, str], kind: registry.GameKind) -> str:
    action_type = (entry.action or {}).get("type")
    if entry.seq == 0:
        return _("the server (setup)")
    if entry.actor_id is None:
        return _("the server")
    if entry.seat is not None and action_type in kind.engine.PLAYER_ACTIONS | {"resign"}:
        return _("%(seat)s (%(player)s)") % {
            "seat": seat_label(entry.seat),
            "player": names.get(entry.seat, str(entry.actor)),
        }
    return _("moderator %(user)s") % {"user": str(entry.actor)}


def _field_value(name: str, value) -> str:
    if name == "seat" and isinstance(value, int):
        return seat_label(value)
    if name in ("to", "destination"):
        return area_label(value)
    if name == "steps" and isinstance(value, list):
        return " → ".join(area_label(a) for a in value) or "—"
    if name in ("pickups", "pickups_before") and isinstance(value, list):
        return ", ".join(area_label(a) for a in value) or "—"
    return str(value)


def _named(panel: dict, names: dict[int, str]) -> dict:
    """A game's replay panel with each row that names a seat given its label and player."""
    for key, rows in panel.items():
        if isinstance(rows, list):
            panel[key] = [
                {**row, "label": seat_label(row["seat"]), "player": names.get(row["seat"], "?")}
                if isinstance(row, dict) and isinstance(row.get("seat"), int)
                else row
                for row in rows
            ]
    return panel


def _entry_panel(step: ReplayStep, names: dict[int, str], kind: registry.GameKind) -> dict:
    entry = step.entry
    action = entry.action or {}
    return {
        "seq": entry.seq,
        "created_at": entry.created_at,
        "actor": _actor(entry, names, kind),
        "action_type": action.get("type") if entry.action is not None else None,
        "action_fields": [
            (name, _field_value(name, value)) for name, value in action.items() if name != "type"
        ],
        "notifications": [
            {"type": n.get("type"), "text": describe(n, game=kind.key)} for n in entry.notifications
        ],
        "matches_log": step.matches_log,
        "replayed": [
            {"type": n.get("type"), "text": describe(n, game=kind.key)} for n in step.notifications
        ],
    }


def _secret_panel(view: dict, game: Game) -> dict:
    """The pile order at this step: a secret while the game runs (H1), public once it is over."""
    order = view["secret"]["pile_order"]
    panel = {
        "secret": not game.over,
        "pile_order": [area_label(card) for card in order],
        "commitment": game.seed_commitment,
    }
    if game.over:
        panel["seed"] = game.seed
        panel["seed_verified"] = engine.seed_matches(game.seed_commitment, int(game.seed))
    return panel


def _result_panel(game: Game, names: dict[int, str]) -> dict:
    if game.status == Game.Status.ABORTED:
        last = next(iter(log.since(game, after=game.version - 1)), None)
        action = (last.action if last else None) or {}
        return {"aborted": True, "reason": action.get("reason", "")}
    result = game.result or {"incomes": [], "ranking": []}
    incomes = result.get("incomes", [])  # Bahama Taxi's; Digit Code ranks without
    places = []
    for rank, seats in competition_ranks(result["ranking"]):
        for seat in seats:
            places.append(
                {
                    "rank": rank,
                    "seat": seat_label(seat),
                    "player": names.get(seat, "?"),
                    "income": incomes[seat] if seat < len(incomes) else None,
                }
            )
    return {"aborted": False, "places": places}


def _legend(view: dict, names: dict[int, str]) -> list[dict]:
    return [
        {
            "label": seat_label(seat["seat"]),
            "fill": _colour(seat["seat"])[0],
            "colour_name": _colour(seat["seat"])[2],
            "player": names.get(seat["seat"], "?"),
        }
        for seat in view["seats"]
    ]


# ------------------------------------------------------------------------------ the board


def _r(value: float) -> float:
    return round(value, 1)


def board_drawing(view: dict, notifications: list[dict]) -> dict:
    """Everything the template draws, in board coordinates (0..1000, y down)."""
    areas = []
    for info in AREA_INFO:
        ace = info["rank"] == "A"
        areas.append(
            {
                "id": info["id"],
                "label": area_label(info["id"]),
                "x": info["x"],
                "y": info["y"],
                "r": ACE_RADIUS if ace else AREA_RADIUS,
                "font": 17 if ace else 22,
                "colour": SUIT_COLOURS[info["suit"]],
                "downtown": info["downtown"],
            }
        )
    roads = [
        {
            "x1": _AREA_BY_ID[a]["x"],
            "y1": _AREA_BY_ID[a]["y"],
            "x2": _AREA_BY_ID[b]["x"],
            "y2": _AREA_BY_ID[b]["y"],
        }
        for a, b in EDGES
    ]
    taxis = []
    for seat in view["seats"]:
        info = _AREA_BY_ID[seat["area"]]
        radius = ACE_RADIUS if info["rank"] == "A" else AREA_RADIUS
        fill, ink, _name = _colour(seat["seat"])
        taxis.append(
            {
                "seat": seat["seat"],
                "number": seat["seat"] + 1,
                "area": seat["area"],
                "area_label": area_label(seat["area"]),
                "x": info["x"],
                "y": info["y"],
                "ring": _r(radius + 5),
                "badge_x": _r(info["x"] + radius * 0.78),
                "badge_y": _r(info["y"] - radius * 0.78),
                "fill": fill,
                "ink": ink,
                "active": seat["seat"] == view["active_seat"],
                "passengers": len(seat["passengers"]),
                "zombie": seat["zombie"],
            }
        )
    return {
        "areas": areas,
        "roads": roads,
        "taxis": taxis,
        "citizens": _citizen_tags(view["waiting"]),
        "moves": _move_arrows(notifications),
    }


def _citizen_tags(waiting: list[dict]) -> list[dict]:
    """One tag per waiting citizen, on the lower edge of its area, side by side when several
    wait on the same area."""
    by_area: dict[str, list[dict]] = {}
    for citizen in waiting:
        by_area.setdefault(citizen["origin"], []).append(citizen)
    tags = []
    width, height = 40, 20
    for origin, citizens in by_area.items():
        info = _AREA_BY_ID[origin]
        radius = ACE_RADIUS if info["rank"] == "A" else AREA_RADIUS
        for index, citizen in enumerate(citizens):
            offset = (index - (len(citizens) - 1) / 2) * (width + 2)
            x = info["x"] + offset
            y = info["y"] + radius - 8
            tags.append(
                {
                    "origin": origin,
                    "destination": citizen["destination"],
                    "origin_label": area_label(origin),
                    "destination_label": area_label(citizen["destination"]),
                    "x": _r(x - width / 2),
                    "y": _r(y - height / 2),
                    "w": width,
                    "h": height,
                    "text_x": _r(x),
                    "text_y": _r(y + 5.5),
                }
            )
    return tags


def _move_arrows(notifications: list[dict]) -> list[dict]:
    """This step's taxi movements (steps and undos) as arrows between area edges."""
    arrows = []
    for note in notifications:
        if note.get("type") not in ("taxi_moved", "move_undone"):
            continue
        start, end = _AREA_BY_ID.get(note.get("from")), _AREA_BY_ID.get(note.get("to"))
        if start is None or end is None:
            continue
        dx, dy = end["x"] - start["x"], end["y"] - start["y"]
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        x1, y1 = start["x"] + ux * 14, start["y"] + uy * 14
        x2, y2 = end["x"] - ux * 18, end["y"] - uy * 18
        head = [
            (x2 + ux * 12, y2 + uy * 12),
            (x2 - uy * 8, y2 + ux * 8),
            (x2 + uy * 8, y2 - ux * 8),
        ]
        arrows.append(
            {
                "seat": note["seat"],
                "fill": _colour(note["seat"])[0],
                "undo": note["type"] == "move_undone",
                "x1": _r(x1),
                "y1": _r(y1),
                "x2": _r(x2),
                "y2": _r(y2),
                "head": " ".join(f"{_r(x)},{_r(y)}" for x, y in head),
            }
        )
    return arrows
