"""`python manage.py rebuild_ratings [--pool POOL] [--write]`: rebuild every rating from the
logs and compare.

Ratings are a projection of the logs (docs/bots-and-ratings.md): this replays every
finished rated game's log in the order the games ended, rates them again
(`games.services.ratings.ratings_rebuilt`) and compares the result with the stored rating
changes and current ratings, pool by pool (each game rates into its registration's pool:
`bahama-taxi`, `digit-code`); `--pool` takes one, every pool by default. Each difference is
printed; the exit status is 1 if there is any. `--write` replaces the stored ratings by the
rebuilt ones (in one transaction) instead. The
rebuild rates under the settings' policy (`RATING_MIN_OWN_TURNS`, `RATING_PROVISIONAL_GAMES`,
`RATING_PROVISIONAL_DAYS`), as the write path does: after changing one, `--write`.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from games.services.ratings import pools, ratings_rebuilt, ratings_stored, ratings_write

#: Floating-point noise allowed between a stored and a rebuilt figure.
TOLERANCE = 1e-9


def _same(a, b) -> bool:
    return abs(a.mu - b.mu) <= TOLERANCE and abs(a.sigma - b.sigma) <= TOLERANCE


def differences(rebuilt, stored) -> list[str]:
    changes, ratings, games = stored
    found = []
    for key in sorted(rebuilt.changes.keys() | changes.keys()):
        user, game = key
        want, have = rebuilt.changes.get(key), changes.get(key)
        if want is None:
            found.append(f"player {user}, game {game}: a stored change the logs do not make")
        elif have is None:
            found.append(f"player {user}, game {game}: a change the logs make is missing")
        elif not (_same(want[0], have[0]) and _same(want[1], have[1])):
            found.append(f"player {user}, game {game}: stored {_pair(have)}, logs {_pair(want)}")
    for user in sorted(rebuilt.ratings.keys() | ratings.keys()):
        want, have = rebuilt.ratings.get(user), ratings.get(user)
        if want is None or have is None or not _same(want, have):
            found.append(f"player {user}: rating stored {_one(have)}, logs {_one(want)}")
        elif rebuilt.games.get(user) != games.get(user):
            found.append(
                f"player {user}: {games.get(user)} rated games stored, "
                f"{rebuilt.games.get(user)} in the logs"
            )
    return found


def _one(rating) -> str:
    return "none" if rating is None else f"mu {rating.mu:.6f} sigma {rating.sigma:.6f}"


def _pair(change) -> str:
    return f"{_one(change[0])} -> {_one(change[1])}"


class Command(BaseCommand):
    help = "Rebuild every rating from the game logs; report (or with --write, repair) differences."

    def add_arguments(self, parser):
        parser.add_argument(
            "--write", action="store_true", help="replace the stored ratings by the rebuilt ones"
        )
        parser.add_argument(
            "--pool", choices=pools(), help="one rating pool (a game's); every pool if left out"
        )

    def handle(self, *args, write: bool = False, pool: str | None = None, **options):
        summaries, failed = [], False
        with transaction.atomic():
            for each in (pool,) if pool else pools():
                rebuilt = ratings_rebuilt(each)
                found = differences(rebuilt, ratings_stored(each))
                for line in found:
                    self.stdout.write(f"{each}: {line}")
                if write:
                    ratings_write(rebuilt, each)
                games = len({game for _user, game in rebuilt.changes})
                summaries.append(
                    f"{each}: {games} rated games, {len(rebuilt.ratings)} players, "
                    f"{len(found)} differences" + (" (repaired)" if found and write else "")
                )
                failed = failed or bool(found)
        summary = "; ".join(summaries)
        if failed and not write:
            raise CommandError(summary)
        self.stdout.write(summary)
