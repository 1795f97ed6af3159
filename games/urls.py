"""Game API routes (under /api/v1/)."""

from django.urls import path

from games import apis, player_apis

urlpatterns = [
    path("board", apis.BoardApi.as_view(), name="board-api"),
    path("tables", apis.TableListCreateApi.as_view(), name="tables"),
    path("tables/<int:game_id>/join", apis.TableJoinApi.as_view(), name="table-join"),
    path("tables/<int:game_id>/leave", apis.TableLeaveApi.as_view(), name="table-leave"),
    path("tables/<int:game_id>/cancel", apis.TableCancelApi.as_view(), name="table-cancel"),
    path("games/finished", apis.FinishedGamesApi.as_view(), name="games-finished"),
    path("games/<int:game_id>", apis.GameDetailApi.as_view(), name="game"),
    path("games/<int:game_id>/actions", apis.GameActionsApi.as_view(), name="game-actions"),
    path("games/<int:game_id>/log", apis.GameLogApi.as_view(), name="game-log"),
    path("games/<int:game_id>/chat", apis.GameChatApi.as_view(), name="game-chat"),
    path("games/<int:game_id>/notes", apis.GameNotesApi.as_view(), name="game-notes"),
    path("games/<int:game_id>/stream", apis.GameStreamApi.as_view(), name="game-stream"),
    path("games/<int:game_id>/export", apis.GameExportApi.as_view(), name="game-export"),
    path(
        "games/<int:game_id>/export/ndjson",
        apis.GameExportNdjsonApi.as_view(),
        name="game-export-ndjson",
    ),
    path("games/<int:game_id>/reports", apis.GameReportApi.as_view(), name="game-reports"),
    path("me/games", apis.MyGamesApi.as_view(), name="my-games"),
    path("players/<int:user_id>", player_apis.PlayerProfileApi.as_view(), name="player"),
    path("leaderboard", player_apis.LeaderboardApi.as_view(), name="leaderboard"),
]
