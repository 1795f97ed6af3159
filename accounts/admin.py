from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.utils import timezone

from accounts.models import User
from accounts.selectors import banned_q, suspended_q


class AccessListFilter(admin.SimpleListFilter):
    """Whether moderation refuses the account now (a past suspension no longer counts)."""

    title = "access"
    parameter_name = "access"

    def lookups(self, request, model_admin):
        return [("allowed", "Allowed"), ("suspended", "Suspended now"), ("banned", "Banned")]

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
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        ("Profile", {"fields": ("display_name",)}),
        ("Moderation", {"fields": ("suspended_until", "banned_at", "moderation_reason")}),
    )
    add_fieldsets = (*BaseUserAdmin.add_fieldsets, ("Profile", {"fields": ("display_name",)}))
    list_display = ("username", "display_name", "email", "is_staff", "suspended_until", "banned_at")
    list_filter = (
        AccessListFilter,
        *BaseUserAdmin.list_filter,
        "suspended_until",
        "banned_at",
    )
    search_fields = ("username", "display_name", "email")
