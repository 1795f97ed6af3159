"""The browser client's pages: sign-up and log-in, the lobby, a game, a finished game's replay.

Pages are thin. They render what the selectors give and hand the rest to plain ES modules
(`games/static/web/`), which write through the JSON API (`/api/v1/`) and follow a game over its
WebSocket (`/ws/games/<id>/`, docs/websocket.md). So the web client has the same write paths,
error codes and throttles as the mobile app; nothing here writes a game or an account except
`logout`, which only ends the session.

Secrets (H1): a game page carries no engine state at all (the socket sends the player view),
and a replay is served only once the game is over, from the public view.
"""

from __future__ import annotations

import functools
from pathlib import Path
from urllib.parse import urlencode

from django.contrib.auth import logout
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods

from accounts.authentication import access_refusal
from games import log, registry, selectors
from games.admin_replay import (
    LICENSE_URL,
    NAV_KEYS,
    SEAT_COLOURS,
    SUIT_COLOURS,
    LogGap,
    replay_step,
)
from games.board_layout import client_layout
from games.models import BOT_LEVELS, Clock, Game, GameEntry
from games.replay_turns import fold, turn_navigation
from games.serializers import MAX_PLAYERS, MIN_PLAYERS, MOVEMENTS
from games.wording import (
    area_label,
    competition_ranks,
    describe,
    player_namer,
    seat_label,
    seat_name,
)
from taxi_project.api_errors import ApiError

#: Bahama Taxi's engine (through its registration): the board, the replay page's fares
BAHAMA_TAXI = registry.get("bahama-taxi")
engine = BAHAMA_TAXI.engine
AREA_INFO, EDGES = engine.board.AREA_INFO, engine.board.EDGES
ATTRIBUTION, LICENSE = engine.board.ATTRIBUTION, engine.board.LICENSE

# ---------------------------------------------------------------------------------- helpers


@functools.cache
def board_data() -> dict:
    """The board as the client draws it: areas (0..1000 box, y down) with their radius and
    suit colour, the roads, and the attribution the licence asks for (CC BY 4.0)."""
    layout = client_layout()  # Downtown drawn larger, no disc on another (games/board_layout.py)
    return {
        "areas": [
            {
                **info,
                "x": layout[info["id"]][0],
                "y": layout[info["id"]][1],
                "r": layout[info["id"]][2],
            }
            for info in AREA_INFO
        ],
        "edges": [list(edge) for edge in EDGES],
        "suit_colours": SUIT_COLOURS,
        "attribution": ATTRIBUTION,
        "license": LICENSE,
        "license_url": LICENSE_URL,
    }


def seat_colours() -> list[dict]:
    """Taxi colours by seat, the same as the moderators' replay viewer."""
    return [{"fill": fill, "ink": ink, "name": str(name)} for fill, ink, name in SEAT_COLOURS]


def _safe_next(request, default: str) -> str:
    wanted = request.GET.get("next", "")
    if wanted and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    return default


def player_page(view=None, *, visitors=None):
    """Signed-in users only (anonymous visitors go to /login?next=…, or to `visitors` when
    given: a page of its own for them); refused accounts get a page that says why instead of a
    page whose every request would fail."""
    if view is None:
        return functools.partial(player_page, visitors=visitors)

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            if visitors is not None:
                return visitors(request, *args, **kwargs)
            login = reverse("web:login")
            return HttpResponseRedirect(f"{login}?{urlencode({'next': request.get_full_path()})}")
        refusal = access_refusal(request.user, timezone.now())
        if refusal is not None:
            code, message = refusal
            context = {"code": code, "message": message, "title": _("Account refused")}
            return TemplateResponse(request, "web/refused.html", context, status=403)
        return view(request, *args, **kwargs)

    return wrapped


def _visible_game(request, game_id: int) -> Game:
    try:
        return selectors.game_get_visible(game_id=game_id, user=request.user)
    except ApiError as error:  # not found, or invite-only and not yours: the same 404
        raise Http404(_("No such game.")) from error


def _names(game: Game) -> dict[int, str]:
    """Seat → the name it is shown with, the game page's own (games/wording.py: seat_name)."""
    table = list(game.seats.all())
    return {s.seat: seat_name(s, table) for s in table if s.seat is not None}


FAVICON = Path(__file__).resolve().parent / "static" / "web" / "favicon.ico"


@require_GET
def favicon(request):
    """/favicon.ico: browsers ask for it on their own (a JSON page has no <link rel=icon>),
    and a 404 there is a console error on every first load."""
    response = HttpResponse(_favicon_bytes(), content_type="image/x-icon")
    response["Cache-Control"] = "public, max-age=86400"
    return response


@functools.cache
def _favicon_bytes() -> bytes:
    return FAVICON.read_bytes()


# ---------------------------------------------------------------------------------- accounts


def _account_page(request, template: str, title: str):
    """Log in or sign up: a signed-in visitor goes straight on to where they were going."""
    next_url = _safe_next(request, reverse("web:lobby"))
    if request.user.is_authenticated:
        return redirect(next_url)
    return TemplateResponse(request, template, {"title": title, "next": next_url})


@require_GET
@ensure_csrf_cookie
def login_page(request):
    return _account_page(request, "web/login.html", _("Log in"))


@require_GET
@ensure_csrf_cookie
def signup_page(request):
    return _account_page(request, "web/signup.html", _("Sign up"))


@require_http_methods(["GET", "POST"])
def logout_page(request):
    """POST (the header's button, with its CSRF token) ends the session; GET asks first, as a
    link must never log anyone out."""
    if request.method == "POST":
        logout(request)
        return redirect("web:login")
    if not request.user.is_authenticated:
        return redirect("web:login")
    return TemplateResponse(request, "web/logout.html", {"title": _("Log out")})


# ---------------------------------------------------------------------------------- lobby


def _summary(game: Game, user) -> dict:
    """The API's game summary, plus whether `user` sits at the table (`your_seat` is null
    until the game starts and seats are drawn)."""
    summary = selectors.game_summary(game, user=user)
    summary["seated"] = any(seat["user"]["id"] == user.pk for seat in summary["seats"])
    return summary


def _lobby_lists(request) -> dict:
    user = request.user
    # only the games still open or running: a player's finished history grows without end
    current = selectors.games_of_user(user=user).filter(status__in=("open", "playing"))
    finished = selectors.games_finished(user=user)[:20]
    open_tables = [_summary(g, user) for g in selectors.tables_open(filters={})[:50]]
    return {
        "my_games": [_summary(g, user) for g in current],
        "open_tables": open_tables,
        "finished": [_with_results(_summary(g, user), user) for g in finished],
    }


def _with_results(summary: dict, user) -> dict:
    """A finished game's places in the lobby, and the user's own (competition ranking)."""
    names = {
        s["seat"]: s["user"]["display_name"] for s in summary["seats"] if s["seat"] is not None
    }
    mine = {s["seat"] for s in summary["seats"] if s["user"]["id"] == user.pk}
    places = _ranking(summary["result"], names) if summary.get("result") else []
    for place, seat in zip(places, _ranked_seats(summary["result"]), strict=False):
        place["you"] = seat in mine
    return {**summary, "places": places, "your_place": next((p for p in places if p["you"]), None)}


def _ranked_seats(result: dict | None) -> list[int]:
    return [seat for group in (result or {}).get("ranking", []) for seat in group]


def landing(request):
    """`/` for a visitor who is not signed in: what the game is, a finished game to watch,
    and the way in."""
    game = selectors.games_finished().filter(status=Game.Status.FINISHED).first()
    context = {
        "title": _("Welcome"),
        "watch": reverse("web:replay", args=[game.pk]) if game else None,
        "board": board_data(),
    }
    return TemplateResponse(request, "web/landing.html", context)


@require_GET
@player_page(visitors=landing)
@ensure_csrf_cookie
def lobby(request):
    context = {
        "title": _("Lobby"),
        "players_range": range(MIN_PLAYERS, MAX_PLAYERS + 1),
        "movements": MOVEMENTS,
        "clocks": Clock.choices,
        "visibilities": Game.Visibility.choices,
        "bot_levels": BOT_LEVELS,
        # one level for each place a computer may take: all but the creator's
        "bot_places": [
            {"number": n, "label": _("Computer %(number)s") % {"number": n}}
            for n in range(1, MAX_PLAYERS)
        ],
        **_lobby_lists(request),
    }
    return TemplateResponse(request, "web/lobby.html", context)


@require_GET
@player_page
def lobby_lists(request):
    """The lobby's lists alone: the lobby's script swaps them in when the lobby changes."""
    return TemplateResponse(request, "web/_lobby_lists.html", _lobby_lists(request))


# ---------------------------------------------------------------------------------- a game


@require_GET
def board_json(request):
    return JsonResponse(board_data(), json_dumps_params={"ensure_ascii": False})


@require_GET
@player_page
@ensure_csrf_cookie
def game_page(request, game_id: int):
    game = _visible_game(request, game_id)
    summary = selectors.game_summary(game, user=request.user)
    seated = any(seat.user_id == request.user.pk for seat in game.seats.all())
    data = {
        "id": game.pk,
        "game": game.kind,
        "status": game.status,
        "players": game.players,
        "options": summary["options"],
        "clock_preset": game.clock,
        "clock_label": game.get_clock_display(),
        "turn_seconds": game.turn_seconds,
        "deadline1_at": game.deadline1_at,
        "deadline2_at": game.deadline2_at,
        "clock": summary["clock_state"],
        "you": summary["your_seat"],
        "seated": seated,
        "creator": game.created_by_id == request.user.pk,
        "user": {"id": request.user.pk, "name": str(request.user)},
        "seats": [
            {
                "seat": s["seat"],
                "join_order": s["join_order"],
                "name": s["user"]["display_name"],
                "user": s["user"]["id"],
                "bot": s["bot"],
            }
            for s in summary["seats"]
        ],
        "colours": seat_colours(),
        "urls": {
            "socket": f"/ws/games/{game.pk}/",
            "api": reverse("game", args=[game.pk]),
            "join": reverse("table-join", args=[game.pk]),
            "leave": reverse("table-leave", args=[game.pk]),
            "replay": reverse("web:replay", args=[game.pk]),
            "reports": reverse("game-reports", args=[game.pk]),
            "lobby": reverse("web:lobby"),
            # a player's private notes on the server (C2), for a game that keeps them
            "notes": (
                reverse("game-notes", args=[game.pk])
                if seated and game.game_kind.notes is not None
                else None
            ),
        },
    }
    context = {
        "title": _("Game %(id)s") % {"id": game.pk},
        "game": summary,
        "game_data": data,
        "board": board_data() if game.kind == BAHAMA_TAXI.key else None,
        "invite_code": summary.get("invite_code"),
    }
    # each game its own page (games/registry.py: `GameKind.template`)
    return TemplateResponse(request, game.game_kind.template, context)


# ---------------------------------------------------------------------------------- rules

#: Languages the rules page is written in: one template each, web/rules/rules_<code>.html.
RULES_LANGUAGES = ("en", "fr", "pl", "ja", "ko")


def rules_language(code: str | None) -> str:
    """The rules text for a language code: "fr-ca" reads the French text; a language the rules
    are not written in reads the English."""
    base = (code or "").lower().replace("_", "-").split("-")[0]
    return base if base in RULES_LANGUAGES else "en"


@require_GET
def rules_page(request):
    """The rules of RULES.md told to players, in the request's language, with the board
    picture and its attribution. Public: a visitor may read the rules before signing up."""
    language = rules_language(get_language())
    context = {
        "title": _("Rules"),
        "rules_language": language,
        "rules_template": f"web/rules/rules_{language}.html",
        "board": board_data(),
    }
    return TemplateResponse(request, "web/rules.html", context)


# ---------------------------------------------------------------------------------- replay


def _requested_seq(raw: str | None, last: int) -> int:
    try:
        wanted = int((raw or "").strip())
    except ValueError:
        return last
    return min(max(wanted, 0), last)


def _visitor_replay(request, game_id: int):
    """A visitor may watch a public game once it is over (the landing page links one)."""
    return _replay(request, game_id)


@require_GET
@player_page(visitors=_visitor_replay)
def game_replay(request, game_id: int):
    return _replay(request, game_id)


def _replay(request, game_id: int):
    """A finished game as it stood after entry `seq` (default: the end), replayed by the
    engine from its log. Only finished or aborted games: while a game runs, its replay would
    be built from the secret seed, so it is not offered at all (H1)."""
    game = _visible_game(request, game_id)
    if not game.over:
        raise Http404(_("The replay opens when the game is over."))
    if game.kind != BAHAMA_TAXI.key:  # this page draws Bahama Taxi's board
        raise Http404(_("This game has no replay page."))
    last = log.last_seq(game)
    seq = _requested_seq(request.GET.get("seq"), last)
    try:
        step = replay_step(game, seq)
    except (engine.EngineError, LogGap) as error:
        raise Http404(_("This game's log does not replay.")) from error
    view = engine.public_view(step.state)
    names = _names(game)
    base = reverse("web:replay", args=[game.pk])
    turns = (
        turn_navigation(base, seq, step.entry.notifications, request.GET.get("turn"))
        if seq > 0
        else None
    )
    notifications = step.entry.notifications
    if turns and turns["turn"]:  # one turn of a step that holds several: folded onto the last
        before = engine.public_view(replay_step(game, seq - 1).state)
        view = fold(before, turns["shown"])
        notifications = turns["notifications"]
    context = {
        "title": _("Replay of game %(id)s") % {"id": game.pk},
        "game": selectors.game_summary(game, user=request.user),
        "seq": seq,
        "last": last,
        "nav": _navigation(base, seq, last),
        "entry": _entry(step.entry, names),
        "sentences": _sentences(step.entry, view, names, notifications),
        "turns": turns,
        "seats": _seat_rows(view, names),
        "view": view,
        "facts": {
            "pile": view["pile"],
            "waiting": [_citizen(c) for c in view["waiting"]],
            "deadlines": view["deadlines_reached"],
        },
        "result": _ranking(game.result, names) if game.result else None,
        "seed_verified": engine.seed_matches(game.seed_commitment, int(game.seed)),
        "board": board_data(),
        "replay_data": {
            "view": view,
            "notifications": notifications,
            "colours": seat_colours(),
            "names": {str(k): v for k, v in names.items()},
        },
    }
    return TemplateResponse(request, "web/replay.html", context)


def _navigation(base: str, seq: int, last: int) -> list[dict]:
    def link(key: str, label: str, target: int, enabled: bool) -> dict:
        return {
            "id": f"replay-{key}",
            "label": label,
            "key": NAV_KEYS[key],
            "href": f"{base}?seq={target}" if enabled else None,
        }

    return [
        link("first", _("« First"), 0, seq > 0),
        link("prev", _("‹ Previous"), seq - 1, seq > 0),
        link("next", _("Next ›"), seq + 1, seq < last),
        link("last", _("Last »"), last, seq < last),
    ]


def _entry(entry: GameEntry, names: dict[int, str]) -> dict:
    if entry.seq == 0:
        actor = _("the setup")
    elif entry.seat is not None and (entry.action or {}).get("type") in engine.PLAYER_ACTIONS:
        actor = player_namer(names)(entry.seat)  # the name; "Seat N" only when none is known
    else:
        actor = _("the server")
    return {"seq": entry.seq, "actor": actor, "created_at": entry.created_at}


def _sentences(entry: GameEntry, view: dict, names: dict[int, str], notifications) -> list[str]:
    """The entry's notifications (or one turn's) in words, naming players. A stop that opens
    the pickup choice notifies nothing (the choice is the next entry): told from its action."""
    sentences = [describe(n, names) for n in notifications]
    action = entry.action or {}
    if not sentences and action.get("type") == "stop" and entry.seat is not None:
        area = view["seats"][entry.seat]["area"]
        sentences.append(
            _("%(player)s stopped at %(area)s and chooses whom to pick up.")
            % {"player": player_namer(names)(entry.seat), "area": area_label(area)}
        )
    return sentences


def _citizen(citizen: dict) -> dict:
    return {
        "origin": area_label(citizen["origin"]),
        "destination": area_label(citizen["destination"]),
        "fare": engine.distance(citizen["origin"], citizen["destination"]),
    }


def _seat_rows(view: dict, names: dict[int, str]) -> list[dict]:
    colours = seat_colours()
    return [
        {
            "seat": seat["seat"],
            "label": seat_label(seat["seat"]),
            "colour": colours[seat["seat"] % len(colours)],
            "player": names.get(seat["seat"], "?"),
            "area": area_label(seat["area"]),
            "passengers": [_citizen(c) for c in seat["passengers"]],
            "income": seat["income"],
            "zombie": seat["zombie"],
            "active": seat["seat"] == view["active_seat"],
        }
        for seat in view["seats"]
    ]


def _ranking(result: dict, names: dict[int, str]) -> list[dict]:
    incomes = result.get("incomes", [])
    return [
        {
            "rank": rank,
            "player": player_namer(names)(seat),
            "income": incomes[seat] if seat < len(incomes) else None,
        }
        for rank, seats in competition_ranks(result.get("ranking", []))
        for seat in seats
    ]
