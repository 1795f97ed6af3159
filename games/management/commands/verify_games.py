"""`python manage.py verify_games`: replay every stored game and compare with its row.

The log is the truth (STYLE 2, 3); the `Game` row keeps a summary of it for listing and
scheduling. This replays each started game's log through the engine, from its stored setup,
and reports every game whose log does not replay to the notifications it published or whose
summary (version, seat to move, turn, deadlines reached, status, result) differs from what the
replay says. Exit status 1 if any game differs.

Archived games (games/archive.py) are replayed from their archive, whose digest is checked
first. Memory stays flat: games are read a batch at a time, one game at a time replayed, each
game's log is read whole (rows or archive: at most a few megabytes), and no state outlives its
game.

It may run on a live system at any time. A batch's rows and their logs are read in one
snapshot: a read-only REPEATABLE READ transaction on PostgreSQL (one SQLite transaction sees
one snapshot already), which takes no lock and holds up no writer. A row read before a move,
a timeout or the archiving of its game and a log read after it would differ without anything
being wrong; inside one snapshot, a difference is a real one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from games import archive, log, registry
from games.models import Game

STARTED = (Game.Status.PLAYING, Game.Status.FINISHED, Game.Status.ABORTED)


def game_problems(game: Game) -> list[str]:
    """What is wrong with this game, as sentences; empty when its log and row agree."""
    problems: list[str] = []
    try:
        kind = game.game_kind
        engine = kind.engine
        setup = game.setup
        current, first = engine.start(setup)
    except (ValueError, registry.UnknownGame, *registry.engine_errors()) as error:
        return [f"its setup does not start a game: {error}"]
    if not engine.seed_matches(game.seed_commitment, setup.seed):
        problems.append("the seed does not match its commitment")

    try:
        entries = log.values(log.since(game), "seq", "action", "notifications")
    except archive.CorruptArchive as error:
        return [f"its archived log is damaged: {error}"]
    expected_seq = 0
    for seq, action, stored in entries:
        if seq != expected_seq:
            problems.append(f"the log jumps from seq {expected_seq - 1} to {seq}")
            return problems
        try:
            notifications = first if seq == 0 else current.apply(action)
        except engine.EngineError as error:
            problems.append(f"entry {seq} does not replay: {error.code}: {error.message}")
            return problems
        if notifications != stored:
            problems.append(f"entry {seq}: replay gives other notifications than stored")
            return problems
        expected_seq += 1

    if expected_seq == 0:
        return ["a started game without its setup entry (seq 0)"]
    problems += list(_summary_differences(game, current, version=expected_seq - 1))
    return problems


def _summary_differences(game: Game, current, *, version: int) -> Iterator[str]:
    if current.over:
        status = Game.Status.ABORTED if current.aborted else Game.Status.FINISHED
    else:
        status = Game.Status.PLAYING
    expected = {
        "version": version,
        "status": status,
        "active_seat": current.current_player(),
        "turn_number": current.turn,
        "deadlines_reached": game.game_kind.deadlines_reached(current),
        "result": current.result.to_json() if current.result is not None else None,
    }
    for field, value in expected.items():
        stored = getattr(game, field)
        if stored != value:
            yield f"{field} is {stored!r}, the replay says {value!r}"


@contextlib.contextmanager
def one_snapshot() -> Iterator[None]:
    """A read-only transaction in which every read sees the database as it was at its first:
    a game's row and its log as one append left them, never a row from before an append and
    a log from after it."""
    outermost = not connection.in_atomic_block  # inside a caller's transaction: its reads
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":  # before any read, as it must be
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def _batches(ids: Iterator[int], size: int) -> Iterator[list[int]]:
    batch: list[int] = []
    for game_id in ids:
        batch.append(game_id)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


class Command(BaseCommand):
    help = "Replay every stored game's log and report games whose replay differs from the row."

    def add_arguments(self, parser):
        parser.add_argument(
            "--game", type=int, action="append", dest="games", metavar="ID",
            help="verify only this game (repeatable)",
        )  # fmt: skip
        parser.add_argument(
            "--batch-size", type=int, default=200,
            help="games read from the database per round trip (default 200)",
        )  # fmt: skip

    def handle(self, *args, games=None, batch_size=200, **options):
        queryset = Game.objects.filter(status__in=STARTED).order_by("pk")
        if games:
            queryset = queryset.filter(pk__in=games)
            missing = set(games) - set(
                Game.objects.filter(pk__in=games, status__in=STARTED).values_list("pk", flat=True)
            )
            if missing:
                raise CommandError(f"no started game with id {sorted(missing)}", returncode=2)
        checked = failed = 0
        ids = queryset.values_list("pk", flat=True).iterator(chunk_size=batch_size)
        for batch in _batches(ids, max(batch_size, 1)):
            with one_snapshot():  # the rows read again here, with their logs
                for game in Game.objects.filter(pk__in=batch).order_by("pk"):
                    checked += 1
                    problems = game_problems(game)
                    if problems:
                        failed += 1
                        for problem in problems:
                            self.stderr.write(f"game {game.pk}: {problem}")
        summary = f"{checked} game(s) verified, {failed} differ from their log"
        if failed:
            raise CommandError(summary, returncode=1)
        self.stdout.write(summary)
