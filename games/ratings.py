"""Player ratings (issue 23): a projection of finished games, computed by pure functions.

Nothing here imports Django or reads a database: the write path hands in a finished game and the
players' prior ratings and stores what comes out; `rebuild` recomputes every rating from the
games in the order they ended, so a management command can prove the stored ratings equal the
log's (event sourcing: the log is the truth, ratings are derived).

The model is OpenSkill's Plackett–Luce (Weng & Lin 2011), made for free-for-all games of any
size: a rating is a skill estimate `mu` with its uncertainty `sigma`; `ordinal` (mu - 3 sigma)
is the conservative figure a leaderboard sorts on.

Which games rate whom (the rules, in the order they apply):

1. **Rated tables only.** A table created unrated, an aborted game, and any game with a bot seat
   change no rating (a bot's strength is fixed, so playing it would only farm points).
2. **Ranks.** The engine's ranking (G3: by income, equal incomes share a rank). A seat that
   resigned or was zombified by timeouts ranks last, below every seat that played on, as on
   Board Game Arena; several such seats share that last rank.
3. **Repeated pairs (anti-abuse).** Two accounts that keep playing each other could trade
   wins. So each UTC day, a pair of accounts is rated against each other in their first
   `PAIR_GAMES_PER_DAY` rated games together only. From the next one that day, a player who
   has met any other player at the table that many times already is left out: their rating
   does not move, and the others are rated among themselves as if that seat were empty (with
   fewer than two left, nobody is rated). Every rated game counts toward its pairs' totals,
   rated for them or not, so playing on with a third account in the room gains nothing either.
   The count starts afresh at 00:00 UTC.

A rating changes only through `rate`; `rebuild` is `rate` applied to each game in end order.
"""

from __future__ import annotations

import datetime
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations

from openskill.models import PlackettLuce

#: Rated games a pair of accounts may play against each other per UTC day.
PAIR_GAMES_PER_DAY = 3

MU = 25.0
SIGMA = MU / 3

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)

PlayerId = Hashable


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        """A conservative skill figure (mu - 3 sigma): what the leaderboard sorts on."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What rating needs of a game that ended (engine `game.result` plus the table's facts).

    `players[seat]` is the account at that seat, None for a bot; `ranking` is the engine's
    result ranking (seats per rank, ties share a rank); `quit` holds the seats that resigned
    or were zombified by timeouts; `ended_on` is the UTC day of the game's end."""

    players: tuple[PlayerId | None, ...]
    ranking: tuple[tuple[int, ...], ...]
    ended_on: datetime.date
    quit: frozenset[int] = frozenset()
    rated: bool = True
    aborted: bool = False

    def __post_init__(self):
        seats = sorted(seat for rank in self.ranking for seat in rank)
        if seats != list(range(len(self.players))):
            raise ValueError("the ranking must hold every seat exactly once")
        if not self.quit <= set(seats):
            raise ValueError("quit names a seat the game does not have")
        humans = [p for p in self.players if p is not None]
        if len(humans) != len(set(humans)):
            raise ValueError("an account holds two seats")


def ranks(game: FinishedGame) -> list[int]:
    """Rule 2: each seat's rank, 1 = first; equal ranks tie; resigned and zombie seats last."""
    found = [0] * len(game.players)
    for index, seats in enumerate(game.ranking):
        for seat in seats:
            found[seat] = index + 1
    last = len(game.ranking) + 1
    for seat in game.quit:
        found[seat] = last
    return found


@dataclass
class PairCounts:
    """Rule 3's memory: how many rated games each pair of accounts played together on a day."""

    day: datetime.date | None = None
    games: dict[frozenset, int] = field(default_factory=dict)

    def met(self, a: PlayerId, b: PlayerId, day: datetime.date) -> int:
        return self.games.get(frozenset((a, b)), 0) if day == self.day else 0

    def met_too_often(self, players: Iterable[PlayerId], day: datetime.date) -> set[PlayerId]:
        """Players who already played PAIR_GAMES_PER_DAY games that day with another of them."""
        found: set[PlayerId] = set()
        if day != self.day or not self.games:
            return found
        games = self.games
        for a, b in combinations(players, 2):
            if games.get(frozenset((a, b)), 0) >= PAIR_GAMES_PER_DAY:
                found.add(a)
                found.add(b)
        return found

    def count(self, players: Iterable[PlayerId], day: datetime.date) -> None:
        if day != self.day:
            self.day, self.games = day, {}
        for pair in combinations(players, 2):
            key = frozenset(pair)
            self.games[key] = self.games.get(key, 0) + 1


def is_rated(game: FinishedGame) -> bool:
    """Rule 1."""
    return game.rated and not game.aborted and None not in game.players


def rated_seats(game: FinishedGame, pairs: PairCounts) -> list[int]:
    """The seats the game rates (rules 1 and 3); empty when it rates nobody."""
    if not is_rated(game):
        return []
    players = game.players
    kept_out = pairs.met_too_often(players, game.ended_on)
    seats = [seat for seat, player in enumerate(players) if player not in kept_out]
    return seats if len(seats) >= 2 else []


def rate(
    game: FinishedGame, priors: Mapping[PlayerId, Rating], pairs: PairCounts
) -> dict[PlayerId, Rating]:
    """The new rating of every player the game moves (rules 1–3); players absent from `priors`
    start at the default rating. `pairs` holds the day's pair totals before this game (the write
    path loads them for the game's players); it is not changed here."""
    seats = rated_seats(game, pairs)
    if not seats:
        return {}
    players = game.players
    before = [priors.get(players[seat]) or Rating() for seat in seats]
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = _MODEL.rate(teams, ranks=_ranks_of(game, seats))
    return {
        players[seat]: Rating(team[0].mu, team[0].sigma)
        for seat, team in zip(seats, after, strict=True)
    }


def _ranks_of(game: FinishedGame, seats: list[int]) -> list[float]:
    seat_ranks = ranks(game)
    return [float(seat_ranks[seat]) for seat in seats]


def rebuild(games_in_end_order: Iterable[FinishedGame]) -> dict[PlayerId, Rating]:
    """Every rating from nothing: `rate` applied to each game in the order the games ended.
    The stored ratings must equal this (the management command checks it). The model's own
    rating objects are carried from game to game here, which is `rate` without converting
    each player's rating in and out for every game (a test proves the results equal)."""
    current: dict = {}
    pairs = PairCounts()
    for game in games_in_end_order:
        seats = rated_seats(game, pairs)
        if seats:
            players = game.players
            teams = [[current.get(players[seat]) or _MODEL.rating()] for seat in seats]
            after = _MODEL.rate(teams, ranks=_ranks_of(game, seats))
            for seat, team in zip(seats, after, strict=True):
                current[players[seat]] = team[0]
        if is_rated(game):
            pairs.count(game.players, game.ended_on)
    return {player: Rating(r.mu, r.sigma) for player, r in current.items()}
