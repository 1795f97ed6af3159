"""The profile and leaderboard pages of the browser client, over
games/player_stats.py; the rating history is an SVG drawn here (games/rating_chart.py)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import player_stats, registry
from games.rating_chart import rating_chart
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
        # one section per game played (Bahama Taxi's at least): its rating, chart and games
        "sections": [
            {
                **section,
                # income and table options are Bahama Taxi's (the game with option columns)
                "own_options": bool(registry.get(section["game"]).option_columns),
                "chart": rating_chart(section["history"]),
                "recent": [
                    {**point, "change": f"{point['ordinal_after'] - point['ordinal_before']:+.1f}"}
                    for point in reversed(section["history"][-20:])
                ],
            }
            for section in profile["games"]
        ],
        "current": [{**g, "name": registry.get(g["game"]).name} for g in profile["current_games"]],
    }
    return TemplateResponse(request, "web/player.html", context)


@require_GET
@player_page
def leaderboard_page(request):
    """One game's leaderboard (`?game=`, Bahama Taxi's if none or unknown), with a chooser of
    the games and of that game's table sizes."""
    asked = request.GET.get("game", "")
    kind = registry.get(asked if asked in registry.keys() else registry.DEFAULT)
    size = request.GET.get("players", "")
    fits = size.isdigit() and kind.min_players <= int(size) <= kind.max_players
    players = int(size) if fits else None
    rows = player_stats.leaderboard(game=kind.key, players=players)
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    first = (page.number - 1) * PAGE_SIZE + 1
    context = {
        "title": _("Leaderboard: %(game)s") % {"game": kind.name},
        "rows": [player_stats.leaderboard_row(row, first + i) for i, row in enumerate(page)],
        "page": page,
        "game": kind.key,
        # the default game's links are those of the page before there were other games
        "game_query": _game_query(kind.key),
        "games": [(each.key, each.name, _game_query(each.key)) for each in registry.all()],
        "players": players,
        "sizes": range(kind.min_players, kind.max_players + 1),
    }
    return TemplateResponse(request, "web/leaderboard.html", context)


def _game_query(game: str) -> str:
    return "" if game == registry.DEFAULT else urlencode({"game": game})
