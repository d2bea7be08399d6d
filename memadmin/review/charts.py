"""Small bar charts drawn on the server as SVG (no script, no inline style: the CSP
forbids both), with both axes named, a count on every bar and an empty state."""

from __future__ import annotations

from dataclasses import dataclass

# Room around the plot, in SVG units: the count scale on the left (at least LEFT, more for
# a long count), the labels and the axis name under the bars, the counts above them.
LEFT, BOTTOM, TOP = 30, 30, 14
# The width of a digit at the charts' font size (9): what a count's label needs.
DIGIT = 5.4


def _label_width(count: int) -> float:
    return len(f"{count}") * DIGIT


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str
    value: int
    show_value: bool = True  # its count fits above it (else its title says it)

    @property
    def middle(self) -> float:
        return self.x + self.width / 2


@dataclass(frozen=True)
class Chart:
    title: str
    width: int
    height: int
    bars: list[Bar]
    axis: list[tuple[float, str]]  # (x, label) under the bars
    x_name: str  # what the bars are, under the axis
    y_name: str  # what their height counts
    top: int  # the count at the top of the scale
    empty: str  # shown instead of the bars when every count is 0 ("" when not empty)
    left: float = LEFT  # where the plot starts: room for the scale's longest count

    @property
    def baseline(self) -> int:
        return self.height - BOTTOM

    @property
    def plot_top(self) -> int:
        return TOP

    @property
    def centre(self) -> float:
        """Where the name of the x axis goes: under the middle of the plot."""
        return (self.left + self.width) / 2


def bar_chart(
    title: str,
    buckets: list[tuple[str, int]],
    *,
    x_name: str,
    y_name: str,
    empty: str,
    width: int = 340,
    height: int = 150,
) -> Chart:
    """One bar per (label, count), scaled to the largest count; `empty` is what the
    chart says when there is nothing to count."""
    top = max((count for _, count in buckets), default=0)
    # Room for the scale's count on the left, and for the last bar's count on the right:
    # a four-digit count is never cut.
    left = max(LEFT, _label_width(top) + 16)
    right = _label_width(top) / 2
    slot = (width - left - right) / max(len(buckets), 1)
    plot = height - BOTTOM - TOP
    bars, axis = [], []
    for index, (label, count) in enumerate(buckets):
        bar_height = plot * count / (top or 1)
        x = left + index * slot + slot * 0.1
        fits = _label_width(count) <= slot + 2
        bars.append(Bar(x, TOP + plot - bar_height, slot * 0.8, bar_height, label, count, fits))
        axis.append((left + index * slot + slot / 2, label))
    return Chart(title, width, height, bars, axis, x_name, y_name, top, "" if top else empty, left)
