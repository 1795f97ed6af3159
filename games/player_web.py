"""The profile and leaderboard pages of the browser client, over
games/player_stats.py; the rating history is an SVG drawn here (games/rating_chart.py)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import player_stats
from games.rating_chart import rating_chart
from games.serializers import MAX_PLAYERS, MIN_PLAYERS
from games.web import player_page

PAGE_SIZE = 50


@require_GET
@player_page
def player_profile_page(request, user_id: int):
    user = player_stats.player_get(user_id=user_id)
    profile = player_stats.player_profile(user=user, viewer=request.user)
    context = {
        "title": _("%(name)s: rating and statistics") % {"name": profile["user"]["display_name"]},
        "profile": profile,
        "chart": rating_chart(profile["history"]),
        "recent": [
            {**point, "change": f"{point['ordinal_after'] - point['ordinal_before']:+.1f}"}
            for point in reversed(profile["history"][-20:])
        ],
    }
    return TemplateResponse(request, "web/player.html", context)


@require_GET
@player_page
def leaderboard_page(request):
    size = request.GET.get("players", "")
    players = int(size) if size.isdigit() and MIN_PLAYERS <= int(size) <= MAX_PLAYERS else None
    page = Paginator(player_stats.leaderboard(players=players), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    first = (page.number - 1) * PAGE_SIZE + 1
    context = {
        "title": _("Leaderboard"),
        "rows": [player_stats.leaderboard_row(row, first + i) for i, row in enumerate(page)],
        "page": page,
        "players": players,
        "sizes": range(MIN_PLAYERS, MAX_PLAYERS + 1),
    }
    return TemplateResponse(request, "web/leaderboard.html", context)
