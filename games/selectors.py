"""The read paths of games: what a player, a spectator or a lobby visitor may see.

Nothing here reveals the pile order or, while a game runs, the seed (H1): engine state reaches
clients only through `engine.player_view`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import BooleanField, Exists, F, OuterRef, Prefetch, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.utils.translation import gettext as _

from games import log, state, wording
from games.errors import GameNotFound, LoginRequired
from games.models import ChatMessage, Game, GameEntry, Seat


def client_view(game: Game, current: Any, seat: int | None, public: dict | None = None) -> dict:
    """The engine's player view (of the game's own engine, games/registry.py) as clients get
    it: the revealed 128-bit seed as a string (JavaScript numbers and the channel layer's
    msgpack cannot hold it). `public`: the public view, if the caller has it already
    (engine.player_view)."""
    return seed_as_text(game.game_kind.engine.player_view(current, seat, public=public))


def public_view(game: Game, current: Any) -> dict:
    """The engine's public view as clients get it (`client_view`'s, without a seat)."""
    return seed_as_text(game.game_kind.engine.public_view(current))


def turn_offers(game: Game, current: Any) -> list[dict]:
    """What the seat to move is offered on its turn (its `legal_actions` but `resign`, which
    every seat's sockets add from the public view): the socket frames' `legal`."""
    seat = current.current_player()
    offers = game.game_kind.offered(current, seat) if seat is not None else []
    return [offer for offer in offers if offer.get("type") != "resign"]


def seed_as_text(view: dict) -> dict:
    if view.get("seed") is not None:
        view["seed"] = str(view["seed"])
    return view


def game_get_visible(*, game_id: int, user) -> Game:
    """The game if `user` may see it: public tables to everyone signed in; invite-only tables
    to the people seated at them and staff. Anything else is 'not found' (ids leak nothing)."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("join_order"))
    game = Game.objects.filter(pk=game_id).prefetch_related(seats).first()  # one game: joined
    if game is None or not _may_see(game, user):
        raise GameNotFound()
    return game


def _may_see(game: Game, user) -> bool:
    if game.visibility == Game.Visibility.PUBLIC or user.is_staff:
        return True
    return any(seat.user_id == user.pk for seat in game.seats.all())


def _seats_with_users(lookup: str = "seats") -> Prefetch:
    """A page's seats, and their users by a query of their own (by key): joined, PostgreSQL
    hashed every user to join a page's few seats once there were thousands (2–5 ms a page at
    5,600 players)."""
    return Prefetch(lookup, queryset=Seat.objects.order_by("join_order").prefetch_related("user"))


def seat_of(game: Game, user) -> int | None:
    for seat in game.seats.all():
        if seat.user_id == user.pk:
            return seat.seat
    return None


def seat_name(seat: Seat, table: Sequence[Seat] = ()) -> str:
    """The name a seat is shown with (games/wording.py: `seat_name`); `table`: the game's
    seats, which number its computer opponents."""
    return wording.seat_name(seat, table)


def game_summary(game: Game, *, user=None) -> dict:
    """The table as the lobby and the game list show it."""
    seats = sorted(game.seats.all(), key=lambda s: (s.seat is None, s.seat, s.join_order))
    summary = {
        "id": game.pk,
        "status": game.status,
        "visibility": game.visibility,
        "game": game.kind,
        "players": game.players,
        "options": game.options.to_json(),
        "clock": game.clock,
        "rated": game.rated,
        "turn_seconds": game.turn_seconds,
        "deadline1_at": game.deadline1_at,
        "deadline2_at": game.deadline2_at,
        "created_by": game.created_by_id,
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "version": game.version,
        "active_seat": game.active_seat,
        "clock_state": clock_of(game),
        "seats": [
            {
                "seat": seat.seat,
                "join_order": seat.join_order,
                "user": {"id": seat.user_id, "display_name": seat_name(seat, seats)},
                "bot": seat.bot_level or None,
            }
            for seat in seats
        ],
        "rules_version": game.rules_version or None,
        "seed_commitment": game.seed_commitment or None,
        "result": game.result,
    }
    if game.over:
        summary["seed"] = game.seed  # H2: revealed at the end
    if user is not None:
        you = seat_of(game, user)
        summary["your_seat"] = you
        summary["your_turn"] = (
            game.status == Game.Status.PLAYING and you is not None and you == game.active_seat
        )
        if game.created_by_id == user.pk and game.visibility == Game.Visibility.INVITE:
            summary["invite_code"] = game.invite_code
    return summary


def clock_of(game: Game) -> dict:
    """What a client needs to show the clocks (K1, D4): when the player to move runs out of
    time, and how many of the table's deadlines the log holds."""
    return {
        "turn_started_at": game.turn_started_at,
        "turn_deadline_at": game.turn_deadline_at,
        "deadlines_reached": game.deadlines_reached,
    }


def game_detail(*, game: Game, user) -> dict:
    """Summary plus the engine view for this user's seat (or as a spectator)."""
    detail = game_summary(game, user=user)
    if game.status in (Game.Status.OPEN, Game.Status.CANCELLED):
        detail["view"] = None
    else:
        detail["view"] = client_view(game, state.state_for(game), seat_of(game, user))
    return detail


def legal_actions(*, game: Game, user) -> dict:
    seat = seat_of(game, user)
    actions: list[dict] = []
    if game.status == Game.Status.PLAYING and seat is not None:
        actions = game.game_kind.offered(state.state_for(game), seat)
    return {"version": game.version, "seat": seat, "actions": actions}


def entry_response(
    game: Game, current: Any, entry: GameEntry, seat: int | None, public: dict | None
) -> dict:
    """What the actor of an entry is answered (stored, so a retry gets the same answer);
    `public`: the public view after it, if the caller has it already."""
    return {
        "seq": entry.seq,
        "version": game.version,
        "notifications": entry.notifications,
        "view": client_view(game, current, seat, public),
        "clock_state": _json_safe(clock_of(game)),
    }


def _json_safe(data: dict) -> dict:
    """Stored in a JSONField: datetimes as the API renders them."""
    return {
        k: v.isoformat().replace("+00:00", "Z") if hasattr(v, "isoformat") else v
        for k, v in data.items()
    }


ACTOR_KINDS = ("player", "bot", "server", "moderator")


def _actor_kind(entry: GameEntry, bot_seats: frozenset[int]) -> str:
    if entry.actor_id is None:
        return "server"  # setup, timeouts, wall-clock deadlines
    if entry.seat is None:
        return "moderator"
    return "bot" if entry.seat in bot_seats else "player"


def bot_seats(game: Game) -> frozenset[int]:
    """The seats of a game that computer opponents hold (their entries' actor kind is `bot`)."""
    return frozenset(
        Seat.objects.filter(game=game, bot_level__gt="").values_list("seat", flat=True)
    )


def entries_by_actor_kind(entries: QuerySet[GameEntry], kind: str) -> QuerySet[GameEntry]:
    """The entries of one actor kind (`ACTOR_KINDS`), as `entry_public` names them."""
    by_bot = Exists(
        Seat.objects.filter(game=OuterRef("game"), seat=OuterRef("seat"), bot_level__gt="")
    )
    if kind == "server":
        return entries.filter(actor__isnull=True)
    if kind == "moderator":
        return entries.filter(actor__isnull=False, seat__isnull=True)
    people = entries.filter(actor__isnull=False, seat__isnull=False)
    return people.filter(by_bot) if kind == "bot" else people.exclude(by_bot)


def entry_public(entry: GameEntry, bot_seats: frozenset[int] = frozenset()) -> dict:
    """An entry as the API and the streams show it; `bot_seats`: its game's (`bot_seats`)."""
    return {
        "seq": entry.seq,
        "actor": {"kind": _actor_kind(entry, bot_seats), "seat": entry.seat},
        "action": entry.action,
        "notifications": entry.notifications,
        "created_at": entry.created_at,
    }


def log_since(*, game: Game, after: int) -> Sequence[GameEntry]:
    return log.since(game, after=after)


def games_of_user(*, user, status: str | None = None) -> QuerySet[Game]:
    """The user's games: those waiting on the user first, then the newest."""
    mine = Seat.objects.filter(game=OuterRef("pk"), user=user)
    games = Game.objects.filter(Exists(mine)).exclude(status=Game.Status.CANCELLED)
    if status:
        games = games.filter(status=status)
    waiting_on_you = Exists(mine.filter(seat=OuterRef("active_seat"), game__status="playing"))
    return (
        games.annotate(waiting_on_you=waiting_on_you)
        .order_by("-waiting_on_you", "-started_at", "-created_at")
        .prefetch_related(_seats_with_users())
    )


def seats_of_user_newest(*, user, status: str | None = None) -> QuerySet[Seat]:
    """The user's seats at games not cancelled, newest table first (`game_id`, the order to
    page them by), each with its game and the game's seats: read off the index seat_user_game
    from the user's side, a page costs the same however many games the platform holds."""
    seats = Seat.objects.filter(user=user).exclude(game__status=Game.Status.CANCELLED)
    if status:
        seats = seats.filter(game__status=status)
    seated = _seats_with_users("game__seats")
    return seats.order_by("-game_id").select_related("game").prefetch_related(seated)


#: The lobby's condition, as literals: PostgreSQL keeps one generic plan for a statement the
#: server prepared (taxi_project/settings.py), and with the status a parameter that plan took
#: 'open' for a third of all games and walked every game by id to find the few open ones
#: (40 ms at 110,000 games); a literal condition lets any plan read the index game_open_public.
OPEN_PUBLIC = RawSQL(
    f"""("games_game"."status" = '{Game.Status.OPEN.value}'"""
    f""" AND "games_game"."visibility" = '{Game.Visibility.PUBLIC.value}')""",
    (),
    output_field=BooleanField(),
)


def tables_open(*, filters: dict) -> QuerySet[Game]:
    tables = Game.objects.filter(OPEN_PUBLIC)
    columns = {"game": "kind"}  # the API's name of the column
    tables = tables.filter(**{columns.get(k, k): v for k, v in filters.items() if v is not None})
    return tables.order_by("-created_at").prefetch_related(_seats_with_users())


def games_finished(*, user=None) -> QuerySet[Game]:
    games = Game.objects.filter(status__in=[Game.Status.FINISHED, Game.Status.ABORTED])
    mine = Seat.objects.filter(game=OuterRef("pk"), user=user)
    games = games.filter(Q(visibility=Game.Visibility.PUBLIC) | Q(Exists(mine)))
    return games.order_by("-finished_at").prefetch_related(_seats_with_users())


def chat_public(message: ChatMessage) -> dict:
    return {
        "id": message.pk,
        "seat": message.seat,
        "author": {"id": message.author_id, "display_name": str(message.author)},
        "text": message.text,
        "created_at": message.created_at,
    }


def chat_recent(*, game: Game, limit: int = 100, after: int | None = None) -> list[dict]:
    """The table's latest visible messages, oldest first; with `after`, the first `limit`
    messages after that id (a client catching up over HTTP)."""
    messages = ChatMessage.objects.filter(game=game, hidden_at__isnull=True)
    if after is not None:
        newer = messages.filter(pk__gt=after).select_related("author").order_by("pk")[:limit]
        return [chat_public(m) for m in newer]
    latest = messages.select_related("author").order_by("-created_at", "-pk")[:limit]
    return [chat_public(m) for m in reversed(latest)]


def socket_access(*, game_id: int, user) -> dict:
    """Who may watch a game's socket: anyone signed in who may see the game; anonymous
    spectators only at public tables. Refused accounts are refused here too."""
    if user.is_authenticated:
        from accounts.authentication import ensure_access

        ensure_access(user)
        game = game_get_visible(game_id=game_id, user=user)
    else:
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise GameNotFound()
        if game.visibility != Game.Visibility.PUBLIC:
            raise LoginRequired(_("Log in to watch this table."))
    seat = seat_of(game, user) if user.is_authenticated else None
    hello = {
        "version": log_version(game),
        "status": game.status,
        "clock": clock_of(game),
        "chat": chat_recent(game=game),
    }
    return {"seat": seat, "hello": hello, "commitment": game.seed_commitment}


def user_socket_access(*, user) -> list[tuple[int, int]]:
    """A user's own socket: signed in, not refused. Returns the games waiting on the user,
    with their turn numbers (what "your turn" is said once for)."""
    if not user.is_authenticated:
        raise LoginRequired(_("Log in first."))
    from accounts.authentication import ensure_access

    ensure_access(user)
    mine = Seat.objects.filter(game=OuterRef("pk"), user=user, seat=OuterRef("active_seat"))
    waiting = Game.objects.filter(Exists(mine), status=Game.Status.PLAYING)
    return list(waiting.order_by("pk").values_list("pk", "turn_number"))


def heartbeat(*, games: list[int], users: list[int]) -> tuple[dict[int, int], list[tuple]]:
    """What a process's sockets check on each heartbeat, in two queries: the log version of
    each watched game, and (user, game, version, turn number) for each game waiting on a
    watched user."""
    found = Game.objects.filter(pk__in=games).only("version", "started_at")
    versions = {game.pk: log_version(game) for game in found}
    waiting = Seat.objects.filter(
        user_id__in=users, game__status=Game.Status.PLAYING, seat=F("game__active_seat")
    ).values_list("user_id", "game_id", "game__version", "game__turn_number")
    return versions, list(waiting)


def entries_since(
    *, game_id: int, after: int, seat: int | None, before: int | None = None
) -> tuple[list[dict], dict | None, int]:
    """Entries with after < seq (< before), and — for a resync — the current view."""
    game = Game.objects.get(pk=game_id)
    # up to the version just read: what commits meanwhile arrives live, never twice
    entries = log.since(game, after=after, upto=log_version(game), before=before)
    rows = [
        {"seq": seq, "notifications": notifications}
        for seq, notifications in log.values(entries, "seq", "notifications")
    ]
    view = None
    if before is None and game.started_at is not None:
        view = client_view(game, state.state_for(game), seat)
    return rows, view, log_version(game)


def log_version(game: Game) -> int:
    """The seq of the last log entry: -1 while the table waits (the setup is entry 0)."""
    return game.version if game.started_at is not None else -1


def seat_for(*, game_id: int, user) -> int | None:
    return Seat.objects.filter(game_id=game_id, user=user).values_list("seat", flat=True).first()
