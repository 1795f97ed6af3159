"""An entry's frame as the channel layer carries it: encoded once in pieces (`events.entry_push`)
and joined by each socket for its seat (`events.entry_frame`), it reads byte for byte as the
frame built and encoded whole from the public view, for every seat and a spectator."""

from __future__ import annotations

import json

import msgpack
from rest_framework.utils.encoders import JSONEncoder

from games import events
from games.models import Game
from tests.players import played_out, seat_players, start_game
from tests.ws.test_consumers import move_over_http


def whole_frame(message: dict, seat: int | None) -> str:
    """The frame as a socket built it from the whole message: the view copied, `you` and
    `legal_actions` added, and the frame encoded with DRF's encoder."""
    view = dict(message["public"])
    view["you"] = seat
    mine = seat is not None and seat == message["active_seat"]
    view["legal_actions"] = (message["legal"] if mine else []) + events.resign_offer(view, seat)
    frame = {"v": 1, "type": "entry", "seq": message["seq"],
             "notifications": message["notifications"], "view": view,
             "clock": message["clock"]}  # fmt: skip
    return json.dumps(frame, cls=JSONEncoder)


def carried(data: dict) -> dict:
    """What a socket receives: the message through the Redis layer's msgpack."""
    return msgpack.unpackb(msgpack.packb(data, use_bin_type=True), raw=False)


def test_a_frame_joined_from_the_push_is_the_frame_encoded_whole(make_player, monkeypatch):
    """Three players: moves, then a player who leaves while the game goes on (a seat offered no
    `resign`); two players: a player leaves, and the game is played to its end (no seat offered
    it). For each entry, the frame of each seat, of the seat to move and of a spectator."""
    messages: list[dict] = []
    push = events.entry_push

    def recorded(message):
        messages.append(message)
        return push(message)

    monkeypatch.setattr(events, "entry_push", recorded)
    leaving = {}
    for size in (3, 2):
        players = [make_player() for _ in range(size)]
        game_id = start_game(players)
        by_seat = seat_players(game_id, players)
        for _ in range(3):
            move_over_http(game_id, by_seat)
        game = Game.objects.get(pk=game_id)
        leaving[size] = (game.active_seat + 1) % size
        left = by_seat[leaving[size]].move(game_id, {"type": "resign"}, game.version)
        assert left.status_code == 201, left.json()
        if size == 3:
            move_over_http(game_id, by_seat)
        else:  # the autopilot plays the seat that left, to the end
            played_out(game_id)

    publics = [m["public"] for m in messages]
    assert any(m["legal"] for m in messages)  # the seat to move's own offers
    assert any(p["status"] == "playing" and p["seats"][leaving[3]]["zombie"] for p in publics)
    assert publics[-1]["status"] != "playing"
    for message in messages[:12] + messages[-3:]:  # a game's views grow: not all of its end
        pushed = carried(events.entry_push(message))
        assert "public" not in pushed and "legal_actions" not in pushed["head"]
        for seat in (None, *range(len(message["public"]["seats"]))):
            expected = whole_frame(message, seat)
            assert events.entry_frame(pushed, seat) == expected
            assert events.entry_frame(carried(message), seat) == expected
        assert json.loads(events.entry_frame(pushed, None))["view"]["legal_actions"] == []


def test_a_view_with_a_member_the_frame_sets_is_carried_whole():
    """A view that has `you` (or `legal_actions`) itself cannot be joined around: the message
    goes whole, and the socket's frame is still the frame encoded whole."""
    public = {"status": "playing", "you": "x", "seats": [{"zombie": False}, {"zombie": True}]}
    message = events.EntryMessage(
        type="game.entry", game=1, commitment="c", seq=3, clock={"deadlines_reached": 0},
        notifications=[{"type": "moved"}], public=public, active_seat=0, legal=[{"type": "go"}],
    )  # fmt: skip
    assert events.entry_push(message) is message
    for seat in (None, 0, 1):
        assert events.entry_frame(carried(message), seat) == whole_frame(message, seat)
