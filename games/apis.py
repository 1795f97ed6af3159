"""The games API (/api/v1/): one thin view per operation; services write, selectors read."""

from __future__ import annotations

import hashlib
import json

from django.http import HttpResponse, StreamingHttpResponse
from django.utils.http import parse_etags, quote_etag
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import APIView

from accounts.throttles import TableCreateAccountThrottle, TableCreateAddressThrottle
from games import moderation, selectors, streams
from games.models import Seat
from games.schema import NDJSON, BoardSerializer, any_game, by_game, error_responses, ndjson_body
from games.serializers import (
    DETAILS,
    ENTRIES,
    SUMMARIES,
    TABLE_CREATE,
    ChatMessageSerializer,
    ChatPostSerializer,
    ChatQuerySerializer,
    DigitCodeGameExportSerializer,
    DigitCodeLegalActionsSerializer,
    DigitCodeLogPageSerializer,
    DigitCodeMoveResponseSerializer,
    ErrorSerializer,
    ExportQuerySerializer,
    GameExportSerializer,
    GamesQuerySerializer,
    GameSummaryPageSerializer,
    LegalActionsSerializer,
    LogPageSerializer,
    LogQuerySerializer,
    MoveResponseSerializer,
    MoveSerializer,
    NotesPutSerializer,
    NotesSerializer,
    ReportCreateSerializer,
    ReportSerializer,
    StreamQuerySerializer,
    TableCreateSerializer,
    TableFilterSerializer,
    TableJoinSerializer,
    move_data,
)
from games.services import chat, moves, notes, tables
from games.throttles import MoveRateThrottle, NotesRateThrottle
from games.web import board_data
from taxi_project import connection_limits, error_codes
from taxi_project.pagination import DEPRECATION_HEADERS, deprecated, paginate, schema_parameters

# Answers that are each game's own (games/schema.py: `by_game`, `any_game`).
ANY_SUMMARY = by_game("AnyGameSummary", SUMMARIES)
ANY_MOVE_RESPONSE = any_game(
    "AnyMoveResponse", [MoveResponseSerializer, DigitCodeMoveResponseSerializer]
)

# The error codes each operation may answer with (games/schema.py: error_responses).
SIGNED_IN = ("not_authenticated", "authentication_failed", "account_banned", "account_suspended",
             "service_unavailable")  # fmt: skip
BODY = ("invalid", "parse_error", "permission_denied", "request_too_large",
        "unsupported_media_type")  # fmt: skip
ILLEGAL = tuple(
    code for code, (status_code, _message) in error_codes.vocabulary().items()
    if status_code == 422 and code != "illegal"
)  # fmt: skip


def errors(operation: str, *codes: str) -> dict:
    """Every error `operation` may answer with, by status; any other error has the shape of
    the `Error` component (`default`)."""
    if "game_not_found" in codes:  # a path that names no game at all (`/games/x`): not_found
        codes = (*codes, "not_found")
    return {
        **error_responses(operation, *SIGNED_IN, *codes),
        "default": OpenApiResponse(ErrorSerializer, description="any error: docs/errors.md"),
    }


def _valid(serializer_class, data) -> dict:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _valid_query(serializer_class, request) -> dict:
    """The query parameters, validated as the schema states them: one sent empty (`?as=`,
    `?after=`) has the empty value, refused where a choice or a number is wanted. (Given the
    QueryDict itself, DRF reads an empty parameter as an HTML form's empty field: left out.)"""
    return _valid(serializer_class, request.query_params.dict())


def _tagged(request, body: dict) -> Response:
    """`body` with an ETag (a hash of what it renders to); 304 and no body if the client's
    `If-None-Match` has it already: a phone polling an unchanged game pays a few bytes."""
    etag = quote_etag(hashlib.sha256(json.dumps(body, cls=JSONEncoder).encode()).hexdigest())
    wanted = parse_etags(request.headers.get("If-None-Match", ""))
    if etag in wanted or "*" in wanted:
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
    return Response(body, headers={"ETag": etag})


IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    description="the ETag of the copy you have: 304 if it is still current",
)
ETAG = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    response=[200, 304],
    description="a strong validator of the body: send it back as `If-None-Match`",
)
NOT_MODIFIED = {304: OpenApiResponse(description="unchanged since the ETag you sent")}


def _page(view: APIView, request, rows, *, ordering, legacy=None):
    """A page of game summaries (taxi_project/pagination.py: by cursor, or the deprecated
    offset in the list's old order, `legacy`); `rows`: games, or seats at them."""

    def render(page, first):
        games = [row.game if isinstance(row, Seat) else row for row in page]
        return [selectors.game_summary(game, user=request.user) for game in games]

    return paginate(view, request, rows, ordering=ordering, legacy=legacy, render=render)


PAGE = [*schema_parameters(), *DEPRECATION_HEADERS]


class BoardApi(APIView):
    """Public, like the rules: a client may draw the board before anyone signs in."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="board",
        auth=[],
        responses={
            200: BoardSerializer,
            **error_responses("board", "not_acceptable"),
            "default": OpenApiResponse(ErrorSerializer, description="any error: docs/errors.md"),
        },
        summary="The board: areas, roads and the CC BY 4.0 attribution to show with it",
    )
    def get(self, request):
        return Response(board_data())


class TableListCreateApi(APIView):
    def get_throttles(self):
        if self.request.method == "POST":  # each table is rows, clocks and maybe bot work
            return [TableCreateAccountThrottle(), TableCreateAddressThrottle()]
        return super().get_throttles()

    @extend_schema(
        operation_id="tables_list",
        parameters=[TableFilterSerializer, *PAGE],
        responses={200: GameSummaryPageSerializer, **errors("tables_list", "invalid")},
        summary="Open public tables, newest first, with filters",
    )
    def get(self, request):
        filters = _valid_query(TableFilterSerializer, request)
        return _page(self, request, selectors.tables_open(filters=filters), ordering="-id")

    @extend_schema(
        operation_id="tables_create",
        request=by_game("AnyTableCreate", TABLE_CREATE, optional=True),
        responses={
            201: ANY_SUMMARY,
            **errors(
                "tables_create",
                *BODY,
                "invalid_deadlines",
                "invalid_options",
                "invalid_players",
                "pickup_before_movement_required",
                "too_many_tables",
                "throttled",
            ),
        },
        summary="Open a table (the creator takes the first place)",
    )
    def post(self, request):
        data = _valid(TableCreateSerializer, request.data)
        game = tables.table_create(
            user=request.user,
            game=data["game"],
            players=data["players"],
            options=data["options"],
            visibility=data["visibility"],
            clock=data["clock"],
            deadline1_at=data["deadline1_at"],
            deadline2_at=data["deadline2_at"],
            bots=data["bots"],
            rated=data["rated"],
        )
        game = selectors.game_get_visible(game_id=game.pk, user=request.user)
        return Response(selectors.game_summary(game, user=request.user), status=201)


class TableJoinApi(APIView):
    @extend_schema(
        operation_id="tables_join",
        request=TableJoinSerializer,
        responses={
            200: ANY_SUMMARY,
            **errors(
                "tables_join",
                *BODY,
                "game_not_found",
                "table_not_open",
                "already_seated",
                "too_many_tables",
            ),
        },
        summary="Take a place; the game starts when every place is taken",
    )
    def post(self, request, game_id: int):
        data = _valid(TableJoinSerializer, request.data)
        tables.table_join(
            game_id=game_id, user=request.user, invite_code=data.get("invite_code", "")
        )
        game = selectors.game_get_visible(game_id=game_id, user=request.user)
        return Response(selectors.game_summary(game, user=request.user))


class TableLeaveApi(APIView):
    @extend_schema(
        operation_id="tables_leave",
        request=None,
        responses={
            200: ANY_SUMMARY,
            **errors(
                "tables_leave",
                "permission_denied",
                "game_not_found",
                "table_not_open",
                "not_seated",
            ),
        },
        summary="Leave a table that has not started (its creator leaving cancels it)",
    )
    def post(self, request, game_id: int):
        selectors.game_get_visible(game_id=game_id, user=request.user)
        tables.table_leave(game_id=game_id, user=request.user)
        game = selectors.game_get_visible(game_id=game_id, user=request.user)
        return Response(selectors.game_summary(game, user=request.user))


class TableCancelApi(APIView):
    @extend_schema(
        operation_id="tables_cancel",
        request=None,
        responses={
            200: ANY_SUMMARY,
            **errors(
                "tables_cancel",
                "permission_denied",
                "not_creator",
                "game_not_found",
                "table_not_open",
            ),
        },
        summary="Cancel a table that has not started (creator only)",
    )
    def post(self, request, game_id: int):
        selectors.game_get_visible(game_id=game_id, user=request.user)
        tables.table_cancel(game_id=game_id, user=request.user)
        game = selectors.game_get_visible(game_id=game_id, user=request.user)
        return Response(selectors.game_summary(game, user=request.user))


class GameDetailApi(APIView):
    @extend_schema(
        operation_id="games_retrieve",
        parameters=[IF_NONE_MATCH, ETAG],
        responses={
            200: by_game("AnyGameDetail", DETAILS),
            **NOT_MODIFIED,
            **errors("games_retrieve", "game_not_found"),
        },
        summary="A game and its view for you (as a player or a spectator)",
    )
    def get(self, request, game_id: int):
        game = selectors.game_get_visible(game_id=game_id, user=request.user)
        return _tagged(request, selectors.game_detail(game=game, user=request.user))


class GameActionsApi(APIView):
    throttle_classes = [MoveRateThrottle]  # POST only: moves per user (games/throttles.py)

    @extend_schema(
        operation_id="games_actions_list",
        responses={
            200: any_game(
                "AnyLegalActions", [LegalActionsSerializer, DigitCodeLegalActionsSerializer]
            ),
            **errors("games_actions_list", "game_not_found"),
        },
        summary="What you may do now: your legal actions on your turn, and `resign`",
    )
    def get(self, request, game_id: int):
        game = selectors.game_get_visible(game_id=game_id, user=request.user)
        return Response(selectors.legal_actions(game=game, user=request.user))

    @extend_schema(
        operation_id="games_actions_submit",
        request=MoveSerializer,
        responses={
            201: ANY_MOVE_RESPONSE,
            200: OpenApiResponse(ANY_MOVE_RESPONSE, description="a retry: the first answer"),
            **errors(
                "games_actions_submit",
                *BODY,
                "malformed_action",
                "not_a_player",
                "not_your_seat",
                "server_action",
                "game_not_found",
                "game_not_started",
                "stale_version",
                "idempotency_key_reused",
                *ILLEGAL,
                "throttled",
            ),
        },
        summary="Submit an action against the version you saw",
    )
    def post(self, request, game_id: int):
        data = move_data(request.data)
        result = moves.move_submit(
            game_id=game_id,
            user=request.user,
            action=data["action"],
            version=data["version"],
            idempotency_key=data["idempotency_key"],
        )
        code = status.HTTP_200_OK if result.replayed else status.HTTP_201_CREATED
        return Response(result.body, status=code)


class GameLogApi(APIView):
    @extend_schema(
        operation_id="games_log",
        parameters=[LogQuerySerializer, IF_NONE_MATCH, ETAG],
        responses={
            200: any_game("AnyLogPage", [LogPageSerializer, DigitCodeLogPageSerializer]),
            **NOT_MODIFIED,
            **errors("games_log", "invalid", "game_not_found"),
        },
        summary="The log after seq `after`, in order (seq 0 is the setup)",
    )
    def get(self, request, game_id: int):
        query = _valid_query(LogQuerySerializer, request)
        game = selectors.game_get_visible(game_id=game_id, user=request.user)
        after = query.get("after", -1)
        entries = list(selectors.log_since(game=game, after=after)[: query["limit"] + 1])
        more = len(entries) > query["limit"]
        entries = entries[: query["limit"]]
        bots = selectors.bot_seats(game)
        return _tagged(
            request,
            {
                "version": game.version,
                "entries": [selectors.entry_public(entry, bots) for entry in entries],
                "next_after": entries[-1].seq if more else None,
            },
        )


class MyGamesApi(APIView):
    @extend_schema(
        operation_id="me_games",
        parameters=[GamesQuerySerializer, *PAGE],
        responses={200: GameSummaryPageSerializer, **errors("me_games", "invalid")},
        summary="Your games, newest table first (`your_turn`: those waiting on you)",
        description="With the deprecated `offset`: those waiting on you first, then by start.",
    )
    def get(self, request):
        query = _valid_query(GamesQuerySerializer, request)
        user, status = request.user, query.get("status")
        seats = selectors.seats_of_user_newest(user=user, status=status)
        legacy = selectors.games_of_user(user=user, status=status)
        return _page(self, request, seats, ordering="-game_id", legacy=legacy)


class FinishedGamesApi(APIView):
    @extend_schema(
        operation_id="games_finished",
        parameters=PAGE,
        responses={200: GameSummaryPageSerializer, **errors("games_finished", "invalid")},
        summary="Finished games, last ended first, with their results and revealed seeds",
    )
    def get(self, request):
        games = selectors.games_finished(user=request.user)
        return _page(self, request, games, ordering=("-finished_at", "-id"))


class GameChatApi(APIView):
    @extend_schema(
        operation_id="games_chat",
        parameters=[ChatQuerySerializer],
        responses={
            200: ChatMessageSerializer(many=True),
            **errors("games_chat", "invalid", "game_not_found"),
        },
        summary="The table's visible chat messages, oldest first: the latest, or those after "
        "`after`",
    )
    def get(self, request, game_id: int):
        query = _valid_query(ChatQuerySerializer, request)
        game = selectors.game_get_visible(game_id=game_id, user=request.user)
        return Response(selectors.chat_recent(game=game, after=query.get("after")))

    @extend_schema(
        operation_id="games_chat_post",
        request=ChatPostSerializer,
        responses={
            201: ChatMessageSerializer,
            **errors(
                "games_chat_post",
                *BODY,
                "invalid_chat_message",
                "not_a_player",
                "game_not_found",
                "chat_rate_limited",
            ),
        },
        summary="Write to the table (players only): the same message the sockets get",
    )
    def post(self, request, game_id: int):
        data = _valid(ChatPostSerializer, request.data)
        selectors.game_get_visible(game_id=game_id, user=request.user)
        message = chat.chat_post(game_id=game_id, user=request.user, text=data["text"])
        return Response(selectors.chat_public(message), status=201)


class GameNotesApi(APIView):
    """Your private notes on your own seat (RULES-digit-code.md C2): nobody else's, and never
    in the log, a view, a push or an export."""

    throttle_classes = [NotesRateThrottle]  # PUT only: saves per user (games/throttles.py)

    @extend_schema(
        operation_id="games_notes",
        responses={
            200: NotesSerializer,
            **errors(
                "games_notes",
                "game_not_found",
                "notes_not_offered",
                "not_a_player",
                "game_not_started",
            ),
        },
        summary="Your private notes on this game (players only; the game's empty notes at first)",
    )
    def get(self, request, game_id: int):
        return Response(notes.notes_get(game_id=game_id, user=request.user))

    @extend_schema(
        operation_id="games_notes_put",
        request=NotesPutSerializer,
        responses={
            200: NotesSerializer,
            **errors(
                "games_notes_put",
                *BODY,
                "game_not_found",
                "notes_not_offered",
                "not_a_player",
                "game_not_started",
                "throttled",
            ),
        },
        summary="Replace your private notes on this game (while it is played and after)",
        description="Validated by the game (400 `invalid`, `errors.notes` naming each wrong "
        "field); at most `NOTES_MAX_BYTES` (4096) bytes of JSON (413 `request_too_large`, "
        "`limit`); counted by the `notes` rate limit (429 `throttled`).",
    )
    def put(self, request, game_id: int):
        data = _valid(NotesPutSerializer, request.data)
        return Response(notes.notes_put(game_id=game_id, user=request.user, notes=data["notes"]))


class GameStreamApi(APIView):
    @extend_schema(
        operation_id="games_stream",
        parameters=[StreamQuerySerializer],
        responses={
            (200, NDJSON): OpenApiResponse(
                ndjson_body(line=ENTRIES, keepalive=True),
                description="One entry (as in the log: the game's own, `Entry` for Bahama Taxi, "
                "`DigitCodeEntry` for Digit Code) a line, from `after` on, as they are "
                'committed; `{"keepalive": <time>}` every 20 s without one; the stream ends '
                "after the entry that ends the game",
            ),
            **errors("games_stream", "invalid", "game_not_found", "too_many_connections"),
        },
        summary="Follow the game without a socket: its log entries as they come (NDJSON)",
        description="At most `MAX_STREAMS_PER_ACCOUNT` (10) streams per account and "
        "`MAX_STREAMS_PER_ADDRESS` (50) per client address are open at once, on every server "
        "together: one more is refused with 429 `too_many_connections` (`per`: `account` or "
        "`address`; `limit`).",
    )
    def get(self, request, game_id: int):
        query = _valid_query(StreamQuerySerializer, request)
        lease = connection_limits.lease_take(
            connection_limits.STREAM,
            user=request.user,
            address=connection_limits.request_address(request),
        )
        try:
            selectors.game_get_visible(game_id=game_id, user=request.user)
        except BaseException:
            lease.release()
            raise
        lines = streams.Lines(game_id=game_id, after=query.get("after", -1), lease=lease)
        response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # nginx: pass each line on at once
        return response


def _export(request, game_id: int) -> tuple[dict, list[dict]]:
    game = selectors.game_get_visible(game_id=game_id, user=request.user)
    summary = selectors.game_summary(game, user=request.user)
    bots = selectors.bot_seats(game)
    entries = [selectors.entry_public(e, bots) for e in selectors.log_since(game=game, after=-1)]
    return summary, entries


def _ndjson(lines: list[dict]) -> HttpResponse:
    body = "".join(json.dumps(line, cls=JSONEncoder) + "\n" for line in lines)
    return HttpResponse(body, content_type=NDJSON)


class GameExportApi(APIView):
    @extend_schema(
        operation_id="games_export",
        responses={
            200: any_game("AnyGameExport", [GameExportSerializer, DigitCodeGameExportSerializer]),
            **errors("games_export", "invalid", "game_not_found"),
        },
        summary="The whole game in one call: the game (with its seed once over) and every "
        "log entry",
        description="The same as NDJSON: `games_export_ndjson`. `?as=ndjson` here is "
        "deprecated (its answers carry `Deprecation` and `Sunset`, docs/api.md).",
    )
    def get(self, request, game_id: int):
        query = _valid_query(ExportQuerySerializer, request)
        summary, entries = _export(request, game_id)
        if query["as"] == "ndjson":
            return deprecated(_ndjson([summary, *entries]))
        return Response({"game": summary, "entries": entries})


class GameExportNdjsonApi(APIView):
    @extend_schema(
        operation_id="games_export_ndjson",
        responses={
            (200, NDJSON): OpenApiResponse(
                ndjson_body(first="AnyGameSummary", line=ENTRIES),
                description="the game (AnyGameSummary, with its seed once over) on the first "
                "line, then every log entry (the game's own: Entry, DigitCodeEntry) from seq 0, "
                "one a line",
            ),
            **errors("games_export_ndjson", "game_not_found"),
        },
        summary="The whole game as NDJSON: the game, then one log entry a line",
    )
    def get(self, request, game_id: int):
        summary, entries = _export(request, game_id)
        return _ndjson([summary, *entries])


class GameReportApi(APIView):
    @extend_schema(
        operation_id="games_report",
        request=ReportCreateSerializer,
        responses={
            201: ReportSerializer,
            **errors(
                "games_report",
                *BODY,
                "report_target_required",
                "report_self",
                "report_not_allowed",
                "game_not_found",
                "message_not_found",
                "player_not_found",
                "report_duplicate",
                "report_rate_limited",
            ),
        },
        summary="Report a player of this game, or one of its chat messages, to the moderators",
    )
    def post(self, request, game_id: int):
        data = _valid(ReportCreateSerializer, request.data)
        report = moderation.report_create(
            reporter=request.user,
            game_id=game_id,
            reason=data["reason"],
            reported_user_id=data.get("reported_user"),
            chat_message_id=data.get("chat_message"),
        )
        return Response(
            {"id": report.pk, "status": report.status, "created_at": report.created_at},
            status=201,
        )
