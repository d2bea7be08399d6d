"""The judge's audit of a detection pass: a share of the pass's LLM budget
(LLM_AUDIT_SHARE) asks the judge about pairs drawn at random from every band of what the
pass said (pairs inside proposed and possible clusters, proposed and possible conflicts,
and the near candidates it proposed nothing for), the pairs the model was sure of and
never asked included. From the answers the store's precision and recall are estimated,
corrected for the judge's own error (curation.reads.audited, read by reads.measured).

An audit answer decides nothing: it is a measurement of what the pass did, not a verdict
(it is neither cached nor applied), so that what is measured is what people will see.

Each drawn pair is read twice, shown one way and then the other, in the audit's own
prompt (several pairs a call, no dates: prompts.AUDIT_SYSTEM), never the band's: a
reading the band made chose what the pass proposed, so it cannot measure it. How often
the two readings disagree measures the judge's own error rate (reads.audited). Errors a
judge makes the same way every time do not show there: a store's people's labels are
the check on those (curation.reads.measured prefers them where they are as many)."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.conf import settings

from memadmin.curation.detection.pipeline import Judged
from memadmin.curation.detection.scoring.clustering import UnionFind
from memadmin.curation.detection.verdicts import PROPOSED
from memadmin.curation.reads.audited import CONFLICT, ONE, TWO, Stratum

# The judge's answers, as what the pair is.
_ANSWERS = {"duplicate": ONE, "conflict": CONFLICT}


@dataclass
class Audited:
    """One audited pair (positions in the pass's memories): its band and the judge's
    answers, one a reading (two where both readings came back)."""

    stratum: int
    older: int
    newer: int
    said: list[str]
    confidence: float | None = None  # how sure the pass said it was (see _said_of)


@dataclass
class Audit:
    """One pass's audit: its bands, the pairs drawn from them (stratum, older, newer:
    positions in `memories`), and once asked (`ask`) what the judge answered."""

    strata: list[Stratum]
    memories: Sequence = ()
    drawn: list[tuple[int, int, int]] = field(default_factory=list)
    pairs: list[Audited] = field(default_factory=list)
    # Whether the pass compared every memory of its namespace (a full pass, a first run):
    # its bands are then the namespace's; an incremental pass's, its new memories' only.
    whole: bool = True

    @property
    def readings(self) -> int:
        """Audited pairs read twice."""
        return sum(1 for pair in self.pairs if len(pair.said) == 2)

    @property
    def disagreed(self) -> int:
        """Of those, the ones the two readings disagree on."""
        return sum(1 for pair in self.pairs if len(pair.said) == 2 and pair.said[0] != pair.said[1])


def reserve(options, changed: int) -> int:
    """The calls a pass over `changed` memories keeps for its audit: its share of them
    added to what the run's earlier namespaces kept and did not spend (a namespace of
    three memories keeps less than a call: its pairs are asked with the next ones')."""
    options.llm_audit_pool += settings.LLM_AUDIT_SHARE * settings.LLM_CALLS_PER_MEMORY * changed
    return math.floor(options.llm_audit_pool + 1e-9)


def strata_of(judged: Judged, plan) -> list[Stratum]:
    """The bands of what a pass said (`plan`: curation.runs.planning.Plan), each pair in
    the surest band that holds it: the pairs inside clusters (clusters that share a
    memory joined, as merging them would join them; automatic merges and exact copies
    with the proposed ones), the conflicts, then the candidate pairs in none of those.
    Pairs are counted by their texts: two memories with the same two texts as another
    pair are that pair again (its weight), and two copies of one text are one fact for
    certain (`exact`, never asked), so that a thousand copies cost no more than one."""
    memories = judged.memories
    proposed = [[g.representative, *g.others] for g in plan.collapses + plan.auto_merges]
    proposed += [c.members for c in plan.clusters if c.tier == PROPOSED]
    possible = [c.members for c in plan.clusters if c.tier != PROPOSED]
    said = _said_of(judged, plan)
    taken: set[tuple[str, str]] = set()
    strata = []
    for kind, tier, weighted, exact in (
        ("clusters", "proposed", *_inside(proposed, memories)),
        ("clusters", "possible", *_inside(possible, memories)),
        ("conflicts", "proposed", *_listed(_conflicts(plan, PROPOSED, True), memories)),
        ("conflicts", "possible", *_listed(_conflicts(plan, PROPOSED, False), memories)),
        ("apart", "", *_listed(list(judged.judgements), memories)),
    ):
        kept = {texts: found for texts, found in weighted.items() if texts not in taken}
        taken.update(kept)
        pairs = sorted(pair for pair, _ in kept.values())
        weight = {pair: count for pair, count in kept.values()}
        stratum = Stratum(kind, tier, sum(weight.values()), exact, pairs=pairs)
        stratum.weights = [weight[pair] for pair in pairs]
        stratum.said_of = {pair: said[texts] for texts, (pair, _) in kept.items() if texts in said}
        strata.append(stratum)
    return strata


def _texts(memories, i: int, j: int) -> tuple[str, str]:
    low, high = sorted((memories[i].content_hash, memories[j].content_hash))
    return low, high


def _inside(groups: list[list[int]], memories) -> tuple[dict, int]:
    """The pairs of two memories the groups put together (groups that share a memory
    joined), by their texts: ({(hash, hash): (a pair of them, how many)}, the pairs of
    two copies of one text)."""
    joined = UnionFind(len(memories))
    for members in groups:
        for other in members[1:]:
            joined.union(members[0], other)
    by_text: dict[int, dict[str, list[int]]] = {}
    for member in sorted({m for members in groups for m in members}):
        texts = by_text.setdefault(joined.find(member), {})
        texts.setdefault(memories[member].content_hash, []).append(member)
    weighted, exact = {}, 0
    for texts in by_text.values():
        exact += sum(len(found) * (len(found) - 1) // 2 for found in texts.values())
        for first, second in itertools.combinations(texts.values(), 2):
            pair = _key(first[0], second[0])
            weighted[_texts(memories, *pair)] = (pair, len(first) * len(second))
    return weighted, exact


def _listed(pairs: list[tuple[int, int]], memories) -> tuple[dict, int]:
    """Listed pairs by their texts, as _inside gives them (two copies of one text are
    the clusters' to count, or guarded apart: nothing to ask of either)."""
    weighted: dict = {}
    exact = 0
    for i, j in pairs:
        texts = _texts(memories, i, j)
        if texts[0] == texts[1]:
            continue
        pair, count = weighted.get(texts, (_key(i, j), 0))
        weighted[texts] = (pair, count + 1)
    return weighted, exact


def _said_of(judged: Judged, plan) -> dict[tuple[str, str], float]:
    """How sure the pass said it was of the pairs it proposed something for, by their
    texts: the confidence of the cluster (an automatic merge: the pair's P(one fact)) or
    conflict that holds them (two members of clusters joined only by a shared memory:
    none)."""
    memories = judged.memories
    said: dict[tuple[str, str], float] = {}
    for group in plan.auto_merges:
        for other in group.others:
            judgement = judged.judgements.get(_key(group.representative, other))
            if judgement is not None and judgement.probabilities is not None:
                said[_texts(memories, group.representative, other)] = float(judgement.p_one)
    for cluster in plan.clusters:
        for i, j in itertools.combinations(cluster.members, 2):
            texts = _texts(memories, i, j)
            said[texts] = max(said.get(texts, 0.0), float(cluster.confidence))
    for conflict in plan.conflicts:
        said[_texts(memories, conflict.older, conflict.newer)] = float(
            conflict.judgement.confidence
        )
    return said


def draw(strata: list[Stratum], count: int, rng: random.Random) -> list[tuple[int, int, int]]:
    """`count` pairs as (stratum, i, j), spread evenly over the bands that have pairs to
    audit (a band with fewer than its share gives the rest to the others), drawn at
    random within each."""
    bands = [index for index, stratum in enumerate(strata) if stratum.pairs]
    rng.shuffle(bands)  # a call or two left over go to any band alike
    room = {index: len(strata[index].pairs) for index in bands}
    share = dict.fromkeys(room, 0)
    left = count
    while left and room:
        each = max(1, left // len(room))
        for index in list(room):
            take = min(each, room[index], left)
            share[index] += take
            room[index] -= take
            left -= take
            if not room[index]:
                del room[index]
            if not left:
                break
    drawn = []
    for index, taken in share.items():
        for i, j in _by_weight(strata[index], taken, rng):
            drawn.append((index, i, j))
    return drawn


def _by_weight(stratum: Stratum, count: int, rng: random.Random) -> list[tuple[int, int]]:
    """`count` of the stratum's pairs at random, each as likely as the memory pairs it
    stands for (Efraimidis and Spirakis' keys: u ** (1 / weight), the largest taken)."""
    weights = stratum.weights or [1] * len(stratum.pairs)
    keyed = [
        (rng.random() ** (1.0 / w), pair) for pair, w in zip(stratum.pairs, weights, strict=True)
    ]
    keyed.sort(reverse=True)
    return [pair for _, pair in keyed[:count]]


def draw_pass(
    judged: Judged, plan, count: int, rng: random.Random, *, whole: bool = True
) -> Audit | None:
    """An audit of the pass with up to `count` pairs drawn from its bands (none asked
    yet; none at all where the run's audits drew all they may: its bands' sizes still
    count, with the answers of other namespaces' bands), or None when the pass said
    nothing of any pair."""
    strata = strata_of(judged, plan)
    if not any(stratum.size or stratum.exact for stratum in strata):
        return None
    drawn = draw(strata, count, rng) if count > 0 else []
    ordered = [(index, *judged.ordered(i, j)) for index, i, j in drawn]
    return Audit(strata, judged.memories, ordered, whole=whole)


def ask(session, audits: list[Audit], calls: int, rng: random.Random) -> int:
    """Ask the judge about the drawn pairs of `audits` (of one namespace or of several:
    a call holds LLM_AUDIT_PAIRS pairs whatever their namespace) within `calls`: each
    pair read twice, A and B shown one way and then the other in other calls (once
    where a single call is all there is). A pair the judge gave no answer for says
    nothing of its band; one answered once counts once. The calls made."""
    drawn = [(audit, *pair) for audit in audits for pair in audit.drawn]
    size = settings.LLM_AUDIT_PAIRS
    first = [drawn[at : at + size] for at in range(0, len(drawn), size)]
    again = rng.sample(drawn, len(drawn)) if calls > len(first) else []
    second = [[(a, s, newer, older) for a, s, older, newer in again[at : at + size]]
              for at in range(0, len(again), size)]  # fmt: skip
    granted = session.reserve(min(calls, len(first) + len(second)))
    session.skip(len(first) + len(second) - granted)
    asked = (first + second)[:granted]
    shown = [[(a.memories[x], a.memories[y]) for a, _, x, y in call] for call in asked]
    said: dict[tuple[int, int, int, int], list[str]] = {}
    for call, answers in zip(asked, session.audits(shown) if asked else [], strict=True):
        for (audit, index, x, y), answer in zip(call, answers, strict=True):
            label = getattr(answer, "label", None)
            if label is not None:  # else the call failed: nothing to measure by
                said.setdefault((id(audit), index, min(x, y), max(x, y)), []).append(
                    _ANSWERS.get(label, TWO)
                )
    for audit in audits:
        for index, older, newer in audit.drawn:
            labels = said.get((id(audit), index, min(older, newer), max(older, newer)))
            if labels:
                audit.strata[index].said.update(labels)
                audit.strata[index].read += 1
                confidence = audit.strata[index].said_of.get(_key(older, newer))
                audit.pairs.append(Audited(index, older, newer, labels, confidence))
    return granted


def _conflicts(plan, proposed_tier: str, proposed: bool) -> list[tuple[int, int]]:
    return [
        _key(c.older, c.newer)
        for c in plan.conflicts
        if (c.judgement.tier == proposed_tier) == proposed
    ]


def _key(i: int, j: int) -> tuple[int, int]:
    return (i, j) if i < j else (j, i)
