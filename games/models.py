"""Tables, seats and the append-only game log.

A game's truth is its log (`GameEntry`, one row per accepted action, unique (game, seq)) replayed
through the engine from the setup stored on `Game` (rules version, options, seats, secret seed).
The other columns of `Game` are a summary for listing and scheduling, rewritten with each entry.
Log rows are never updated or deleted: the model refuses, and database triggers refuse too.
The one exception is archiving (games/archive.py): a finished game's entries move, in one
transaction, into one compressed `GameArchive` row, and the triggers let an entry be deleted only
once an archive row covers it.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games import registry

# A game's status in words (the stored values stay the API's codes).
STATUS_WORDS = {
    "open": _("open"),
    "playing": _("playing"),
    "finished": _("finished"),
    "aborted": _("aborted"),
    "cancelled": _("cancelled"),
}


class Clock(models.TextChoices):
    """Per-turn time limits (K1), as board game sites offer them."""

    NONE = "none", _("No time limit")
    RT_30S = "30s", _("Real-time: 30 seconds per turn")
    RT_1M = "1m", _("Real-time: 1 minute per turn")
    RT_3M = "3m", _("Real-time: 3 minutes per turn")
    TB_1H = "1h", _("Turn-based: 1 hour per turn")
    TB_12H = "12h", _("Turn-based: 12 hours per turn")
    TB_24H = "24h", _("Turn-based: 24 hours per turn")
    TB_72H = "72h", _("Turn-based: 72 hours per turn")


CLOCK_SECONDS = {
    Clock.NONE: None,
    Clock.RT_30S: 30,
    Clock.RT_1M: 60,
    Clock.RT_3M: 180,
    Clock.TB_1H: 3600,
    Clock.TB_12H: 12 * 3600,
    Clock.TB_24H: 24 * 3600,
    Clock.TB_72H: 72 * 3600,
}


# Computer opponents' levels (games/engine/bots: LEVELS), in words.
BOT_LEVELS = [
    ("easy", pgettext_lazy("computer level", "easy")),
    ("medium", pgettext_lazy("computer level", "medium")),
    ("strong", pgettext_lazy("computer level", "strong")),
]


class Game(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", STATUS_WORDS["open"]  # waiting for players
        PLAYING = "playing", STATUS_WORDS["playing"]
        FINISHED = "finished", STATUS_WORDS["finished"]
        ABORTED = "aborted", STATUS_WORDS["aborted"]
        CANCELLED = "cancelled", STATUS_WORDS["cancelled"]  # by its creator, before it started

    class Visibility(models.TextChoices):
        PUBLIC = "public", _("public")
        INVITE = "invite", _("invite only")

    MOVEMENTS = [("normal", _("normal")), ("fast", _("fast")), ("faster", _("faster"))]

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="created_games",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN
    )
    visibility = models.CharField(
        _("visibility"), max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    invite_code = models.CharField(_("invite code"), max_length=32, blank=True)

    # the game played at the table (games/registry.py): its key, fixed at creation
    kind = models.CharField(_("game"), max_length=32, default=registry.DEFAULT, db_index=True)
    # the table's options (RULES.md "Options"): Bahama Taxi's in its own columns, those of
    # other games as JSON, validated by their registration (`GameKind.options_from_json`)
    players = models.PositiveSmallIntegerField(_("number of players"))
    game_options = models.JSONField(_("game options"), default=dict, blank=True)
    shift_change = models.BooleanField(_("shift change"), default=False)
    pickup_before_movement = models.BooleanField(_("pickup before movement"), default=False)
    movement = models.CharField(_("movement"), max_length=10, choices=MOVEMENTS, default="normal")
    clock = models.CharField(
        _("turn clock"), max_length=4, choices=Clock.choices, default=Clock.NONE
    )
    # from the clock preset
    turn_seconds = models.PositiveIntegerField(_("seconds per turn"), null=True, blank=True)
    # D4 wall-clock deadlines
    deadline1_at = models.DateTimeField(_("first deadline"), null=True, blank=True)
    deadline2_at = models.DateTimeField(_("second deadline"), null=True, blank=True)
    # A rated table's end moves its players' ratings (games/services/ratings.py);
    # a table with a bot seat is never rated
    rated = models.BooleanField(_("rated"), default=True)

    # fixed when the game starts
    rules_version = models.CharField(_("rules version"), max_length=16, blank=True)
    # secret until the end (H1, H2)
    seed = models.CharField(_("seed"), max_length=40, blank=True)
    seed_commitment = models.CharField(_("seed commitment"), max_length=64, blank=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)

    # summary of the log, rewritten with each entry
    version = models.PositiveIntegerField(_("version"), default=0)  # seq of the last entry
    active_seat = models.PositiveSmallIntegerField(_("seat to move"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    result = models.JSONField(_("result"), null=True, blank=True)

    # clocks (K1, D4): when the turn began, which deadlines the log holds, and the next moment
    # the deadline sweep must look at this game (NULL: nothing due, ever, as things stand)
    turn_number = models.PositiveIntegerField(_("turn number"), default=0)
    turn_started_at = models.DateTimeField(_("turn started at"), null=True, blank=True)
    deadlines_reached = models.PositiveSmallIntegerField(_("deadlines reached"), default=0)
    next_deadline_at = models.DateTimeField(_("next deadline"), null=True, blank=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        indexes = [
            models.Index(fields=["status", "visibility"]),
            # the open public tables (the lobby), newest first: an index of those few rows only,
            # which the lobby's query names by a literal condition (selectors.OPEN_PUBLIC)
            models.Index(
                fields=["-id"],
                condition=models.Q(status="open", visibility="public"),
                name="game_open_public",
            ),
            # the deadline sweep's claim: due running games, earliest first, read off the index
            models.Index(
                fields=["next_deadline_at"],
                condition=models.Q(status="playing"),
                name="game_due_deadline",
            ),
            # the finished games, newest first (the lobby, the API): read off the index
            models.Index(
                fields=["finished_at"],
                condition=models.Q(status__in=["finished", "aborted"]),
                name="game_finished_recent",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(players__gte=2, players__lte=8), name="game_players_2_to_8"
            ),
        ]

    def __str__(self) -> str:
        status = STATUS_WORDS.get(self.status, self.status)
        return _("Game %(id)s (%(status)s)") % {"id": self.pk, "status": status}

    @property
    def game_kind(self) -> registry.GameKind:
        """The game played at this table (`registry.get(self.kind)`)."""
        return registry.get(self.kind)

    @property
    def options(self):
        """The table's options as its engine's `Options`."""
        return self.game_kind.options_of(self)

    @property
    def setup(self):
        """What fixes the game before its first action, as its engine's `Setup`."""
        return self.game_kind.setup(
            options=self.options,
            players=self.players,
            seed=int(self.seed),
            rules_version=self.rules_version,
        )

    @property
    def turn_deadline_at(self):
        """When the player to move runs out of time (K1), or None."""
        if self.status != self.Status.PLAYING or not self.turn_seconds or not self.turn_started_at:
            return None
        return self.turn_started_at + timedelta(seconds=self.turn_seconds)

    def compute_next_deadline(self):
        """The earliest of the turn's deadline and the wall-clock deadlines not yet reached."""
        if self.status != self.Status.PLAYING:
            return None
        due = [self.turn_deadline_at]
        if self.deadlines_reached < 1:
            due.append(self.deadline1_at)
        if self.deadlines_reached < 2:
            due.append(self.deadline2_at)
        due = [when for when in due if when is not None]
        return min(due) if due else None

    @property
    def over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ABORTED)


class Seat(models.Model):
    """A user at a table. `join_order` is the engine's player index; `seat` the play order,
    drawn when the game starts (S3)."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="seats", verbose_name=_("game")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="seats",
        verbose_name=_("player"),
    )
    join_order = models.PositiveSmallIntegerField(_("join order"))
    seat = models.PositiveSmallIntegerField(_("seat"), null=True, blank=True)
    joined_at = models.DateTimeField(_("joined at"), auto_now_add=True)
    # a computer opponent's seat: its level; blank for a person. The seat's user is
    # one of the bot accounts (games/services/bots.py), which nobody can sign in as.
    bot_level = models.CharField(
        _("computer level"), max_length=10, choices=BOT_LEVELS, blank=True, default=""
    )

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["game", "join_order"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="seat_one_per_user"),
            models.UniqueConstraint(fields=["game", "join_order"], name="seat_unique_join_order"),
            models.UniqueConstraint(fields=["game", "seat"], name="seat_unique_seat"),
        ]
        # a player's games, newest first, a page at a time (games/selectors.py)
        indexes = [models.Index(fields=["user", "game"], name="seat_user_game")]

    def __str__(self) -> str:
        return _("%(user)s at game %(game)s") % {"user": self.user, "game": self.game_id}


class SeatNotes(models.Model):
    """A player's private notes on their own seat (Digit Code's C2), one row per seat, as the
    game's registration validates them (`GameKind.notes`). Never part of the log, the game's
    state, a view, an export, a push or the admin: only `GET/PUT /api/v1/games/{id}/notes` of
    the seat's own player reads or writes them (games/services/notes.py)."""

    seat = models.OneToOneField(
        Seat,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="private_notes",
        verbose_name=_("seat"),
    )
    notes = models.JSONField(_("private notes"))
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("private notes")
        verbose_name_plural = _("private notes")

    def __str__(self) -> str:
        return f"notes of seat {self.seat_id}"


class AppendOnlyError(Exception):
    pass


class AppendOnly(models.Model):
    """Rows written once: saving a stored row or deleting one raises `AppendOnlyError`
    (the database triggers of games/db_guards.py refuse it below the ORM too)."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnlyError(f"{type(self).__name__} rows are never changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError(f"{type(self).__name__} rows are never deleted")


class GameEntry(AppendOnly):
    """One accepted action and the notifications it caused. Seq 0 is the setup."""

    # no index of its own: the unique (game, seq) index starts with it
    game = models.ForeignKey(
        Game,
        on_delete=models.PROTECT,
        related_name="entries",
        verbose_name=_("game"),
        db_index=False,
    )
    seq = models.PositiveIntegerField(_("step number"))
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="game_entries",
        verbose_name=_("actor"),
    )  # None: the server (setup, timeouts, moderators' actions are recorded with their user)
    seat = models.PositiveSmallIntegerField(_("seat"), null=True, blank=True)
    action = models.JSONField(_("action"), null=True, blank=True)  # None for the setup entry
    notifications = models.JSONField(_("notifications"))
    # NULL (not ""): server entries have no key, and NULLs never collide in the unique key
    idempotency_key = models.CharField(  # noqa: DJ001
        _("idempotency key"), max_length=64, null=True, blank=True
    )
    # what the actor was answered
    response = models.JSONField(_("response"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="entry_unique_seq"),
            models.UniqueConstraint(
                fields=["game", "actor", "idempotency_key"], name="entry_unique_idempotency_key"
            ),
        ]
        verbose_name = _("game log step")
        verbose_name_plural = _("game log steps")

    def __str__(self) -> str:
        return _("game %(game)s #%(seq)s") % {"game": self.game_id, "seq": self.seq}


class GameArchive(AppendOnly):
    """A finished game's whole log in one row: its entries, every column, as JSON compressed
    with zlib (games/archive.py writes it and reads it back). Written once, never changed."""

    game = models.OneToOneField(
        Game,
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="archive",
        verbose_name=_("game"),
    )
    entries = models.PositiveIntegerField(_("entries"))  # seq 0 … entries - 1
    digest = models.CharField(_("SHA-256 of the uncompressed log"), max_length=64)
    data = models.BinaryField(_("compressed log"))
    archived_at = models.DateTimeField(_("archived at"), auto_now_add=True)

    class Meta:
        verbose_name = _("archived game log")
        verbose_name_plural = _("archived game logs")

    def __str__(self) -> str:
        return _("archived log of game %(game)s") % {"game": self.game_id}


class ChatMessage(models.Model):
    """A message at a table. Moderators hide messages; nothing is deleted."""

    MAX_LENGTH = 500

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="chat", verbose_name=_("game")
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="chat_messages",
        verbose_name=_("author"),
    )
    seat = models.PositiveSmallIntegerField(_("seat"), null=True, blank=True)
    text = models.CharField(_("text"), max_length=MAX_LENGTH)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True, db_index=True)
    hidden_at = models.DateTimeField(_("hidden at"), null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="hidden_chat_messages",
        verbose_name=_("hidden by"),
    )
    hidden_reason = models.CharField(_("reason for hiding"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        ordering = ["game", "created_at", "pk"]
        indexes = [models.Index(fields=["game", "author", "created_at"])]

    def __str__(self) -> str:
        return _("%(author)s at game %(game)s: %(text)s") % {
            "author": self.author,
            "game": self.game_id,
            "text": self.text[:40],
        }


class Report(models.Model):
    """A player's report of a player or a chat message, for moderators to handle."""

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("report", "open")
        CLOSED = "closed", pgettext_lazy("report", "closed")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="reports_made",
        verbose_name=_("reporter"),
    )
    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="reports", verbose_name=_("game")
    )
    reported_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="reports_received",
        verbose_name=_("reported player"),
    )
    chat_message = models.ForeignKey(
        ChatMessage,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="reports",
        verbose_name=_("chat message"),
    )
    reason = models.CharField(_("reason"), max_length=1000)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="reports_closed",
        verbose_name=_("closed by"),
    )
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    resolution = models.CharField(_("resolution"), max_length=1000, blank=True)

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        ordering = ["status", "-created_at"]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return _("Report %(id)s on game %(game)s (%(status)s)") % {
            "id": self.pk,
            "game": self.game_id,
            "status": self.get_status_display(),
        }


class Spectator(models.Model):
    """A signed-in user who opened a game's socket without a seat at it: a witness of its
    table and chat, who may report what they saw (games/moderation.py: report_create)."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="spectators", verbose_name=_("game")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, verbose_name=_("user")
    )
    first_seen_at = models.DateTimeField(_("first seen at"), auto_now_add=True)

    class Meta:
        verbose_name = _("spectator")
        verbose_name_plural = _("spectators")
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="spectator_once")]

    def __str__(self) -> str:
        return f"{self.user_id} @ {self.game_id}"


class ModerationAction(AppendOnly):
    """The audit log of moderators: who, when, what, why. Append-only (database triggers)."""

    class Kind(models.TextChoices):
        GAME_ABORT = "game_abort", _("game aborted")
        SEAT_ZOMBIFY = "seat_zombify", _("seat turned zombie")
        SEAT_RESTORE = "seat_restore", _("seat given back")
        USER_SUSPEND = "user_suspend", _("player suspended")
        USER_BAN = "user_ban", _("player banned")
        USER_LIFT = "user_lift", _("suspension or ban lifted")
        CHAT_HIDE = "chat_hide", _("chat message hidden")
        REPORT_CLOSE = "report_close", _("report closed")

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="moderation_actions",
        verbose_name=_("moderator"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True, db_index=True)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    reason = models.CharField(_("reason"), max_length=1000)
    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, null=True, blank=True, verbose_name=_("game")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="moderation_received",
        verbose_name=_("player"),
    )
    chat_message = models.ForeignKey(
        ChatMessage,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        verbose_name=_("chat message"),
    )
    report = models.ForeignKey(
        Report, on_delete=models.PROTECT, null=True, blank=True, verbose_name=_("report")
    )
    details = models.JSONField(_("details"), default=dict, blank=True)

    class Meta:
        verbose_name = _("moderation action")
        verbose_name_plural = _("moderation actions")
        ordering = ["-created_at", "-pk"]
        permissions = [("moderate", "Can moderate games, players, chat and reports")]

    def __str__(self) -> str:
        return _("%(kind)s by %(moderator)s at %(when)s") % {
            "kind": self.get_kind_display(),
            "moderator": self.moderator,
            "when": f"{self.created_at:%Y-%m-%d %H:%M}",
        }


class PlayerRating(models.Model):
    """A player's current rating in one rating pool (a game's registration names its pool,
    `GameKind.rating_pool`: each game rates into its own): the last `RatingChange` of theirs
    in that pool, kept for the leaderboard. `python manage.py rebuild_ratings` proves it
    equal to a replay of the logs."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="ratings",
        verbose_name=_("player"),
    )
    pool = models.CharField(_("rating pool"), max_length=32, default=registry.DEFAULT)
    mu = models.FloatField(_("skill"))
    sigma = models.FloatField(_("uncertainty"))
    ordinal = models.FloatField(_("rating"))  # mu - 3 sigma: the leaderboard's
    games = models.PositiveIntegerField(_("rated games"), default=0)
    updated_at = models.DateTimeField(_("updated at"))

    class Meta:
        verbose_name = _("player rating")
        verbose_name_plural = _("player ratings")
        ordering = ["pool", "-ordinal", "user_id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "pool"], name="rating_one_per_user_and_pool")
        ]
        # one pool's leaderboard, best first, a page at a time (games/player_stats.py)
        indexes = [models.Index(fields=["pool", "-ordinal", "user"], name="rating_pool_board")]

    def __str__(self) -> str:
        return f"{self.user_id} ({self.pool}): {self.ordinal:.2f}"


class RatingChange(models.Model):
    """One player's rating before and after one rated game, written in the transaction of the
    log entry that ended it (games/services/ratings.py)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        verbose_name=_("player"),
    )
    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="rating_changes", verbose_name=_("game")
    )
    pool = models.CharField(_("rating pool"), max_length=32, default=registry.DEFAULT)
    players = models.PositiveSmallIntegerField(_("number of players"))
    mu_before = models.FloatField(_("skill before"))
    sigma_before = models.FloatField(_("uncertainty before"))
    mu_after = models.FloatField(_("skill after"))
    sigma_after = models.FloatField(_("uncertainty after"))
    ended_at = models.DateTimeField(_("ended at"))

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["user", "ended_at", "game"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="rating_change_once_per_game")
        ]
        indexes = [
            models.Index(fields=["user", "ended_at"]),
            models.Index(fields=["user", "pool", "ended_at"], name="rating_change_user_pool"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} @ {self.game_id}: {self.mu_before:.2f} -> {self.mu_after:.2f}"

    @property
    def ordinal_before(self) -> float:
        return self.mu_before - 3 * self.sigma_before

    @property
    def ordinal_after(self) -> float:
        return self.mu_after - 3 * self.sigma_after
