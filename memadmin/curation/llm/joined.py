"""Pairs joined through a third memory: two memories each one fact with a third are one
fact with each other, so where the answers say A is B and A is C, one answer that B and
C are two facts (or a conflict) is likelier the judge's error than the truth. With a
judge wrong 15 % of the time such an answer split a cluster of three paraphrases, and
a right answer on the third pair could not mend it: the pair model, blind to
paraphrases in other words, gave it "two facts" at 0.98, and three agreeing answers
were needed to overturn that.

The band (curation.llm.band) takes what the joining pairs imply, the product of their
probabilities of one fact (the likelier chain through the likeliest third), as the least
it holds the pair's P(one fact) to be (`Judgement.implied_one`, weighing.lifted): the
lone answer against it then owes another reading, and agreeing readings decide as they
do where the model itself leans to one fact."""

from __future__ import annotations

from memadmin.curation.detection.pipeline import Judged
from memadmin.curation.detection.verdicts import PROPOSED, Verdict

# Below an even chance what the joining pairs imply lifts nothing: the chain is weaker
# than a model that reads the pair as two facts.
LEAST_IMPLIED = 0.5


def implied_through_a_third(judged: Judged, pairs) -> dict[tuple[int, int], float]:
    """For each of `pairs` (older, newer) that is not one fact now: what the proposed
    one-fact pairs joining it through a third memory imply (LEAST_IMPLIED or more),
    where that is more than what the pair holds already."""
    if not pairs:
        return {}  # (no answer: a pass with no LLM and nothing cached)
    one_with: dict[int, dict[int, float]] = {}
    for (i, j), judgement in judged.judgements.items():
        if _one_fact(judgement):
            one_with.setdefault(i, {})[j] = judgement.probabilities[0]
            one_with.setdefault(j, {})[i] = judgement.probabilities[0]
    found = {}
    for older, newer in pairs:
        judgement = judged.judge(older, newer)
        if _one_fact(judgement) or judgement.evidence is None:
            continue
        of_older, of_newer = one_with.get(older, {}), one_with.get(newer, {})
        implied = max(
            (of_older[k] * of_newer[k] for k in of_older.keys() & of_newer.keys()), default=0.0
        )
        if implied >= LEAST_IMPLIED and implied > judgement.implied_one:
            found[(older, newer)] = implied
    return found


def reason(judgement) -> str:
    """Why the answers on a pair were weighed against more than the model, for the
    reason a curator reads ("" where nothing was implied)."""
    if not judgement.implied_one:
        return ""
    implied = f"{judgement.implied_one:.2f}"
    return f" (each is one fact with a third memory: one fact at {implied} before the answers)"


def _one_fact(judgement) -> bool:
    return (
        judgement.verdict in (Verdict.REVIEW, Verdict.AUTO_MERGE)
        and judgement.tier == PROPOSED
        and judgement.probabilities is not None
    )
