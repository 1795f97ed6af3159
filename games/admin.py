"""Admin for games, the log, chat, reports and the moderators' audit log.

The log and the audit log are read-only here for everyone, superusers included (STYLE 2).
Moderation happens on the pages of games/admin_moderation.py, each recording who, when, what
and why.
"""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from games import moderation, selectors
from games.admin_moderation import (
    GameModerationForm,
    ReasonForm,
    moderation_url,
    moderation_view,
)
from games.models import ChatMessage, Game, GameEntry, ModerationAction, Report, Seat


class ReadOnlyAdmin(admin.ModelAdmin):
    """Seen, never edited here: changes go through services that keep the records."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("seat", "join_order", "user", "joined_at")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "status", "players", "movement", "clock", "version", "created_at")
    list_filter = ("kind", "status", "visibility", "movement", "players", "clock")
    search_fields = ("id", "seats__user__username")
    readonly_fields = ["links", *(f.name for f in Game._meta.fields if f.name != "seed")]
    exclude = ("seed",)  # secret while the game runs (H1); the replay viewer marks it
    inlines = [SeatInline]

    @admin.display(description=_("moderation"))
    def links(self, game):
        replay = reverse("admin:games_game_replay", args=[game.pk])
        moderate = reverse("admin:games_game_moderate", args=[game.pk])
        return format_html(
            '<a href="{}">{}</a> · <a href="{}">{}</a>',
            replay,
            _("Replay"),
            moderate,
            _("Moderate"),
        )

    def get_urls(self):
        from games.admin_replay import replay_urls

        return [
            *replay_urls(self),
            moderation_url(self, "moderate", self.moderate_view),
            *super().get_urls(),
        ]

    def moderate_view(self, request, object_id):
        def perform(moderator, game, data):
            reason = data["reason"]
            if data["action"] == "abort":
                moderation.game_abort(moderator=moderator, game_id=game.pk, reason=reason)
            elif data["action"] == "zombify":
                moderation.seat_zombify(
                    moderator=moderator, game_id=game.pk, seat=data["seat"], reason=reason
                )
            else:
                moderation.seat_restore(
                    moderator=moderator, game_id=game.pk, seat=data["seat"], reason=reason
                )

        return moderation_view(
            self, request, object_id, form_class=GameModerationForm, title=_("Moderate game"),
            perform=perform,
        )  # fmt: skip


class ActorKindFilter(admin.SimpleListFilter):
    """Who appended an entry, as the API's `actor.kind` says: a person, a computer opponent,
    the server (setup, clocks) or a moderator."""

    title = _("actor kind")
    parameter_name = "actor_kind"

    def lookups(self, request, model_admin):
        names = {"player": _("player"), "bot": _("computer opponent"), "server": _("server"),
                 "moderator": _("moderator")}  # fmt: skip
        return [(kind, names[kind]) for kind in selectors.ACTOR_KINDS]

    def queryset(self, request, queryset):
        if self.value() not in selectors.ACTOR_KINDS:
            return queryset
        return selectors.entries_by_actor_kind(queryset, self.value())


@admin.register(GameEntry)
class GameEntryAdmin(ReadOnlyAdmin):
    list_display = ("game", "seq", "actor", "seat", "created_at")
    list_filter = (ActorKindFilter, "created_at")
    search_fields = ("game__id",)
    readonly_fields = [f.name for f in GameEntry._meta.fields]


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "game", "author", "text", "hidden_at", "hide_link")
    list_filter = (("hidden_at", admin.EmptyFieldListFilter), "created_at")
    search_fields = ("text", "author__username", "game__id")
    readonly_fields = [f.name for f in ChatMessage._meta.fields]

    @admin.display(description="")
    def hide_link(self, message):
        if message.hidden_at is not None:
            return "hidden"
        url = reverse("admin:games_chatmessage_hide", args=[message.pk])
        return format_html('<a href="{}">{}</a>', url, _("Hide"))

    def get_urls(self):
        return [moderation_url(self, "hide", self.hide_view), *super().get_urls()]

    def hide_view(self, request, object_id):
        def perform(moderator, message, data):
            moderation.chat_message_hide(
                moderator=moderator, message_id=message.pk, reason=data["reason"]
            )

        return moderation_view(
            self, request, object_id, form_class=ReasonForm, title=_("Hide message"),
            perform=perform,
        )  # fmt: skip


@admin.register(Report)
class ReportAdmin(ReadOnlyAdmin):
    list_display = ("id", "status", "created_at", "game", "reporter", "reported_user", "close")
    list_filter = ("status", "created_at")
    search_fields = ("reason", "reporter__username", "reported_user__username")
    readonly_fields = [f.name for f in Report._meta.fields]

    @admin.display(description="")
    def close(self, report):
        if report.status == Report.Status.CLOSED:
            return "closed"
        url = reverse("admin:games_report_close", args=[report.pk])
        return format_html('<a href="{}">{}</a>', url, _("Close with a note"))

    def get_urls(self):
        return [moderation_url(self, "close", self.close_view), *super().get_urls()]

    def close_view(self, request, object_id):
        def perform(moderator, report, data):
            moderation.report_close(
                moderator=moderator, report_id=report.pk, resolution=data["reason"]
            )

        return moderation_view(
            self, request, object_id, form_class=ReasonForm, title=_("Close report"),
            perform=perform,
        )  # fmt: skip


@admin.register(ModerationAction)
class ModerationActionAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "moderator", "kind", "game", "user", "reason")
    list_filter = ("kind", "created_at", "moderator")
    search_fields = ("reason", "moderator__username", "user__username")
    readonly_fields = [f.name for f in ModerationAction._meta.fields]
