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


# A waterfall (Splink's match-weight chart) of one of the pair model's questions: the
# words on the left, the bars on the right, one row each.
WATERFALL_WIDTH, WORDS_WIDTH, ROW = 600, 300, 20


@dataclass(frozen=True)
class Step:
    words: str
    share: float  # log-odds it moved (for the prior and the total: where they stand)
    x: float
    width: float
    y: float
    kind: str  # prior | for | against | total


@dataclass(frozen=True)
class Waterfall:
    question: str
    probability: float
    steps: list[Step]
    zero: float  # where 0 log-odds (an even chance) is
    height: int
    width: int = WATERFALL_WIDTH
    words_width: int = WORDS_WIDTH


def waterfall(stage: dict) -> Waterfall:
    """One question of a pair's explanation (scoring.judgement.explain) as a waterfall:
    the prior from an even chance, each piece of evidence moving the running log-odds,
    the total and its probability."""
    running = [stage["prior"]]
    for bar in stage["bars"]:
        running.append(running[-1] + bar["share"])
    low, high = min(0.0, *running), max(0.0, *running)
    span = (high - low) or 1.0
    plot = WATERFALL_WIDTH - WORDS_WIDTH - 10

    def at(value: float) -> float:
        return WORDS_WIDTH + (value - low) / span * plot

    steps = [Step("where it starts", stage["prior"], min(at(0), at(stage["prior"])),
                  abs(at(stage["prior"]) - at(0)), 0, "prior")]  # fmt: skip
    for index, bar in enumerate(stage["bars"], start=1):
        start, end = running[index - 1], running[index]
        kind = "for" if bar["share"] > 0 else "against"
        steps.append(Step(bar["words"], bar["share"], min(at(start), at(end)),
                          max(1.0, abs(at(end) - at(start))), index * ROW, kind))  # fmt: skip
    total = stage["total"]
    steps.append(Step("in all", total, min(at(0), at(total)), abs(at(total) - at(0)),
                      len(steps) * ROW, "total"))  # fmt: skip
    return Waterfall(stage["question"], stage["probability"], steps, at(0), len(steps) * ROW + 4)


# A reliability chart: what detection said against what the labels measured, per bin of
# its confidence (reads.measured.reliability); on the diagonal, it says what it measures.
RELIABILITY_SIZE, MARGIN = 180, 34


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    radius: float
    said: float
    measured: float
    pairs: int
    low: float
    high: float


@dataclass(frozen=True)
class Reliability:
    title: str
    dots: list[Dot]
    empty: str
    size: int = RELIABILITY_SIZE
    margin: int = MARGIN

    @property
    def width(self) -> int:
        return self.size + self.margin + 8

    @property
    def height(self) -> int:
        return self.size + self.margin + 8

    @property
    def bottom(self) -> int:
        return 8 + self.size


def reliability_chart(title: str, points: list[dict], *, empty: str) -> Reliability:
    """One dot per bin of confidence: across, the mean detection said; up, the share
    the labels found right; its area the number of labelled pairs."""
    most = max((p["pairs"] for p in points), default=1)
    dots = [
        Dot(
            x=MARGIN + p["said"] * RELIABILITY_SIZE,
            y=8 + (1 - p["measured"]) * RELIABILITY_SIZE,
            radius=3 + 6 * (p["pairs"] / most) ** 0.5,
            said=p["said"],
            measured=p["measured"],
            pairs=p["pairs"],
            low=p["low"],
            high=p["high"],
        )
        for p in points
    ]
    return Reliability(title, dots, "" if dots else empty)
