"""The API and the sockets answer in the caller's language while `code` stays the same: a
client switches on the code and shows the message."""

from __future__ import annotations

import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.testing.websocket import WebsocketCommunicator
from django.utils import translation
from rest_framework.test import APIClient

from games.models import Game
from tests.players import Player, seat_players, start_game

ACTIONS = "/api/v1/games/{}/actions"


def _in(language: str, text: str) -> str:
    with translation.override(language):
        return translation.gettext(text)


def _refusals(client_for, game_id: int, by_seat: dict) -> dict[str, tuple[int, dict]]:
    """One request of each kind of refusal: ours, the engine's, a field error, DRF's own."""
    game = Game.objects.get(pk=game_id)
    mover = client_for(by_seat[game.active_seat])
    here = game.active_seat

    def move(action, version):
        return mover.post(
            ACTIONS.format(game_id),
            {"action": action, "version": version, "idempotency_key": uuid.uuid4().hex},
            format="json",
        )

    answers = {
        "stale_version": move({"type": "stop"}, game.version + 5),
        "step_required": move({"type": "stop"}, game.version),
        "invalid": mover.post(ACTIONS.format(game_id), {"action": {}}, format="json"),
        "game_not_found": mover.get("/api/v1/games/999999"),
        "not_your_turn": client_for(by_seat[1 - here]).post(
            ACTIONS.format(game_id),
            {"action": {"type": "stop"}, "version": game.version, "idempotency_key": "k2"},
            format="json",
        ),
        "not_authenticated": client_for(None).get("/api/v1/me"),
    }
    return {code: (r.status_code, r.json()) for code, r in answers.items()}


def _client_factory(language: str | None):
    def client_for(player):
        client = APIClient(**({"HTTP_ACCEPT_LANGUAGE": language} if language else {}))
        if player is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {player.token}")
        return client

    return client_for


@pytest.mark.parametrize("language", ["fr", "ja"])
def test_an_error_keeps_its_code_and_gets_a_translated_message(make_player, language):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    english = _refusals(_client_factory("en"), game_id, by_seat)
    translated = _refusals(_client_factory(language), game_id, by_seat)
    for code, (status, body) in translated.items():
        assert body["code"] == code, body
        assert (status, body["code"]) == (english[code][0], english[code][1]["code"])
        assert body["message"] != english[code][1]["message"], (code, body)
    # the words are the catalogue's, for ours and the engine's alike
    stale = _in(language, "The game is at version %(current)s, not %(sent)s.")
    assert translated["stale_version"][1]["message"] == stale % {"current": 0, "sent": 5}
    assert translated["stale_version"][1]["current_version"] == 0  # extra fields unchanged
    assert translated["step_required"][1]["message"] == _in(
        language, "The first step of a turn is mandatory."
    )
    assert translated["step_required"][1]["clause"] == "T3"
    assert translated["not_your_turn"][1]["message"] == _in(language, "It is not your turn.")
    assert translated["invalid"][1]["message"] == _in(language, "Some fields are invalid.")
    assert translated["game_not_found"][1]["message"] == _in(language, "No such game.")


def test_a_token_client_gets_its_profile_language_before_the_browser_one(make_player):
    """Token users are known only once DRF authenticates them; their language applies then."""
    ana, bo = make_player(), make_player()
    ana.user.language = "ko"
    ana.user.save()
    game_id = start_game([ana, bo])
    client = APIClient(HTTP_ACCEPT_LANGUAGE="fr")
    client.credentials(HTTP_AUTHORIZATION=f"Token {ana.token}")
    response = client.post(
        ACTIONS.format(game_id),
        {"action": {"type": "stop"}, "version": 9, "idempotency_key": "k1"},
        format="json",
    )
    assert response.json()["code"] == "stale_version"
    assert response.json()["message"].startswith("게임 버전은")
    assert response["Content-Language"] == "ko"
    # a refusal made before anyone is known follows the browser
    anonymous = APIClient(HTTP_ACCEPT_LANGUAGE="fr").get(f"/api/v1/games/{game_id}")
    assert anonymous.json()["code"] == "not_authenticated"
    assert anonymous["Content-Language"] == "fr"


def test_a_refused_account_is_told_why_in_its_language(make_player):
    from django.utils import timezone

    player = make_player()
    player.user.language = "pl"
    player.user.banned_at = timezone.now()
    player.user.save()
    response = player.get("/api/v1/me")
    assert response.status_code == 403
    assert response.json()["code"] == "account_banned"
    assert response.json()["message"] == "To konto jest zablokowane."


def test_socket_error_frames_speak_the_handshake_language(committed_db):
    # consumers reach the database from other threads: the data must really be committed
    players = [Player(), Player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)

    def frames(headers):
        async def scenario():
            from taxi_project.asgi import application

            ws = WebsocketCommunicator(
                application,
                f"/ws/games/{game_id}/",
                headers=[(b"origin", b"http://testserver"), *headers],
            )
            await ws.connect()
            await ws.receive_json_from()
            await ws.send_to(text_data="not json")
            answer = await ws.receive_json_from(timeout=5)
            await ws.disconnect()
            return answer

        return async_to_sync(scenario)()

    token = (b"authorization", f"Token {by_seat[0].token}".encode())
    english = frames([token])
    japanese = frames([token, (b"accept-language", b"ja,en;q=0.5")])
    assert english["code"] == japanese["code"] == "malformed_frame"
    assert english["message"] == "This frame is not JSON."
    assert japanese["message"] == _in("ja", "This frame is not JSON.")
    by_seat[0].user.language = "ko"
    by_seat[0].user.save()
    assert frames([token, (b"accept-language", b"ja")])["message"] == _in(
        "ko", "This frame is not JSON."
    )
