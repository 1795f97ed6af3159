import pytest

from tests.players import seat_players, start_game


@pytest.fixture(autouse=True)
def _committed(committed_db):
    """Consumers reach the database from other threads (database_sync_to_async closes and
    reopens connections), so socket tests need really committed data."""


@pytest.fixture
def table(make_player):
    """A started two-player game: (its id, the players by seat)."""
    players = [make_player(), make_player()]
    game_id = start_game(players)
    return game_id, seat_players(game_id, players)
