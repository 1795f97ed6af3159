"""Pages of the browser client, mounted at the site root (games/web.py)."""

from django.urls import path

from accounts import web as account_web
from games import player_web, web, web_push
from taxi_project.i18n import ScriptCatalog

app_name = "web"

urlpatterns = [
    path("", web.lobby, name="lobby"),
    path("lobby/lists", web.lobby_lists, name="lobby-lists"),
    path("signup", web.signup_page, name="signup"),
    path("login", web.login_page, name="login"),
    path("logout", web.logout_page, name="logout"),
    path("favicon.ico", web.favicon, name="favicon"),
    path("board.json", web.board_json, name="board"),
    path("rules/", web.rules_page, name="rules"),
    path("games/<int:game_id>", web.game_page, name="game"),
    path("games/<int:game_id>/replay", web.game_replay, name="replay"),
    # gettext() for the scripts: their own words plus games/wording.py's sentences
    path("jsi18n.js", ScriptCatalog.as_view(), name="jsi18n"),
    path("profile", account_web.profile_page, name="profile"),
    path("players/<int:user_id>", player_web.player_profile_page, name="player"),
    path("leaderboard", player_web.leaderboard_page, name="leaderboard"),
    # the service worker, at the root so that its scope is the whole site (games/web_push.py)
    path("push-worker.js", web_push.service_worker, name="push-worker"),
]
