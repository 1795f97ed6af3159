"""Hostile input: oversized bodies, wrong types, odd unicode, huge or negative numbers, other
people's games, foreign WebSocket origins, floods. Each gets a JSON error with a stable code
(never a 5xx, never an HTML page) and nothing is stored.

In-process (Django's test client and Channels' communicator); the same checks against a real
server under faults are in test_faults.py, and schema-driven fuzzing in test_schema_fuzz.py.
"""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import User
from games import engine
from games.models import ChatMessage, Game, GameEntry, Report, Seat
from games.services import chat, tables
from taxi_project.api_errors import ApiError
from tests.players import Player, autopilot_choice, seat_players, start_game

pytestmark = pytest.mark.django_db

NUL = "\x00"
LONE_SURROGATE = "\ud800"
RTL_OVERRIDE = "\u202e"
LONG = "x" * 10_000
ODD_STRINGS = [NUL, f"a{NUL}b", LONE_SURROGATE, f"9H{LONE_SURROGATE}", RTL_OVERRIDE + "H9", LONG]
ODD_IDS = ["nul", "nul-inside", "surrogate", "surrogate-inside", "rtl", "10k"]
HUGE = [-1, -(2**63), 2**31, 2**63, 10**30]


@pytest.fixture
def table():
    """A started two-player game, its players by seat and the seat to move."""
    players = [Player(), Player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    return game_id, by_seat, by_seat[Game.objects.get(pk=game_id).active_seat]


class Stored:
    """What the database holds now; `unchanged()` after the hostile requests."""

    def __init__(self):
        self.before = self.snapshot()

    @staticmethod
    def snapshot() -> dict:
        return {
            "entries": GameEntry.objects.count(),
            "games": list(Game.objects.order_by("pk").values_list("pk", "version", "status")),
            "seats": Seat.objects.count(),
            "users": User.objects.count(),
            "chat": ChatMessage.objects.count(),
            "reports": Report.objects.count(),
        }

    def unchanged(self) -> None:
        assert self.snapshot() == self.before


def refused(response, status: int | None = None, codes: set[str] | None = None) -> str:
    """A JSON error: `{"code", "message", ...}`, a 4xx, the code among `codes`."""
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response.content[:300]
    body = json.loads(response.content)
    assert isinstance(body["code"], str) and body["code"]
    assert isinstance(body["message"], str) and body["message"]
    if status is not None:
        assert response.status_code == status, body
    if codes is not None:
        assert body["code"] in codes, body
    return body["code"]


def post_raw(player: Player, url: str, body: bytes | str, content_type="application/json"):
    return player.client.generic("POST", url, body, content_type=content_type)


def move_body(action, version=0, key="k1") -> dict:
    return {"action": action, "version": version, "idempotency_key": key}


# ---------------------------------------------------------------------------------- size


def test_an_oversized_body_is_refused_before_it_is_parsed(table, settings):
    game_id, _, mover = table
    stored = Stored()
    padding = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    body = json.dumps({**move_body(autopilot_choice(game_id)), "padding": padding})
    url = f"/api/v1/games/{game_id}/actions"
    refused(post_raw(mover, url, body), 413, {"request_too_large"})
    refused(post_raw(mover, "/api/v1/tables", body), 413, {"request_too_large"})
    stored.unchanged()
    # just under the limit is parsed (and refused for what it says, not for its size)
    small = json.dumps({**move_body({"type": "nonsense"}), "pad": "x" * 1000})
    refused(post_raw(mover, url, small), 400, {"malformed_action"})
    stored.unchanged()


# ---------------------------------------------------------------------------------- types


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not json",
        b"{",
        b"[]",
        b"null",
        b"42",
        b'"a string"',
        json.dumps(move_body("step")).encode(),
        json.dumps(move_body(["step", "9H"])).encode(),
        json.dumps(move_body(None)).encode(),
        json.dumps(move_body({"type": "step"}, version="0")).encode(),
        json.dumps(move_body({"type": "step"}, version=0.5)).encode(),
        json.dumps(move_body({"type": "step"}, version=None)).encode(),
        json.dumps(move_body({"type": "step"}, version=[0])).encode(),
        json.dumps(move_body({"type": "step"}, version=True)).encode(),
        json.dumps(move_body({"type": "step"}, key=7)).encode(),
        json.dumps(move_body({"type": "step"}, key="")).encode(),
        json.dumps(move_body({"type": "step"}, key="k" * 65)).encode(),
        json.dumps(move_body({"type": 5, "to": 9})).encode(),
        json.dumps(move_body({"type": "step", "to": ["9H"]})).encode(),
        json.dumps(move_body({"type": "step", "to": "9H", "seat": "0"})).encode(),
        json.dumps(move_body({"type": "pickup", "destination": {"a": 1}})).encode(),
        json.dumps(move_body({"type": "turn", "steps": "9H", "pickups": 3})).encode(),
        json.dumps(move_body({"type": "timeout"})).encode(),  # a server action
        json.dumps(move_body({"type": "abort", "reason": "x"})).encode(),
        b'{"action": {"type": "stop"}, "version": 1e400, "idempotency_key": "k"}',
        b'{"action": {"type": "stop"}, "version": NaN, "idempotency_key": "k"}',
        b'{"action": {"type": "stop", "type": "step"}, "version": 0, "idempotency_key": "k"}',
        b"\xff\xfe\x00garbage",
    ],
)
def test_wrong_types_are_refused_with_a_code(table, body):
    game_id, _, mover = table
    stored = Stored()
    code = refused(post_raw(mover, f"/api/v1/games/{game_id}/actions", body))
    assert code in {
        "invalid", "parse_error", "malformed_action", "server_action", "not_your_seat",
        "illegal", "step_required", "not_adjacent", "no_such_citizen",
    }  # fmt: skip
    stored.unchanged()


def test_a_form_body_is_refused(table):
    game_id, _, mover = table
    stored = Stored()
    response = post_raw(
        mover, f"/api/v1/games/{game_id}/actions", "version=0", "application/x-www-form-urlencoded"
    )
    refused(response, None, {"invalid", "unsupported_media_type"})
    response = post_raw(mover, f"/api/v1/games/{game_id}/actions", "<a/>", "application/xml")
    refused(response, 415, {"unsupported_media_type"})
    stored.unchanged()


# ---------------------------------------------------------------------------------- unicode


@pytest.mark.parametrize("odd", ODD_STRINGS, ids=ODD_IDS)
def test_odd_unicode_in_a_move(table, odd):
    game_id, _, mover = table
    stored = Stored()
    url = f"/api/v1/games/{game_id}/actions"
    for body in (
        move_body({"type": "step", "to": odd}),
        move_body({"type": odd}),
        move_body({"type": "pickup", "destination": odd}),
        move_body({"type": "stop"}, key=odd),
        {**move_body({"type": "stop"}), odd: odd},  # an unknown field, oddly named
    ):
        # json.dumps escapes a lone surrogate as \\ud800, as a hostile client would send it
        response = post_raw(mover, url, json.dumps(body))
        if response.status_code == 201:  # the odd extra field is ignored, the move is fine
            assert odd not in json.dumps(GameEntry.objects.latest("pk").action)
            return
        refused(response)
    stored.unchanged()


@pytest.mark.parametrize("odd", ODD_STRINGS, ids=ODD_IDS)
def test_odd_unicode_in_accounts_tables_reports_and_chat(table, odd):
    game_id, by_seat, mover = table
    stored = Stored()
    anonymous = APIClient()
    for url, body in (
        ("/api/v1/auth/signup", {"username": odd, "password": "Palm-tree-42"}),
        (
            "/api/v1/auth/signup",
            {"username": "ok_name", "password": "Palm-tree-42", "display_name": odd},
        ),  # fmt: skip
        ("/api/v1/auth/login", {"username": odd, "password": odd}),
    ):
        refused(anonymous.generic("POST", url, json.dumps(body), content_type="application/json"))
    for url, body in (
        ("/api/v1/tables", {"players": 2, "movement": odd}),
        ("/api/v1/tables", {"players": 2, "clock": odd}),
        ("/api/v1/tables", {"players": 2, "deadline1_at": odd}),
        (f"/api/v1/tables/{game_id}/join", {"invite_code": odd}),
        (f"/api/v1/games/{game_id}/reports", {"reason": odd, "reported_user": mover.user.pk}),
    ):
        response = post_raw(mover, url, json.dumps(body))
        if response.status_code == 201 and odd == RTL_OVERRIDE + "H9":
            # a report reason is free text for moderators: direction marks are text, not harm
            assert Report.objects.filter(reason=odd).delete()
            continue
        refused(response)
    with pytest.raises(ApiError) as chat_refused:
        chat.chat_post(game_id=game_id, user=mover.user, text=odd)
    assert chat_refused.value.code == "invalid_chat_message"
    stored.unchanged()


# ---------------------------------------------------------------------------------- numbers


@pytest.mark.parametrize("number", HUGE)
def test_huge_or_negative_versions_seqs_and_ids(table, number):
    game_id, _, mover = table
    stored = Stored()
    action = autopilot_choice(game_id)
    refused(
        post_raw(mover, f"/api/v1/games/{game_id}/actions", json.dumps(move_body(action, number))),
        400,
        {"invalid"},
    )
    for query in (f"after={number}", f"limit={number}"):
        refused(mover.get(f"/api/v1/games/{game_id}/log?{query}"), 400, {"invalid"})
    refused(
        mover.post("/api/v1/tables", {"players": number}),
        400,
        {"invalid"},
    )
    refused(
        mover.post(f"/api/v1/games/{game_id}/reports", {"reason": "r", "reported_user": number}),
        400,
        {"invalid"},
    )
    if number >= 0:  # a negative id is not a route at all (404 from the URL resolver)
        for url in (
            f"/api/v1/games/{number}",
            f"/api/v1/games/{number}/log",
            f"/api/v1/games/{number}/actions",
        ):
            refused(mover.get(url), 404, {"game_not_found", "not_found"})
        refused(
            mover.post(f"/api/v1/games/{number}/actions", move_body(action)),
            404,
            {"game_not_found", "not_found"},
        )
        refused(mover.post(f"/api/v1/tables/{number}/join"), 404)
    stored.unchanged()


# ---------------------------------------------------------------------------------- others' games


def test_other_peoples_games(table):
    game_id, by_seat, mover = table
    outsider = Player()
    first, second = Player(), Player()
    game = tables.table_create(
        user=first.user, players=2, options=engine.Options(), visibility="invite"
    )
    tables.table_join(game_id=game.pk, user=second.user, invite_code=game.invite_code)
    private = game.pk
    stored = Stored()
    action = autopilot_choice(game_id)

    # a public game: readable, but not playable by an outsider
    assert outsider.get(f"/api/v1/games/{game_id}").status_code == 200
    refused(outsider.move(game_id, action, 0), 403, {"not_a_player"})
    # an invite-only game is invisible: the same 404 as a game that does not exist
    for url in (f"/api/v1/games/{private}", f"/api/v1/games/{private}/log"):
        refused(outsider.get(url), 404, {"game_not_found"})
    refused(outsider.move(private, autopilot_choice(private), 0), 404, {"game_not_found"})
    refused(outsider.post(f"/api/v1/tables/{private}/cancel"), 404, {"game_not_found"})
    # a player of one game cannot act in another with their version, or for another seat
    other_seat = next(p for p in by_seat.values() if p is not mover)
    refused(other_seat.move(game_id, action, 0), None, {"not_your_turn", "not_your_seat"})
    refused(
        mover.move(game_id, {**action, "seat": 1 - Game.objects.get(pk=game_id).active_seat}, 0),
        403,
        {"not_your_seat"},
    )
    refused(mover.post(f"/api/v1/tables/{game_id}/cancel"), None, {"not_creator", "table_not_open"})
    stored.unchanged()


# ---------------------------------------------------------------------------------- websockets


@pytest.mark.parametrize(
    "origin", [b"http://evil.example", b"http://127.0.0.1.evil.example", b"null", b"\xff\xfe"]
)
def test_a_foreign_websocket_origin_is_refused_even_with_a_token(table, origin, settings):
    from taxi_project.asgi import application

    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
    game_id, _, mover = table

    async def attempt():
        communicator = WebsocketCommunicator(
            application,
            f"/ws/games/{game_id}/",
            headers=[(b"origin", origin), (b"authorization", f"Token {mover.token}".encode())],
        )
        connected, _ = await communicator.connect()
        await communicator.disconnect()
        return connected

    assert async_to_sync(attempt)() is False


# ---------------------------------------------------------------------------------- floods


def test_a_move_flood_is_throttled_per_user_with_a_json_429(table, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                                   "moves": "5/min"},
    }  # fmt: skip
    cache.clear()
    game_id, by_seat, mover = table
    other = next(p for p in by_seat.values() if p is not mover)
    url = f"/api/v1/games/{game_id}/actions"
    statuses = []
    for i in range(5):  # stale versions: refused by the service, but counted as attempts
        statuses.append(mover.post(url, move_body({"type": "stop"}, 999, f"f{i}")).status_code)
    assert statuses == [409] * 5
    stored = Stored()
    response = mover.move(game_id, autopilot_choice(game_id), 0)
    refused(response, 429, {"throttled"})
    assert int(response["Retry-After"]) > 0
    stored.unchanged()
    # reading is not counted; the other player has a count of their own
    assert mover.get(url).status_code == 200
    refused(other.move(game_id, autopilot_choice(game_id), 0), None, {"not_your_turn"})
    cache.clear()


# ------------------------------------------------------------------ hostile bodies and frames

DEEP = "[" * 1000 + "]" * 1000  # 2 KB


@pytest.mark.parametrize(
    "url, shape",
    [
        ("/api/v1/auth/login", '{"username": "a", "password": %s}'),
        ("/api/v1/auth/signup", '{"username": "a", "password": "b", "display_name": %s}'),
        ("/api/v1/auth/token", '{"username": "a", "password": %s}'),
        ("/api/v1/tables", '{"players": %s}'),
        ("ACTIONS", '{"action": %s, "version": 0, "idempotency_key": "k"}'),
    ],
)
def test_json_nested_1000_deep_is_a_400_with_a_code(table, url, shape):
    """Item 5: a 2 KB body of 1,000 nested arrays is refused as malformed, not a 500."""
    game_id, _, mover = table
    url = f"/api/v1/games/{game_id}/actions" if url == "ACTIONS" else url
    client = mover if url.startswith("/api/v1/games") or url == "/api/v1/tables" else None
    client = client or Player()
    stored = Stored()
    response = post_raw(client, url, shape % DEEP)
    refused(response, 400, {"parse_error"})
    assert "32" in response.json()["message"]
    stored.unchanged()


@pytest.mark.parametrize("query", [
    "limit=99999999999999999999", "offset=99999999999999999999", "offset=-1", "offset=abc",
    "limit=-5", "limit=abc&offset=0", "offset=\u00b2", "limit=" + "9" * 5000,
])  # fmt: skip
def test_paging_parameters_never_cause_a_500(table, query):
    """Item 7: a limit or an offset that is not a whole number in range is a 400 `invalid`
    naming the parameter (tests/api/test_query_validation.py has every bound)."""
    _, _, mover = table
    for url in ("/api/v1/tables", "/api/v1/me/games", "/api/v1/games/finished"):
        response = mover.client.get(f"{url}?{query}")
        refused(response, 400, {"invalid"})
        assert query.split("=")[0] in response.json()["errors"]


def test_the_paging_bounds_are_in_the_schema(db):
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    parameters = {p["name"]: p for p in schema["paths"]["/api/v1/tables"]["get"]["parameters"]}
    assert parameters["limit"]["schema"]["maximum"] == 100
    assert parameters["offset"]["schema"]["maximum"] == 1_000_000


@pytest.mark.parametrize("url", ["/api/v1/tables", "/api/v1/me"])
def test_multipart_is_refused_where_no_file_is_taken(table, url):
    """Item 8: a small multipart body (within the size limit) is 415, not parsed."""
    _, _, mover = table
    stored = Stored()
    method = "PATCH" if url == "/api/v1/me" else "POST"
    body = b'--x\r\nContent-Disposition: form-data; name="players"\r\n\r\n2\r\n--x--\r\n'
    response = mover.client.generic(
        method, url, body, content_type="multipart/form-data; boundary=x"
    )
    refused(response, 415, {"unsupported_media_type"})
    stored.unchanged()
