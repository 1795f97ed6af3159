"""A player's rating history as an SVG line chart, drawn on the server (no script, no chart
library): the ordinal before the first rated game, then after each one."""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 28


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    points: str  # the polyline's "x,y x,y …"
    dots: list[tuple[float, float, float]]  # x, y, ordinal: one per rated game
    ticks: list[tuple[float, str]]  # y, label of the vertical axis
    baseline: float  # y of the axis' bottom
    left: int
    right: float
    count: int


def rating_chart(history: list[dict]) -> Chart | None:
    """None without a rated game (there is nothing to draw)."""
    if not history:
        return None
    values = [history[0]["ordinal_before"]] + [point["ordinal_after"] for point in history]
    low, high = min(values), max(values)
    if high - low < 1:
        low, high = low - 0.5, high + 0.5
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM

    def x(index: int) -> float:
        return round(LEFT + span_x * index / (len(values) - 1), 1)

    def y(value: float) -> float:
        return round(TOP + span_y * (high - value) / (high - low), 1)

    coordinates = [(x(i), y(v)) for i, v in enumerate(values)]
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        points=" ".join(f"{cx},{cy}" for cx, cy in coordinates),
        dots=[(cx, cy, v) for (cx, cy), v in zip(coordinates[1:], values[1:], strict=True)],
        ticks=[(y(v), f"{v:.1f}") for v in (high, (high + low) / 2, low)],
        baseline=TOP + span_y,
        left=LEFT,
        right=WIDTH - RIGHT,
        count=len(history),
    )
