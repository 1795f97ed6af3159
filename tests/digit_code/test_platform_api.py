"""Digit Code on the platform, over the HTTP API: tables, moves, the log's vocabulary, clocks,
bots, moderation, pushes and G6 (no hidden information before the end) through every way out
of the server. Bahama Taxi stays the default game."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from games import push, registry, state, tasks
from games.models import Game, GameEntry
from games.services import bots
from tests.players import seat_players, start_game

DIGIT_CODE = registry.get("digit-code")
engine = DIGIT_CODE.engine
START = timezone.now().replace(microsecond=0) + timedelta(days=1)


def table(players, **options) -> int:
    return start_game(players, game="digit-code", **options)


def autopilot_choice(game_id: int) -> dict:
    """A sensible move (C1's autopilot reads the public answers only), sent over HTTP."""
    action = engine.encode_action(
        engine.autopilot_action(state.state_for(Game.objects.get(pk=game_id)))
    )
    del action["seat"]
    return action


def play_to_the_end(game_id: int, by_seat: dict, max_moves: int = 200) -> Game:
    game = Game.objects.get(pk=game_id)
    for _ in range(max_moves):
        if game.status != "playing":
            break
        player = by_seat[game.active_seat]
        if player is None:  # a bot's seat: the bot worker's path
            bots.bot_turn_play(game_id=game_id, version=game.version, seat=game.active_seat)
        else:
            response = player.move(game_id, autopilot_choice(game_id), game.version)
            assert response.status_code == 201, response.json()
        game = Game.objects.get(pk=game_id)
    return game


def notes_of(game_id: int) -> list[dict]:
    return [
        n
        for e in GameEntry.objects.filter(game_id=game_id).order_by("seq")
        for n in e.notifications
    ]


def secret_code(game_id: int) -> list[int]:
    return engine.full_view(state.state_for(Game.objects.get(pk=game_id)))["secret"]["code"]


# ------------------------------------------------------------------------------ tables


def test_P1_a_digit_code_table_over_the_api_and_bahama_taxi_stays_the_default(make_player):
    alice, bob, carol = make_player(), make_player(), make_player()
    created = alice.post("/api/v1/tables", {"game": "digit-code", "players": 3, "clock": "1m"})
    assert created.status_code == 201, created.json()
    assert created.json()["game"] == "digit-code" and created.json()["options"] == {}
    listed = bob.get("/api/v1/tables", game="digit-code").json()["results"]
    assert [t["id"] for t in listed] == [created.json()["id"]]
    assert bob.get("/api/v1/tables", game="bahama-taxi").json()["results"] == []
    taxi = carol.post("/api/v1/tables", {"players": 2}).json()
    assert taxi["game"] == "bahama-taxi" and taxi["options"]["movement"] == "normal"
    for player in (bob, carol):
        assert player.post(f"/api/v1/tables/{created.json()['id']}/join").status_code == 200
    detail = alice.get(f"/api/v1/games/{created.json()['id']}").json()
    assert detail["status"] == "playing" and detail["game"] == "digit-code"
    assert detail["view"]["questions_left"] == 64 and detail["view"]["you"] is not None


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"players": 5}, "invalid_players"),
        ({"players": 2, "movement": "fast"}, "invalid_options"),
        ({"players": 2, "options": {"movement": "fast"}}, "invalid_options"),
        ({"players": 2, "bots": ["medium"]}, "invalid"),
        ({"players": 2, "deadline1_at": "2099-01-01T00:00:00Z"}, "invalid_deadlines"),
        ({"players": 2, "game": "chess"}, "invalid"),
    ],
)
def test_P1_a_digit_code_table_refuses_what_its_rules_lack(make_player, body, code):
    response = make_player().post("/api/v1/tables", {"game": "digit-code", **body})
    assert response.status_code == 400 and response.json()["code"] == code, response.json()


# ------------------------------------------------------------------------------ whole games


def test_G2_G5_a_whole_game_between_people_over_http_logs_the_rules_vocabulary(make_player):
    players = [make_player(), make_player(), make_player()]
    game_id = table(players)
    game = play_to_the_end(game_id, seat_players(game_id, players))
    assert game.status == "finished"
    types = {n["type"] for n in notes_of(game_id)}
    assert types <= DIGIT_CODE.notifications
    assert {"game_started", "turn_started", "question_asked", "turn_ended", "game_ended"} <= types
    ended = notes_of(game_id)[-1]
    assert ended["type"] == "game_ended" and len(ended["code"]) == 6
    assert ended["seed"] == game.seed and game.result == {
        "winner": ended["winner"],
        "ranking": ended["ranking"],
    }
    replayed = engine.replay(
        game.setup,
        [e.action for e in GameEntry.objects.filter(game=game, seq__gt=0).order_by("seq")],
    )
    assert replayed.over and list(replayed.secret_code()) == ended["code"]
    view = players[0].get(f"/api/v1/games/{game_id}").json()["view"]
    assert view["code"] == ended["code"] and view["seed"] == game.seed  # G6: revealed at the end


def test_bots_play_digit_code_through_the_bot_worker_path_with_clocks(make_player):
    person = make_player()
    created = person.post(
        "/api/v1/tables",
        {"game": "digit-code", "players": 3, "bots": ["easy", "strong"], "clock": "1m"},
    )
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    by_seat = {s["seat"]: (person if s["bot"] is None else None) for s in created.json()["seats"]}
    game = play_to_the_end(game_id, by_seat)
    assert game.status == "finished" and not game.rated
    bot_entries = GameEntry.objects.filter(
        game=game, seat__in=[s for s, p in by_seat.items() if p is None]
    )
    assert bot_entries.exists()
    assert all(e.action["type"] in ("ask", "guess") for e in bot_entries)


# ------------------------------------------------------------------------------ moves


def test_moves_of_digit_code_keep_every_guarantee_of_a_move(make_player):
    players = [make_player(), make_player()]
    game_id = table(players)
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    mover, other = by_seat[game.active_seat], by_seat[1 - game.active_seat]
    ask = {"type": "ask", "question": {"kind": "parity", "position": 1}}
    wrong_turn = other.move(game_id, ask, game.version)
    assert wrong_turn.status_code == 422 and wrong_turn.json()["code"] == "not_your_turn"
    assert wrong_turn.json()["clause"] == "P2"
    first = mover.move(game_id, ask, game.version, key="k-1")
    again = mover.move(game_id, ask, game.version, key="k-1")
    assert first.status_code == 201 and again.status_code == 200
    assert again.json() == first.json()
    stale = other.move(game_id, ask, game.version)
    assert stale.status_code == 409 and stale.json()["current_version"] == game.version + 1
    version = first.json()["version"]
    repeated = other.move(game_id, ask, version)
    assert repeated.status_code == 422 and repeated.json()["code"] == "question_already_asked"
    impossible = other.move(game_id, {"type": "guess", "code": [1, 1, 0, 2, 3, 4]}, version)
    assert impossible.status_code == 422 and impossible.json()["code"] == "impossible_code"
    malformed = other.move(game_id, {"type": "guess", "code": [1]}, version)
    assert malformed.status_code == 400 and malformed.json()["code"] == "malformed_action"
    server = other.move(game_id, {"type": "timeout"}, version)
    assert server.status_code == 403 and server.json()["code"] == "server_action"
    offers = other.get(f"/api/v1/games/{game_id}/actions").json()["actions"]
    assert [o["type"] for o in offers] == ["ask", "guess", "resign"]
    assert len(offers[0]["questions"]) == 63


def test_G3_resigning_eliminates_the_seat_at_once(make_player):
    players = [make_player(), make_player(), make_player()]
    game_id = table(players)
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    leaver = next(s for s in by_seat if s != game.active_seat)
    response = by_seat[leaver].move(game_id, {"type": "resign"}, game.version)
    assert response.status_code == 201
    types = [n["type"] for n in response.json()["notifications"]]
    assert types == ["seat_zombified", "player_eliminated"]
    assert response.json()["view"]["seats"][leaver]["eliminated"] is True


# ------------------------------------------------------------------------------ clocks


def test_C1_a_timed_out_turn_is_played_by_the_autopilot_and_the_third_makes_the_seat_absent(
    make_player,
):
    players = [make_player(), make_player(), make_player()]
    with time_machine.travel(START, tick=False) as clock:
        game_id = table(players, clock="1m")
        game = Game.objects.get(pk=game_id)
        sleeper = game.active_seat
        by_seat = seat_players(game_id, players)
        for _round in range(3):
            while Game.objects.get(pk=game_id).active_seat != sleeper:
                game = Game.objects.get(pk=game_id)
                assert (
                    by_seat[game.active_seat]
                    .move(game_id, autopilot_choice(game_id), game.version)
                    .status_code
                    == 201
                )
            clock.shift(timedelta(seconds=61))
            assert tasks.sweep_deadlines() == 1
        entries = list(GameEntry.objects.filter(game_id=game_id, action__type="timeout"))
    assert len(entries) == 3
    first, third = (
        [n["type"] for n in entries[0].notifications],
        [n["type"] for n in entries[2].notifications],
    )
    assert first[0] == "turn_timed_out" and "question_asked" in first
    assert third[:4] == ["turn_timed_out", "seat_zombified", "player_eliminated", "turn_ended"]
    assert entries[2].notifications[1]["reason"] == "timeouts"


# ------------------------------------------------------------------------------ moderation


def test_moderators_zombify_a_digit_code_seat_and_cannot_restore_it(make_player):
    from accounts.models import User
    from games import moderation

    players = [make_player(), make_player(), make_player()]
    game_id = table(players)
    moderator = User.objects.create_user(username="mod", password="x" * 12, is_staff=True)
    moderation.seat_zombify(moderator=moderator, game_id=game_id, seat=1, reason="abuse")
    last = GameEntry.objects.filter(game_id=game_id).order_by("-seq").first()
    assert [n["type"] for n in last.notifications][:2] == ["seat_zombified", "player_eliminated"]
    from taxi_project.api_errors import Unprocessable

    with pytest.raises(Unprocessable):
        moderation.seat_restore(moderator=moderator, game_id=game_id, seat=1, reason="sorry")


# ------------------------------------------------------------------------------ G6


def _leaks(text: str, code: list[int], seed: str) -> list[str]:
    found = []
    digits = "".join(map(str, code))
    if re.search(r"\[\s*" + r"\s*,\s*".join(map(str, code)) + r"\s*\]", text):
        found.append("the code as a list")
    if seed and seed in text:
        found.append("the seed")
    if '"code": "' + digits in text or f"code was {digits}" in text:
        found.append("the code as text")
    return found


def test_G6_the_code_appears_nowhere_before_game_ended(make_player, admin_client):
    players = [make_player(), make_player()]
    spectator = make_player()
    game_id = table(players)
    by_seat = seat_players(game_id, players)
    for _ in range(3):  # a few public questions
        game = Game.objects.get(pk=game_id)
        by_seat[game.active_seat].move(game_id, autopilot_choice(game_id), game.version)
    game = Game.objects.get(pk=game_id)
    code, seed = secret_code(game_id), game.seed
    seen = []
    for who in (*players, spectator):
        for url in ("", "/log", "/actions", "/export", "/export?as=ndjson"):
            response = who.get(f"/api/v1/games/{game_id}{url}")
            assert response.status_code == 200, (url, response.status_code)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            seen.append((url, body.decode()))
    texts = push.your_turn_text(
        game, GameEntry.objects.get(game=game, seq=game.version).notifications
    )
    seen.append(("push", json.dumps(texts)))
    leaks = [(where, leak) for where, text in seen for leak in _leaks(text, code, seed)]
    assert leaks == []
    page = admin_client.get(f"/admin/games/game/{game_id}/replay/")
    assert page.status_code == 200 and page.context["panel"]["code"] is None
    # once over, the code is everywhere it belongs
    play_to_the_end(game_id, by_seat)
    page = admin_client.get(f"/admin/games/game/{game_id}/replay/")
    assert page.context["panel"]["code"] == "".join(map(str, code))
    export = players[0].get(f"/api/v1/games/{game_id}/export").json()
    assert export["game"]["seed"] == seed


def test_the_push_texts_of_digit_code_tell_its_own_news(make_player):
    players = [make_player(), make_player()]
    game_id = table(players)
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    by_seat[game.active_seat].move(
        game_id, {"type": "ask", "question": {"kind": "led", "position": 2, "segment": "g"}}, 0
    )
    game = Game.objects.get(pk=game_id)
    news = GameEntry.objects.get(game=game, seq=1).notifications
    text = push.your_turn_text(game, news)
    assert "whether LED g at position 2 is lit" in text["body"]
    assert "Unrecognised" not in text["body"]
    play_to_the_end(game_id, by_seat)
    ended = push.game_ended_text(Game.objects.get(pk=game_id), Game.objects.get(pk=game_id).version)
    assert "The code was" in ended["body"]


def test_the_admin_lists_games_by_game(make_player, admin_client):
    game_id = table([make_player(), make_player()])
    taxi = start_game([make_player(), make_player()])
    page = admin_client.get("/admin/games/game/", {"kind": "digit-code"})
    assert page.status_code == 200
    listed = {game.pk for game in page.context["cl"].result_list}
    assert game_id in listed and taxi not in listed
