from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from accounts.admin_forms import (
    ThrottledAdminLoginForm,
    UserAdminChangeForm,
    UserAdminCreationForm,
)
from accounts.models import User
from accounts.selectors import banned_q, suspended_q
from games import moderation
from games.admin_moderation import (
    UserModerationForm,
    moderation_url,
    moderation_view,
    suspension_end,
)

admin.site.login_form = ThrottledAdminLoginForm


class AccessListFilter(admin.SimpleListFilter):
    """Whether moderation refuses the account now (a past suspension no longer counts)."""

    title = _("access")
    parameter_name = "access"

    def lookups(self, request, model_admin):
        return [
            ("allowed", _("Allowed")),
            ("suspended", _("Suspended now")),
            ("banned", _("Banned")),
        ]

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "banned":
            return queryset.filter(banned_q())
        if self.value() == "suspended":
            return queryset.filter(suspended_q(now=now))
        if self.value() == "allowed":
            return queryset.exclude(banned_q() | suspended_q(now=now))
        return queryset


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    form = UserAdminChangeForm
    add_form = UserAdminCreationForm
    fieldsets = (
        *BaseUserAdmin.fieldsets,  # type: ignore[misc]  # set by Django; the stubs allow None
        (_("Profile"), {"fields": ("display_name", "email_on_turn", "language")}),
        (
            _("Moderation"),
            {"fields": ("moderate", "suspended_until", "banned_at", "moderation_reason")},
        ),
    )
    # changed only through the Moderate page, which records who, when and why
    readonly_fields = ("moderate", "suspended_until", "banned_at", "moderation_reason")
    add_fieldsets = (*BaseUserAdmin.add_fieldsets, (_("Profile"), {"fields": ("display_name",)}))
    list_display = ("username", "display_name", "email", "is_staff", "suspended_until", "banned_at")
    list_filter = (
        AccessListFilter,
        *BaseUserAdmin.list_filter,
        "suspended_until",
        "banned_at",
    )
    search_fields = ("username", "display_name", "email")

    @admin.display(description=_("moderate"))
    def moderate(self, user):
        if user.pk is None:
            return ""
        url = reverse("admin:accounts_user_moderate", args=[user.pk])
        return format_html('<a href="{}">{}</a>', url, _("Suspend, ban or lift…"))

    def get_urls(self):
        return [moderation_url(self, "moderate", self.moderate_view), *super().get_urls()]

    def moderate_view(self, request, object_id):
        def perform(moderator, user, data):
            reason = data["reason"]
            if data["action"] == "suspend":
                until = suspension_end(data["hours"])
                moderation.user_suspend(
                    moderator=moderator, user_id=user.pk, until=until, reason=reason
                )
            elif data["action"] == "ban":
                moderation.user_ban(moderator=moderator, user_id=user.pk, reason=reason)
            else:
                moderation.user_lift(moderator=moderator, user_id=user.pk, reason=reason)

        return moderation_view(
            self, request, object_id, form_class=UserModerationForm, title=_("Moderate player"),
            perform=perform,
            summary=_("Suspended and banned players are refused at login, in the API and on "
            "WebSockets; their running seats go to the autopilot."),
        )  # fmt: skip
