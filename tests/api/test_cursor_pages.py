"""Every list that grows pages by cursor (taxi_project/pagination.py): a stable order, no
row skipped or repeated while games end, tables fill and new ones open between two pages;
no count unless asked, and then a bounded one; the deprecated offset paging still answers,
saying so; a cursor the server did not make is a 400 `invalid`."""

from __future__ import annotations

import base64

import pytest

from taxi_project import pagination
from tests.players import Player, finished_by_autopilot, played_out, start_game

pytestmark = pytest.mark.django_db


def _walk(player: Player, url: str, between=lambda: None) -> list[int]:
    """Every page from `url` on, following `next`; `between` runs after each page."""
    seen = []
    while url:
        page = player.client.get(url)
        assert page.status_code == 200, page.json()
        assert "Deprecation" not in page and "count" not in page.json()
        seen += [row["id"] for row in page.json()["results"]]
        url = page.json()["next"]
        between()
    return seen


def test_finished_games_page_once_each_while_other_games_end():
    ana, ben = Player(), Player()
    ended = [finished_by_autopilot([ana, ben]) for _ in range(5)]
    running = [start_game([ana, ben], movement="faster") for _ in range(3)]
    ending = iter(running)

    seen = _walk(ana, "/api/v1/games/finished?limit=2", lambda: played_out(next(ending)))

    assert len(seen) == len(set(seen))
    assert [game for game in seen if game in ended] == ended[::-1]  # last ended first
    assert set(seen) - set(ended) <= set(running)  # ended meanwhile: at the front, or not met


def test_my_games_page_once_each_while_games_end_and_tables_open():
    ana, ben = Player(), Player()
    mine = [start_game([ana, ben], movement="faster") for _ in range(4)]
    mine += [finished_by_autopilot([ana, ben]) for _ in range(2)]
    mine.append(ana.post("/api/v1/tables", {"players": 3}).json()["id"])
    changes = iter(
        [lambda: played_out(mine[0]), lambda: played_out(mine[1]), lambda: start_game([ana, ben])]
    )

    seen = _walk(ana, "/api/v1/me/games?limit=2", lambda: next(changes, lambda: None)())

    assert seen[: len(mine)] == sorted(mine, reverse=True)  # newest table first, each once
    assert len(seen) == len(mine)  # the table opened while paging is newer than the first page


def test_open_tables_page_once_each_while_tables_fill():
    owners = [Player() for _ in range(6)]
    tables = [owner.post("/api/v1/tables", {"players": 2}).json()["id"] for owner in owners]
    joiner = Player()
    first = joiner.get("/api/v1/tables", limit=2).json()
    for table in [row["id"] for row in first["results"]]:  # both leave the list: they start
        assert joiner.post(f"/api/v1/tables/{table}/join").status_code == 200

    rest = _walk(joiner, first["next"])

    # with an offset, the two that started would have pushed two tables out of the next page
    assert rest == sorted(tables, reverse=True)[2:]


def test_the_leaderboard_pages_on_with_its_ranks():
    players = [Player() for _ in range(3)]
    finished_by_autopilot(players)
    whole = players[0].get("/api/v1/leaderboard").json()["results"]
    assert [row["rank"] for row in whole] == [1, 2, 3]

    first = players[0].get("/api/v1/leaderboard", limit=2).json()
    last = players[0].client.get(first["next"]).json()

    assert [(r["rank"], r["user"]) for r in first["results"] + last["results"]] == [
        (r["rank"], r["user"]) for r in whole
    ]
    assert last["next"] is None and first["previous"] is None
    back = players[0].client.get(last["previous"])  # ties in rating may overlap a row back
    assert back.status_code == 200 and back.json()["results"]


def test_a_count_only_when_asked_and_bounded(monkeypatch):
    owners = [Player() for _ in range(3)]
    for owner in owners:
        owner.post("/api/v1/tables", {"players": 3})
    viewer = Player()
    assert "count" not in viewer.get("/api/v1/tables").json()
    counted = viewer.get("/api/v1/tables", count="true", limit=1).json()
    assert counted["count"] == 3 and counted["count_capped"] is False

    monkeypatch.setattr(pagination, "MAX_COUNT", 2)
    capped = viewer.get("/api/v1/tables", count="true").json()
    assert capped["count"] == 2 and capped["count_capped"] is True
    assert len(capped["results"]) == 3


def test_offset_still_pages_and_says_it_is_deprecated():
    for owner in [Player() for _ in range(3)]:
        owner.post("/api/v1/tables", {"players": 3})
    viewer = Player()

    old = viewer.get("/api/v1/tables", limit=2, offset=1)
    new = viewer.get("/api/v1/tables", limit=2)

    assert old.status_code == 200 and old.json()["count"] == 3 and len(old.json()["results"]) == 2
    assert old["Deprecation"] == f"@{int(pagination.DEPRECATED_AT.timestamp())}"
    assert old["Sunset"].endswith("GMT")
    assert "Deprecation" not in new and "Sunset" not in new


def _cursor(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    "url",
    ["/api/v1/tables", "/api/v1/me/games", "/api/v1/games/finished", "/api/v1/leaderboard"],
)
@pytest.mark.parametrize(
    "query",
    [
        {"cursor": "not base64!"},
        {"cursor": ""},
        {"cursor": "x" * 300},
        {"cursor": _cursor("p=yesterday")},
        {"cursor": _cursor("o=-1")},
        {"cursor": _cursor("o=1&o=2")},
        {"cursor": _cursor("n=0")},
        {"cursor": _cursor("\u00e9")[:-1]},
        {"count": "yes"},
        {"offset": 0, "cursor": _cursor("o=1")},
        {"offset": 0, "count": "maybe"},
    ],
)
def test_a_cursor_or_count_the_server_did_not_make_is_refused(url, query):
    refused = Player().get(url, **query)
    assert refused.status_code == 400, refused.content
    assert refused.json()["code"] == "invalid"
    assert set(refused.json()["errors"]) & {"cursor", "count", "offset"}


@pytest.mark.parametrize("url", ["/api/v1/tables", "/api/v1/me/games"])
def test_a_position_no_id_column_holds_is_refused_not_sent_to_the_database(url):
    refused = Player().get(url, cursor=_cursor("p=" + "9" * 30))
    assert refused.status_code == 400 and refused.json()["errors"].keys() == {"cursor"}
