"""The board data: the rules' fare table and adjacency examples, and the shipped attribution."""

from importlib import resources

import pytest

from games.engine import AREAS, ATTRIBUTION, NEIGHBOURS, distance
from games.engine.board import EDGES

FARES = [  # seeds/bga-gamehelp: "area where a citizen is waiting / destination / fare"
    ("8S", "8H", 3),
    ("10S", "10C", 4),
    ("KC", "10H", 2),
    ("3C", "AD", 5),
    ("KD", "9C", 3),
    ("5D", "2S", 1),
    ("2D", "2H", 7),
    ("6D", "8D", 2),
]


@pytest.mark.parametrize(("origin", "destination", "fare"), FARES)
def test_fare_table(origin, destination, fare):
    assert distance(origin, destination) == fare
    assert distance(destination, origin) == fare


@pytest.mark.parametrize(("a", "b"), [("5D", "2S"), ("QS", "AS"), ("AC", "KC")])
def test_adjacent_examples(a, b):
    assert b in NEIGHBOURS[a] and a in NEIGHBOURS[b]


@pytest.mark.parametrize(("a", "b"), [("3H", "5H"), ("AS", "AC")])
def test_not_adjacent_examples(a, b):
    assert b not in NEIGHBOURS[a] and a not in NEIGHBOURS[b]


def test_52_areas_128_edges_16_downtown():
    assert len(AREAS) == len(set(AREAS)) == 52
    assert len(EDGES) == 128
    assert sum(len(near) for near in NEIGHBOURS.values()) == 2 * 128
    assert sum(area[:-1] in {"J", "Q", "K", "A"} for area in AREAS) == 16


def test_distances_are_a_connected_metric_of_diameter_8():
    assert all(distance(a, a) == 0 for a in AREAS)
    assert max(distance(a, b) for a in AREAS for b in AREAS) == 8
    for a in AREAS:
        for b in NEIGHBOURS[a]:
            assert distance(a, b) == 1


def test_board_ships_with_its_cc_by_attribution():
    data = resources.files("games.engine").joinpath("data")
    assert "Bartosz Sułkowski" in ATTRIBUTION and "CC BY 4.0" in ATTRIBUTION
    licence = data.joinpath("BOARD_LICENSE.md").read_text("utf-8")
    assert "Bartosz Sułkowski" in licence and "creativecommons.org/licenses/by/4.0" in licence
