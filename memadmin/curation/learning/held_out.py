"""What the labelled sets, each held out, say of the pair model's confidence
(curation.learning.fitting fits it): how well each set's pairs are read by the model fit
without it (log-loss, beside knowing only the set's own shares), and the temperature
the LLM band tempers the model's probabilities by (band_temperature), and the one its
readings of two facts are held back by (apart_temperature). It reads fitting's tables
and models, and fitting chooses a temperature with it: it imports nothing of fitting's."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from memadmin.curation.detection.scoring import model as pair_model


class PairTable(Protocol):
    """What this module reads of a set's table (fitting.PairTable): its name, its pairs'
    evidence values and their labels."""

    name: str
    values: np.ndarray
    classes: np.ndarray


# A pair's label as fitting's tables hold it.
ONE, CONFLICT, TWO = 0, 1, 2


def held_out_log_loss(
    tables: list[PairTable], models: dict[str, dict], temperature: float = 1.0
) -> dict[str, dict]:
    """Each set's mean log-loss, stage by stage, under the model fit without it (its
    logits divided by `temperature`), beside the log-loss of knowing only that set's own
    share of each answer: how much the evidence tells of a set it never saw. Near that
    share, the probabilities the model gives there say little, however sure they look
    (the peers' set: bench/calibrate.py --loso)."""
    return {
        table.name: {
            stage: (_log_loss(logits / temperature, truth), _log_loss(_base_logit(truth), truth))
            for stage, (logits, truth) in _stage_logits(table, models[table.name]).items()
        }
        for table in tables
    }


# "Sure": the probability a reading must reach for its errors to count as confident ones.
SURE = 0.8


def confident_errors(table: PairTable, stored: dict) -> tuple[int, int]:
    """How many of a set's candidate pairs the model `stored` reads at SURE or more as
    something the labels say they are not, of how many (a held-out model's count is what a
    store it never saw should expect: sure and wrong where its readers are blind)."""
    model = _read(stored)
    wrong = model.probabilities(table.values).copy()
    wrong[np.arange(len(table.classes)), table.classes] = 0.0
    return int((wrong.max(axis=1) >= SURE).sum()) if len(wrong) else 0, len(table.classes)


# The temperatures band_temperature chooses from.
TEMPERATURES = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0)


def band_temperature(tables: list[PairTable], models: dict[str, dict]) -> float:
    """The temperature the LLM band tempers the model's probabilities by before an answer
    is weighed against them: the one under which the set the model knows least, held
    out, is read best (the smallest largest held-out log-loss, the two stages' mean).
    A model sure of a set it never saw keeps a right answer from changing anything."""
    logits = {table.name: _stage_logits(table, models[table.name]) for table in tables}

    def worst(temperature: float) -> float:
        return max(
            np.mean([_log_loss(z / temperature, truth) for z, truth in stages.values()])
            for stages in logits.values()
        )

    return min(TEMPERATURES, key=worst)


def apart_temperature(tables: list[PairTable], models: dict[str, dict]) -> float:
    """What the related stage's log-odds below an even chance are divided by
    (scoring.model.PairModel.apart_temperature): the least of TEMPERATURES under which,
    on every set held out, the pairs read two facts at SURE or more are wrong at most
    1 - SURE of the time ("sure" means right four times in five, on the least familiar
    set too), one more of them wrong included: a set of a few dozen sure pairs must not
    move the choice by one pair (stop 107: the peers' 13 of 65 -> 12 of 64 took it from
    1.5 to 1.25, and 77 more of the 5,000 generated memories' pairs were sure and wrong).
    No tier is chosen on that side, so nothing else holds it to account."""
    read = [_stage_logits(table, models[table.name])["related"] for table in tables]

    def surely_apart_and_wrong(logits: np.ndarray, related: np.ndarray, temperature: float):
        held = np.where(logits < 0.0, logits / temperature, logits)
        sure = 1.0 / (1.0 + np.exp(held)) >= SURE  # P(two facts) at SURE or more
        return float((related[sure].sum() + 1) / sure.sum()) if sure.any() else 0.0

    return next(
        (
            t
            for t in TEMPERATURES
            if all(surely_apart_and_wrong(z, related, t) <= 1.0 - SURE for z, related in read)
        ),
        TEMPERATURES[-1],
    )


def _read(stored: dict) -> pair_model.PairModel:
    return pair_model.from_dict({**stored, "thresholds": dict.fromkeys(THRESHOLD_NAMES, 0.5)})


def _stage_logits(table: PairTable, stored: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each stage's log-odds of the set's pairs (its committee's doubt in, no temperature)
    and what the labels say of them."""
    model = _read(stored)
    related = table.classes != TWO
    return {
        "related": (model.related.logit(table.values), related),
        "disagree": (
            model.disagree.logit(table.values[related]),
            table.classes[related] == CONFLICT,
        ),
    }


THRESHOLD_NAMES = ("propose_one", "propose_conflict", "possible_one", "possible_conflict",
                    "auto_confidence")  # fmt: skip


def _base_logit(truth: np.ndarray) -> np.ndarray:
    share = float(np.clip(truth.mean(), 1e-6, 1 - 1e-6)) if len(truth) else 0.5
    return np.full(len(truth), np.log(share / (1 - share)))


def _log_loss(logits: np.ndarray, truth: np.ndarray) -> float:
    if not len(truth):
        return 0.0
    return float(np.mean(np.logaddexp(0.0, logits) - truth * logits))
