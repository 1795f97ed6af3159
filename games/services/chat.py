"""A table's chat: players write, moderators hide (a hidden message stays stored)."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import events, push, selectors
from games.errors import ChatRateLimited, InvalidChatMessage, MessageNotFound, NotAPlayer
from games.models import ChatMessage, Seat
from games.services.tables import locked_game

CHAT_BURST = 5  # messages …
CHAT_WINDOW = timedelta(seconds=10)  # … per window, per player and table


def chat_post(*, game_id: int, user, text: str) -> ChatMessage:
    """A player's message to the table: 1–500 printable characters, at most 5 in 10 s."""
    text = text.strip() if isinstance(text, str) else ""
    if not 0 < len(text) <= ChatMessage.MAX_LENGTH or not text.isprintable():
        raise InvalidChatMessage(
            InvalidChatMessage.default_detail % {"max": ChatMessage.MAX_LENGTH}
        )
    with transaction.atomic():
        game = locked_game(game_id)
        seat = Seat.objects.filter(game=game, user=user).first()
        if seat is None:
            raise NotAPlayer(_("Only the players at this table can write here."))
        since = timezone.now() - CHAT_WINDOW
        recent = ChatMessage.objects.filter(game=game, author=user, created_at__gte=since)
        if recent.count() >= CHAT_BURST:
            raise ChatRateLimited()
        message = ChatMessage.objects.create(game=game, author=user, seat=seat.seat, text=text)
        public = selectors.chat_public(message)
        transaction.on_commit(lambda: _chat_told(game_id=game_id, message=public))
    return message


def _chat_told(*, game_id: int, message: dict) -> None:
    """Once committed: the game's sockets, and the other players' devices."""
    events.chat_posted(game_id=game_id, message=message)
    push.chat_posted(game_id=game_id, message=message)


def chat_hide(*, message_id: int, moderator, reason: str = "") -> ChatMessage:
    """Hide a message for everyone (moderation); it stays stored."""
    with transaction.atomic():
        message = ChatMessage.objects.select_for_update().filter(pk=message_id).first()
        if message is None:
            raise MessageNotFound()
        if message.hidden_at is None:
            message.hidden_at = timezone.now()
            message.hidden_by = moderator
            message.hidden_reason = reason
            message.save(update_fields=["hidden_at", "hidden_by", "hidden_reason"])
            game_id = message.game_id
            transaction.on_commit(
                lambda: events.chat_hidden(game_id=game_id, message_id=message_id)
            )
    return message
