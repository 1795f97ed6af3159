"""Pages of the browser client, mounted at the site root (games/web.py)."""

from django.urls import path
from django.views.i18n import JavaScriptCatalog

from games import web

app_name = "web"

urlpatterns = [
    path("", web.lobby, name="lobby"),
    path("lobby/lists", web.lobby_lists, name="lobby-lists"),
    path("signup", web.signup_page, name="signup"),
    path("login", web.login_page, name="login"),
    path("logout", web.logout_page, name="logout"),
    path("board.json", web.board_json, name="board"),
    path("rules/", web.rules_page, name="rules"),
    path("games/<int:game_id>", web.game_page, name="game"),
    path("games/<int:game_id>/replay", web.game_replay, name="replay"),
    # gettext() for the scripts, from the "django" domain that games/wording.py's sentences
    # use, so a translation serves the server's words and the page's alike
    path("jsi18n.js", JavaScriptCatalog.as_view(domain="django"), name="jsi18n"),
]
