"""The read paths of games: what a player, a spectator or a lobby visitor may see.

Nothing here reveals the pile order or, while a game runs, the seed (H1): engine state reaches
clients only through `engine.player_view`.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet

from games import engine, state
from games.models import Game, GameEntry, Seat
from taxi_project.api_errors import NotFound


def game_get_visible(*, game_id: int, user) -> Game:
    """The game if `user` may see it: public tables to everyone signed in; invite-only tables
    to the people seated at them and staff. Anything else is 'not found' (ids leak nothing)."""
    game = Game.objects.filter(pk=game_id).prefetch_related(_seats_with_users()).first()
    if game is None or not _may_see(game, user):
        raise NotFound("No such game.", code="game_not_found")
    return game


def _may_see(game: Game, user) -> bool:
    if game.visibility == Game.Visibility.PUBLIC or user.is_staff:
        return True
    return any(seat.user_id == user.pk for seat in game.seats.all())


def _seats_with_users() -> Prefetch:
    return Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("join_order"))


def seat_of(game: Game, user) -> int | None:
    for seat in game.seats.all():
        if seat.user_id == user.pk:
            return seat.seat
    return None


def game_summary(game: Game, *, user=None) -> dict:
    """The table as the lobby and the game list show it."""
    seats = sorted(game.seats.all(), key=lambda s: (s.seat is None, s.seat, s.join_order))
    summary = {
        "id": game.pk,
        "status": game.status,
        "visibility": game.visibility,
        "players": game.players,
        "options": game.options.to_json(),
        "clock": game.clock,
        "turn_seconds": game.turn_seconds,
        "deadline1_at": game.deadline1_at,
        "deadline2_at": game.deadline2_at,
        "created_by": game.created_by_id,
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "version": game.version,
        "active_seat": game.active_seat,
        "seats": [
            {
                "seat": seat.seat,
                "join_order": seat.join_order,
                "user": {"id": seat.user_id, "display_name": str(seat.user)},
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


def game_detail(*, game: Game, user) -> dict:
    """Summary plus the engine view for this user's seat (or as a spectator)."""
    detail = game_summary(game, user=user)
    if game.status in (Game.Status.OPEN, Game.Status.CANCELLED):
        detail["view"] = None
    else:
        detail["view"] = engine.player_view(state.state_for(game), seat_of(game, user))
    return detail


def legal_actions(*, game: Game, user) -> dict:
    seat = seat_of(game, user)
    actions: list[dict] = []
    if game.status == Game.Status.PLAYING and seat is not None and seat == game.active_seat:
        actions = [engine.encode_action(a) for a in state.state_for(game).legal_actions()]
    return {"version": game.version, "seat": seat, "actions": actions}


def entry_response(game: Game, current: engine.Game, entry: GameEntry, seat: int | None) -> dict:
    """What the actor of an entry is answered (stored, so a retry gets the same answer)."""
    return {
        "seq": entry.seq,
        "version": game.version,
        "notifications": entry.notifications,
        "view": engine.player_view(current, seat),
    }


def entry_public(entry: GameEntry) -> dict:
    return {
        "seq": entry.seq,
        "actor": {"kind": "server" if entry.actor_id is None else "player", "seat": entry.seat},
        "action": entry.action,
        "notifications": entry.notifications,
        "created_at": entry.created_at,
    }


def log_since(*, game: Game, after: int) -> QuerySet[GameEntry]:
    return GameEntry.objects.filter(game=game, seq__gt=after).order_by("seq")


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


def tables_open(*, filters: dict) -> QuerySet[Game]:
    tables = Game.objects.filter(status=Game.Status.OPEN, visibility=Game.Visibility.PUBLIC)
    tables = tables.filter(**{k: v for k, v in filters.items() if v is not None})
    return tables.order_by("-created_at").prefetch_related(_seats_with_users())


def games_finished(*, user=None) -> QuerySet[Game]:
    games = Game.objects.filter(status__in=[Game.Status.FINISHED, Game.Status.ABORTED])
    mine = Seat.objects.filter(game=OuterRef("pk"), user=user)
    games = games.filter(Q(visibility=Game.Visibility.PUBLIC) | Q(Exists(mine)))
    return games.order_by("-finished_at").prefetch_related(_seats_with_users())
