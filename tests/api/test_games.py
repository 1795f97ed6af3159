"""The games API end to end: lobby, moves, errors, reads, hidden information, the schema."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine, state
from games.models import Game, GameEntry
from tests.players import autopilot_choice, played_out, seat_players, start_game


def play_to_the_end(game_id, by_seat, bodies=None, limit=3000):
    """Every move over HTTP by the player whose turn it is; returns the last response."""
    response = None
    for _ in range(limit):
        detail = by_seat[0].get(f"/api/v1/games/{game_id}").json()
        if bodies is not None:
            bodies.append(detail)
        if detail["status"] != "playing":
            return detail
        player = by_seat[detail["active_seat"]]
        response = player.move(game_id, autopilot_choice(game_id), detail["version"])
        assert response.status_code == 201, response.json()
        if bodies is not None:
            bodies.append(response.json())
    raise AssertionError("the game did not end")


# ---------------------------------------------------------------------------------- lobby


def test_create_join_start(make_player):
    ana, ben, cy = make_player(), make_player(), make_player()
    created = ana.post("/api/v1/tables", {"players": 3, "movement": "fast", "clock": "1h"})
    assert created.status_code == 201
    table = created.json()
    assert table["status"] == "open" and table["options"]["movement"] == "fast"
    assert table["turn_seconds"] == 3600 and table["your_seat"] is None
    assert [s["user"]["id"] for s in table["seats"]] == [ana.user.pk]
    listed = ben.get("/api/v1/tables").json()
    assert [t["id"] for t in listed["results"]] == [table["id"]]
    assert ben.post(f"/api/v1/tables/{table['id']}/join").json()["status"] == "open"
    started = cy.post(f"/api/v1/tables/{table['id']}/join").json()
    assert started["status"] == "playing"
    assert sorted(s["seat"] for s in started["seats"]) == [0, 1, 2]
    assert len(started["seed_commitment"]) == 64 and "seed" not in started
    assert ben.get("/api/v1/tables").json()["results"] == []
    (setup,) = GameEntry.objects.filter(game_id=table["id"])
    assert setup.seq == 0 and setup.action is None
    assert [n["type"] for n in setup.notifications][:2] == ["cards_discarded", "game_started"]


def test_table_filters(make_player):
    ana = make_player()
    ana.post("/api/v1/tables", {"players": 2})
    ana.post("/api/v1/tables", {"players": 4, "movement": "faster", "shift_change": True})
    assert len(ana.get("/api/v1/tables", players=4).json()["results"]) == 1
    assert len(ana.get("/api/v1/tables", movement="faster").json()["results"]) == 1
    assert len(ana.get("/api/v1/tables", shift_change="false").json()["results"]) == 1
    bad = ana.get("/api/v1/tables", players=12)
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"players": 5}, "pickup_before_movement_required"),
        ({"players": 9}, "invalid"),
        ({"players": 2, "movement": "warp"}, "invalid"),
        ({"players": 2, "clock": "2s"}, "invalid"),
        ({}, "invalid"),
    ],
)
def test_create_refuses_bad_tables(make_player, body, code):
    response = make_player().post("/api/v1/tables", body)
    assert response.status_code == 400 and response.json()["code"] == code
    assert Game.objects.count() == 0


def test_deadlines_must_be_in_the_future_and_in_order(make_player):
    ana = make_player()
    now = timezone.now()
    past = ana.post("/api/v1/tables", {"players": 2, "deadline1_at": now - timedelta(hours=1)})
    assert past.json()["code"] == "invalid_deadlines"
    backwards = ana.post(
        "/api/v1/tables",
        {
            "players": 2,
            "deadline1_at": now + timedelta(days=2),
            "deadline2_at": now + timedelta(days=1),
        },
    )
    assert backwards.json()["code"] == "invalid_deadlines"
    ok = ana.post(
        "/api/v1/tables",
        {
            "players": 2,
            "movement": "fast",
            "deadline1_at": now + timedelta(days=1),
            "deadline2_at": now + timedelta(days=2),
        },
    )
    assert ok.status_code == 201 and ok.json()["deadline1_at"]


def test_invite_only_tables(make_player):
    ana, ben, eve = make_player(), make_player(), make_player()
    table = ana.post("/api/v1/tables", {"players": 2, "visibility": "invite"}).json()
    code = table["invite_code"]
    assert ben.get("/api/v1/tables").json()["results"] == []
    assert eve.get(f"/api/v1/games/{table['id']}").json()["code"] == "game_not_found"
    refused = eve.post(f"/api/v1/tables/{table['id']}/join", {"invite_code": "guess"})
    missing = eve.post("/api/v1/tables/999999999/join", {"invite_code": "guess"})
    # A wrong code answers exactly as a missing table, so none can be probed
    assert refused.status_code == missing.status_code == 404
    not_found = {"code": "game_not_found", "message": "No such game."}
    assert refused.json() == missing.json() == not_found
    joined = ben.post(f"/api/v1/tables/{table['id']}/join", {"invite_code": code})
    assert joined.json()["status"] == "playing" and "invite_code" not in joined.json()


def test_join_leave_cancel(make_player):
    ana, ben, cy = make_player(), make_player(), make_player()
    table = ana.post("/api/v1/tables", {"players": 3}).json()
    url = f"/api/v1/tables/{table['id']}"
    ben.post(f"{url}/join")
    again = ben.post(f"{url}/join")
    assert again.status_code == 409 and again.json()["code"] == "already_seated"
    assert cy.post(f"{url}/leave").json()["code"] == "not_seated"
    left = ben.post(f"{url}/leave").json()
    assert [s["user"]["id"] for s in left["seats"]] == [ana.user.pk]
    refused = ben.post(f"{url}/cancel")
    assert refused.status_code == 403 and refused.json()["code"] == "not_creator"
    assert ana.post(f"{url}/cancel").json()["status"] == "cancelled"
    late = cy.post(f"{url}/join")
    assert late.status_code == 409 and late.json()["code"] == "table_not_open"


def test_join_orders_stay_dense_after_a_leave(make_player):
    ana, ben, cy, dee = (make_player() for _ in range(4))
    game_id = ana.post("/api/v1/tables", {"players": 3}).json()["id"]
    ben.post(f"/api/v1/tables/{game_id}/join")
    ben.post(f"/api/v1/tables/{game_id}/leave")
    cy.post(f"/api/v1/tables/{game_id}/join")
    started = dee.post(f"/api/v1/tables/{game_id}/join").json()
    assert sorted(s["join_order"] for s in started["seats"]) == [0, 1, 2]
    assert started["status"] == "playing"


# ---------------------------------------------------------------------------------- moves


def test_a_complete_game_through_the_api(make_player):
    players = [make_player() for _ in range(3)]
    game_id = start_game(players, movement="fast", pickup_before_movement=True)
    by_seat = seat_players(game_id, players)
    final = play_to_the_end(game_id, by_seat)
    assert final["status"] == "finished"
    log = players[0].get(f"/api/v1/games/{game_id}/log", limit=500).json()
    notes = [n for e in log["entries"] for n in e["notifications"]]
    assert notes[-1]["type"] == "game_ended"
    assert final["result"] == {"incomes": notes[-1]["incomes"], "ranking": notes[-1]["ranking"]}
    game = Game.objects.get(pk=game_id)
    assert final["seed"] == game.seed and engine.seed_matches(
        final["seed_commitment"], int(game.seed)
    )
    assert [e["seq"] for e in log["entries"]] == list(range(game.version + 1))
    # replaying the stored log gives the stored result, and anyone can verify it (H2)
    actions = [e["action"] for e in log["entries"][1:]]
    setup = engine.Setup(
        engine.Options(movement="fast", pickup_before_movement=True), 3, int(final["seed"])
    )
    assert engine.verify(
        final["seed_commitment"], setup, actions, [e["notifications"] for e in log["entries"]]
    )
    late = by_seat[0].move(game_id, {"type": "stop"}, game.version)
    assert late.status_code == 422 and late.json()["code"] == "game_over"


def test_a_move_answers_seq_version_notifications_and_my_view(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    legal = by_seat[0].get(f"/api/v1/games/{game_id}/actions").json()
    assert legal["seat"] == 0 and legal["version"] == 0 and legal["actions"]
    # not seat 1's turn: only resign (K3), which a player may do at any time
    waiting = by_seat[1].get(f"/api/v1/games/{game_id}/actions").json()["actions"]
    assert waiting == [{"type": "resign", "seat": 1}]
    step = legal["actions"][0]
    response = by_seat[0].move(game_id, step, 0)
    body = response.json()
    assert response.status_code == 201
    assert body["seq"] == body["version"] == 1
    assert body["notifications"][0]["type"] == "taxi_moved"
    assert body["view"]["you"] == 0 and body["view"]["legal_actions"]


def test_stale_version_is_a_409_with_the_current_version(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    by_seat[0].move(game_id, autopilot_choice(game_id), 0)
    stale = by_seat[0].move(game_id, autopilot_choice(game_id), 0)
    assert stale.status_code == 409
    assert stale.json()["code"] == "stale_version" and stale.json()["current_version"] == 1


def test_a_retry_with_the_same_key_gets_the_first_answer_and_makes_no_second_move(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    action = autopilot_choice(game_id)
    first = by_seat[0].move(game_id, action, 0, key="move-1")
    retry = by_seat[0].move(game_id, action, 0, key="move-1")
    assert first.status_code == 201 and retry.status_code == 200
    assert retry.json() == first.json()
    assert GameEntry.objects.filter(game_id=game_id).count() == 2
    other = by_seat[0].move(game_id, {"type": "undo"}, 1, key="move-1")
    assert other.status_code == 409 and other.json()["code"] == "idempotency_key_reused"
    # the engine took the undo; the key's unique constraint refused the entry, and with it the
    # game row's update (one statement on PostgreSQL)
    assert GameEntry.objects.filter(game_id=game_id).count() == 2
    assert Game.objects.get(pk=game_id).version == 1


def test_refusals_have_their_own_codes(make_player):
    players = [make_player(), make_player()]
    outsider = make_player()
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    action = autopilot_choice(game_id)
    cases = [
        (by_seat[1].move(game_id, action, 0), 422, "not_your_turn"),
        (outsider.move(game_id, action, 0), 403, "not_a_player"),
        (by_seat[0].move(game_id, {**action, "seat": 1}, 0), 403, "not_your_seat"),
        (by_seat[0].move(game_id, {"type": "timeout", "seat": 0}, 0), 403, "server_action"),
        (by_seat[0].move(game_id, {"type": "stop"}, 0), 422, "step_required"),
        (by_seat[0].move(game_id, {"type": "step", "to": "1Z"}, 0), 400, "malformed_action"),
        (by_seat[0].move(game_id, {"type": "fly"}, 0), 400, "malformed_action"),
        (by_seat[0].move(999999, action, 0), 404, "game_not_found"),
        (by_seat[0].post(f"/api/v1/games/{game_id}/actions", {"action": action}), 400, "invalid"),
        (
            by_seat[0].post(
                f"/api/v1/games/{game_id}/actions",
                {"action": "step", "version": -1, "idempotency_key": "a b"},
            ),
            400,
            "invalid",
        ),
    ]
    for response, status, code in cases:
        body = response.json()
        assert (response.status_code, body["code"]) == (status, code), body
        assert body["message"]
    illegal = cases[4][0].json()
    assert illegal["clause"] == "T3"
    malformed = cases[5][0].json()
    assert malformed["errors"] == {"to": "an area id such as '10H'"}
    invalid = cases[9][0].json()
    assert set(invalid["errors"]) == {"action", "version", "idempotency_key"}
    assert Game.objects.get(pk=game_id).version == 0
    assert GameEntry.objects.filter(game_id=game_id).count() == 1


def test_moves_before_the_start_are_refused(make_player):
    ana = make_player()
    game_id = ana.post("/api/v1/tables", {"players": 2}).json()["id"]
    response = ana.move(game_id, {"type": "step", "to": "9H"}, 0)
    assert response.status_code == 409 and response.json()["code"] == "game_not_started"


def test_a_player_may_resign(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    response = by_seat[1].move(game_id, {"type": "resign"}, 0)
    assert response.status_code == 201
    assert response.json()["notifications"][0] == {
        "type": "seat_zombified",
        "seat": 1,
        "reason": "resigned",
    }


def test_anonymous_requests_are_refused(client, db):
    for url in ("/api/v1/tables", "/api/v1/me/games", "/api/v1/games/1"):
        response = client.get(url)
        assert response.status_code in (401, 403)
        assert response.json()["code"] == "not_authenticated"


# ---------------------------------------------------------------------------------- reads


def test_log_pages_in_order(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    for version in range(6):
        seat = Game.objects.get(pk=game_id).active_seat
        by_seat[seat].move(game_id, autopilot_choice(game_id), version)
    page = players[0].get(f"/api/v1/games/{game_id}/log", limit=4).json()
    assert [e["seq"] for e in page["entries"]] == [0, 1, 2, 3]
    assert page["next_after"] == 3 and page["version"] == 6
    rest = players[0].get(f"/api/v1/games/{game_id}/log", after=3, limit=4).json()
    assert [e["seq"] for e in rest["entries"]] == [4, 5, 6] and rest["next_after"] is None
    assert rest["entries"][0]["actor"]["kind"] == "player"
    for bad in ({"after": -1}, {"after": 2**40}, {"limit": 0}, {"limit": "x"}):
        response = players[0].get(f"/api/v1/games/{game_id}/log", **bad)
        assert response.status_code == 400 and response.json()["code"] == "invalid"


def test_my_games_are_newest_first_and_say_whose_turn_it_is(make_player):
    ana, ben, cy = make_player(), make_player(), make_player()
    first = start_game([ana, ben])
    second = start_game([ana, cy])
    waiting = ana.post("/api/v1/tables", {"players": 3}).json()["id"]
    mine = ana.get("/api/v1/me/games").json()["results"]
    assert [g["id"] for g in mine] == [waiting, second, first]
    # the deprecated offset paging keeps its order: those waiting on you first
    old = ana.get("/api/v1/me/games", offset=0).json()["results"]
    assert {g["id"] for g in old} == {first, second, waiting}
    turns = [g["your_turn"] for g in old]
    assert turns == sorted(turns, reverse=True)
    for game in mine:
        assert game["your_turn"] == (
            game["status"] == "playing" and game["active_seat"] == game["your_seat"]
        )
    playing = ana.get("/api/v1/me/games", status="open").json()["results"]
    assert [g["id"] for g in playing] == [waiting]


def test_finished_games_show_result_and_seed(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    played_out(game_id)  # by the autopilot through the write path: moves over HTTP are above
    finished = make_player().get("/api/v1/games/finished").json()["results"]
    assert [g["id"] for g in finished] == [game_id]
    assert finished[0]["result"]["ranking"] and finished[0]["seed"]


def test_spectators_see_the_public_view_without_actions(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    spectator = make_player().get(f"/api/v1/games/{game_id}").json()
    assert spectator["your_seat"] is None and spectator["view"]["you"] is None
    assert spectator["view"]["legal_actions"] == []


# ---------------------------------------------------------------------------------- secrets


def test_no_response_of_a_running_game_reveals_the_pile_order_or_the_seed(make_player):
    """H1: every body a client could get while the game runs."""
    players = [make_player(), make_player(), make_player()]
    game_id = start_game(players, shift_change=True)
    by_seat = seat_players(game_id, players)
    bodies = []
    for _ in range(40):
        game = Game.objects.get(pk=game_id)
        player = by_seat[game.active_seat]
        bodies.append(player.move(game_id, autopilot_choice(game_id), game.version).json())
        for who in players:
            bodies.append(who.get(f"/api/v1/games/{game_id}").json())
            bodies.append(who.get(f"/api/v1/games/{game_id}/actions").json())
            bodies.append(who.get("/api/v1/me/games").json())
        bodies.append(player.move(game_id, {"type": "fly"}, game.version).json())
        bodies.append(player.move(game_id, {"type": "stop"}, 0).json())
    bodies.append(players[0].get(f"/api/v1/games/{game_id}/log", limit=500).json())
    game = Game.objects.get(pk=game_id)
    assert game.status == "playing"
    pile = state.state_for(game).pile[::-1]
    text = json.dumps(bodies)
    assert game.seed not in text
    assert json.dumps(pile)[1:-1] not in text
    assert json.dumps(pile[:4])[1:-1] not in text
    assert "secret" not in text and "pile_order" not in text


# ---------------------------------------------------------------------------------- storage


def test_cached_state_equals_a_full_replay_of_the_log(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players, movement="faster")
    by_seat = seat_players(game_id, players)
    for version in range(30):
        game = Game.objects.get(pk=game_id)
        by_seat[game.active_seat].move(game_id, autopilot_choice(game_id), version)
    game = Game.objects.get(pk=game_id)
    assert state.state_for(game) == state.replay_from_log(game)


def test_a_state_cached_at_an_older_version_catches_up_from_the_log(make_player, monkeypatch):
    """As in a process that last saw the game five moves ago: the moves since are read from
    the log and applied, not the whole log replayed, and the result equals a replay."""
    players = [make_player(), make_player()]
    game_id = start_game(players, movement="fast")
    by_seat = seat_players(game_id, players)

    def play(count, start):
        for version in range(start, start + count):
            game = Game.objects.get(pk=game_id)
            by_seat[game.active_seat].move(game_id, autopilot_choice(game_id), version)

    play(5, 0)
    seen = Game.objects.get(pk=game_id)
    earlier = state.state_for(seen)
    play(7, 5)
    game = Game.objects.get(pk=game_id)
    replayed = state.replay_from_log(game)
    state.forget_all()
    state.remember(seen, seen.version, earlier.frozen())

    def no_replay(game):
        raise AssertionError("replayed the whole log although a cached state could catch up")

    monkeypatch.setattr(state, "replay_from_log", no_replay)
    caught_up = state.state_for(game)
    assert caught_up == replayed and caught_up.history == replayed.history
    monkeypatch.undo()

    # a state cached for another game with this id (a recreated database) is never used
    state.forget_all()
    stranger = Game(pk=game_id, seed_commitment="another game", version=game.version)
    state.remember(stranger, game.version, earlier.frozen())
    assert state.state_for(game) == replayed

    # nor one ahead of the row: the row's version is what the state must be at
    game.version -= 1
    older = state.state_for(game)
    assert len(older.history) == game.version and older != replayed


def test_a_move_reads_the_entries_its_cached_state_lacks_with_the_game_row(
    make_player, monkeypatch
):
    """A move on a process that last saw the game some moves ago, or never: the entries it
    lacks come in the same statement as the game row (no second read, no separate replay),
    and the state it moves from equals a replay of the log."""
    players = [make_player(), make_player()]
    game_id = start_game(players, movement="fast")
    by_seat = seat_players(game_id, players)

    def move(version):
        game = Game.objects.get(pk=game_id)
        response = by_seat[game.active_seat].move(game_id, autopilot_choice(game_id), version)
        assert response.status_code == 201, response.json()

    for version in range(4):
        move(version)
    seen = Game.objects.get(pk=game_id)
    earlier = state.state_for(seen)
    for version in range(4, 9):
        move(version)

    def refused(*args, **kwargs):
        raise AssertionError("the move read the log apart from the game row")

    for cached in (earlier, None):  # five moves behind; nothing cached
        game = Game.objects.get(pk=game_id)
        action = autopilot_choice(game_id)
        state.forget_all()
        if cached is not None:
            state.remember(seen, seen.version, cached.frozen())
        with monkeypatch.context() as patch:
            patch.setattr(state, "_actions", refused)
            patch.setattr(state, "replay_from_log", refused)
            response = by_seat[game.active_seat].move(game_id, action, game.version)
        assert response.status_code == 201, response.json()
        moved = Game.objects.get(pk=game_id)
        assert moved.version == game.version + 1
        assert state.state_for(moved) == state.replay_from_log(moved)


def test_a_move_reads_the_game_in_one_statement_and_appends_with_one(make_player):
    """A move by token on PostgreSQL: DRF's token SELECT, the repository's one read of the
    game row, its seats and the entries the process's state lacks (`LOAD_SQL`), and one
    conditional append (`APPEND_SQL`). Elsewhere the ORM's reads, then an UPDATE and an
    INSERT."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    action = autopilot_choice(game_id)
    state.forget_all()
    with CaptureQueriesContext(connection) as queries:
        response = by_seat[game.active_seat].move(game_id, action, 0)
    assert response.status_code == 201, response.json()
    sent = [q["sql"].strip() for q in queries if "SAVEPOINT" not in q["sql"]]
    reads = [sql for sql in sent if sql.startswith("SELECT")]
    writes = [sql for sql in sent if not sql.startswith("SELECT")]
    # the device token with its user (django-rest-knox: by its key's first characters), then
    # the game
    assert "accounts_devicetoken" in reads[0]
    assert not any("accounts_devicetoken" in sql for sql in sent[1:]), sent
    if connection.vendor == "postgresql":
        assert len(reads) == 2 and "games_seat" in reads[1] and "games_gameentry" in reads[1]
        assert len(writes) == 1 and writes[0].startswith("WITH changed AS"), sent
    else:
        assert [sql.split()[0] for sql in writes] == ["UPDATE", "INSERT"], sent
    moved = Game.objects.get(pk=game_id)
    assert moved.version == 1 and state.state_for(moved) == state.replay_from_log(moved)


def test_a_move_by_token_refuses_bad_tokens_and_refused_accounts_as_any_request(make_player):
    """The move's own token reading keeps every refusal of the plain one, and an unknown
    game (or an id no row can have) is still 'not found' for a good token."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    mover = by_seat[game.active_seat]
    action = autopilot_choice(game_id)
    body = {"action": action, "version": 0, "idempotency_key": uuid.uuid4().hex}
    url = f"/api/v1/games/{game_id}/actions"

    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION="Token " + "f" * 40)
    made_up = stranger.post(url, body, format="json")
    assert (made_up.status_code, made_up.json()["code"]) == (401, "authentication_failed")

    for missing in (999999, 2**63):
        gone = mover.move(missing, action, 0)
        assert (gone.status_code, gone.json()["code"]) == (404, "game_not_found")

    user = get_user_model().objects.get(pk=mover.user.pk)
    user.is_active = False
    user.save(update_fields=["is_active"])
    inactive = mover.post(url, body)
    assert (inactive.status_code, inactive.json()["code"]) == (401, "authentication_failed")
    user.is_active, user.banned_at = True, timezone.now()  # as moderation bans, less the seats
    user.save(update_fields=["is_active", "banned_at"])
    banned = mover.post(url, body)
    assert (banned.status_code, banned.json()["code"]) == (403, "account_banned")
    assert Game.objects.get(pk=game_id).version == 0
    assert GameEntry.objects.filter(game_id=game_id).count() == 1


def test_an_append_committed_while_a_move_is_checked_wins_and_the_move_is_stale(
    make_player, monkeypatch
):
    """Moves hold no lock while the engine checks them: the append is conditional on the
    version the move was checked against. A moderator's action that lands in between wins;
    the move is refused as stale with the version now, and nothing of it is written."""
    from django.contrib.auth.models import Group

    from games import moderation

    players = [make_player(), make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    moderator = make_player().user
    moderator.is_staff = True
    moderator.save()
    moderator.groups.add(Group.objects.get(name="moderators"))
    game = Game.objects.get(pk=game_id)
    mover, idle = game.active_seat, (game.active_seat + 1) % 3
    action, key = autopilot_choice(game_id), uuid.uuid4().hex
    checked = state.state_for

    def meanwhile(game, **kwargs):
        found = checked(game, **kwargs)
        monkeypatch.setattr(state, "state_for", checked)
        moderation.seat_zombify(moderator=moderator, game_id=game_id, seat=idle, reason="away")
        return found

    monkeypatch.setattr(state, "state_for", meanwhile)
    response = by_seat[mover].move(game_id, action, 0, key=key)
    assert response.status_code == 409, response.json()
    assert response.json()["code"] == "stale_version"
    assert response.json()["current_version"] == 1
    log = list(GameEntry.objects.filter(game_id=game_id).order_by("seq"))
    assert [entry.seq for entry in log] == [0, 1]
    assert log[1].actor_id == moderator.pk and log[1].idempotency_key is None
    assert Game.objects.get(pk=game_id).version == 1
    # the same request again is still stale: no answer was stored for its key
    again = by_seat[mover].move(game_id, action, 0, key=key)
    assert again.status_code == 409 and again.json()["current_version"] == 1
    # against the version now, it is accepted
    accepted = by_seat[mover].move(game_id, action, 1, key=key)
    assert accepted.status_code == 201, accepted.json()
    assert accepted.json()["version"] == 2


def test_schema_is_served_and_documents_the_games_api(make_player):
    response = make_player().get("/api/schema/", format="json")
    assert response.status_code == 200
    text = response.content.decode()
    for path in (
        "/api/v1/tables",
        "/api/v1/games/{game_id}/actions",
        "/api/v1/games/{game_id}/log",
    ):
        assert path in text
    assert "stale_version" in text and "current_version" in text
