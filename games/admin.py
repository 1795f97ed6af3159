"""Admin for games. The log is read-only here for everyone, superusers included (STYLE 2)."""

from django.contrib import admin

from games.models import Game, GameEntry, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("seat", "join_order", "user", "joined_at")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "status", "players", "movement", "clock", "version", "created_at")
    list_filter = ("status", "visibility", "movement", "players", "clock")
    search_fields = ("id", "seats__user__username")
    readonly_fields = [f.name for f in Game._meta.fields if f.name != "seed"]
    exclude = ("seed",)  # secret while the game runs (H1)
    inlines = [SeatInline]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(GameEntry)
class GameEntryAdmin(admin.ModelAdmin):
    list_display = ("game", "seq", "actor", "seat", "created_at")
    list_filter = ("created_at",)
    search_fields = ("game__id",)
    readonly_fields = [f.name for f in GameEntry._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
