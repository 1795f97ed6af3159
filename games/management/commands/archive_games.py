"""`python manage.py archive_games`: compact the logs of games over for a while.

Each finished or aborted game over for more than `--days` (default `ARCHIVE_AFTER_DAYS`) has its
log moved into one compressed archive row (games/archive.py); `--game ID` archives one game
now, whatever its age. Prints what each game's log weighed before and after. The Celery beat
task `games.tasks.archive_games` runs the same once a day.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games import archive


class Command(BaseCommand):
    help = "Move the logs of games over for more than --days into compressed archive rows."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=float, default=settings.ARCHIVE_AFTER_DAYS)
        parser.add_argument("--limit", type=int, default=None, help="at most this many games")
        parser.add_argument("--game", type=int, default=None, help="archive this game only")

    def handle(self, *args, days: float, limit: int | None, game: int | None, **options):
        if game is not None:
            try:
                done = [archive.archive_game(game)]
            except archive.NotArchivable as error:
                raise CommandError(str(error)) from error
        else:
            done = archive.archive_due(days=days, limit=limit)
        before = sum(item.bytes_before for item in done)
        after = sum(item.bytes_after for item in done)
        for item in done:
            self.stdout.write(
                f"game {item.game_id}: {item.entries} entries, "
                f"{item.bytes_before} → {item.bytes_after} bytes"
            )
        ratio = f", {before / after:.1f}× smaller" if after else ""
        self.stdout.write(f"{len(done)} games archived{ratio}")
