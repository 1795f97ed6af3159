"""Notifications in words in the reader's language: one function (games/wording.py) for the
game log, the replay pages and the e-mails; here a whole game's log in Korean and Polish."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.core import mail
from django.test import Client
from django.utils import translation

from games.models import Game, GameEntry
from games.wording import describe
from tests.players import finished_game, play_turn, seat_players, start_game

SUITS = "♠♥♣♦"
# English words of the sentences; none may be left in a translated one
ENGLISH = re.compile(r"\b(Seat|moved|turn|citizen|passenger|waits|picked|Deadline|pile|game)\b")


def _whole_game(make_player, players: int = 3) -> int:
    return finished_game([make_player() for _ in range(players)])


def _log(game_id: int) -> list[dict]:
    entries = GameEntry.objects.filter(game_id=game_id).order_by("seq")
    return [note for entry in entries for note in entry.notifications]


@pytest.mark.parametrize("language", ["ko", "pl"])
def test_a_whole_game_log_reads_in_the_language(make_player, language):
    game_id = _whole_game(make_player)
    notes = _log(game_id)
    types = {note["type"] for note in notes}
    # a 3-player game shows the setup discard, moves, pickups, drop-offs, both deadlines, the end
    assert {
        "game_started",
        "cards_discarded",
        "turn_started",
        "taxi_moved",
        "citizen_picked_up",
        "citizen_added",
        "passenger_dropped_off",
        "deadline_reached",
        "turn_ended",
        "game_ended",
    } <= types
    english = [describe(note) for note in notes]
    with translation.override(language):
        sentences = [describe(note) for note in notes]
        seat = translation.gettext("Seat %(number)s") % {"number": 1}
    assert len(sentences) == len(english)
    for note, said, original in zip(notes, sentences, english, strict=True):
        assert said != original, note
        assert not ENGLISH.search(said), said
        assert "Unrecognised" not in said and "{" not in said, said
        # areas keep rank and suit symbol in every language (10♥, A♠)
        for field in ("from", "to", "origin", "destination", "area"):
            if field in note:
                area = note[field]
                assert area[:-1] + SUITS["SHCD".index(area[-1])] in said, (field, said)
    moved = next(s for n, s in zip(notes, sentences, strict=True) if n["type"] == "taxi_moved")
    assert any(seat.replace("1", str(n + 1)) in moved for n in range(3))
    if language == "pl":
        # three plural forms: 1 karta, 2–4 karty, 5+ kart
        with translation.override("pl"):
            added = {"type": "citizen_added", "origin": "2S", "destination": "3S"}
            assert describe({**added, "pile": 1}).endswith("(została 1 karta).")
            assert describe({**added, "pile": 3}).endswith("(zostały 3 karty).")
            assert describe({**added, "pile": 12}).endswith("(zostało 12 kart).")
            assert describe({**added, "pile": 22}).endswith("(zostały 22 karty).")


@pytest.mark.parametrize("language", ["ko", "pl"])
def test_the_replay_page_shows_the_log_in_the_readers_language(make_player, language):
    game_id = _whole_game(make_player, players=2)
    game = Game.objects.get(pk=game_id)
    player = game.seats.first().user
    names = {seat.seat: str(seat.user) for seat in game.seats.all()}  # players by name
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(player)
    for seq in (0, 1, 5):
        html = client.get(f"/games/{game_id}/replay?seq={seq}").content.decode()
        notes = GameEntry.objects.get(game_id=game_id, seq=seq).notifications
        with translation.override(language):
            wanted = [describe(note, names) for note in notes]
        listed = re.search(r'<ol id="replay-sentences">(.*?)</ol>', html, re.S).group(1)
        items = [re.sub(r"<[^>]+>", "", item).strip() for item in listed.split("</li>")[:-1]]
        if wanted:
            assert [unescape(item) for item in items] == wanted
        else:  # a stop that opens the pickup choice notifies nothing; its action is told
            assert (
                len(items) == 1
                and names[GameEntry.objects.get(game_id=game_id, seq=seq).seat] in items[0]
            )


def test_the_turn_email_is_in_the_players_language(
    make_player, django_capture_on_commit_callbacks, settings
):
    from taxi_project import celery_app

    celery_app.conf.task_always_eager = True
    try:
        players = [make_player(), make_player()]
        game_id = start_game(players, clock="24h")
        by_seat = seat_players(game_id, players)
        waiting = by_seat[1 - Game.objects.get(pk=game_id).active_seat]
        waiting.client.patch(
            "/api/v1/me",
            {"email": "ola@example.com", "email_on_turn": True, "language": "pl"},
            format="json",
        )
        mail.outbox.clear()
        with django_capture_on_commit_callbacks(execute=True):
            play_turn(game_id, by_seat)
    finally:
        celery_app.conf.task_always_eager = False
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.subject == f"Twoja tura w grze {game_id}"
    assert "czeka na Twój ruch" in message.body and "Twój czas mija o" in message.body
    game = Game.objects.get(pk=game_id)
    last = GameEntry.objects.get(game_id=game_id, seq=game.version).notifications
    with translation.override("pl"):
        for note in last:
            assert f"- {describe(note)}" in message.body
