"""What a candidate pair becomes, from the pair model's probabilities: an automatic merge,
a cluster edge or a conflict, each in a tier (proposed, or possible: doubtful, ranked
apart, never merged or accepted in bulk), or nothing.

A pair is *proposed* from the thresholds chosen on the held-out figures (settings,
defaulting to pair_model.json's), *possible* above a lower floor, else nothing. Only the
operator's vetoes stay hard (protected and pinned memories, the metadata guards): the
rules' reading is one piece of evidence, never a verdict on its own. An exact copy needs
no model: the hash decides it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from memadmin.curation.detection import guards
from memadmin.curation.detection.comparing import relations
from memadmin.curation.detection.comparing.evidence import INDEX, Evidence, neighbourhoods
from memadmin.curation.detection.comparing.rules import RuleReading
from memadmin.curation.detection.scoring.model import PairModel, said
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import POSSIBLE, PROPOSED, Verdict


@dataclass(frozen=True)
class Judgement:
    """What a pair became: its verdict and tier, the probabilities they follow from, the
    reasons and findings a reviewer reads, and who decided (the model, or an LLM's answer
    that updated it: curation.llm.band)."""

    rules: RuleReading
    evidence: Evidence | None  # None for an exact copy: no doubt there
    verdict: str
    method: str  # exact | vector | lexical | multilingual | llm
    tier: str = ""  # proposed | possible, for a cluster edge or a conflict
    # P(one fact), P(conflict), P(two facts); None for an exact copy.
    probabilities: tuple[float, float, float] | None = None
    reasons: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()  # why a person must look: protected, a guard
    conflict_kind: str = ""  # contradiction | update
    differing_tokens: tuple[str, ...] = ()
    # A conflict, two facts or a metadata guard: the two may never share a cluster,
    # whatever their other members say.
    never_together: bool = False
    findings: tuple[str, ...] = ()  # the readers' findings, as a reviewer reads them
    decided_by: str = "rule"  # rule | llm
    llm_answer: str = ""  # what the LLM answered of the pair, when it was asked
    # What the answers joining the pair through a third memory imply of its being one
    # fact (curation.llm.joined): the least the band takes its P(one fact) to be.
    implied_one: float = 0.0

    @property
    def similarity(self) -> float:
        return self.rules.similarity

    @property
    def cosine(self) -> float:
        return self.rules.cosine

    @property
    def confidence(self) -> float:
        """The probability of what the pair became: one fact for a cluster edge (or an
        automatic merge), a conflict for a conflict, two facts for nothing."""
        if self.probabilities is None:
            return 1.0
        p_one, p_conflict, p_two = self.probabilities
        if self.verdict == Verdict.CONFLICT:
            return p_conflict
        if self.verdict in (Verdict.REVIEW, Verdict.AUTO_MERGE):
            return p_one
        return p_two

    @property
    def p_one(self) -> float:
        return 1.0 if self.probabilities is None else self.probabilities[0]

    def conflict_fields(self, model: PairModel | None = None) -> dict:
        """What decisions.open_conflict records of a conflict judgement (with how `model`
        weighed it, when given)."""
        return {
            "explanation": explain(self, model) if model is not None else {},
            "kind": self.conflict_kind,
            "reason": "; ".join(self.reasons),
            "differing_tokens": list(self.differing_tokens),
            "detected_by": self.decided_by,
            "tier": self.tier or "proposed",
            "confidence": round(float(self.confidence), 4),
            "evidence": list(self.findings),
        }


def exact(rules: RuleReading) -> Judgement:
    """An exact copy: the same text, no doubt (guards and protection aside)."""
    return Judgement(
        rules,
        None,
        rules.verdict,
        rules.method,
        tier=PROPOSED,
        reasons=rules.reasons,
        flags=rules.flags,
        never_together=rules.never_together,
    )


def listed_only(rules: RuleReading) -> Judgement:
    """A pair under every candidate floor, read for nothing but to be listed as similar
    (write time's neighbours)."""
    return Judgement(rules, None, Verdict.DISTINCT, rules.method)


def score(rules, evidence, a, b, model: PairModel, thresholds: Thresholds) -> Judgement:
    """What a pair becomes (`a` the older memory) from its evidence, weighed by `model`."""
    probabilities = model.probabilities(evidence.values)
    own = model.probabilities(evidence.values, 1.0)
    return place(rules, evidence, probabilities, a, b, model, thresholds, own_p_one=own[0])


def score_together(pairs: dict, model: PairModel, thresholds: Thresholds) -> dict:
    """Pairs read side by side ({key: (rules, evidence, older, newer)}, keys pairs of
    positions, in the order they were read), each scored with its neighbourhood (which
    pair is the closest of each memory: Evidence.with_neighbourhood): a namespace's
    candidates in a run, a new memory's nearest at write time. {key: Judgement}."""
    around = neighbourhoods({key: rules for key, (rules, *_) in pairs.items()})
    placed = {
        key: (rules, evidence.with_neighbourhood(*around[key]), older, newer)
        for key, (rules, evidence, older, newer) in pairs.items()
    }
    if not placed:
        return {}
    # Every pair at once: one product for the namespace (a pair at a time cost more in
    # numpy's calls than in the arithmetic).
    values = np.stack([e.values for _, e, _, _ in placed.values()])
    probabilities, own = model.probabilities(values), model.probabilities(values, 1.0)
    return {
        key: place(rules, evidence, found, older, newer, model, thresholds, own_p_one=mine[0])
        for (key, (rules, evidence, older, newer)), found, mine in zip(
            placed.items(), probabilities, own, strict=True
        )
    }


def place(rules, evidence, probabilities, a, b, model, thresholds, *, own_p_one) -> Judgement:
    """A pair's verdict and tier from its probabilities and the thresholds. An automatic
    merge needs the rules' strict check (every word in its role, nothing any reader sees
    differ, every guard passing) and P(one fact) >= the automatic threshold.

    Two memories whose P(one fact) is under the possible tier's floor never share a
    cluster; that floor reads the model's own P(one fact) (`own_p_one`, not held back:
    PairModel.apart_temperature), so that holding back its readings of two facts shows
    more doubt without letting clusters chain through pairs it reads apart.

    Hard vetoes are the operator's only: a metadata guard keeps the pair out of every
    cluster (a conflict may still be proposed across it), and a protected memory is
    never merged without review (flagged). A pair that is something says what weighed
    most (an automatic merge says its strict check instead)."""
    probabilities = tuple(float(p) for p in probabilities)
    p_one, p_conflict, _ = probabilities
    guard = guards.metadata_guard(a, b)
    verdict, tier = _verdict_and_tier(rules, p_one, p_conflict, guard, thresholds)
    protected = guards.is_protected(a) or guards.is_protected(b)
    conflict_kind, differing = "", ()
    if verdict == Verdict.CONFLICT:
        values = evidence.values
        changed = (
            values[INDEX["relation_update"]]
            or values[INDEX["newer_announces_change"]]
            # A change both tell (evidence: one change told twice) still says one is past.
            or values[INDEX["older_announces_change"]]
        )
        conflict_kind = rules.conflict_kind or ("update" if changed else "contradiction")
        differing = tuple(dict.fromkeys(evidence.differing))
    reasons = relations.said_once([*rules.reasons, *([guard] if guard else []), *evidence.findings])
    findings = evidence.findings
    if tier and verdict != Verdict.AUTO_MERGE:
        weighed = weighed_most(model, evidence.values)
        findings = (*findings, weighed)
        reasons = relations.said_once([*reasons, weighed])
    return Judgement(
        rules,
        evidence,
        verdict,
        rules.method,
        tier=tier,
        probabilities=probabilities,
        reasons=tuple(reasons),
        flags=("protected",) if verdict == Verdict.REVIEW and protected else (),
        conflict_kind=conflict_kind,
        differing_tokens=differing,
        never_together=bool(
            verdict == Verdict.CONFLICT or guard or own_p_one < thresholds.possible_one
        ),
        findings=findings,
    )


def _verdict_and_tier(rules, p_one, p_conflict, guard, thresholds) -> tuple[str, str]:
    if not guard and rules.verdict == Verdict.AUTO_MERGE and p_one >= thresholds.auto_confidence:
        return Verdict.AUTO_MERGE, PROPOSED
    if not guard and p_one >= thresholds.propose_one:
        return Verdict.REVIEW, PROPOSED
    if p_conflict >= thresholds.propose_conflict:
        return Verdict.CONFLICT, PROPOSED
    if not guard and p_one >= thresholds.possible_one and p_one >= p_conflict:
        return Verdict.REVIEW, POSSIBLE
    if p_conflict >= thresholds.possible_conflict:
        return Verdict.CONFLICT, POSSIBLE
    return Verdict.DISTINCT, ""


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
    return "weighed most: " + ", ".join(f"{name} {share:+.1f}" for name, share in top)


# The two questions the model asks of a pair, as a curator reads them.
QUESTIONS = {"related": "the same subject and slot", "disagree": "they disagree"}
# Bars a waterfall shows of a stage; what moved it less is one bar, "the rest".
BARS = 7


def explain(judgement: Judgement, model: PairModel) -> dict:
    """How the pair model reached a pair's probabilities, for the waterfall a page draws
    (Splink's match-weight chart): for each of its two questions, the prior (where the
    question starts, in log-odds), one bar for each piece of evidence in plain words
    (its share of the log-odds; what two features say alike, one bar), and the total as a
    probability; then the probabilities of one fact, a conflict and two facts, and an
    LLM's answer where one moved them. {} for a pair with no evidence (an exact copy)."""
    if judgement.evidence is None:
        return {}
    values = judgement.evidence.values
    stages = []
    for stage in (model.related, model.disagree):
        shares: dict[str, float] = {}
        prior = float(stage.intercept)
        for feature, share in zip(
            stage.features, (values[stage.positions] * stage.weights).tolist(), strict=True
        ):
            if feature == "bias":
                prior += share
            elif share:
                words = _in_words(feature, judgement.findings)
                shares[words] = shares.get(words, 0.0) + share
        ranked = sorted(shares.items(), key=lambda item: -abs(item[1]))
        bars = [{"words": words, "share": round(share, 2)} for words, share in ranked[:BARS]]
        rest = sum(share for _, share in ranked[BARS:])
        if rest:
            bars.append({"words": "the rest of the evidence", "share": round(rest, 2)})
        # The committee's doubt (scoring.model.Stage.logit): the last bar, where it moved.
        doubt = stage.doubt(values)
        if doubt:
            bars.append({"words": said("doubt"), "share": round(doubt, 2)})
        total = prior + sum(share for _, share in ranked) + doubt
        # How much less sure of two facts the model is than its stage (PairModel.
        # held_back), the last bar, so that the bars still add up to the total.
        held_back = float(model.held_back(total)) if stage is model.related else 0.0
        if round(held_back, 2):
            bars.append({"words": said("held_back"), "share": round(held_back, 2)})
            total += held_back
        stages.append(
            {
                "question": QUESTIONS[stage.name],
                "prior": round(prior, 2),
                "bars": bars,
                "total": round(total, 2),
                "probability": round(1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, total)))), 4),
            }
        )
    model_p = model.probabilities(values)
    found = {
        "stages": stages,
        "model": {
            k: round(float(p), 4) for k, p in zip(("one", "conflict", "two"), model_p, strict=True)
        },
    }
    if judgement.decided_by == "llm" and judgement.probabilities is not None:
        found["llm"] = {"answer": judgement.llm_answer, "after": _named(judgement.probabilities)}
    return found


def _named(probabilities) -> dict[str, float]:
    return {
        name: round(float(p), 4)
        for name, p in zip(("one", "conflict", "two"), probabilities, strict=True)
    }


# Features about the values or the subjects a pair differs in: their bar names them.
_ABOUT_VALUES = ("differs_", "new_value_", "relation_new_value", "relation_other_value",
                 "conflict_reading_x_cosine", "value_swapped", "values_and_more",
                 "value_and_thing_differ")  # fmt: skip
_ABOUT_SUBJECTS = ("different_subjects", "two_subjects_x_cosine", "subjects_differ",
                   "names_differ", "relation_other_subject", "subject_swapped",
                   "names_swapped_in")  # fmt: skip
_VALUE_FINDINGS = (relations.WORDS[relations.NEW_VALUE], relations.WORDS[relations.OTHER_VALUE],
                   "different values")  # fmt: skip
_SUBJECT_FINDINGS = (relations.WORDS[relations.OTHER_SUBJECT], "different names")


def _in_words(feature: str, findings: tuple[str, ...]) -> str:
    """A feature in plain words, with what it found where a finding says it ("different
    values: Azure / Fly.io", "different subjects: Yuki A. / Yuki R.")."""
    words = said(feature)
    detail = next((f for f in findings if f.startswith(f"{words}: ")), "")
    if detail:
        return detail
    for about, said_by in ((_ABOUT_VALUES, _VALUE_FINDINGS), (_ABOUT_SUBJECTS, _SUBJECT_FINDINGS)):
        if feature.startswith(about):
            found = next(
                (f for f in findings if f.startswith(tuple(f"{w}: " for w in said_by))), ""
            )
            if found:
                return f"{words}: {found.split(': ', 1)[1]}"
    return words
