"""The Bahama Taxi board: 52 areas, who touches whom, and every distance, computed once at import.

Board data: Bahama Taxi board by Bartosz Sułkowski, CC BY 4.0 (see data/BOARD_LICENSE.md).
"""

from __future__ import annotations

import json
from collections import deque
from importlib import resources
from typing import TypedDict

_DATA = json.loads(resources.files(__package__).joinpath("data/board.json").read_text("utf-8"))


class AreaInfo(TypedDict):
    id: str
    suit: str  # S, H, C, D
    rank: str  # 2 … 10, J, Q, K, A
    downtown: bool
    x: float
    y: float


ATTRIBUTION: str = _DATA["attribution"]
LICENSE: str = _DATA["license"]

#: Area ids in board order (♠, ♥, ♣, ♦; 2 … A). This order sorts everything the engine lists.
AREAS: tuple[str, ...] = tuple(area["id"] for area in _DATA["areas"])
AREA_INDEX: dict[str, int] = {area: i for i, area in enumerate(AREAS)}
#: Drawing data for clients: id, suit, rank, downtown, x, y (0..1000 box, y down).
AREA_INFO: tuple[AreaInfo, ...] = tuple(_DATA["areas"])
EDGES: tuple[tuple[str, str], ...] = tuple((a, b) for a, b in _DATA["edges"])


def _neighbours() -> dict[str, tuple[str, ...]]:
    found: dict[str, set[str]] = {area: set() for area in AREAS}
    for a, b in EDGES:
        found[a].add(b)
        found[b].add(a)
    return {area: tuple(sorted(near, key=AREA_INDEX.__getitem__)) for area, near in found.items()}


#: Adjacent areas of each area, in board order.
NEIGHBOURS: dict[str, tuple[str, ...]] = _neighbours()


def _distances() -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for start in AREAS:
        seen = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for near in NEIGHBOURS[here]:
                if near not in seen:
                    seen[near] = seen[here] + 1
                    queue.append(near)
        table[start] = seen
    return table


#: DISTANCE[x][y]: steps on a shortest path from x to y (taxis do not block distance).
DISTANCE: dict[str, dict[str, int]] = _distances()


def distance(origin: str, destination: str) -> int:
    """The fare for carrying a citizen from origin to destination."""
    return DISTANCE[origin][destination]
