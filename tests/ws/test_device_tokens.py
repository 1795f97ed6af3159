"""Sockets opened with a device's token close (4401) when that token is revoked —
and only those: the same player's other devices stay connected."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from accounts.services import token_issue

ORIGIN = (b"origin", b"http://testserver")


def _socket(key: str) -> WebsocketCommunicator:
    from taxi_project.asgi import application

    headers = [ORIGIN, (b"authorization", f"Token {key}".encode())]
    return WebsocketCommunicator(application, "/ws/me/", headers=headers)


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _closed_and_open(make_player, revoke) -> tuple[dict, bool, int]:
    player = make_player()
    phone_key = token_issue(user=player.user, device="phone")[1]
    tablet_key = token_issue(user=player.user, device="tablet")[1]

    async def scenario():
        from channels.db import database_sync_to_async

        phone, tablet = _socket(phone_key), _socket(tablet_key)
        for ws in (phone, tablet):
            connected, _ = await ws.connect(timeout=10)
            assert connected
            await ws.receive_json_from(timeout=10)
        status = await database_sync_to_async(revoke)(phone_key)
        frame = await phone.receive_json_from(timeout=5)
        closed = await phone.receive_output(timeout=5)
        quiet = await tablet.receive_nothing(timeout=0.3)
        await tablet.disconnect()
        return {"frame": frame, "closed": closed}, quiet, status

    result, quiet, status = async_to_sync(scenario)()
    assert _client(tablet_key).get("/api/v1/me").status_code == 200
    return result, quiet, status


def _revoke_by_device_api(phone_key: str) -> int:
    phone = _client(phone_key)
    mine = next(d for d in phone.get("/api/v1/me/devices").json() if d["current"])
    return phone.delete(f"/api/v1/me/devices/{mine['token_key']}").status_code


def test_revoking_a_device_closes_its_sockets_only(make_player):
    result, quiet, status = _closed_and_open(make_player, _revoke_by_device_api)
    assert status == 204
    assert result["frame"]["code"] == "not_authenticated"
    assert result["closed"] == {"type": "websocket.close", "code": 4401}
    assert quiet  # the tablet's socket is untouched


def test_logging_out_a_device_closes_its_sockets_only(make_player):
    def logout(key: str) -> int:
        return _client(key).post("/api/v1/auth/logout").status_code

    result, quiet, status = _closed_and_open(make_player, logout)
    assert status == 204
    assert result["closed"] == {"type": "websocket.close", "code": 4401}
    assert quiet
