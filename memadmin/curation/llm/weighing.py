"""How the LLM's readings of a pair weigh against the pair model's probabilities
(tempered for the band: curation.llm.band.band_prior): how sure they leave the pair
(`posterior`) and how many agreeing readings an answer needs before it decides
(`agreeing_needed`). Pure functions of probabilities and settings, read by the band and
by the planning of a run (runs.planning)."""

from __future__ import annotations

from django.conf import settings

CLASS_OF = {"duplicate": 0, "conflict": 1}
# The setting below which an answer is read a second time: a merge proposed, a conflict
# put before an admin and two facts set apart each have their own (the last two at
# least the general bar).
_SECOND_READING_BAR = {
    "duplicate": "LLM_DUPLICATE_SECOND_READING_BELOW",
    "conflict": "LLM_CONFLICT_SECOND_READING_BELOW",
    "related_distinct": "LLM_DISTINCT_SECOND_READING_BELOW",
    "unrelated": "LLM_DISTINCT_SECOND_READING_BELOW",
}


def posterior(prior, labels) -> tuple[float, float, float] | None:
    """How sure the pair is once the LLM answered, for the confidence shown: `prior`
    updated by each answer, each right LLM_ACCURACY of the time (its errors split evenly
    between the two other readings)."""
    if prior is None:
        return None
    right, wrong = settings.LLM_ACCURACY, (1.0 - settings.LLM_ACCURACY) / 2
    # The model claims no reading less likely than the floor: held out it is sure and
    # wrong where its readers are blind, and a sure prior would outvote every answer.
    floor = settings.LLM_PRIOR_FLOOR
    weighted = [floor + (1.0 - 3.0 * floor) * p for p in prior]
    for label in labels:
        answered = CLASS_OF.get(label, 2)
        weighted = [p * (right if k == answered else wrong) for k, p in enumerate(weighted)]
    total = sum(weighted) or 1.0
    return tuple(w / total for w in weighted)


def agreeing_needed(prior, label: str, *, affordable: bool = True) -> int:
    """How many agreeing readings an answer `label` needs before it decides: one where the
    tempered model gave it its second-reading bar or more, two under that bar, three
    under LLM_THIRD_READING_BELOW, or for an answer "conflict" under
    LLM_CONFLICT_THIRD_READING_BELOW (two readings each wrong independently agree on one
    wrong answer one time in 180 at 0.85: over every near candidate, pairs with nothing
    in common became conflicts). Not `affordable` (no call is left for it, or a
    later pass applies a cached answer), an answer "duplicate" meets the general bar,
    not its own (band._waits_for_spare_calls)."""
    given = prior[CLASS_OF.get(label, 2)]
    bar = getattr(settings, _SECOND_READING_BAR.get(label, "LLM_SECOND_READING_BELOW"))
    if label == "duplicate":
        # No call left for it (band._waits_for_spare_calls): the general bar.
        bar = bar if affordable else settings.LLM_SECOND_READING_BELOW
    else:
        bar = max(bar, settings.LLM_SECOND_READING_BELOW)
    if given >= bar:
        return 1
    third = settings.LLM_THIRD_READING_BELOW
    if label == "conflict":
        third = max(third, settings.LLM_CONFLICT_THIRD_READING_BELOW)
    return 2 if given >= third else 3


def lifted(prior: tuple[float, ...], implied_one: float) -> tuple[float, ...]:
    """`prior` with P(one fact) raised to `implied_one` where that is more (the pairs that
    join it through a third memory: curation.llm.joined), the other two scaled down."""
    if implied_one <= prior[0]:
        return prior
    rest = 1.0 - prior[0]
    scale = (1.0 - implied_one) / rest if rest > 0 else 0.0
    return (implied_one, prior[1] * scale, prior[2] * scale)
