"""The board as the web client draws it: the same 52 areas and 128 roads, with Downtown
(jacks, queens, kings, aces) drawn larger (Ace areas were 21 px wide on a phone, and
neighbouring discs overlapped). The licence allows changes (CC BY 4.0, the attribution kept);
the graph, and so every rule, is untouched: only coordinates and radii change.

Two moves, both deterministic: a radial stretch of the centre (Downtown spreads out, the ring
of outer areas is pulled a little inwards), then a relaxation that pushes apart any two discs
closer than GAP and keeps every disc inside the drawing box."""

from __future__ import annotations

import functools
import math

from games import registry

#: Bahama Taxi's areas (its engine, through its registration)
AREA_INFO = registry.get("bahama-taxi").engine.board.AREA_INFO

CENTRE = 500.0
AREA_RADIUS = 35.7  # as board/README.md draws them
ACE_RADIUS = 31.0  # was 26.8
GAP = 10.0  # between two discs: room for a legal-move ring that no neighbour covers
BOX = (25.0, 975.0)  # the viewBox the pages use

#: (original distance from the centre, drawn distance): aces, kings, queens, jacks, tens…
STRETCH = (
    (0.0, 0.0),
    (38.2, 62.0),
    (71.0, 118.0),
    (101.5, 162.0),
    (143.0, 205.0),
    (202.5, 262.0),
    (215.0, 277.0),
    (286.0, 330.0),
    (430.0, 438.0),
    (1000.0, 1000.0),
)


def _stretched(r: float) -> float:
    for (r0, s0), (r1, s1) in zip(STRETCH, STRETCH[1:], strict=False):
        if r0 <= r <= r1:
            return s0 + (r - r0) / (r1 - r0) * (s1 - s0)
    return r


def radius_of(info: dict) -> float:
    return ACE_RADIUS if info["rank"] == "A" else AREA_RADIUS


@functools.cache
def client_layout() -> dict[str, tuple[float, float, float]]:
    """Area id → (x, y, radius) in the 0..1000 box."""
    radius = {a["id"]: radius_of(a) for a in AREA_INFO}
    pos = {}
    for a in AREA_INFO:
        dx, dy = a["x"] - CENTRE, a["y"] - CENTRE
        r = math.hypot(dx, dy)
        k = _stretched(r) / r if r else 1.0
        pos[a["id"]] = [CENTRE + dx * k, CENTRE + dy * k]
    ids = sorted(pos)
    low, high = BOX
    for _round in range(400):
        moved = False
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                (ax, ay), (bx, by) = pos[a], pos[b]
                dx, dy = bx - ax, by - ay
                d = math.hypot(dx, dy) or 1e-9
                need = radius[a] + radius[b] + GAP
                if d < need:
                    push = (need - d) / 2 + 0.01
                    ux, uy = dx / d, dy / d
                    pos[a] = [ax - ux * push, ay - uy * push]
                    pos[b] = [bx + ux * push, by + uy * push]
                    moved = True
        for a in ids:
            r = radius[a]
            pos[a] = [
                min(max(pos[a][0], low + r), high - r),
                min(max(pos[a][1], low + r), high - r),
            ]
        if not moved:
            break
    return {a: (round(x, 1), round(y, 1), radius[a]) for a, (x, y) in pos.items()}
