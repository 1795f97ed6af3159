"""The web client's pages with Django's test client: who may see what, what each page carries,
and that a running game's page reveals no secret (H1). The scripts are tested in a browser
(tests/browser/test_web_client.py)."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import engine, state
from games.models import Game, GameEntry
from games.wording import describe
from tests.players import Player, finished_game, play_turn, seat_players, start_game

ATTRIBUTION = "Bahama Taxi board by Bartosz Sułkowski, CC BY 4.0"


def browser_of(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def json_script(response, element_id: str):
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    assert match, f"no #{element_id} in the page"
    return json.loads(match.group(1))


# ---------------------------------------------------------------------------------- access


@pytest.mark.parametrize("path", ["/lobby/lists", "/games/1", "/profile"])
def test_anonymous_visitors_are_sent_to_the_login_page(client, db, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=")
    assert client.get(response["Location"]).status_code == 200


def test_the_login_and_signup_pages_label_every_field(client, db):
    for path, fields in (
        ("/login", ["username", "password"]),
        ("/signup", ["username", "display_name", "email", "password"]),
    ):
        page = client.get(path).content.decode()
        for field in fields:
            assert f'<label for="id_{field}">' in page
            assert f'id="id_{field}"' in page
        assert "/api/v1/auth/login" in page  # the form posts to the API (throttled, validated)
        assert 'role="alert"' in page
    assert "csrftoken" in client.cookies


def test_a_signed_in_user_skips_the_login_page(make_player):
    client = browser_of(make_player())
    assert client.get("/login").url == "/"
    assert client.get("/login?next=/games/7").url == "/games/7"
    assert client.get("/login?next=https://evil.example/").url == "/"  # no open redirect


def test_logout_is_a_post_with_the_csrf_token(make_player):
    player = make_player()
    client = Client(enforce_csrf_checks=True)
    client.force_login(player.user)
    assert client.get("/logout").status_code == 200  # a page that asks
    assert client.post("/logout").status_code == 403  # no token
    assert client.get("/").status_code == 200
    client.get("/")  # the lobby sets the cookie
    token = client.cookies["csrftoken"].value
    response = client.post("/logout", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302 and response.url == "/login"
    assert 'id="landing-signup"' in client.get("/").content.decode()  # a visitor again


def test_a_suspended_account_is_told_why(make_player):
    player = make_player()
    player.user.suspended_until = timezone.now() + timedelta(days=1)
    player.user.save(update_fields=["suspended_until"])
    response = browser_of(player).get("/")
    assert response.status_code == 403
    assert 'data-code="account_suspended"' in response.content.decode()


# ---------------------------------------------------------------------------------- the lobby


def test_the_lobby_offers_every_table_option(make_player):
    page = browser_of(make_player()).get("/").content.decode()
    assert re.findall(r'<option value="(\d)"', page) == [str(n) for n in range(2, 9)]
    for movement in ("normal", "fast", "faster"):
        assert f'name="movement" value="{movement}"' in page
    for field in ("shift_change", "pickup_before_movement", "deadline1_at", "deadline2_at"):
        assert f'id="id_{field}"' in page
        assert f'for="id_{field}"' in page or f'id="id_{field}" name="{field}"' in page
    for clock in ("none", "30s", "1m", "3m", "1h", "12h", "24h", "72h"):
        assert f'<option value="{clock}">' in page
    assert '<option value="public">' in page and '<option value="invite">' in page


def test_the_lobby_lists_open_tables_and_my_games_waiting_on_me_first(make_player):
    ana, ben, cy = make_player("ana"), make_player("ben"), make_player("cy")
    open_table = cy.post("/api/v1/tables", {"players": 3}).json()["id"]
    first = start_game([ana, ben])
    second = start_game([ana, cy])
    # make `first` wait on ben and `second` wait on ana, whoever drew the first seat
    for game_id, players, waiting_on in ((first, [ana, ben], ben), (second, [ana, cy], ana)):
        by_seat = seat_players(game_id, players)
        if by_seat[Game.objects.get(pk=game_id).active_seat] is not waiting_on:
            play_turn(game_id, by_seat)
    page = browser_of(ana).get("/").content.decode()
    mine = re.findall(r'data-game="(\d+)" data-status="playing"', page)
    assert mine == [str(second), str(first)]
    assert f'class="game-item your-turn" data-game="{second}"' in page
    assert f'data-join="{open_table}"' in page
    assert f"Join table {open_table}" in page
    lists = browser_of(ana).get("/lobby/lists").content.decode()
    assert f'data-join="{open_table}"' in lists and "<html" not in lists
    # the creator is offered to cancel, not to join
    cy_page = browser_of(cy).get("/").content.decode()
    assert f'data-leave="{open_table}"' in cy_page and f'data-join="{open_table}"' not in cy_page


# ---------------------------------------------------------------------------------- a game


def test_the_game_page_carries_the_board_and_its_attribution(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players, movement="fast", clock="1m")
    response = browser_of(players[0]).get(f"/games/{game_id}")
    assert response.status_code == 200
    page = response.content.decode()
    board = json_script(response, "board-data")
    assert len(board["areas"]) == 52 and len(board["edges"]) == 128
    assert {"id", "x", "y", "r", "suit", "rank"} <= set(board["areas"][0])
    assert board["attribution"] == ATTRIBUTION
    assert ATTRIBUTION in page and "creativecommons.org/licenses/by/4.0" in page
    data = json_script(response, "game-data")
    assert data["id"] == game_id and data["seated"] is True and data["status"] == "playing"
    assert data["you"] in (0, 1)
    assert data["urls"]["socket"] == f"/ws/games/{game_id}/"
    assert data["clock"]["turn_deadline_at"] is not None
    assert len(data["colours"]) == 8
    for element in ('id="board"', 'role="log"', 'id="chat-text"', 'for="chat-text"'):
        assert element in page
    assert "/static/web/game.js" in page


def test_board_json_is_the_board_with_its_attribution(client, db):
    board = client.get("/board.json").json()
    assert len(board["areas"]) == 52 and board["attribution"] == ATTRIBUTION
    assert board["license"] == "CC BY 4.0"


def test_a_running_game_page_reveals_no_secret(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    play_turn(game_id, by_seat)
    game = Game.objects.get(pk=game_id)
    secret = engine.full_view(state.state_for(game))["secret"]
    for viewer in (players[0], make_player()):  # a player, and a spectator
        page = browser_of(viewer).get(f"/games/{game_id}").content.decode()
        assert game.seed not in page
        assert "pile_order" not in page and "secret" not in page.lower()
        assert json.dumps(secret["pile_order"][:6]) not in page
        assert ", ".join(f'"{c}"' for c in secret["pile_order"][:6]) not in page
    # and there is no replay of a running game
    assert browser_of(players[0]).get(f"/games/{game_id}/replay?seq=1").status_code == 404


def test_an_invite_only_table_is_not_found_by_others(make_player):
    ana, ben = make_player(), make_player()
    game_id = ana.post("/api/v1/tables", {"players": 2, "visibility": "invite"}).json()["id"]
    assert browser_of(ben).get(f"/games/{game_id}").status_code == 404
    page = browser_of(ana).get(f"/games/{game_id}")
    assert page.status_code == 200
    code = Game.objects.get(pk=game_id).invite_code
    assert f'<code id="invite-code">{code}</code>' in page.content.decode()


def test_an_open_table_page_shows_the_waiting_room(make_player):
    ana, ben = make_player(), make_player()
    game_id = ana.post("/api/v1/tables", {"players": 2}).json()["id"]
    page = browser_of(ben).get(f"/games/{game_id}").content.decode()
    assert re.search(r'<section id="waiting-room"[^>]*aria-labelledby="waiting-heading">', page)
    assert json_script(browser_of(ben).get(f"/games/{game_id}"), "game-data")["seated"] is False


def test_no_such_game_is_a_404(make_player):
    assert browser_of(make_player()).get("/games/999999").status_code == 404


# ---------------------------------------------------------------------------------- replay


@pytest.mark.slow
def test_the_replay_of_a_finished_game_at_several_steps(make_player):
    players = [make_player(), make_player()]
    game_id = finished_game(players)
    game = Game.objects.get(pk=game_id)
    client = browser_of(make_player())  # any signed-in user may replay a public game
    last = game.version
    names = {seat.seat: str(seat.user) for seat in game.seats.all()}
    for asked, shown in ((0, 0), (1, 1), (last // 2, last // 2), (last, last), (None, last),
                         (last + 50, last), (-3, 0), ("x", last)):  # fmt: skip
        query = "" if asked is None else f"?seq={asked}"
        response = client.get(f"/games/{game_id}/replay{query}")
        assert response.status_code == 200
        page = response.content.decode()
        assert f'<strong id="replay-seq" data-seq="{shown}">Step {shown} of {last}</strong>' in page
        entry = GameEntry.objects.get(game=game, seq=shown)
        sentences = page.split('<ol id="replay-sentences">', 1)[1].split("</ol>", 1)[0]
        for notification in entry.notifications:  # players by name, not seat
            assert describe(notification, names).replace("'", "&#x27;") in sentences
        if "seat" in (entry.notifications or [{}])[0]:
            assert "Seat " not in sentences
        step = json_script(response, "replay-data")
        replayed = engine.replay(game.setup, [
            e.action for e in GameEntry.objects.filter(game=game, seq__gte=1, seq__lte=shown)
        ])  # fmt: skip
        assert step["view"] == json.loads(json.dumps(engine.public_view(replayed)))
        assert step["notifications"] == entry.notifications
        assert "secret" not in step["view"]
        assert f'<code id="seed">{game.seed}</code>' in page  # revealed: the game is over
        assert "matches the commitment" in page
        assert len(json_script(response, "board-data")["areas"]) == 52
        assert ATTRIBUTION in page
        assert 'data-replay-key="ArrowRight"' in page or shown == last
    ranking = re.findall(r'<li value="(\d)">([^<:]+):', client.get(
        f"/games/{game_id}/replay").content.decode())  # fmt: skip
    assert len(ranking) == 2 and not any(who.startswith("Seat") for _, who in ranking)


def test_the_lobby_lists_finished_games_with_their_replay(make_player):
    players = [make_player(), make_player()]
    game_id = finished_game(players)
    page = browser_of(players[0]).get("/").content.decode()
    assert f'href="/games/{game_id}/replay"' in page


def test_the_scripts_and_their_catalogue_are_served(client, db):
    catalogue = client.get("/jsi18n.js")
    assert catalogue.status_code == 200 and b"gettext" in catalogue.content
    page = client.get("/login").content.decode()
    assert '<script src="/jsi18n.js" defer></script>' in page
    assert '<script type="module" src="/static/web/auth.js"></script>' in page
