"""Small bar charts drawn on the server as SVG (no script, no inline style: the CSP
forbids both)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str
    value: int


@dataclass(frozen=True)
class Chart:
    title: str
    width: int
    height: int
    bars: list[Bar]
    axis: list[tuple[float, str]]  # (x, label) under the bars


def bar_chart(title: str, buckets: list[tuple[str, int]], *, width=320, height=120) -> Chart:
    """One bar per (label, count), scaled to the largest count."""
    top = max((count for _, count in buckets), default=0) or 1
    slot = width / max(len(buckets), 1)
    plot = height - 18  # room for the labels under the bars
    bars, axis = [], []
    for index, (label, count) in enumerate(buckets):
        bar_height = plot * count / top
        x = index * slot + slot * 0.1
        bars.append(Bar(x, plot - bar_height, slot * 0.8, bar_height, label, count))
        axis.append((index * slot + slot / 2, label))
    return Chart(title, width, height, bars, axis)
