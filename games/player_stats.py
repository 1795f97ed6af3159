"""The read paths of ratings: a player's profile and the leaderboard, for the API
(games/player_apis.py) and the web pages (games/player_web.py).

A player's rating is `PlayerRating` (their last `RatingChange`); a player who never finished a
rated game shows the starting rating with no games. The leaderboard sorts on the ordinal
(mu - 3 sigma, `games.ratings.Rating.ordinal`): a new player's high uncertainty keeps them low
until they have played. "By player count" lists the players with rated games at tables of that
size, still ranked by their one rating (there is one rating per player, as on Board Game Arena),
with their games at that size beside it.
"""

from __future__ import annotations

from collections import Counter

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery
from django.http import Http404

from games.models import Game, PlayerRating, RatingChange, Seat
from games.ratings import Rating
from games.selectors import seat_name


def player_get(*, user_id: int):
    """A person's account (bots have no profile); Http404 if none."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise Http404
    return user


def rating_of(user) -> dict:
    row = PlayerRating.objects.filter(user=user).first()
    rating = Rating(row.mu, row.sigma) if row else Rating()
    return {
        "ordinal": rating.ordinal,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "games": row.games if row else 0,
    }


def rating_history(user) -> list[dict]:
    """The player's rating changes, oldest first."""
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
        for change in RatingChange.objects.filter(user=user).order_by("ended_at", "game_id")
    ]


def player_profile(*, user, viewer) -> dict:
    """Rating with its history, games played and won, average income, favourite options and
    current games (those the viewer may see: public ones, or any if the viewer is the player
    or staff)."""
    seats = Seat.objects.filter(user=user).select_related("game")
    finished = [s for s in seats if s.game.status == Game.Status.FINISHED]
    won = sum(1 for s in finished if s.seat in (s.game.result or {}).get("ranking", [[]])[0])
    incomes = [s.game.result["incomes"][s.seat] for s in finished if s.game.result]
    started = [s.game for s in seats if s.game.started_at is not None]
    favourite = Counter(
        (g.players, g.movement, g.shift_change, g.pickup_before_movement) for g in started
    ).most_common(1)
    sees_all = viewer.pk == user.pk or viewer.is_staff
    current = [
        s.game
        for s in seats
        if s.game.status == Game.Status.PLAYING
        and (sees_all or s.game.visibility == Game.Visibility.PUBLIC)
    ]
    return {
        "user": {"id": user.pk, "display_name": str(user)},
        "rating": rating_of(user),
        "history": rating_history(user),
        "games_played": len(finished),
        "games_won": won,
        "average_income": sum(incomes) / len(incomes) if incomes else None,
        "favourite_options": _options(favourite[0]) if favourite else None,
        "current_games": [
            {
                "id": game.pk,
                "players": game.players,
                "seats": [
                    {"user": s.user_id, "name": seat_name(s), "bot": s.bot_level or None}
                    for s in game.seats.select_related("user").order_by("seat")
                ],
            }
            for game in sorted(current, key=lambda g: g.pk)
        ],
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


def leaderboard(*, players: int | None = None) -> QuerySet[PlayerRating]:
    """Rated players, best ordinal first; `players`: only those with rated games at tables of
    that size (annotated `size_games`)."""
    rows = PlayerRating.objects.filter(games__gt=0, user__is_active=True).select_related("user")
    if players is not None:
        # per row shown, through the changes' (user, …) index: not an aggregate of every change
        at_size = RatingChange.objects.filter(user=OuterRef("user_id"), players=players)
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
