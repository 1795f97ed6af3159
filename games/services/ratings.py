"""Ratings as a projection of the logs: written with the entry that ends a game,
rebuilt from the logs to prove it.

    ratings.game_ended(game=row, seats=loaded.seats, final=state)  # entries.entry_append
    ratings.ratings_rebuilt(pool="digit-code")  # -> Rebuilt(changes, ratings): what the logs
                                                #    say of one pool, to compare

Pools. Each game rates into its registration's rating pool (`GameKind.rating_pool`;
`pool_of(game)`): a player has one rating per pool (`PlayerRating` per (user, pool)), and
everything the rules count is counted within the pool: the games that moved a rating (rule 5),
the day's games of a pair (rule 3). Pools never meet: a Digit Code game moves no Bahama Taxi
rating, and `rebuild` runs over one pool's games at a time.

The rules (which games rate whom, ties, quitters last, repeated pairs, real play, provisional
accounts) are pure and live in `games/ratings.py`; this module only feeds them from the
database and stores what they give: one `RatingChange` per player moved, and each player's
current `PlayerRating`. The thresholds are settings (`rating_policy`); the facts a game gives
are its log (ranking, quitters, each seat's own turns) and its accounts' ages at its end.

Order. The stored ratings equal `rebuild` over the finished games in the order (finished_at,
id), and the write path reads the day's pair totals in that order too. Two games sharing a
player and ending in the same instant are serialised by the lock on that player's rating row;
if the one that commits first ended a hair later, the stored chain differs from the rebuild's
order, which `manage.py rebuild_ratings` reports and `--write` repairs.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Prefetch, Q

from games import registry, state
from games.models import Game, PlayerRating, RatingChange, Seat
from games.ratings import (
    FinishedGame,
    PairCounts,
    Policy,
    Rating,
    is_rated,
    own_turns,
    rate,
    rebuild,
)


def rating_policy() -> Policy:
    """Rules 4 and 5's thresholds, from the settings."""
    return Policy(
        min_own_turns=settings.RATING_MIN_OWN_TURNS,
        provisional_games=settings.RATING_PROVISIONAL_GAMES,
        provisional_age=datetime.timedelta(days=settings.RATING_PROVISIONAL_DAYS),
    )


def pools() -> tuple[str, ...]:
    """Every rating pool, in the order of the registry (the default game's first)."""
    return tuple(dict.fromkeys(kind.rating_pool for kind in registry.all()))


def pool_of(game: Game) -> str:
    return game.game_kind.rating_pool


def kinds_in(pool: str) -> list[str]:
    """The games (`Game.kind`) that rate into `pool`."""
    return [kind.key for kind in registry.all() if kind.rating_pool == pool]


def finished_game(
    *, game: Game, players: tuple, final: Any, joined: Mapping[int, datetime.datetime]
) -> FinishedGame:
    """The rating's facts of a game that ended: `players[seat]` its user id, None for a bot;
    `joined`: when each of those accounts was made."""
    return FinishedGame(
        players=players,
        ranking=final.result.ranking,
        ended_on=_utc_day(game.finished_at),
        quit=frozenset(seat for seat, zombie in enumerate(final.zombies) if zombie),
        rated=game.rated,
        aborted=final.aborted,
        own_turns=own_turns(game.setup, final.history),
        ages=tuple(None if p is None else game.finished_at - joined[p] for p in players),
    )


def game_ended(*, game: Game, seats: Iterable, final: Any) -> list[RatingChange]:
    """Inside the transaction of the entry that ended `game`: move its players' ratings.
    `seats`: the game's SeatInfo (seat, user_id, bot)."""
    players = [None] * game.players
    for seat in seats:
        players[seat.seat] = None if seat.bot else seat.user_id
    if not game.rated or final.aborted or None in players:  # rule 1, before any query
        return []
    humans = sorted(players)
    joined = dict(get_user_model().objects.filter(pk__in=humans).values_list("pk", "date_joined"))
    finished = finished_game(game=game, players=tuple(players), final=final, joined=joined)
    if not is_rated(finished):
        return []
    pool = pool_of(game)
    # a row for each (so each can be locked), then lock them in one order: two games of one
    # player ending together take turns instead of both starting from the same rating
    PlayerRating.objects.bulk_create(
        [_rating_row(user, pool, Rating(), game.finished_at, games=0) for user in humans],
        ignore_conflicts=True,
    )
    locked = PlayerRating.objects.select_for_update().filter(user__in=humans, pool=pool)
    rows = {row.user_id: row for row in locked.order_by("user_id")}
    priors = {user: Rating(row.mu, row.sigma) for user, row in rows.items()}
    played = {user: row.games for user, row in rows.items()}
    pairs = _pairs_before(game, humans, finished.ended_on, pool)
    moved = rate(finished, priors, pairs, played=played, policy=rating_policy())
    changes = [
        RatingChange(
            user_id=user,
            game=game,
            pool=pool,
            players=game.players,
            mu_before=priors[user].mu,
            sigma_before=priors[user].sigma,
            mu_after=after.mu,
            sigma_after=after.sigma,
            ended_at=game.finished_at,
        )
        for user, after in moved.items()
    ]
    RatingChange.objects.bulk_create(changes)
    for user, after in moved.items():
        row = rows[user]
        row.mu, row.sigma, row.ordinal = after.mu, after.sigma, after.ordinal
        row.games += 1
        row.updated_at = game.finished_at
    PlayerRating.objects.bulk_update(
        [rows[user] for user in moved], ["mu", "sigma", "ordinal", "games", "updated_at"]
    )
    return changes


def _pairs_before(game: Game, humans: list[int], day: datetime.date, pool: str) -> PairCounts:
    """Rule 3's totals: the rated games of the pool that ended that UTC day before this one,
    between these players."""
    start = datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)
    earlier = (
        Game.objects.filter(
            rated=True,
            status=Game.Status.FINISHED,
            kind__in=kinds_in(pool),
            finished_at__gte=start,
            finished_at__lte=game.finished_at,
            seats__user__in=humans,
        )
        .exclude(Q(finished_at=game.finished_at) & Q(pk__gte=game.pk))
        .distinct()
    )
    mine = set(humans)
    totals: dict[frozenset, int] = {}
    at = Seat.objects.filter(game__in=earlier, user__in=humans).values_list("game_id", "user_id")
    by_game: dict[int, list[int]] = {}
    for game_id, user in at:
        by_game.setdefault(game_id, []).append(user)
    for users in by_game.values():
        for pair in combinations(sorted(set(users) & mine), 2):
            totals[frozenset(pair)] = totals.get(frozenset(pair), 0) + 1
    return PairCounts(day, totals)


def _rating_row(user: int, pool: str, rating: Rating, when, *, games: int) -> PlayerRating:
    return PlayerRating(
        user_id=user,
        pool=pool,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        games=games,
        updated_at=when,
    )


def _utc_day(moment: datetime.datetime) -> datetime.date:
    return moment.astimezone(datetime.UTC).date()


# --------------------------------------------------------------------------------- the rebuild


def finished_games_in_end_order(pool: str) -> Iterator[tuple[Game, FinishedGame]]:
    """Every finished rated game of the pool, replayed from its log, in the order the games
    ended."""
    games = (
        Game.objects.filter(status=Game.Status.FINISHED, rated=True, kind__in=kinds_in(pool))
        .order_by("finished_at", "pk")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
    )
    for game in games.iterator(chunk_size=500):
        players = [None] * game.players
        joined = {}
        for seat in game.seats.all():
            players[seat.seat] = None if seat.bot_level else seat.user_id
            joined[seat.user_id] = seat.user.date_joined
        final = state.replay_from_log(game)
        yield game, finished_game(game=game, players=tuple(players), final=final, joined=joined)


@dataclass
class Rebuilt:
    """What the logs say the ratings of one pool are: every change (user, game) → (before,
    after), and each player's rating with the number of games that moved it."""

    changes: dict[tuple[int, int], tuple[Rating, Rating]]
    ratings: dict[int, Rating]
    games: dict[int, int]
    ended_at: dict[tuple[int, int], datetime.datetime]
    players: dict[int, int]  # game id -> its number of players


def ratings_rebuilt(pool: str) -> Rebuilt:
    """Replay the log of every finished rated game of the pool in end order: `rate` game by
    game for the changes, and `rebuild` for the final ratings (the two must agree)."""
    found = Rebuilt({}, {}, {}, {}, {})
    policy = rating_policy()
    current: dict[int, Rating] = {}
    pairs = PairCounts()
    finished: list[FinishedGame] = []
    for game, facts in finished_games_in_end_order(pool):
        finished.append(facts)
        moved = rate(facts, current, pairs, played=found.games, policy=policy)
        for user, after in moved.items():
            before = current.get(user) or Rating()
            found.changes[(user, game.pk)] = (before, after)
            found.ended_at[(user, game.pk)] = game.finished_at
            found.games[user] = found.games.get(user, 0) + 1
            current[user] = after
        found.players[game.pk] = game.players
        if is_rated(facts):
            pairs.count(facts.players, facts.ended_on)
    found.ratings = rebuild(finished, policy=policy)
    return found


def ratings_stored(pool: str) -> tuple[dict, dict, dict]:
    """The pool's stored changes (user, game) → (before, after), ratings and games per
    player."""
    changes = {
        (c.user_id, c.game_id): (
            Rating(c.mu_before, c.sigma_before),
            Rating(c.mu_after, c.sigma_after),
        )
        for c in RatingChange.objects.filter(pool=pool)
    }
    rows = PlayerRating.objects.filter(games__gt=0, pool=pool)
    return (
        changes,
        {r.user_id: Rating(r.mu, r.sigma) for r in rows},
        {r.user_id: r.games for r in rows},
    )


def ratings_write(rebuilt: Rebuilt, pool: str) -> None:
    """Replace the pool's stored ratings by the rebuilt ones (the caller holds a transaction).
    A change stored in another pool for a game the logs put in this one is replaced too."""
    RatingChange.objects.filter(Q(pool=pool) | Q(game__kind__in=kinds_in(pool))).delete()
    PlayerRating.objects.filter(pool=pool).delete()
    RatingChange.objects.bulk_create(
        [
            RatingChange(
                user_id=user,
                game_id=game,
                pool=pool,
                players=rebuilt.players[game],
                mu_before=before.mu,
                sigma_before=before.sigma,
                mu_after=after.mu,
                sigma_after=after.sigma,
                ended_at=rebuilt.ended_at[(user, game)],
            )
            for (user, game), (before, after) in rebuilt.changes.items()
        ],
        batch_size=1000,
    )
    last: dict[int, datetime.datetime] = {}
    for (user, _game), when in rebuilt.ended_at.items():
        last[user] = max(when, last.get(user, when))
    PlayerRating.objects.bulk_create(
        [
            _rating_row(user, pool, rating, last[user], games=rebuilt.games[user])
            for user, rating in rebuilt.ratings.items()
        ],
        batch_size=1000,
    )
