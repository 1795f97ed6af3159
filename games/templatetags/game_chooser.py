"""`{% game_choices as games %}`: the games a table may be opened for (games/registry.py), for
the lobby's game chooser: each game's key, name, player range and computer levels, so the
form offers only what that game has."""

from __future__ import annotations

from django import template

from games import registry

register = template.Library()


@register.simple_tag
def game_choices() -> list[dict]:
    return [
        {
            "key": kind.key,
            "name": kind.name,
            "min_players": kind.min_players,
            "max_players": kind.max_players,
            "bot_levels": " ".join(kind.bot_levels),
        }
        for kind in registry.all()
    ]


@register.filter
def game_name(key: str) -> str:
    """A table's game (its summary's `game`) by the name players know it by."""
    try:
        return str(registry.get(key).name)
    except registry.UnknownGame:
        return key
