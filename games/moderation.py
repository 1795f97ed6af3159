"""Moderation: the write paths moderators and reporting players use.

Every moderator action runs in one transaction with its audit record (`ModerationAction`:
who, when, what, why), so an action without a record cannot happen. Actions on a game go
through the engine as server actions (`abort`, `zombify`, `restore`) appended to the log like
any move, with the moderator as the entry's actor.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import engine, events, services, state
from games.models import ChatMessage, Game, ModerationAction, Report, Seat
from taxi_project.api_errors import ApiError, Conflict, Forbidden, NotFound

Kind = ModerationAction.Kind
MAX_REASON = 1000


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not 0 < len(reason) <= MAX_REASON:
        raise ApiError(
            _("Give a reason of 1 to %(max)s characters.") % {"max": MAX_REASON},
            code="reason_required",
        )
    return reason


def _audit(moderator, kind: str, reason: str, **targets) -> ModerationAction:
    return ModerationAction.objects.create(moderator=moderator, kind=kind, reason=reason, **targets)


def _server_action(game: Game, action: engine.Action, moderator) -> None:
    """Apply a server action to a locked, running game and append it with the moderator."""
    if game.status != Game.Status.PLAYING:
        raise Conflict(_("The game is not running."), code="game_not_running")
    current = state.state_for(game)
    notifications = current.apply(action)
    services._append(game, current, action, notifications, actor=moderator)


# ---------------------------------------------------------------------------------- games


def game_abort(*, moderator, game_id: int, reason: str) -> ModerationAction:
    """End a running game with no result (`game_aborted`, with the reason)."""
    reason = _reason(reason)
    with transaction.atomic():
        game = services._locked_game(game_id)
        _server_action(game, engine.Abort(reason[: engine.actions.MAX_REASON]), moderator)
        return _audit(moderator, Kind.GAME_ABORT, reason, game=game)


def seat_zombify(*, moderator, game_id: int, seat: int, reason: str) -> ModerationAction:
    """Hand a seat to the autopilot (K3)."""
    reason = _reason(reason)
    with transaction.atomic():
        game = services._locked_game(game_id)
        _server_action(game, engine.Zombify(seat), moderator)
        user = Seat.objects.filter(game=game, seat=seat).values_list("user", flat=True).first()
        return _audit(
            moderator, Kind.SEAT_ZOMBIFY, reason, game=game, user_id=user, details={"seat": seat}
        )


def seat_restore(*, moderator, game_id: int, seat: int, reason: str) -> ModerationAction:
    """Give a zombie seat back to its player (K3)."""
    reason = _reason(reason)
    with transaction.atomic():
        game = services._locked_game(game_id)
        _server_action(game, engine.Restore(seat), moderator)
        user = Seat.objects.filter(game=game, seat=seat).values_list("user", flat=True).first()
        return _audit(
            moderator, Kind.SEAT_RESTORE, reason, game=game, user_id=user, details={"seat": seat}
        )


# ---------------------------------------------------------------------------------- users


def _locked_user(user_id: int) -> User:
    user = User.objects.select_for_update().filter(pk=user_id).first()
    if user is None:
        raise NotFound(_("No such user."), code="user_not_found")
    return user


def _seats_to_autopilot(user: User, moderator) -> list[int]:
    """A refused player's running seats are played by the autopilot from now on."""
    handed = []
    running = Seat.objects.filter(user=user, game__status=Game.Status.PLAYING)
    for game_id, seat in running.values_list("game_id", "seat"):
        game = services._locked_game(game_id)
        current = state.state_for(game)
        if game.status == Game.Status.PLAYING and not current.zombies[seat]:
            _server_action(game, engine.Zombify(seat), moderator)
            handed.append(game_id)
    return handed


def user_suspend(*, moderator, user_id: int, until: datetime, reason: str) -> ModerationAction:
    """Refuse the account until `until` (login, API, WebSocket); its running seats go to the
    autopilot, and its open sockets are closed."""
    reason = _reason(reason)
    if until <= timezone.now():
        raise ApiError(_("A suspension ends in the future."), code="invalid_until")
    with transaction.atomic():
        user = _locked_user(user_id)
        if user.is_superuser:
            raise Forbidden(_("Superusers are not moderated here."), code="superuser")
        user.suspended_until = until
        user.moderation_reason = reason
        user.save(update_fields=["suspended_until", "moderation_reason"])
        games = _seats_to_autopilot(user, moderator)
        transaction.on_commit(lambda: events.user_refused(user_id=user_id))
        return _audit(
            moderator, Kind.USER_SUSPEND, reason, user=user,
            details={"until": until.isoformat(), "games_to_autopilot": games},
        )  # fmt: skip


def user_ban(*, moderator, user_id: int, reason: str) -> ModerationAction:
    reason = _reason(reason)
    with transaction.atomic():
        user = _locked_user(user_id)
        if user.is_superuser:
            raise Forbidden(_("Superusers are not moderated here."), code="superuser")
        user.banned_at = timezone.now()
        user.moderation_reason = reason
        user.save(update_fields=["banned_at", "moderation_reason"])
        games = _seats_to_autopilot(user, moderator)
        transaction.on_commit(lambda: events.user_refused(user_id=user_id))
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
        message = services.chat_hide(message_id=message_id, moderator=moderator, reason=reason)
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
    """A player reports a player of the game, or one of its chat messages."""
    from games import selectors

    reason = _reason(reason)
    game = selectors.game_get_visible(game_id=game_id, user=reporter)
    message = None
    if chat_message_id is not None:
        message = ChatMessage.objects.filter(pk=chat_message_id, game=game).first()
        if message is None:
            raise NotFound(_("No such message in this game."), code="message_not_found")
        reported_user_id = reported_user_id or message.author_id
    if reported_user_id is None:
        raise ApiError(_("Say whom or which message you report."), code="report_target_required")
    if not Seat.objects.filter(game=game, user_id=reported_user_id).exists():
        raise NotFound(_("No such player in this game."), code="player_not_found")
    if reported_user_id == reporter.pk:
        raise ApiError(_("You cannot report yourself."), code="report_self")
    return Report.objects.create(
        reporter=reporter, game=game, reported_user_id=reported_user_id, chat_message=message,
        reason=reason,
    )  # fmt: skip


def report_close(*, moderator, report_id: int, resolution: str) -> ModerationAction:
    resolution = _reason(resolution)
    with transaction.atomic():
        report = Report.objects.select_for_update().filter(pk=report_id).first()
        if report is None:
            raise NotFound(_("No such report."), code="report_not_found")
        if report.status == Report.Status.CLOSED:
            raise Conflict(_("This report is already closed."), code="report_closed")
        report.status = Report.Status.CLOSED
        report.closed_by = moderator
        report.closed_at = timezone.now()
        report.resolution = resolution
        report.save(update_fields=["status", "closed_by", "closed_at", "resolution"])
        return _audit(
            moderator, Kind.REPORT_CLOSE, resolution, report=report, game_id=report.game_id,
            user_id=report.reported_user_id,
        )  # fmt: skip
