"""The board the web client draws (games/board_layout.py): the same areas and roads as the
rules' board, Downtown larger, and a gap between any two discs wide enough for a legal-move
ring and a citizen's tag (Downtown was unreadable, discs overlapped)."""

from __future__ import annotations

import itertools
import math

from django.test import Client

from games.board_layout import ACE_RADIUS, BOX, GAP, client_layout
from games.engine.board import AREA_INFO, EDGES


def test_the_layout_keeps_every_area_and_road():
    layout = client_layout()
    assert set(layout) == {a["id"] for a in AREA_INFO}
    board = Client().get("/board.json").json()
    assert [tuple(e) for e in board["edges"]] == [tuple(e) for e in EDGES]
    assert {a["id"]: (a["x"], a["y"], a["r"]) for a in board["areas"]} == layout
    assert board["attribution"] == "Bahama Taxi board by Bartosz Sułkowski, CC BY 4.0"


def test_no_disc_comes_near_another_and_all_fit_the_box():
    layout = client_layout()
    for a, b in itertools.combinations(layout, 2):
        (ax, ay, ar), (bx, by, br) = layout[a], layout[b]
        assert math.dist((ax, ay), (bx, by)) - ar - br >= GAP - 0.2, (a, b)
    low, high = BOX
    for x, y, r in layout.values():
        assert low <= x - r and x + r <= high and low <= y - r and y + r <= high


def test_downtown_is_larger_than_on_the_original_board():
    layout = client_layout()
    original = {a["id"]: a for a in AREA_INFO}
    aces = [a for a in layout if a.startswith("A")]
    assert all(layout[a][2] == ACE_RADIUS > 26.8 for a in aces)
    for a, b in itertools.combinations(aces, 2):
        before = math.dist(
            (original[a]["x"], original[a]["y"]), (original[b]["x"], original[b]["y"])
        )
        after = math.dist(layout[a][:2], layout[b][:2])
        assert after > before * 1.4
