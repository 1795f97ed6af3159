"""Moderation: the write paths moderators and reporting players use.

Every moderator action runs in one transaction with its audit record (`ModerationAction`:
who, when, what, why), so an action without a record cannot happen. Actions on a game go
through the engine as server actions (`abort`, `zombify`, `restore`) appended to the log like
any move, with the moderator as the entry's actor.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import errors, events, repository
from games.models import ChatMessage, Game, ModerationAction, Report, Seat, Spectator
from games.services import chat, entries
from taxi_project.api_errors import Unprocessable

Kind = ModerationAction.Kind
MAX_REASON = 1000
REPORTS_PER_HOUR = 10  # per reporter, across games


def spectator_seen(*, game_id: int, user) -> None:
    """A signed-in user without a seat opened the game's socket: they may report from now on."""
    if user.is_authenticated:
        Spectator.objects.get_or_create(game_id=game_id, user=user)


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not 0 < len(reason) <= MAX_REASON:
        raise errors.ReasonRequired(errors.ReasonRequired.default_detail % {"max": MAX_REASON})
    return reason


def _audit(moderator, kind: str, reason: str, **targets) -> ModerationAction:
    return ModerationAction.objects.create(moderator=moderator, kind=kind, reason=reason, **targets)


def _server_action(game_id: int, action: Callable[[Any], Any], moderator) -> Game:
    """Inside a transaction: lock a running game and append a server action with the
    moderator as its actor; `action`: the game's engine (games/registry.py) → the action."""
    try:
        loaded = repository.load(game_id, lock=True)
    except repository.GameNotFound:
        raise errors.GameNotFound() from None
    if loaded.game.status != Game.Status.PLAYING:
        raise errors.GameNotRunning()
    entry = repository.NewEntry(action(loaded.game.game_kind.engine), actor=moderator)
    entries.entry_append(loaded, entry, expected_version=loaded.game.version)
    return loaded.game


# ---------------------------------------------------------------------------------- games


def game_abort(*, moderator, game_id: int, reason: str) -> ModerationAction:
    """End a running game with no result (`game_aborted`, with the reason)."""
    reason = _reason(reason)
    with transaction.atomic():
        game = _server_action(
            game_id, lambda engine: engine.Abort(reason[: engine.actions.MAX_REASON]), moderator
        )
        return _audit(moderator, Kind.GAME_ABORT, reason, game=game)


def seat_zombify(*, moderator, game_id: int, seat: int, reason: str) -> ModerationAction:
    """Hand a seat to the autopilot (K3)."""
    reason = _reason(reason)
    with transaction.atomic():
        game = _server_action(game_id, lambda engine: engine.Zombify(seat), moderator)
        user = Seat.objects.filter(game=game, seat=seat).values_list("user", flat=True).first()
        return _audit(
            moderator, Kind.SEAT_ZOMBIFY, reason, game=game, user_id=user, details={"seat": seat}
        )


def seat_restore(*, moderator, game_id: int, seat: int, reason: str) -> ModerationAction:
    """Give a zombie seat back to its player (K3). Not in a game whose seats leave for good
    (Digit Code: an elimination is final): 422 `illegal`."""
    reason = _reason(reason)
    with transaction.atomic():
        game = _server_action(game_id, _restore(seat), moderator)
        user = Seat.objects.filter(game=game, seat=seat).values_list("user", flat=True).first()
        return _audit(
            moderator, Kind.SEAT_RESTORE, reason, game=game, user_id=user, details={"seat": seat}
        )


def _restore(seat: int) -> Callable[[Any], Any]:
    def action(engine):
        if not hasattr(engine, "Restore"):
            raise Unprocessable(_("In this game a seat that left does not come back."))
        return engine.Restore(seat)

    return action


# ---------------------------------------------------------------------------------- users


def _locked_user(user_id: int) -> User:
    user = User.objects.select_for_update().filter(pk=user_id).first()
    if user is None:
        raise errors.UserNotFound()
    return user


def _seats_to_autopilot(user: User, moderator) -> list[int]:
    """A refused player's running seats are played by the autopilot from now on."""
    handed = []
    running = Seat.objects.filter(user=user, game__status=Game.Status.PLAYING)
    for game_id, seat in running.values_list("game_id", "seat"):
        loaded = repository.load(game_id, lock=True)
        if loaded.game.status == Game.Status.PLAYING and not loaded.state.zombies[seat]:
            zombify = loaded.game.game_kind.engine.Zombify(seat)
            entry = repository.NewEntry(zombify, actor=moderator)
            entries.entry_append(loaded, entry, expected_version=loaded.game.version)
            handed.append(game_id)
    return handed


def user_suspend(*, moderator, user_id: int, until: datetime, reason: str) -> ModerationAction:
    """Refuse the account until `until` (login, API, WebSocket); its running seats go to the
    autopilot, and its open sockets are closed."""
    reason = _reason(reason)
    if until <= timezone.now():
        raise errors.InvalidUntil()
    with transaction.atomic():
        user = _locked_user(user_id)
        if user.is_superuser:
            raise errors.SuperuserNotModerated()
        user.suspended_until = until
        user.moderation_reason = reason
        user.save(update_fields=["suspended_until", "moderation_reason"])
        games = _seats_to_autopilot(user, moderator)
        transaction.on_commit(lambda: events.credentials_changed(user_id=user_id))
        return _audit(
            moderator, Kind.USER_SUSPEND, reason, user=user,
            details={"until": until.isoformat(), "games_to_autopilot": games},
        )  # fmt: skip


def user_ban(*, moderator, user_id: int, reason: str) -> ModerationAction:
    reason = _reason(reason)
    with transaction.atomic():
        user = _locked_user(user_id)
        if user.is_superuser:
            raise errors.SuperuserNotModerated()
        user.banned_at = timezone.now()
        user.moderation_reason = reason
        user.save(update_fields=["banned_at", "moderation_reason"])
        games = _seats_to_autopilot(user, moderator)
        transaction.on_commit(lambda: events.credentials_changed(user_id=user_id))
        return _audit(
            moderator, Kind.USER_BAN, reason, user=user, details={"games_to_autopilot": games}
        )


def user_lift(*, moderator, user_id: int, reason: str) -> ModerationAction:
    """End a suspension or a ban. Seats stay with the autopilot until restored one by one."""
    reason = _reason(reason)
    with transaction.atomic():
        user = _locked_user(user_id)
        user.suspended_until = None
        user.banned_at = None
        user.save(update_fields=["suspended_until", "banned_at"])
        return _audit(moderator, Kind.USER_LIFT, reason, user=user)


# ---------------------------------------------------------------------------------- chat, reports


def chat_message_hide(*, moderator, message_id: int, reason: str) -> ModerationAction:
    reason = _reason(reason)
    with transaction.atomic():
        message = chat.chat_hide(message_id=message_id, moderator=moderator, reason=reason)
        return _audit(
            moderator, Kind.CHAT_HIDE, reason, game_id=message.game_id, user_id=message.author_id,
            chat_message=message,
        )  # fmt: skip


def report_create(
    *,
    reporter,
    game_id: int,
    reason: str,
    reported_user_id: int | None = None,
    chat_message_id: int | None = None,
) -> Report:
    """A player or a spectator of the game (who opened its socket) reports a player of it, or
    one of its chat messages: once per target, at most REPORTS_PER_HOUR an hour."""
    from games import selectors

    reason = _reason(reason)
    game = selectors.game_get_visible(game_id=game_id, user=reporter)
    witness = Seat.objects.filter(game=game, user=reporter).exists() or (
        Spectator.objects.filter(game=game, user=reporter).exists()
    )
    if not witness:
        raise errors.ReportNotAllowed()
    since = timezone.now() - timedelta(hours=1)
    if Report.objects.filter(reporter=reporter, created_at__gte=since).count() >= REPORTS_PER_HOUR:
        raise errors.ReportRateLimited()
    message = None
    if chat_message_id is not None:
        message = ChatMessage.objects.filter(pk=chat_message_id, game=game).first()
        if message is None:
            raise errors.MessageNotFound(_("No such message in this game."))
        reported_user_id = reported_user_id or message.author_id
    if reported_user_id is None:
        raise errors.ReportTargetRequired()
    if not Seat.objects.filter(game=game, user_id=reported_user_id).exists():
        raise errors.PlayerNotFound()
    if reported_user_id == reporter.pk:
        raise errors.ReportSelf()
    earlier = Report.objects.filter(
        reporter=reporter, game=game, reported_user_id=reported_user_id, chat_message=message
    )
    if earlier.exists():
        raise errors.ReportDuplicate()
    return Report.objects.create(
        reporter=reporter, game=game, reported_user_id=reported_user_id, chat_message=message,
        reason=reason,
    )  # fmt: skip


def report_close(*, moderator, report_id: int, resolution: str) -> ModerationAction:
    resolution = _reason(resolution)
    with transaction.atomic():
        report = Report.objects.select_for_update().filter(pk=report_id).first()
        if report is None:
            raise errors.ReportNotFound()
        if report.status == Report.Status.CLOSED:
            raise errors.ReportClosed()
        report.status = Report.Status.CLOSED
        report.closed_by = moderator
        report.closed_at = timezone.now()
        report.resolution = resolution
        report.save(update_fields=["status", "closed_by", "closed_at", "resolution"])
        return _audit(
            moderator, Kind.REPORT_CLOSE, resolution, report=report, game_id=report.game_id,
            user_id=report.reported_user_id,
        )  # fmt: skip
