"""The pair model: calibrated probabilities of one fact, a conflict and two facts, from
what the readers found (curation.detection.comparing.evidence).

The model has two logistic stages, each over its own part of the evidence, because that
is how the question splits: do the two memories speak of the same subject and slot
(`related`: the cosines, the lexical scores, the subjects, the clause relation), and if
so, do they disagree (`disagree`: differing values, polarity, change cues)? Then

    P(one fact) = related x (1 - disagree)
    P(conflict) = related x disagree
    P(two facts) = 1 - related

The weights are data (pair_model.json beside this module), fit on labelled pairs (a
logistic fit: `manage.py fit_pair_model`, curation.learning.fitting) and judged leave one
set out; the file keeps the command, the training sets and the held-out figures with
them. The run applies them with numpy: nothing learned is a number in code. What a pair
becomes from its probabilities is curation.detection.scoring.judgement's to say.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from django.core.exceptions import ImproperlyConfigured

from memadmin.curation.detection.comparing import relations
from memadmin.curation.detection.comparing.evidence import FEATURES, INDEX

MODEL_PATH = Path(__file__).with_name("pair_model.json")


@dataclass(frozen=True)
class Stage:
    """One logistic stage: the features it reads (positions in FEATURES), its weights
    and intercept."""

    name: str
    features: tuple[str, ...]
    positions: np.ndarray
    weights: np.ndarray
    intercept: float

    def logit(self, values: np.ndarray) -> np.ndarray:
        return values[..., self.positions] @ self.weights + self.intercept

    def contributions(self, values: np.ndarray) -> list[tuple[str, float]]:
        """Each feature's share of the logit for one pair, largest first (zeros left
        out): what moved the probability."""
        shares = values[self.positions] * self.weights
        order = np.argsort(-np.abs(shares))
        return [(self.features[i], float(shares[i])) for i in order if shares[i] != 0.0]


@dataclass(frozen=True)
class PairModel:
    related: Stage
    disagree: Stage
    thresholds: dict[str, float]
    about: dict
    # How much surer the model is than it has a right to be on a set it never saw: the
    # LLM band weighs an answer against the model's probabilities tempered by it
    # (curation/llm/band.py; chosen leave one set out: curation.learning.held_out.band_temperature).
    llm_temperature: float = 1.0

    def probabilities(self, values: np.ndarray, temperature: float = 1.0) -> np.ndarray:
        """(P(one fact), P(conflict), P(two facts)) of one pair's evidence values, or of
        each row of a matrix of them; with a `temperature` above 1, each stage's logit
        divided by it (less sure, the order of pairs unchanged)."""
        related = _sigmoid(self.related.logit(values) / temperature)
        disagree = _sigmoid(self.disagree.logit(values) / temperature)
        return np.stack([related * (1.0 - disagree), related * disagree, 1.0 - related], axis=-1)


def _sigmoid(logit):
    return 1.0 / (1.0 + np.exp(-np.clip(logit, -40.0, 40.0)))


def from_dict(data: dict) -> PairModel:
    """A model from its stored form (the JSON of pair_model.json)."""
    if list(data.get("features", [])) != list(FEATURES):
        raise ImproperlyConfigured(
            f"{MODEL_PATH.name} was fit on other evidence features than "
            "curation.detection.comparing.evidence reads: fit it again (manage.py fit_pair_model)"
        )

    def stage(name: str) -> Stage:
        stored = data["stages"][name]
        names = tuple(stored["features"])
        return Stage(
            name,
            names,
            np.array([INDEX[f] for f in names], dtype=np.int64),
            np.array(stored["weights"], dtype=np.float64),
            float(stored["intercept"]),
        )

    return PairModel(
        stage("related"),
        stage("disagree"),
        {k: float(v) for k, v in data["thresholds"].items()},
        {k: v for k, v in data.items() if k not in ("stages", "thresholds", "features")},
        float(data.get("llm_temperature", 1.0)),
    )


@lru_cache(maxsize=1)
def stored_model() -> PairModel:
    """The fitted model shipped with memadmin (read once a process)."""
    return from_dict(json.loads(MODEL_PATH.read_text(encoding="utf-8")))


def stored_threshold(name: str) -> float:
    """A tier threshold as the fit chose it (settings default to these)."""
    return float(json.loads(MODEL_PATH.read_text(encoding="utf-8"))["thresholds"][name])


# Feature names as a reviewer reads them (a relation's in the words relations gives it).
_SAID = {
    "cosine": "embedding similarity",
    "similarity": "similarity",
    "containment": "shared words",
    "containment_sq": "shared words",
    "multi_known": "short texts",
    **{f"relation_{kind}": words for kind, words in relations.WORDS.items()},
    "relation_update": "the newer changes the older",
    "different_subjects": "different subjects",
    "different_things": "different things",
    "opposed": "one denies or reverses the other",
    "newer_announces_change": "the newer announces a change",
    "words_in_order": "every word matched in order",
    "same_words_same_roles": "names in the same roles",
    "across_languages": "two languages",
    "rule_review": "the rules read one fact",
    "rule_conflict": "the rules read a conflict",
    "rule_apart": "the rules read two facts",
    "one_slot": "one slot",
    "slot_overlap": "the rest of the texts agree",
}


def said(feature: str) -> str:
    """A feature's name as a reviewer reads it."""
    if feature.startswith(("cosine_above", "multi_above")):
        return "embedding similarity"
    if feature.startswith("differs_"):
        return "different values"
    return _SAID.get(feature, feature.replace("_", " "))
