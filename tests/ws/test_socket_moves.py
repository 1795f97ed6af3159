"""Moves over the game socket keep the HTTP path's guarantees when they run side by side: a
move frame runs on a pooled thread (not one after another on the process's single thread; at
most `SOCKET_MOVE_CONCURRENCY` of a process at once), so two frames of one player can race.
Exactly once by idempotency key, 409 `stale_version` on a version already moved past, and the
per-user move limit, each proven on the socket, also for frames sent at the same moment on two
sockets."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid

import pytest
from channels.db import database_sync_to_async

from games.models import Game, GameEntry
from tests.players import autopilot_choice
from tests.ws.test_consumers import open_game_socket, run


async def _answer(ws, ref: str) -> dict:
    """The answer frame to `ref` (entries pushed meanwhile are skipped)."""
    for _ in range(20):
        frame = await ws.receive_json_from(timeout=10)
        if frame.get("ref") == ref and frame["type"] in ("move_accepted", "error"):
            return frame
    raise AssertionError(f"no answer to {ref}")


def _mover(table):
    game_id, by_seat = table
    return game_id, by_seat[Game.objects.get(pk=game_id).active_seat]


def test_one_key_sent_on_two_sockets_at_once_moves_once(table):
    game_id, mover = _mover(table)
    action = autopilot_choice(game_id)
    key = uuid.uuid4().hex

    async def scenario():
        first = await open_game_socket(game_id, mover)
        second = await open_game_socket(game_id, mover)
        move = {"type": "move", "action": action, "version": 0, "idempotency_key": key}
        await asyncio.gather(
            first.send_json_to({**move, "ref": "a"}), second.send_json_to({**move, "ref": "b"})
        )
        answers = await asyncio.gather(_answer(first, "a"), _answer(second, "b"))
        await first.disconnect()
        await second.disconnect()
        return answers

    answers = run(scenario)
    assert [a["type"] for a in answers] == ["move_accepted", "move_accepted"], answers
    assert {a["seq"] for a in answers} == {1}
    assert sorted(a["replayed"] for a in answers) == [False, True]  # one wrote, one replayed
    assert GameEntry.objects.filter(game_id=game_id, idempotency_key=key).count() == 1
    assert Game.objects.get(pk=game_id).version == 1


def test_a_key_used_over_http_is_replayed_over_the_socket_and_the_other_way(table):
    game_id, by_seat = table
    game = Game.objects.get(pk=game_id)
    mover = by_seat[game.active_seat]
    action = autopilot_choice(game_id)
    key = uuid.uuid4().hex
    over_http = mover.move(game_id, action, 0, key)
    assert over_http.status_code == 201

    async def scenario():
        ws = await open_game_socket(game_id, mover)
        move = {"type": "move", "action": action, "version": 0, "idempotency_key": key}
        await ws.send_json_to({**move, "ref": "again"})
        again = await _answer(ws, "again")
        next_action = await database_sync_to_async(autopilot_choice)(game_id)
        version = await database_sync_to_async(lambda: Game.objects.get(pk=game_id).version)()
        next_mover_seat = await database_sync_to_async(
            lambda: Game.objects.get(pk=game_id).active_seat
        )()
        return again, next_action, version, next_mover_seat

    again, next_action, version, seat = run(scenario)
    assert again["type"] == "move_accepted" and again["replayed"] is True
    assert again["seq"] == over_http.json()["seq"] == 1
    assert Game.objects.get(pk=game_id).version == 1

    # now the other way: made over the socket, retried over HTTP
    socket_mover = by_seat[seat]
    second_key = uuid.uuid4().hex

    async def over_socket():
        ws = await open_game_socket(game_id, socket_mover)
        await ws.send_json_to(
            {
                "type": "move",
                "ref": "s",
                "action": next_action,
                "version": version,
                "idempotency_key": second_key,
            }  # fmt: skip
        )
        answer = await _answer(ws, "s")
        await ws.disconnect()
        return answer

    made = run(over_socket)
    assert made["type"] == "move_accepted" and made["replayed"] is False
    retried = socket_mover.move(game_id, next_action, version, second_key)
    assert retried.status_code == 200, retried.json()  # a replay answers 200 with the same entry
    assert retried.json()["seq"] == made["seq"] == version + 1
    assert GameEntry.objects.filter(game_id=game_id, idempotency_key=second_key).count() == 1


def test_two_moves_at_the_same_version_one_wins_the_other_is_stale(table):
    game_id, mover = _mover(table)
    action = autopilot_choice(game_id)

    async def scenario():
        first = await open_game_socket(game_id, mover)
        second = await open_game_socket(game_id, mover)
        frames = [
            {
                "type": "move",
                "ref": ref,
                "action": action,
                "version": 0,
                "idempotency_key": uuid.uuid4().hex,
            }  # fmt: skip
            for ref in ("a", "b")
        ]
        await asyncio.gather(first.send_json_to(frames[0]), second.send_json_to(frames[1]))
        answers = await asyncio.gather(_answer(first, "a"), _answer(second, "b"))
        await first.disconnect()
        await second.disconnect()
        return answers

    answers = run(scenario)
    kinds = sorted(a["type"] for a in answers)
    assert kinds == ["error", "move_accepted"], answers
    refused = next(a for a in answers if a["type"] == "error")
    assert refused["code"] == "stale_version" and refused["current_version"] == 1
    assert Game.objects.get(pk=game_id).version == 1
    assert GameEntry.objects.filter(game_id=game_id).count() == 2  # seq 0 and the one move


@pytest.fixture
def four_moves_a_minute(settings):
    from django.core.cache import cache

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "moves": "4/min",
        },
    }
    cache.clear()
    yield
    cache.clear()


def test_the_move_limit_holds_for_frames_sent_at_once_on_two_sockets(table, four_moves_a_minute):
    game_id, mover = _mover(table)

    async def scenario():
        sockets = [await open_game_socket(game_id, mover), await open_game_socket(game_id, mover)]
        sends, refs = [], []
        for i in range(6):  # six at once, three on each socket: four are counted in, two not
            ref = f"r{i}"
            refs.append((sockets[i % 2], ref))
            sends.append(
                sockets[i % 2].send_json_to(
                    {
                        "type": "move",
                        "ref": ref,
                        "action": {"type": "stop"},
                        "version": 99,
                        "idempotency_key": ref,
                    }  # fmt: skip
                )
            )
        await asyncio.gather(*sends)
        answers = [await _answer(ws, ref) for ws, ref in refs]
        for ws in sockets:
            await ws.disconnect()
        return answers

    answers = run(scenario)
    codes = sorted(a["code"] for a in answers)
    assert codes == ["stale_version"] * 4 + ["throttled"] * 2, answers
    assert Game.objects.get(pk=game_id).version == 0


def test_a_process_runs_at_most_SOCKET_MOVE_CONCURRENCY_socket_moves_at_once(
    table, settings, monkeypatch
):
    from games import consumers

    settings.SOCKET_MOVE_CONCURRENCY = 2
    game_id, mover = _mover(table)
    lock, running, most = threading.Lock(), [0], [0]
    submit = consumers.moves.move_submit

    def slow_submit(**kwargs):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            time.sleep(0.2)
            return submit(**kwargs)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(consumers.moves, "move_submit", slow_submit)

    async def scenario():
        sockets = [await open_game_socket(game_id, mover) for _ in range(4)]
        frames = [
            ws.send_json_to(
                {
                    "type": "move",
                    "ref": f"r{i}",
                    "action": {"type": "stop"},
                    "version": 99,
                    "idempotency_key": f"k{i}",
                }
            )  # fmt: skip
            for i, ws in enumerate(sockets)
        ]
        await asyncio.gather(*frames)
        answers = await asyncio.gather(*(_answer(ws, f"r{i}") for i, ws in enumerate(sockets)))
        for ws in sockets:
            await ws.disconnect()
        return answers

    answers = run(scenario)
    assert [a["code"] for a in answers] == ["stale_version"] * 4, answers
    assert most[0] == 2  # side by side, two at a time
