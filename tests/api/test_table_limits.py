"""What one account can make the server hold in tables (docs/reliability.md, "Tables"): the
tables it sits at that have not ended, the ones it opened that wait in the lobby, and how many
it may open an hour from one account or one address. Each refusal is a stable code; nothing is
created by a refused request."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from games.models import Game, Seat
from tests.players import Player

TABLES = "/api/v1/tables"


def assert_too_many(response, of: str, limit: int) -> None:
    assert response.status_code == 409, response.json()
    body = response.json()
    assert body["code"] == "too_many_tables" and body["of"] == of and body["limit"] == limit


@pytest.fixture
def caps(settings):
    settings.MAX_OPEN_TABLES_PER_ACCOUNT = 3
    settings.MAX_UNFINISHED_TABLES_PER_ACCOUNT = 5
    return settings


@pytest.mark.django_db
def test_an_account_opens_a_bounded_number_of_waiting_tables(caps):
    ana = Player()
    opened = [ana.post(TABLES, {"players": 2}).json()["id"] for _ in range(3)]
    assert_too_many(ana.post(TABLES, {"players": 3}), "open", 3)
    assert Game.objects.filter(created_by=ana.user).count() == 3  # the refused one left nothing
    # cancelling one frees its place
    assert ana.post(f"{TABLES}/{opened[0]}/cancel").status_code == 200
    assert ana.post(TABLES, {"players": 2}).status_code == 201
    # a table that starts at once (against bots) is not waiting: only the unfinished cap counts
    assert ana.post(TABLES, {"players": 2, "bots": ["easy"]}).status_code == 201
    assert Seat.objects.filter(user=ana.user).count() == 5


@pytest.mark.django_db
def test_an_account_sits_at_a_bounded_number_of_unfinished_tables(caps):
    ana = Player()
    tables = [Player().post(TABLES, {"players": 2}).json()["id"] for _ in range(6)]
    for table in tables[:5]:  # each join fills the table: five running games
        assert ana.post(f"{TABLES}/{table}/join").status_code == 200
    assert_too_many(ana.post(f"{TABLES}/{tables[5]}/join"), "unfinished", 5)
    assert not Seat.objects.filter(game_id=tables[5], user=ana.user).exists()
    assert_too_many(ana.post(TABLES, {"players": 2, "bots": ["easy"]}), "unfinished", 5)
    # a game that ends gives its place back
    Game.objects.filter(pk=tables[0]).update(status=Game.Status.FINISHED)
    assert ana.post(f"{TABLES}/{tables[5]}/join").status_code == 200


@pytest.mark.django_db
def test_zero_turns_a_cap_off(settings):
    settings.MAX_OPEN_TABLES_PER_ACCOUNT = 0
    settings.MAX_UNFINISHED_TABLES_PER_ACCOUNT = 0
    ana = Player()
    for _ in range(12):
        assert ana.post(TABLES, {"players": 2}).status_code == 201


@pytest.mark.django_db
def test_tables_opened_are_limited_per_account_and_per_address(settings):
    cache.clear()  # the counts live in the cache, which outlives a test
    settings.TABLE_CREATE_THROTTLE_RATE = "2/hour"
    settings.MAX_OPEN_TABLES_PER_ACCOUNT = 0
    ana, ben = Player(), Player()
    for _ in range(2):
        assert ana.post(TABLES, {"players": 2}).status_code == 201
    refused = ana.post(TABLES, {"players": 2})
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    assert int(refused["Retry-After"]) > 0
    # another account from another address may still open tables, and reading the lobby is free
    ben.client = APIClient(REMOTE_ADDR="198.51.100.7")
    ben.client.credentials(HTTP_AUTHORIZATION=f"Token {ben.token}")
    assert ben.post(TABLES, {"players": 2}).status_code == 201
    assert ana.get(TABLES).status_code == 200
    # a third account from ana's address: the address's count is spent
    cy = Player()
    refused = cy.post(TABLES, {"players": 2})
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    assert Game.objects.count() == 3
    cache.clear()
