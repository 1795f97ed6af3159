"""The read paths of ratings: a player's profile and the leaderboard, for the API
(games/player_apis.py) and the web pages (games/player_web.py).

Each game rates into its own pool (its registration's `rating_pool`): a player's rating in a
game is `PlayerRating` of that pool (their last `RatingChange` there); a player who never
finished a rated game of it shows the starting rating with no games. The leaderboard is one
game's (Bahama Taxi's unless asked) and sorts on the ordinal (mu - 3 sigma,
`games.ratings.Rating.ordinal`): a new player's high uncertainty keeps them low until they
have played. "By player count" lists the players with rated games at tables of that size, still
ranked by their one rating in that game (one per game, as on Board Game Arena), with their games
at that size beside it. A profile has a section per game the player played.
"""

from __future__ import annotations

from collections import Counter

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery
from django.http import Http404

from games import registry
from games.models import Game, PlayerRating, RatingChange, Seat
from games.ratings import Rating
from games.selectors import seat_name


def player_get(*, user_id: int):
    """A person's account (bots have no profile); Http404 if none."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise Http404
    return user


def pool_of(game: str) -> str:
    """The rating pool of a game (its key, `Game.kind`)."""
    return registry.get(game).rating_pool


def rating_of(user, *, game: str = registry.DEFAULT) -> dict:
    row = PlayerRating.objects.filter(user=user, pool=pool_of(game)).first()
    rating = Rating(row.mu, row.sigma) if row else Rating()
    return {
        "ordinal": rating.ordinal,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "games": row.games if row else 0,
    }


def rating_history(user, *, game: str = registry.DEFAULT) -> list[dict]:
    """The player's rating changes in the game's pool, oldest first."""
    return [
        {
            "game": change.game_id,
            "ended_at": change.ended_at,
            "players": change.players,
            "ordinal_before": change.ordinal_before,
            "ordinal_after": change.ordinal_after,
            "mu_after": change.mu_after,
            "sigma_after": change.sigma_after,
        }
        for change in RatingChange.objects.filter(user=user, pool=pool_of(game)).order_by(
            "ended_at", "game_id"
        )
    ]


def player_profile(*, user, viewer, game: str = registry.DEFAULT) -> dict:
    """Per game the player played (`games`: the registry's order; the asked game's always):
    its rating with its history and the finished games played and won (Bahama Taxi's also the
    average income and favourite options); the asked `game`'s section again at the top level
    (what clients written before other games read); and the current games (those the viewer
    may see: public ones, or any if the viewer is the player or staff)."""
    seats = list(Seat.objects.filter(user=user).select_related("game"))
    played = {s.game.kind for s in seats if s.game.started_at is not None}
    rated = set(PlayerRating.objects.filter(user=user).values_list("pool", flat=True))
    sections = [
        _game_section(user, kind.key, seats)
        for kind in registry.all()
        if kind.key == game or kind.key in played or kind.rating_pool in rated
    ]
    asked = next(section for section in sections if section["game"] == game)
    sees_all = viewer.pk == user.pk or viewer.is_staff
    current = [
        s.game
        for s in seats
        if s.game.status == Game.Status.PLAYING
        and (sees_all or s.game.visibility == Game.Visibility.PUBLIC)
    ]
    return {
        "user": {"id": user.pk, "display_name": str(user)},
        **{key: value for key, value in asked.items() if key != "name"},
        "games": sections,
        "current_games": [
            {
                "id": g.pk,
                "game": g.kind,
                "players": g.players,
                "seats": [
                    {"user": s.user_id, "name": seat_name(s), "bot": s.bot_level or None}
                    for s in g.seats.select_related("user").order_by("seat")
                ],
            }
            for g in sorted(current, key=lambda g: g.pk)
        ],
    }


def _game_section(user, game: str, seats: list[Seat]) -> dict:
    """One game's part of a profile."""
    mine = [s for s in seats if s.game.kind == game]
    finished = [s for s in mine if s.game.status == Game.Status.FINISHED]
    won = sum(1 for s in finished if s.seat in (s.game.result or {}).get("ranking", [[]])[0])
    incomes = [
        s.game.result["incomes"][s.seat]
        for s in finished
        if s.game.result and "incomes" in s.game.result
    ]
    started = [s.game for s in mine if s.game.started_at is not None]
    favourite = (
        Counter(
            (g.players, g.movement, g.shift_change, g.pickup_before_movement) for g in started
        ).most_common(1)
        if registry.get(game).option_columns  # Bahama Taxi's options (its own columns)
        else []
    )
    return {
        "game": game,
        "name": str(registry.get(game).name),
        "rating": rating_of(user, game=game),
        "history": rating_history(user, game=game),
        "games_played": len(finished),
        "games_won": won,
        "average_income": sum(incomes) / len(incomes) if incomes else None,
        "favourite_options": _options(favourite[0]) if favourite else None,
    }


def _options(found: tuple) -> dict:
    (players, movement, shift_change, pickup_before_movement), games = found
    return {
        "players": players,
        "movement": movement,
        "shift_change": shift_change,
        "pickup_before_movement": pickup_before_movement,
        "games": games,
    }


def leaderboard(
    *, game: str = registry.DEFAULT, players: int | None = None
) -> QuerySet[PlayerRating]:
    """The game's rated players, best ordinal first; `players`: only those with rated games
    of it at tables of that size (annotated `size_games`)."""
    pool = pool_of(game)
    rows = PlayerRating.objects.filter(pool=pool, games__gt=0, user__is_active=True)
    rows = rows.select_related("user")
    if players is not None:
        # per row shown, through the changes' (user, pool, …) index: not an aggregate of
        # every change
        at_size = RatingChange.objects.filter(user=OuterRef("user_id"), pool=pool, players=players)
        counted = at_size.order_by().values("user").annotate(n=Count("pk")).values("n")
        rows = rows.filter(Exists(at_size)).annotate(size_games=Subquery(counted))
    return rows.order_by("-ordinal", "user_id")


def leaderboard_row(row: PlayerRating, rank: int) -> dict:
    return {
        "rank": rank,
        "user": {"id": row.user_id, "display_name": str(row.user)},
        "ordinal": row.ordinal,
        "mu": row.mu,
        "sigma": row.sigma,
        "games": row.games,
        "games_at_size": getattr(row, "size_games", None),
    }
