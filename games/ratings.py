"""Player ratings: a projection of finished games, computed by pure functions.

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
4. **Real play (anti-farming).** A seat counts only if its player ended at least
   `Policy.min_own_turns` turns with actions of their own (`own_turns`: not the autopilot's
   turns after a resignation or a timeout, not the automatic passes of a blocked taxi). A
   seat below that is left out as in rule 3, its own rating unchanged: an account that resigns
   at move 0 hands nobody anything.
5. **Provisional accounts (anti-farming).** An account is provisional while it has fewer than
   `Policy.provisional_games` rated games (games that moved its rating) or is younger than
   `Policy.provisional_age` when the game ends. A provisional player is rated against every
   counted seat (it learns from everyone); an established player only against the other
   established players at the table (with none, their rating does not move). So results
   against accounts made for the purpose move no established rating, and making one that
   counts costs that many real games and that much time, every one of them within rule 3.

A rating changes only through `rate`; `rebuild` is `rate` applied to each game in end order,
under one `Policy` (the server's comes from its settings: a stored rating is right for the
policy it was written under, and `manage.py rebuild_ratings --write` rewrites them for a new
one).
"""

from __future__ import annotations

import datetime
import importlib
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

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
class Policy:
    """The thresholds of rules 4 and 5 (on the server: settings `RATING_MIN_OWN_TURNS`,
    `RATING_PROVISIONAL_GAMES`, `RATING_PROVISIONAL_DAYS`)."""

    min_own_turns: int
    provisional_games: int
    provisional_age: datetime.timedelta


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What rating needs of a game that ended (engine `game.result` plus the table's facts).

    `players[seat]` is the account at that seat, None for a bot; `ranking` is the engine's
    result ranking (seats per rank, ties share a rank); `quit` holds the seats that resigned
    or were zombified by timeouts; `ended_on` is the UTC day of the game's end.
    `own_turns[seat]`: the turns that seat's player ended themselves (`own_turns`, rule 4);
    `ages[seat]`: how old the seat's account was when the game ended, None for a bot (rule 5).
    """

    players: tuple[PlayerId | None, ...]
    ranking: tuple[tuple[int, ...], ...]
    ended_on: datetime.date
    quit: frozenset[int] = frozenset()
    rated: bool = True
    aborted: bool = False
    own_turns: tuple[int, ...] = field(kw_only=True)
    ages: tuple[datetime.timedelta | None, ...] = field(kw_only=True)

    def __post_init__(self):
        seats = sorted(seat for rank in self.ranking for seat in rank)
        if seats != list(range(len(self.players))):
            raise ValueError("the ranking must hold every seat exactly once")
        if not self.quit <= set(seats):
            raise ValueError("quit names a seat the game does not have")
        if len(self.own_turns) != len(self.players) or len(self.ages) != len(self.players):
            raise ValueError("own_turns and ages need one value per seat")
        humans = [p for p in self.players if p is not None]
        if len(humans) != len(set(humans)):
            raise ValueError("an account holds two seats")


def own_turns(setup: Any, actions: Iterable[Any]) -> tuple[int, ...]:
    """Rule 4's facts: for each seat, the turns its player ended with an action of their own
    (in Bahama Taxi a `turn`, or the `stop`, `pickup`, `decline` or `pass` after which the
    seat's turn ended; in Digit Code an `ask` or a `guess`), replaying the game's actions from
    its setup by the engine the setup is of. The autopilot's turns (a timeout, a resigned or
    zombie seat) and the automatic pass of a blocked taxi are no one's."""
    engine = importlib.import_module(type(setup).__module__.rpartition(".")[0])
    start, PLAYER_ACTIONS = engine.start, engine.PLAYER_ACTIONS  # noqa: N806 - the engine's
    game, _ = start(setup)
    found = [0] * setup.players
    apply, history = game.apply, game.history
    for action in actions:
        notifications = apply(action)
        action = history[-1]  # decoded, if it came as JSON
        if action.type in PLAYER_ACTIONS:
            ended = next((n["seat"] for n in notifications if n["type"] == "turn_ended"), None)
            if ended == action.seat:
                found[ended] += 1
    return tuple(found)


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


def rated_seats(game: FinishedGame, pairs: PairCounts, policy: Policy) -> list[int]:
    """The seats the game rates (rules 1, 3 and 4); empty when it rates nobody."""
    if not is_rated(game):
        return []
    players, own = game.players, game.own_turns
    kept_out = pairs.met_too_often(players, game.ended_on)
    seats = [
        seat
        for seat, player in enumerate(players)
        if player not in kept_out and own[seat] >= policy.min_own_turns
    ]
    return seats if len(seats) >= 2 else []


def is_provisional(
    game: FinishedGame, seat: int, played: Mapping[PlayerId, int], policy: Policy
) -> bool:
    """Rule 5: fewer rated games than the policy's, or an account younger than its age."""
    age = game.ages[seat]
    return (
        played.get(game.players[seat], 0) < policy.provisional_games
        or age is None
        or age < policy.provisional_age
    )


def _moved(game: FinishedGame, seats: list[int], ratings: dict, played, policy) -> dict:
    """Rule 5 over the counted `seats`: the model's new rating of each seat it moves, from
    `ratings` (seat -> the model's rating before)."""
    established = [s for s in seats if not is_provisional(game, s, played, policy)]
    moved = {}
    if len(established) < len(seats):  # provisional players: against every counted seat
        after = _MODEL.rate([[ratings[s]] for s in seats], ranks=_ranks_of(game, seats))
        fixed = set(established)
        moved.update((s, team[0]) for s, team in zip(seats, after, strict=True) if s not in fixed)
    if len(established) >= 2:
        teams = [[ratings[s]] for s in established]
        after = _MODEL.rate(teams, ranks=_ranks_of(game, established))
        moved.update((s, team[0]) for s, team in zip(established, after, strict=True))
    return moved


def rate(
    game: FinishedGame,
    priors: Mapping[PlayerId, Rating],
    pairs: PairCounts,
    *,
    played: Mapping[PlayerId, int],
    policy: Policy,
) -> dict[PlayerId, Rating]:
    """The new rating of every player the game moves (rules 1–5); players absent from `priors`
    start at the default rating, absent from `played` have no rated game yet. `pairs` holds
    the day's pair totals before this game (the write path loads them for the game's
    players); it is not changed here."""
    seats = rated_seats(game, pairs, policy)
    if not seats:
        return {}
    players = game.players
    ratings = {}
    for seat in seats:
        prior = priors.get(players[seat]) or Rating()
        ratings[seat] = _MODEL.rating(mu=prior.mu, sigma=prior.sigma)
    return {
        players[seat]: Rating(after.mu, after.sigma)
        for seat, after in _moved(game, seats, ratings, played, policy).items()
    }


def _ranks_of(game: FinishedGame, seats: list[int]) -> list[float]:
    seat_ranks = ranks(game)
    return [float(seat_ranks[seat]) for seat in seats]


def rebuild(
    games_in_end_order: Iterable[FinishedGame], *, policy: Policy
) -> dict[PlayerId, Rating]:
    """Every rating from nothing: `rate` applied to each game in the order the games ended.
    The stored ratings must equal this (the management command checks it). The model's own
    rating objects are carried from game to game here, which is `rate` without converting
    each player's rating in and out for every game (a test proves the results equal)."""
    current: dict = {}
    played: dict = {}
    pairs = PairCounts()
    for game in games_in_end_order:
        seats = rated_seats(game, pairs, policy)
        if seats:
            players = game.players
            ratings = {s: current.get(players[s]) or _MODEL.rating() for s in seats}
            for seat, after in _moved(game, seats, ratings, played, policy).items():
                current[players[seat]] = after
                played[players[seat]] = played.get(players[seat], 0) + 1
        if is_rated(game):
            pairs.count(game.players, game.ended_on)
    return {player: Rating(r.mu, r.sigma) for player, r in current.items()}
