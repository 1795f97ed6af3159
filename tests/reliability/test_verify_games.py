"""`manage.py verify_games`: every stored game replays to its row, and a row that lies is named."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from games.models import Game
from tests.players import Player, play_turn, seat_players, start_game

pytestmark = pytest.mark.django_db


def verify(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("verify_games", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def games() -> list[int]:
    """Three started games a few turns in, one of them over, and a table still open."""
    players = [Player(), Player(), Player()]
    ids = []
    for turns in (0, 3, 6):
        game_id = start_game(players[:2], movement="faster")
        by_seat = seat_players(game_id, players[:2])
        for _ in range(turns):
            play_turn(game_id, by_seat)
        ids.append(game_id)
    finished = start_game(players[:2], movement="faster")
    by_seat = seat_players(finished, players[:2])
    while Game.objects.get(pk=finished).status == Game.Status.PLAYING:
        play_turn(finished, by_seat)
    ids.append(finished)
    players[2].post("/api/v1/tables", {"players": 3})  # open: nothing to verify yet
    return ids


def test_a_clean_database_verifies(games):
    assert Game.objects.get(pk=games[-1]).status == Game.Status.FINISHED
    out, err = verify()
    assert out.strip() == f"{len(games)} game(s) verified, 0 differ from their log"
    assert err == ""


@pytest.mark.parametrize(
    "field, value",
    [("version", 1), ("active_seat", 1), ("turn_number", 99), ("status", "finished")],
)
def test_a_tampered_summary_is_reported_and_fails(games, field, value):
    tampered = games[2]
    game = Game.objects.get(pk=tampered)
    if getattr(game, field) == value:  # make sure it really changes
        value = 0
    Game.objects.filter(pk=tampered).update(**{field: value})

    with pytest.raises(CommandError) as refused:
        verify("--batch-size", "2")
    assert refused.value.returncode == 1
    assert str(refused.value) == f"{len(games)} game(s) verified, 1 differ from their log"


def test_the_report_names_the_game_and_what_differs(games, capsys):
    tampered = games[1]
    Game.objects.filter(pk=tampered).update(result={"incomes": [1, 2], "ranking": [[0], [1]]})
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_games", stdout=io.StringIO(), stderr=err)
    lines = err.getvalue().splitlines()
    assert lines == [f"game {tampered}: result is {{'incomes': [1, 2], 'ranking': [[0], [1]]}}, "
                     "the replay says None"]  # fmt: skip


def test_a_wrong_seed_is_reported(games):
    game = Game.objects.get(pk=games[0])
    Game.objects.filter(pk=game.pk).update(seed=str(int(game.seed) + 1))
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_games", stdout=io.StringIO(), stderr=err)
    assert f"game {game.pk}: the seed does not match its commitment" in err.getvalue()


def test_one_game_only(games):
    Game.objects.filter(pk=games[0]).update(turn_number=77)
    out, _ = verify("--game", str(games[1]), "--game", str(games[3]))
    assert out.strip() == "2 game(s) verified, 0 differ from their log"
    with pytest.raises(CommandError) as refused:
        verify("--game", str(games[0]))
    assert refused.value.returncode == 1
    with pytest.raises(CommandError) as missing:
        verify("--game", "987654321")
    assert missing.value.returncode == 2
