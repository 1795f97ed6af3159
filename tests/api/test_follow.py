"""Following a game without a socket — ETag / If-None-Match on the game and its log,
chat over HTTP, and the whole game in one call (export)."""

from __future__ import annotations

import json

from tests.players import Player, autopilot_choice, finished_game, seat_players, start_game


def _game(players=2):
    people = [Player() for _ in range(players)]
    game_id = start_game(people)
    return game_id, people, seat_players(game_id, people)


def test_an_unchanged_game_is_a_304_without_a_body(db):
    game_id, people, by_seat = _game()
    first = people[0].get(f"/api/v1/games/{game_id}")
    etag = first.headers["ETag"]
    assert first.status_code == 200 and etag.startswith('"')
    again = people[0].client.get(f"/api/v1/games/{game_id}", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    assert again.headers["ETag"] == etag
    # a move changes the game: the same ETag now gets the new game
    moved = by_seat[0].move(game_id, autopilot_choice(game_id), 0)
    assert moved.status_code == 201
    changed = people[0].client.get(f"/api/v1/games/{game_id}", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert changed.json()["version"] == 1


def test_the_etag_is_per_viewer(db):
    game_id, people, _ = _game()
    mine = people[0].get(f"/api/v1/games/{game_id}").headers["ETag"]
    theirs = people[1].client.get(f"/api/v1/games/{game_id}", HTTP_IF_NONE_MATCH=mine)
    assert theirs.status_code == 200  # another seat's view is another document


def test_the_log_has_an_etag_too(db):
    game_id, people, by_seat = _game()
    page = people[0].get(f"/api/v1/games/{game_id}/log")
    etag = page.headers["ETag"]
    unchanged = people[0].client.get(f"/api/v1/games/{game_id}/log", HTTP_IF_NONE_MATCH=etag)
    assert unchanged.status_code == 304
    by_seat[0].move(game_id, autopilot_choice(game_id), 0)
    grown = people[0].client.get(f"/api/v1/games/{game_id}/log", HTTP_IF_NONE_MATCH=etag)
    assert grown.status_code == 200 and [e["seq"] for e in grown.json()["entries"]] == [0, 1]


def test_chat_over_http_post_and_list_since_an_id(db):
    game_id, people, _ = _game()
    first = people[0].post(f"/api/v1/games/{game_id}/chat", {"text": "good luck"})
    assert first.status_code == 201, first.json()
    assert first.json()["text"] == "good luck" and first.json()["author"]["id"] == people[0].user.pk
    second = people[1].post(f"/api/v1/games/{game_id}/chat", {"text": "you too"})
    listed = people[0].get(f"/api/v1/games/{game_id}/chat").json()
    assert [m["text"] for m in listed] == ["good luck", "you too"]
    newer = people[0].get(f"/api/v1/games/{game_id}/chat", after=first.json()["id"]).json()
    assert [m["id"] for m in newer] == [second.json()["id"]]
    assert people[0].get(f"/api/v1/games/{game_id}/chat", after=second.json()["id"]).json() == []


def test_chat_over_http_is_refused_as_over_the_socket(db):
    game_id, people, _ = _game()
    spectator = Player().post(f"/api/v1/games/{game_id}/chat", {"text": "hello"})
    assert spectator.status_code == 403 and spectator.json()["code"] == "not_a_player"
    empty = people[0].post(f"/api/v1/games/{game_id}/chat", {"text": "   "})
    assert empty.status_code == 400 and empty.json()["code"] == "invalid_chat_message"
    for n in range(5):
        assert people[0].post(f"/api/v1/games/{game_id}/chat", {"text": f"m{n}"}).status_code == 201
    flood = people[0].post(f"/api/v1/games/{game_id}/chat", {"text": "one more"})
    assert flood.status_code == 429 and flood.json()["code"] == "chat_rate_limited"
    missing = people[0].post("/api/v1/games/999999/chat", {"text": "hello"})
    assert missing.status_code == 404 and missing.json()["code"] == "game_not_found"


def test_export_is_the_whole_log_in_one_call_with_the_seed_once_over(db):
    people = [Player(), Player()]
    game_id = finished_game(people)
    exported = people[0].get(f"/api/v1/games/{game_id}/export").json()
    entries, after = [], None
    while True:
        params = {"limit": 100} if after is None else {"limit": 100, "after": after}
        page = people[0].get(f"/api/v1/games/{game_id}/log", **params).json()
        entries += page["entries"]
        if (after := page["next_after"]) is None:
            break
    assert len(entries) > 100  # more than one page of the log
    assert exported["entries"] == entries
    assert exported["game"]["seed"] and exported["game"]["status"] == "finished"
    lines = people[0].get(f"/api/v1/games/{game_id}/export", **{"as": "ndjson"})
    assert lines["Content-Type"] == "application/x-ndjson"
    parsed = [json.loads(line) for line in lines.content.decode().splitlines()]
    assert parsed[0] == exported["game"] and parsed[1:] == entries


def test_a_running_game_exports_without_its_seed(db):
    game_id, people, _ = _game()
    exported = people[1].get(f"/api/v1/games/{game_id}/export").json()
    assert "seed" not in exported["game"] and exported["game"]["seed_commitment"]
    assert [e["seq"] for e in exported["entries"]] == [0]
    bad = people[1].get(f"/api/v1/games/{game_id}/export", **{"as": "xml"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
