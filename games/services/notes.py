"""A player's private notes on their own seat (Digit Code's C2: per position the digits ruled
out, per LED lit or unlit), outside the game.

    notes.notes_get(game_id=7, user=me)               # -> {"game", "seat", "notes", "updated_at"}
    notes.notes_put(game_id=7, user=me, notes={...})  # validated by the game's registration

The notes are a row of their own per seat (`SeatNotes`), never an entry of the log: saving them
bumps no version, pushes nothing and changes no view, export, stream or replay. Only the seat's
own player reaches them, and only here: a spectator is refused (403 `not_a_player`), a table
they cannot see is not found (404 `game_not_found`), a game without notes says so (404
`notes_not_offered`). They may be written while the game is played and after it ended (a
player may finish their deductions after the reveal); not before it started (409
`game_not_started`), when seats have no place yet.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.utils.translation import gettext as _

from games import selectors
from games.errors import GameNotStarted, NotAPlayer, NotesNotOffered
from games.models import Game, Seat, SeatNotes
from games.registry import InvalidNotes
from taxi_project.api_errors import INVALID_MESSAGE, ApiError, RequestTooLarge
from taxi_project.api_errors import Code as ApiCode

WRITABLE = (Game.Status.PLAYING, Game.Status.FINISHED, Game.Status.ABORTED)


def notes_get(*, game_id: int, user) -> dict:
    """The caller's notes on their seat (the game's empty notes if they wrote none)."""
    seat = _own_seat(game_id=game_id, user=user)
    row = SeatNotes.objects.filter(seat=seat).first()
    return _body(seat, row)


def notes_put(*, game_id: int, user, notes: object) -> dict:
    """Replace the caller's notes on their seat by `notes`, once the game's registration has
    validated them (400 `invalid` with field errors) and they fit `NOTES_MAX_BYTES` as UTF-8
    JSON (413 `request_too_large` with `limit`)."""
    seat = _own_seat(game_id=game_id, user=user)
    limit = settings.NOTES_MAX_BYTES
    if len(json.dumps(notes, ensure_ascii=False, separators=(",", ":")).encode()) > limit:
        raise RequestTooLarge(
            _("Notes are at most %(limit)s bytes of JSON.") % {"limit": limit}, limit=limit
        )
    validate = seat.game.game_kind.notes
    assert validate is not None  # _own_seat refused a game without notes
    try:
        clean = validate(notes)
    except InvalidNotes as refused:
        raise ApiError(
            str(INVALID_MESSAGE), code=ApiCode.INVALID, errors={"notes": refused.errors}
        ) from None
    row, _created = SeatNotes.objects.update_or_create(seat=seat, defaults={"notes": clean})
    return _body(seat, row)


def _own_seat(*, game_id: int, user) -> Seat:
    game = selectors.game_get_visible(game_id=game_id, user=user)
    if game.game_kind.notes is None:
        raise NotesNotOffered()
    seat = next((s for s in game.seats.all() if s.user_id == user.pk), None)
    if seat is None:
        raise NotAPlayer(_("Only the players of this game keep notes on it."))
    if game.status not in WRITABLE or seat.seat is None:
        raise GameNotStarted()
    seat.game = game
    return seat


def _body(seat: Seat, row: SeatNotes | None) -> dict:
    validate = seat.game.game_kind.notes
    assert validate is not None
    return {
        "game": seat.game_id,
        "seat": seat.seat,
        "notes": row.notes if row else validate({}),
        "updated_at": row.updated_at if row else None,
    }
