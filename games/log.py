"""A game's log as its readers see it, wherever it is stored.

Running games, and finished games until they are archived, keep their log as rows of
`games_gameentry`; an archived game keeps it as one compressed row (games/archive.py). Readers
that only replay or list a game's entries ask here and get `GameEntry` objects either way; the
rows stay a lazy, sliceable query (a page of a long log reads that page only), an archive is
read whole (a few kilobytes). Only a game that is over can be archived, so a running game's
readers pay nothing for it: `since` looks for an archive only when the game is over.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from django.db.models import Max, QuerySet

from games import archive
from games.models import Game, GameArchive, GameEntry


def stored_archive(game: Game) -> GameArchive | None:
    """The game's archive row, or None while its log is rows (always None for a running
    game: nothing is read)."""
    if game.status not in archive.ARCHIVABLE:
        return None
    return GameArchive.objects.filter(game_id=game.pk).first()


def since(
    game: Game, *, after: int = -1, upto: int | None = None, before: int | None = None
) -> Sequence[GameEntry]:
    """The entries with after < seq (≤ upto) (< before), in order: a query of the rows, or
    the archive's entries."""
    found = stored_archive(game)
    if found is None:
        rows = GameEntry.objects.filter(game_id=game.pk, seq__gt=after)
        if upto is not None:
            rows = rows.filter(seq__lte=upto)
        if before is not None:
            rows = rows.filter(seq__lt=before)
        return rows.order_by("seq")
    last = min(
        found.entries - 1,
        found.entries if upto is None else upto,
        found.entries if before is None else before - 1,
    )
    return [entry for entry in archive.entries(game, found) if after < entry.seq <= last]


def last_seq(game: Game) -> int | None:
    """The seq of the log's last entry as stored (which a damaged row's version may not
    match), None if it has none."""
    found = stored_archive(game)
    if found is not None:
        return found.entries - 1
    return GameEntry.objects.filter(game_id=game.pk).aggregate(last=Max("seq"))["last"]


def values(entries: Sequence[GameEntry], *fields: str) -> Iterator[tuple]:
    """Only these fields of each entry, as tuples (a query reads only these columns)."""
    if isinstance(entries, QuerySet):
        return iter(entries.values_list(*fields))
    return (tuple(getattr(entry, name) for name in fields) for entry in entries)


def actions(game: Game, *, after: int, found: list | None = None) -> list:
    """The actions of the entries after `after` up to the row's version. `found`: the actions
    the caller read along with the row; they are the answer unless they fall short because the
    game's rows went to its archive."""
    if found is not None and (
        len(found) == game.version - after or game.status not in archive.ARCHIVABLE
    ):
        return found
    stored = stored_archive(game)
    if stored is not None:
        return archive.actions(game, stored)[after + 1 : game.version + 1]
    return [action for (action,) in values(since(game, after=after, upto=game.version), "action")]
