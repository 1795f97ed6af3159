"""Archived logs: a finished game's entries compacted into one compressed row.

An asynchronous platform keeps every finished game replayable for ever, and most of its log
rows belong to games nobody plays any more. Once a game has been over for
`ARCHIVE_AFTER_DAYS`, `archive_game` moves its log into one `GameArchive` row, in one
transaction: every column of every entry, as JSON (`FORMAT`), compressed with zlib at level 9
(LZMA is a fifth smaller on these logs but costs 10-30 times the CPU to write), with the
SHA-256 of the JSON; then the entries are deleted (the database triggers let an entry go only
once an archive row covers it, games/db_guards.py). The log stays the truth: `games/log.py`
hands readers (replay, export, the stream, the replay viewers, `verify_games`) the same
`GameEntry` objects from either place, and `entries` here checks the digest before it answers.

Nothing is lost: `entries(game)` gives back every column of every row as it was stored
(tests/api/test_archive.py compares them field by field), the archive row is append-only like
the log, and archiving a game twice, or one still running, is refused.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from games.models import Game, GameArchive, GameEntry

FORMAT = 1
# Every stored column of an entry but the game. The JSON is two lines: the first holds these
# columns, one list per entry; the second the answers the actors got (`response`, most of the
# bytes: a view per entry), which a replay does not need and so does not parse.
COLUMNS = (
    "seq", "actor_id", "seat", "action", "notifications", "idempotency_key", "created_at",
)  # fmt: skip
ARCHIVABLE = (Game.Status.FINISHED, Game.Status.ABORTED)


class NotArchivable(Exception):
    """The game is not over, or is archived already, or its log has a gap."""


@dataclass(frozen=True)
class Archived:
    game_id: int
    entries: int
    bytes_before: int  # the uncompressed JSON of its entries
    bytes_after: int  # the compressed row's data


def _json(value) -> bytes:
    # compact JSON escapes every newline inside strings: the two lines split on b"\n"
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _encode(rows: list[list], responses: list) -> bytes:
    return _json({"format": FORMAT, "columns": COLUMNS, "rows": rows}) + b"\n" + _json(responses)


def archive_game(game_id: int) -> Archived:
    """Move the log of one finished or aborted game into its archive row."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.status not in ARCHIVABLE:
            raise NotArchivable(f"game {game_id} is not over")
        if GameArchive.objects.filter(game_id=game_id).exists():
            raise NotArchivable(f"game {game_id} is archived already")
        found = GameEntry.objects.filter(game_id=game_id).order_by("seq")
        rows = [list(row) for row in found.values_list(*COLUMNS, "response")]
        if [row[0] for row in rows] != list(range(game.version + 1)):
            raise NotArchivable(f"game {game_id}: the log is not seq 0…{game.version}")
        responses = [row.pop() for row in rows]
        for row in rows:
            row[-1] = row[-1].isoformat()
        raw = _encode(rows, responses)
        data = zlib.compress(raw, 9)
        GameArchive.objects.create(
            game=game, entries=len(rows), digest=hashlib.sha256(raw).hexdigest(), data=data
        )
        # the triggers allow this delete only now that the archive row covers the entries
        found.delete()
    return Archived(game_id, len(rows), len(raw), len(data))


def due(*, now: datetime | None = None, days: float) -> list[int]:
    """Ids of the games over for more than `days` days whose logs are still rows."""
    cutoff = (now or timezone.now()) - timedelta(days=days)
    over = Game.objects.filter(status__in=ARCHIVABLE, finished_at__lt=cutoff)
    return list(
        over.filter(archive__isnull=True).order_by("finished_at").values_list("pk", flat=True)
    )


def archive_due(*, days: float, limit: int | None = None) -> list[Archived]:
    """Archive the games `due` finds, oldest first (at most `limit`); a game that changed
    meanwhile (archived by another worker) is skipped."""
    done = []
    for game_id in due(days=days)[:limit]:
        try:
            done.append(archive_game(game_id))
        except NotArchivable:
            continue
    return done


class CorruptArchive(Exception):
    """The archive row does not hold what was written (digest or format)."""


def _lines(game: Game, archive: GameArchive | None) -> tuple[GameArchive, bytes, bytes]:
    archive = archive or GameArchive.objects.get(game_id=game.pk)
    try:
        raw = zlib.decompress(bytes(archive.data))
    except zlib.error as error:
        raise CorruptArchive(f"game {game.pk}: the archive does not decompress") from error
    if hashlib.sha256(raw).hexdigest() != archive.digest:
        raise CorruptArchive(f"game {game.pk}: the archive's digest does not match its data")
    first, _newline, second = raw.partition(b"\n")
    return archive, first, second


def _rows(game: Game, archive: GameArchive, first: bytes) -> list[dict]:
    body = json.loads(first)
    if body.get("format") != FORMAT or tuple(body.get("columns", ())) != COLUMNS:
        raise CorruptArchive(f"game {game.pk}: unknown archive format")
    rows = [dict(zip(COLUMNS, row, strict=True)) for row in body["rows"]]
    if [row["seq"] for row in rows] != list(range(archive.entries)):
        raise CorruptArchive(f"game {game.pk}: the entries are not seq 0…{archive.entries - 1}")
    return rows


def actions(game: Game, archive: GameArchive | None = None) -> list:
    """The actions of an archived game's entries, seq 0 (the setup: None) first: what a
    replay needs, without reading the answers."""
    archive, first, _second = _lines(game, archive)
    return [row["action"] for row in _rows(game, archive, first)]


def entries(game: Game, archive: GameArchive | None = None) -> list[GameEntry]:
    """Every entry of an archived game, as the `GameEntry` objects the rows were (unsaved)."""
    archive, first, second = _lines(game, archive)
    rows = _rows(game, archive, first)
    responses = json.loads(second)
    if len(responses) != len(rows):
        raise CorruptArchive(f"game {game.pk}: {len(responses)} answers for {len(rows)} entries")
    found = []
    for fields, response in zip(rows, responses, strict=True):
        fields["created_at"] = parse_datetime(fields["created_at"])
        found.append(GameEntry(game=game, response=response, **fields))
    return found
