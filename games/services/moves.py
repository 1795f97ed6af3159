"""A player's action against the version they saw: exactly once per idempotency key."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError

from games import registry, repository
from games.errors import (
    GameNotFound,
    GameNotStarted,
    IdempotencyKeyReused,
    NotAPlayer,
    NotYourSeat,
    ServerActionRefused,
    StaleVersion,
)
from games.models import Game, GameEntry
from games.services import clocks, entries
from taxi_project.api_errors import ApiError


@dataclass(frozen=True)
class MoveResult:
    body: dict  # what the API answers: seq, version, notifications, view
    replayed: bool  # True: an earlier request with this idempotency key already made the move


def move_submit(
    *,
    game_id: int,
    user,
    action: dict,
    version: int,
    idempotency_key: str,
    loaded: repository.Loaded | None = None,
) -> MoveResult:
    """Check the action against the game at `version` and append it (`entries.entry_append`).

    Optimistic: no lock is held while the engine works; the append writes only if the game is
    still at `version`, else 409 `stale_version` with the version now. A retry is looked for
    only when the move cannot be new (refused, stale), and a reused key is caught by the log's
    unique key, so the happy path never looks for one.

    `loaded`: the game as the caller read it for this move (`repository.load`, unchanged
    since; a bot decides on it), used instead of a second read; the append's version check
    makes it as safe as a fresh one. It is applied to: the caller does not use it after.
    Without it, a move on the game as this process last appended it skips the read
    (`_submit_recent`)."""
    if loaded is None or loaded.game.pk != game_id:
        accepted = _submit_recent(game_id, user, action, version, idempotency_key)
        if accepted is not None:
            return accepted
        try:
            loaded = repository.load(game_id)
        except repository.GameNotFound:
            raise GameNotFound() from None
    game = loaded.game
    mine = loaded.seat_of(user.pk)
    if mine is None:
        if game.visibility != Game.Visibility.PUBLIC and not user.is_staff:
            raise GameNotFound()
        raise NotAPlayer()
    seat = mine.seat
    try:
        if game.status in (Game.Status.OPEN, Game.Status.CANCELLED):
            raise GameNotStarted()
        if clocks.due(game) and clocks.deadline_fire(game_id=game_id, version=game.version):
            # Lazy enforcement (as Lichess does): a clock that ran out is applied before any
            # move, whether or not a worker's sweep has come by; the move was made against a
            # version that the timeout (or the wall-clock deadline) has now replaced.
            raise StaleVersion.at(repository.version_now(game_id), version)
        if version != game.version:
            raise StaleVersion.at(game.version, version)
        try:
            written = _append(loaded, user, action, seat, idempotency_key, version)
        except repository.VersionConflict:  # another append committed since the read
            raise StaleVersion.at(repository.version_now(game_id), version) from None
    except (ApiError, *registry.engine_errors()):
        earlier = _earlier(game_id, user, idempotency_key, action, seat)
        if earlier is not None:
            return earlier
        raise
    except IntegrityError:  # the key was used before (the version check rules out a seq race)
        earlier = _earlier(game_id, user, idempotency_key, action, seat)
        if earlier is not None:
            return earlier
        raise StaleVersion() from None
    return MoveResult(body=written.response, replayed=False)


def _submit_recent(
    game_id: int, user, action: dict, version: int, idempotency_key: str
) -> MoveResult | None:
    """The move, accepted on the game as this process appended it (`repository.recent`),
    without reading it: a player's next action of a turn on the same process costs one
    statement fewer. None if this process did not append `version`, or if anything but a
    plain acceptance would follow (a refusal, a conflict, a clock that is due, a key used
    before): nothing is written then, and the caller loads the game and decides as for any
    move, so every refusal reads the game as it is, not as it was."""
    recent = repository.recent(game_id, version)
    if recent is None:
        return None
    game, mine = recent.game, recent.seat_of(user.pk)
    if mine is None or game.status != Game.Status.PLAYING or clocks.due(game):
        return None
    try:
        written = _append(recent, user, action, mine.seat, idempotency_key, version, recent=True)
    except (ApiError, repository.VersionConflict, IntegrityError, *registry.engine_errors()):
        return None
    return MoveResult(body=written.response, replayed=False)


def _append(
    loaded: repository.Loaded,
    user,
    action: dict,
    seat: int,
    idempotency_key: str,
    version: int,
    *,
    recent: bool = False,
) -> GameEntry:
    """The client's action, on behalf of `seat`, appended to `loaded` at `version`
    (`entries.entry_append`; `recent`: `loaded` is `repository.recent`'s)."""
    entry = repository.NewEntry(
        _player_action(loaded.game.game_kind, action, seat),
        actor=user,
        seat=seat,
        idempotency_key=idempotency_key,
    )
    return entries.entry_append(loaded, entry, expected_version=version, recent=recent)


def _earlier(game_id: int, user, key: str, action: dict, seat: int | None) -> MoveResult | None:
    """The answer to an earlier request with this idempotency key, if there was one."""
    earlier = GameEntry.objects.filter(game_id=game_id, actor=user, idempotency_key=key).first()
    if earlier is None:
        return None
    if seat is None or earlier.action != _with_seat(action, seat):
        raise IdempotencyKeyReused()
    return MoveResult(body=earlier.response, replayed=True)


def _with_seat(action: dict, seat: int) -> dict:
    return {**action, "seat": seat} if isinstance(action, dict) and "seat" not in action else action


def _player_action(game: registry.GameKind, action: dict, seat: int):
    """The client's action (an action of `game`'s engine), on behalf of its own seat: the
    seat may be left out."""
    engine = game.engine
    kind = action.get("type") if isinstance(action, dict) else None
    if kind in engine.SERVER_ACTIONS - engine.CLIENT_ACTIONS:
        raise ServerActionRefused()
    decoded = engine.decode_action(_with_seat(action, seat))
    if decoded.seat != seat:
        raise NotYourSeat()
    return decoded
