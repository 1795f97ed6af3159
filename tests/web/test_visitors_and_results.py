"""A visitor's `/`: what the game is, a finished game to watch, the way in; the
replay of a public finished game is open to visitors, nothing else is. The lobby lists finished
games with their results, ties ranked as in sport, the user's own place shown."""

from __future__ import annotations

import re

from django.test import Client

from games.models import Game
from tests.players import finished_game, start_game


def test_a_visitor_lands_on_a_page_about_the_game(client, db):
    page = client.get("/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="landing-signup" href="/signup"' in html
    assert 'id="landing-login" href="/login"' in html
    assert 'id="landing-rules" href="/rules/"' in html
    assert "landing-watch" not in html  # no finished game yet
    assert "Bahama Taxi board by Bartosz Sułkowski, CC BY 4.0" in html


def test_a_visitor_may_watch_a_public_finished_game_and_nothing_else(client, make_player):
    finished = finished_game([make_player(), make_player()])
    hidden = finished_game([make_player(), make_player()])
    Game.objects.filter(pk=hidden).update(visibility=Game.Visibility.INVITE)
    running = start_game([make_player(), make_player()])
    html = client.get("/").content.decode()
    assert 'id="landing-watch" href="/games/' in html  # the latest public finished game
    assert f'href="/games/{hidden}/replay"' not in html
    replay = client.get(f"/games/{finished}/replay?seq=1")
    assert replay.status_code == 200 and 'id="replay-seq" data-seq="1"' in replay.content.decode()
    assert client.get(f"/games/{hidden}/replay").status_code == 404
    assert client.get(f"/games/{running}/replay").status_code == 404
    assert client.get(f"/games/{finished}").status_code == 302  # the game page: players only


def test_the_lobby_lists_finished_games_with_their_results(make_player):
    ana, ben = make_player("ana"), make_player("ben")
    game_id = finished_game([ana, ben])
    game = Game.objects.get(pk=game_id)
    browser = Client()
    browser.force_login(ana.user)
    html = browser.get("/").content.decode()
    item = html.split(f'<li class="game-item" data-game="{game_id}">', 1)[1].split("</li>\n", 1)[0]
    names = {s.seat: str(s.user) for s in game.seats.all()}
    incomes = game.result["incomes"]
    listed = re.findall(r'<li value="(\d)"(?: class="you")?>\d\. (\w+) \((\d+)\)</li>', item)
    expected, before = [], 0
    for group in game.result["ranking"]:
        expected += [(str(before + 1), names[seat], str(incomes[seat])) for seat in group]
        before += len(group)
    assert listed == expected
    ana_seat = next(s.seat for s in game.seats.all() if s.user_id == ana.user.pk)
    ana_rank = next(rank for rank, name, _ in expected if name == names[ana_seat])
    assert f"You: place {ana_rank}" in item
