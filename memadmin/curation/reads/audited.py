"""The store's precision and recall estimated from the LLM judge's audit of detection
passes (curation.llm.audit draws and asks; this reads the answers): pure arithmetic,
read by curation.reads.measured and bench/llm_band.py.

Each band of what a pass said (a Stratum) is a random sample: the share of its pairs
the judge answered one fact (or conflict) estimates the band's, once corrected for the
judge's error. The judge's error rate e comes from pairs it read twice (two readings,
each wrong with rate e, their errors split evenly between the two other answers,
disagree with 2e - 1.5e²), with the operator's LLM_ACCURACY as a prior; errors a judge
makes the same way every time do not show there, which is why people's labels are
preferred where they are as many (reads.measured)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

# What a pair is, as an audit's answers say it.
ONE, CONFLICT, TWO = "one_fact", "conflict", "two_facts"
# The kinds a stratum is of, and the answer that says detection was right about it.
RIGHT = {"clusters": ONE, "conflicts": CONFLICT}
TIERS = ("proposed", "possible")
# A tier and the tiers at least as sure: what "found at this tier" counts for recall.
_AT_LEAST = {"proposed": {"proposed"}, "possible": {"proposed", "possible"}}
# What the judge's error rate is taken to be before its answers say (LLM_ACCURACY), held
# as if this many pairs had been read twice: a few disagreements do not swing it.
PRIOR_READINGS = 20
# The most error the judge is taken to have: at 2/3 its answers are chance and say nothing
# (the correction divides by 1 - 1.5 e).
MOST_ERROR = 0.5
# Draws of the Monte Carlo interval, and the share of them it holds (90 %).
DRAWS = 2000
_HELD = 0.90


@dataclass
class Stratum:
    """One band of what a pass said (`kind`: clusters, conflicts, or apart for the near
    candidates nothing was proposed for; `tier`): how many of its pairs could be audited
    (`size`), how many are exact copies (one fact for certain, never asked), and what the
    judge answered about the pairs drawn from it."""

    kind: str
    tier: str
    size: int
    exact: int = 0
    said: Counter = field(default_factory=Counter)  # every reading's answer
    read: int = 0  # the pairs those readings are of (a pair is read once or twice)
    # The pairs to draw from (positions: one a pair of texts), and how many memory pairs
    # each stands for; how sure detection said it was of those it proposed something for.
    pairs: list[tuple[int, int]] = field(default_factory=list, repr=False)
    weights: list[int] = field(default_factory=list, repr=False, compare=False)
    said_of: dict = field(default_factory=dict, repr=False, compare=False)

    def as_json(self) -> dict:
        return {
            "kind": self.kind,
            "tier": self.tier,
            "size": self.size,
            "exact": self.exact,
            "said": dict(self.said),
            "read": self.read,
        }

    @classmethod
    def from_json(cls, data: dict) -> Stratum:
        return cls(
            data["kind"],
            data["tier"],
            data["size"],
            data["exact"],
            Counter(data["said"]),
            data.get("read", sum(data["said"].values())),
        )


def merged(strata: list[Stratum]) -> list[Stratum]:
    """Strata of several passes (namespaces) as one per band: their pairs, copies and
    answers added up (each pass drew about as many pairs from a band whatever its size,
    so a large namespace weighs a little less than its share: the price of one figure)."""
    found: dict[tuple[str, str], Stratum] = {}
    for stratum in strata:
        into = found.setdefault(
            (stratum.kind, stratum.tier), Stratum(stratum.kind, stratum.tier, 0)
        )
        into.size += stratum.size
        into.exact += stratum.exact
        into.said.update(stratum.said)
        into.read += stratum.read
    return list(found.values())


def estimate(strata: list[Stratum], readings: int, disagreed: int, *, seed: int = 0) -> dict:
    """The precision and recall of each kind and tier, from the judge's answers on the
    strata (of one pass or of several: `merged`) corrected for the judge's error rate
    (from `disagreed` of `readings` pairs read twice, and LLM_ACCURACY as if
    PRIOR_READINGS more): {"clusters" | "conflicts": {tier: {"precision", "interval",
    "pairs", "recall", "recall_interval", "recall_pairs"}}, "judge": {"error",
    "interval", "pairs"}}. A figure no audited pair bears on is None (its interval
    empty). The intervals are 90 %: Monte Carlo over the uncertainty of each band's
    answers (a Dirichlet of its counts) and of the error rate (a beta), every draw at
    once (numpy: the dashboard reads this on every view), the shortest range holding 90 %
    of the draws (`_interval`)."""
    strata = [s for s in merged(strata) if s.size or s.exact]
    rng = np.random.default_rng(seed)
    prior = _disagreement(1.0 - settings.LLM_ACCURACY)
    agreed_a = readings - disagreed + PRIOR_READINGS * (1 - prior)
    disagreed_a = disagreed + PRIOR_READINGS * prior
    error = _error(np.array([disagreed_a / (agreed_a + disagreed_a)]))
    point = _figures(strata, error, _shares_mean)
    errors = _error(rng.beta(disagreed_a, agreed_a, size=DRAWS))
    draws = _figures(strata, errors, lambda stratum: _shares_drawn(stratum, rng))
    audited = sum(s.read for s in strata)
    found: dict = {}
    for kind in RIGHT:
        found[kind] = {}
        for tier in TIERS:
            figures = {}
            for name in ("precision", "recall"):
                value = point[kind][tier][name]
                value = None if value is None or np.isnan(value[0]) else float(value[0])
                drawn = draws[kind][tier][name]
                figures[name] = (value, _interval(drawn) if value is not None else [])
            inside = [s for s in strata if (s.kind, s.tier) == (kind, tier)]
            found[kind][tier] = {
                "precision": _round(figures["precision"][0]),
                "interval": figures["precision"][1],
                "pairs": sum(s.read for s in inside),
                "recall": _round(figures["recall"][0]),
                "recall_interval": figures["recall"][1],
                "recall_pairs": audited,
            }
    judge = {"error": _round(float(error[0])), "interval": _interval(errors), "pairs": readings}
    return found | {"judge": judge}


def reliability(pairs: list, error: float, bins: tuple[float, ...]) -> dict[str, list[dict]]:
    """Per kind, per bin of what detection said of the audited pairs it proposed
    something for (`pairs`: (kind, its answers, confidence), confidence None where it
    proposed nothing; `bins`: the lower edges, and 1): the mean it said, the share the
    judge's answers found right corrected for its `error`, how many pairs."""
    points: dict[str, list[dict]] = {}
    for kind, right in RIGHT.items():
        binned: dict[float, list] = {}
        for found_kind, said, confidence in pairs:
            if found_kind == kind and confidence is not None and said:
                low = max((edge for edge in bins[:-1] if confidence >= edge), default=0.0)
                binned.setdefault(low, []).append((confidence, said))
        points[kind] = []
        for low, found in sorted(binned.items()):
            readings = [label == right for _, said in found for label in said]
            share = sum(readings) / len(readings)
            corrected = min(1.0, max(0.0, (share - error / 2) / (1.0 - 1.5 * error)))
            points[kind].append(
                {
                    "low": low,
                    "high": bins[bins.index(low) + 1] if low in bins else bins[0],
                    "said": round(sum(c for c, _ in found) / len(found), 3),
                    "measured": round(corrected, 3),
                    "pairs": len(found),
                }
            )
    return points


def _figures(strata: list[Stratum], error: np.ndarray, shares) -> dict:
    """Precision and recall by kind and tier, for each draw of the error rate (`error`)
    and of each band's answered shares (`shares(stratum)`: one row a draw): each band's
    true shares of one fact and of conflicts read through the judge's confusion; exact
    copies one fact for certain. None where no pair bears on a figure (a band with pairs
    but no answer leaves recall unknown); nan where a draw has no positive at all."""
    nothing = np.zeros_like(error)
    truth = {}  # (kind, tier): (pairs, pairs one fact, pairs conflicts) or None
    for s in strata:
        if s.said:
            one, conflict = _corrected(shares(s), error)
            truth[(s.kind, s.tier)] = (s.size + s.exact, s.size * one + s.exact, s.size * conflict)
        elif not s.size:
            truth[(s.kind, s.tier)] = (s.exact, nothing + s.exact, nothing)  # copies only
        else:
            truth[(s.kind, s.tier)] = None
    known = all(found is not None for found in truth.values())
    figures: dict = {}
    for kind, right in RIGHT.items():
        column = 1 if right == ONE else 2
        every = sum((found[column] for found in truth.values() if found), nothing)
        figures[kind] = {}
        for tier in TIERS:
            band = truth.get((kind, tier))
            precision = band[column] / band[0] if band and band[0] else None
            reached = sum(
                (
                    found[column]
                    for (k, t), found in truth.items()
                    if found and k == kind and t in _AT_LEAST[tier]
                ),
                nothing,
            )
            recall = None
            if known and every.any():
                recall = np.divide(reached, every, out=nothing + np.nan, where=every > 0)
            figures[kind][tier] = {"precision": precision, "recall": recall}
    return figures


def _corrected(shares: np.ndarray, error: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The true shares of one fact and of conflicts behind the shares the judge answered
    (columns: one fact, conflict, two facts), a judge wrong with rate `error` splitting
    its errors evenly between the two other answers: answered = (1 - 1.5e) true + e / 2."""
    scale = (1.0 - 1.5 * error)[:, None]
    true = np.clip((shares - error[:, None] / 2) / scale, 0.0, 1.0)
    total = true.sum(axis=1)
    total[total == 0] = 1.0
    return true[:, 0] / total, true[:, 1] / total


def _shares_mean(stratum: Stratum) -> np.ndarray:
    said = stratum.said
    total = sum(said.values())
    return np.array([[said.get(label, 0) / total for label in (ONE, CONFLICT, TWO)]])


def _shares_drawn(stratum: Stratum, rng: np.random.Generator) -> np.ndarray:
    """Draws of a band's shares from a Dirichlet of its answers, counted as pairs (two
    readings of one pair are one pair's worth, not two independent ones), with Jeffreys'
    half a count each: all nine answers "one fact" still leave room for a tenth that
    is not."""
    said = stratum.said
    weight = stratum.read / (sum(said.values()) or 1)
    return rng.dirichlet(
        [weight * said.get(label, 0) + 0.5 for label in (ONE, CONFLICT, TWO)], DRAWS
    )


def _disagreement(error: float) -> float:
    """How often two readings disagree, each wrong with rate `error`."""
    return 2 * error - 1.5 * error * error


def _error(disagreement: np.ndarray) -> np.ndarray:
    """The error rate behind a rate of disagreement (the inverse of _disagreement), at
    most MOST_ERROR."""
    found = (2.0 - np.sqrt(np.maximum(0.0, 4.0 - 6.0 * np.minimum(disagreement, 2.0 / 3.0)))) / 3.0
    return np.minimum(found, MOST_ERROR)


def _interval(values: np.ndarray) -> list[float]:
    """The shortest interval holding _HELD of the draws (the highest-density one). A
    store proposing only what is right has its draws piled against 1: the interval cut
    5 % off each end stopped short of 1 there (the oracle's peers, every conflict right:
    0.869 [0.624, 0.989]) and held the truth at the bound about nine times in ten;
    the shortest holds it 98-100 times in 100, inside the range as often as before, and
    is narrower (tests/curation/test_judge_audit.py)."""
    values = np.sort(values[~np.isnan(values)])
    if not len(values):
        return []
    held = int(np.ceil(_HELD * len(values)))
    widths = values[held - 1 :] - values[: len(values) - held + 1]
    start = int(np.argmin(widths))
    return [_round(float(values[start])), _round(float(values[start + held - 1]))]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
