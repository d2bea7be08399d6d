"""How sure detection is about a pair: calibrated probabilities of one fact, a conflict
and two facts, from what the readers found (curation.detection.evidence), and the tier
each pair falls in.

The model has two logistic stages, each over its own part of the evidence, because that
is how the question splits: do the two memories speak of the same subject and slot
(`related`: the cosines, the lexical scores, the subjects, the clause relation), and if
so, do they disagree (`disagree`: differing values, polarity, change cues)? Then

    P(one fact) = related x (1 - disagree)
    P(conflict) = related x disagree
    P(two facts) = 1 - related

The weights are data (pair_model.json beside this module), fit on labelled pairs (a
logistic fit with scipy) by `bench/calibrate.py --fit` and judged leave-one-set-out; the file keeps
the command, the training sets and the held-out figures with them. The run applies them
with numpy: nothing learned is a number in code.

Tiers: a pair is *proposed* from the thresholds chosen on the held-out figures (settings,
defaulting to the file's), *possible* above a lower floor (ranked apart, never merged or
bulk-accepted), else nothing. Only operator-controlled vetoes stay hard (protected and
pinned memories, the metadata guards): no reader's finding is a verdict on its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from django.core.exceptions import ImproperlyConfigured

from memadmin.curation.detection.comparing import evidence as evidence_module
from memadmin.curation.detection.comparing.evidence import FEATURES, INDEX
from memadmin.curation.detection.comparing.rules import Verdict, judge_pair
from memadmin.curation.detection.scoring import guards

MODEL_PATH = Path(__file__).with_name("pair_model.json")

PROPOSED = "proposed"
POSSIBLE = "possible"


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
    # (curation/runs/llm_verdicts.py; chosen leave one set out: curation.held_out.band_temperature).
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
            "curation.detection.evidence reads: fit it again (bench/calibrate.py --fit)"
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


# Feature names as a reviewer reads them, for the evidence shown beside a confidence.
_SAID = {
    "cosine": "embedding similarity",
    "similarity": "similarity",
    "containment": "shared words",
    "containment_sq": "shared words",
    "multi_known": "short texts",
    "relation_same": "the same statement",
    "relation_refines": "one adds detail",
    "relation_opposite": "one denies the other",
    "relation_new_value": "one value at a time",
    "relation_other_value": "two values of a slot that holds several",
    "relation_other_subject": "different subjects",
    "relation_other_predicate": "another thing said of one subject",
    "relation_events": "two events",
    "relation_unread": "no clause reading",
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


def decide(judgement, a, b, evidence, model: PairModel, thresholds) -> None:
    """Turn the rules' judgement of a pair (`a` the older memory) into the calibrated
    one: its probabilities from the evidence, then its verdict and tier (`place`). The
    rules' verdict stays as `rule_verdict` and is one feature among the others."""
    keep_evidence(judgement, evidence)
    settle(judgement, a, b, model.probabilities(evidence.values), model, thresholds)


def keep_evidence(judgement, evidence) -> None:
    """What the rules said and what the readers found, kept on the judgement before the
    model decides (once: a pair decided again keeps the rules' first word)."""
    if not judgement.rule_verdict:
        judgement.rule_verdict = judgement.verdict
        judgement.rule_conflict_kind = judgement.conflict_kind
        judgement.rule_reasons = tuple(judgement.reasons)
    judgement.evidence = evidence.values
    judgement.findings = tuple(f for f in evidence.findings if not f.startswith(_WEIGHED))


def settle(judgement, a, b, probabilities, model: PairModel, thresholds) -> None:
    """Place a pair by its probabilities; one that is something (a cluster edge, a
    conflict) says what weighed most."""
    judgement.probabilities = tuple(float(p) for p in probabilities)
    judgement.findings = tuple(f for f in judgement.findings if not f.startswith(_WEIGHED))
    place(judgement, a, b, thresholds)
    # For a reviewer: what an automatic merge needs is its strict check, not weights.
    if judgement.tier and judgement.verdict != "auto_merge":
        judgement.findings = (*judgement.findings, weighed_most(model, judgement.evidence))
        judgement.reasons = _said_once([*judgement.reasons, judgement.findings[-1]])


_WEIGHED = "weighed most: "


def weighed_most(model: PairModel, values: np.ndarray, count: int = 3) -> str:
    """What moved a pair's probabilities most, as a phrase: the features with the largest
    shares of the two stages' logits, each with the way it pushed ("+" towards one
    subject and slot, or towards disagreeing)."""
    shares: dict[str, float] = {}
    for stage, pushes in ((model.related, "same slot"), (model.disagree, "disagree")):
        contribution = (values[stage.positions] * stage.weights).tolist()
        for feature, share in zip(stage.features, contribution, strict=True):
            if share and feature != "bias":
                name = f"{said(feature)} ({pushes})"
                shares[name] = shares.get(name, 0.0) + share
    top = sorted(shares.items(), key=lambda item: -abs(item[1]))[:count]
    return _WEIGHED + ", ".join(f"{name} {share:+.1f}" for name, share in top)


def place(judgement, a, b, thresholds) -> None:
    """A pair's verdict and tier from its probabilities and the thresholds. An automatic
    merge needs the rules' strict check (every word in its role, nothing any reader sees
    differ, every guard passing) and P(one fact) >= the automatic threshold.

    Hard vetoes are the operator's only: a metadata guard keeps the pair out of every
    cluster (a conflict may still be proposed across it), and a protected memory is
    never merged without review (flagged)."""
    p_one, p_conflict, _ = judgement.probabilities
    guard = guards.metadata_guard(a, b)
    verdict, tier = Verdict.DISTINCT, ""
    if (
        not guard
        and judgement.rule_verdict == Verdict.AUTO_MERGE
        and p_one >= thresholds.auto_confidence
    ):
        verdict, tier = Verdict.AUTO_MERGE, PROPOSED
    elif not guard and p_one >= thresholds.propose_one:
        verdict, tier = Verdict.REVIEW, PROPOSED
    elif p_conflict >= thresholds.propose_conflict:
        verdict, tier = Verdict.CONFLICT, PROPOSED
    elif not guard and p_one >= thresholds.possible_one and p_one >= p_conflict:
        verdict, tier = Verdict.REVIEW, POSSIBLE
    elif p_conflict >= thresholds.possible_conflict:
        verdict, tier = Verdict.CONFLICT, POSSIBLE
    judgement.verdict, judgement.tier = verdict, tier
    judgement.flags = []
    if verdict == Verdict.REVIEW and (guards.is_protected(a) or guards.is_protected(b)):
        judgement.flags.append("protected")
    judgement.conflict_kind = ""
    judgement.differing_tokens = []
    if verdict == Verdict.CONFLICT:
        values = judgement.evidence
        changed = values[INDEX["relation_update"]] or values[INDEX["newer_announces_change"]]
        judgement.conflict_kind = judgement.rule_conflict_kind or (
            "update" if changed else "contradiction"
        )
        judgement.differing_tokens = [
            f.split(": ", 1)[1] for f in judgement.findings if f.startswith("different values")
        ]
    judgement.never_together = bool(
        verdict == Verdict.CONFLICT or guard or p_one < thresholds.possible_one
    )
    judgement.reasons = _said_once([*judgement.rule_reasons, *([guard] if guard else []),
                                    *judgement.findings])  # fmt: skip


def _said_once(reasons: list[str]) -> list[str]:
    """Reasons without repeats: two readers naming the same values ("one slot, two
    values: hetzner / railway", "different values: hetzner / railway") say it once."""
    said, kept = set(), []
    for reason in reasons:
        detail = reason.split(": ", 1)[-1].casefold()
        if detail in said:
            continue
        said.add(detail)
        kept.append(reason)
    return kept


def assess_pair(
    a,
    b,
    *,
    cosine: float,
    tfidf,
    thresholds,
    multi: float | None = None,
    user_names: frozenset[str] = frozenset(),
    model: PairModel | None = None,
    later: bool = False,
):
    """The rules' judgement of a pair (curation.detection.judgement.judge_pair, `a` the
    older memory), then the calibrated one (`decide`): what every detection path (a
    batch run, write time, the calibration) asks of a pair. An exact copy keeps the
    rules' verdict: no doubt there. `later`: the evidence only, the model applied with
    the pair's neighbours (decide_together)."""
    judgement = judge_pair(
        a, b, cosine=cosine, tfidf=tfidf, thresholds=thresholds, multi=multi, user_names=user_names
    )
    if judgement.method == "exact":
        judgement.tier = PROPOSED  # the same text: no doubt (guards and protection aside)
        return judgement
    found = evidence_module.read_pair(
        a, b, judgement, multi=multi, tfidf=tfidf, user_names=user_names
    )
    if later:
        keep_evidence(judgement, found)
    else:
        decide(judgement, a, b, found, model or stored_model(), thresholds)
    return judgement


def decide_namespace(judged) -> None:
    """A namespace's candidate pairs decided again once all are judged: the evidence that
    needs every pair (detection.evidence.mark_nearest) is added, and each pair's
    probabilities, verdict and tier follow from it."""
    decide_together(
        {
            key: (judgement, *(judged.memories[p] for p in judged.ordered(*key)))
            for key, judgement in judged.judgements.items()
        },
        judged.model,
        judged.thresholds,
    )


def decide_together(pairs: dict, model: PairModel | None, thresholds) -> None:
    """Pairs judged side by side ({key: (judgement, older, newer)}, the keys pairs of
    positions) decided again with the neighbourhood evidence that needs them all (which
    pair is the closest of each memory): a namespace's candidates in a run, a new
    memory's nearest at write time."""
    evidence_module.mark_nearest({key: found[0] for key, found in pairs.items()})
    model = model or stored_model()
    decided = [
        (judgement, older, newer)
        for judgement, older, newer in pairs.values()
        if judgement.evidence is not None and judgement.decided_by == "rule"
    ]
    if not decided:
        return
    # Every pair at once: one product for the namespace (a pair at a time cost more in
    # numpy's calls than in the arithmetic).
    probabilities = model.probabilities(np.stack([j.evidence for j, _, _ in decided]))
    for (judgement, older, newer), found in zip(decided, probabilities, strict=True):
        if not judgement.rule_verdict:
            keep_evidence(
                judgement, evidence_module.Evidence(judgement.evidence, judgement.findings)
            )
        settle(judgement, older, newer, found, model, thresholds)
