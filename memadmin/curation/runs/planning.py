"""What one detection pass over a namespace proposes, computed in memory and written by
nothing (from the judged candidate pairs of curation.detection.pipeline): find_duplicates
applies the plan through curation.decisions, the dry run prints it, and the calibration
scores it against labels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from memadmin.curation.detection.comparing import relations
from memadmin.curation.detection.comparing.evidence import INDEX
from memadmin.curation.detection.pipeline import Judged, assess_pair, judge_namespace
from memadmin.curation.detection.scoring import clustering
from memadmin.curation.detection.scoring.judgement import Judgement, explain
from memadmin.curation.detection.scoring.model import PairModel, stored_model
from memadmin.curation.detection.scoring.representative import representative
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import POSSIBLE, PROPOSED, Verdict
from memadmin.curation.llm.weighing import posterior
from memadmin.store.text import clipped


@dataclass
class Group:
    """Members (positions) to fold into one: the representative survives."""

    representative: int
    others: list[int]
    edges: list[clustering.Edge]
    reason: str


@dataclass
class ReviewCluster:
    members: list[int]
    edges: list[clustering.Edge]
    weakest: clustering.Edge | None
    flags: list[str]
    tier: str = PROPOSED  # proposed | possible (curation.detection.scoring.judgement)
    # The weakest P(one fact) of any two members: how sure the cluster is.
    confidence: float = 1.0
    evidence: list[str] = field(default_factory=list)
    # How the pair model weighed its weakest joining pair (scoring.judgement.explain).
    explanation: dict = field(default_factory=dict)


@dataclass
class ConflictCandidate:
    older: int
    newer: int
    judgement: Judgement
    explanation: dict = field(default_factory=dict)


@dataclass
class Plan:
    collapses: list[Group] = field(default_factory=list)  # exact duplicates
    auto_merges: list[Group] = field(default_factory=list)
    clusters: list[ReviewCluster] = field(default_factory=list)
    conflicts: list[ConflictCandidate] = field(default_factory=list)
    pairs_checked: int = 0
    # The LLM judge's audit of this plan (curation.llm.audit.Audit), kept with it.
    audit: object | None = None


def plan_namespace(
    memories: Sequence,
    vectors: np.ndarray | None,
    *,
    changed: Sequence[int] | None = None,
    thresholds: Thresholds,
    judged_pairs: set[tuple[str, str]] = frozenset(),
    vector_pairs: Callable[[np.ndarray, np.ndarray, float], np.ndarray] | None = None,
    multi_vectors: np.ndarray | None = None,
    model: PairModel | None = None,
) -> Plan:
    """Judge and group in one go (no LLM): see judge_namespace and group."""
    judged = judge_namespace(
        memories,
        vectors,
        changed=changed,
        thresholds=thresholds,
        vector_pairs=vector_pairs,
        multi_vectors=multi_vectors,
        model=model,
    )
    return group(judged, judged_pairs=judged_pairs)


def group(
    judged: Judged,
    *,
    judged_pairs: set[tuple[str, str]] = frozenset(),
    absorbed: Callable[[list[int]], dict[int, list]] | None = None,
    open_clusters: Sequence[Sequence[int]] = (),
) -> Plan:
    """Fold exact copies and near-identical pairs, cluster the review band without
    chaining, and list the conflicts. `judged_pairs` are (hash, hash) pairs people already
    judged: never proposed again. `absorbed(memory ids)` gives the memories each of them
    absorbed in earlier runs (with vectors): an automatic merge must hold against those
    too (see hold_across_runs). `open_clusters`: the members (positions) of each cluster
    earlier runs proposed and nobody decided yet, which share conflicts as this run's do."""
    memories = judged.memories
    plan = Plan(pairs_checked=len(judged.judgements))

    def already_judged(i: int, j: int) -> bool:
        low, high = sorted((memories[i].content_hash, memories[j].content_hash))
        return (low, high) in judged_pairs

    by_verdict: dict[str, list[tuple[int, int, Judgement]]] = {}
    for (i, j), judgement in list(judged.judgements.items()):
        if judgement.verdict != Verdict.DISTINCT and not already_judged(i, j):
            by_verdict.setdefault(judgement.verdict, []).append((i, j, judgement))
    folded, held_for_review = _fold(plan, judged, by_verdict, absorbed)
    review = [
        (i, j, jd)
        for i, j, jd in by_verdict.get(Verdict.REVIEW, []) + held_for_review
        if not {i, j} & folded
    ]
    _cluster(plan, judged, review, already_judged)
    for i, j, judgement in by_verdict.get(Verdict.CONFLICT, []):
        if {i, j} & folded - {g.representative for g in plan.collapses + plan.auto_merges}:
            continue  # a folded copy: its survivor carries the same conflict
        older, newer = judged.ordered(i, j)
        model = judged.model or stored_model()
        plan.conflicts.append(ConflictCandidate(older, newer, judgement, explain(judgement, model)))
    # An earlier cluster's member folded away this run is left out: its survivor speaks.
    earlier = [[m for m in members if m not in folded] for members in open_clusters]
    _share_within_clusters(plan, judged, already_judged, earlier)
    return plan


# What the readers may have read of a pair a conflict is shared onto: nothing sure, or
# the relation of a conflict. One they read as two facts (different subjects, another
# thing said of one subject) or as one fact with detail added rules the conflict out:
# the shared conflict is an inference from two other pairs, and there one of them is
# wrong. Held out with the judge wrong 15 % of the time (every set, three seeds), 31 of
# 60 shared conflicts were on such pairs, all 31 false; the 8 true ones were unread.
_SHAREABLE = frozenset({None, relations.UNREAD, relations.NEW_VALUE, relations.OPPOSITE})


def _share_within_clusters(plan: Plan, judged: Judged, already_judged, open_clusters) -> None:
    """The conflicts a cluster's members share: a memory proposed as one fact with
    another conflicts with what that one conflicts with ("Jonas wohnt in Hamburg" with the
    move to Munich, when "Jonas lives in Hamburg" does). Each such pair that no LLM
    decided and no person judged is a conflict as sure as both its grounds together
    (P(conflict) of the conflict times P(one fact) of the two members), proposed or
    possible by that figure against the bars (nothing under the possible bar), unless the
    model's own reading of the pair is the surer conflict or the readers read it as what
    no conflict is (_leaves_room). An LLM's answer of the pair that did not decide alone
    updates the figure as it would the model's (one "one fact" or "two facts" leaves it
    possible at most, at the default accuracy). Without it the paraphrase of an outdated
    fact stays in the store, unflagged, after the admin settles the conflict its twin was
    in. A cluster an earlier run opened shares as this run's do (a new memory's conflict
    with one member is the others' too), unless this run clusters the member anew."""
    judge = judged.judge
    cluster_of = {m: list(members) for members in open_clusters for m in members}
    cluster_of.update({m: cluster.members for cluster in plan.clusters for m in cluster.members})
    at = {frozenset((c.older, c.newer)): k for k, c in enumerate(plan.conflicts)}
    for conflict in list(plan.conflicts):
        grounds = conflict.judgement
        for side, other in ((conflict.older, conflict.newer), (conflict.newer, conflict.older)):
            members = cluster_of.get(side, ())
            for member in members if other not in members else ():
                pair = judge(member, other)
                if member == side or already_judged(member, other) or pair.decided_by == "llm":
                    continue
                if not _leaves_room(pair):
                    continue
                if pair.verdict not in (Verdict.DISTINCT, Verdict.CONFLICT):
                    continue  # read as one fact: the cluster's doubt, not a conflict
                sure = (grounds.probabilities or (0.0, 1.0, 0.0))[1] * judge(member, side).p_one
                if pair.llm_answer:  # an answer that did not decide alone still counts
                    sure = posterior((0.0, sure, 1.0 - sure), [pair.llm_answer])[1]
                key = frozenset((member, other))
                standing = plan.conflicts[at[key]].judgement if key in at else None
                if sure < judged.thresholds.possible_conflict or (
                    standing is not None and standing.probabilities[1] >= sure
                ):
                    continue
                shared = ConflictCandidate(
                    *judged.ordered(member, other),
                    _shared(judged, pair, grounds, sure, member, side),
                )
                if key in at:
                    plan.conflicts[at[key]] = shared
                else:
                    at[key] = len(plan.conflicts)
                    plan.conflicts.append(shared)


def _leaves_room(pair: Judgement) -> bool:
    """Whether a pair's readers leave room for a conflict shared onto it: no relation
    read that no conflict is (_SHAREABLE), and no subject of each side missing from the
    other ("Mailer-api is written in Go." / "Webhook-svc is a Rust service.": four more
    shared conflicts of those 60, all false)."""
    relation = pair.rules.relation.kind if pair.rules.relation else None
    two_subjects = pair.evidence is not None and pair.evidence.values[INDEX["subjects_differ"]]
    return relation in _SHAREABLE and not two_subjects


def _shared(judged: Judged, pair, grounds, sure: float, member: int, side: int) -> Judgement:
    """The judgement of a conflict `member` shares with `side` (its cluster's member, in
    a conflict read as `grounds`): see _share_within_clusters."""
    texts = [clipped(judged.memories[k].content, 80) for k in (member, side)]
    said, findings = "; ".join(grounds.reasons), grounds.findings
    # A copy of one text (from another source) is in the conflict of the same two texts,
    # as read; a paraphrase says why it is in it.
    if judged.memories[member].content_hash != judged.memories[side].content_hash:
        said = (
            f"\u201c{texts[0]}\u201d says what \u201c{texts[1]}\u201d says (proposed as one "
            f"fact), and the conflict of \u201c{texts[1]}\u201d stands for it too: {said}"
        )
        findings = ()
    # What the LLM answered of the pair itself, when it did not decide: it weighed here.
    answered = tuple(reason for reason in pair.reasons if reason.startswith("LLM: "))
    return replace(
        pair,
        verdict=Verdict.CONFLICT,
        tier=PROPOSED if sure >= judged.thresholds.propose_conflict else POSSIBLE,
        probabilities=(0.0, sure, 1.0 - sure),
        conflict_kind=grounds.conflict_kind,
        decided_by=grounds.decided_by,
        never_together=True,
        reasons=(said, *answered),
        findings=findings,
    )


def _fold(plan: Plan, judged: Judged, by_verdict: dict, absorbed) -> tuple[set[int], list]:
    """The plan's collapses of exact copies and automatic merges: (every memory folded
    away, the automatic pairs held for review)."""
    memories, judge = judged.memories, judged.judge
    folded: set[int] = set()
    plan.collapses = _fold_groups(memories, by_verdict.get(Verdict.EXACT, []), judge, 1.0, "exact")
    folded.update(p for group in plan.collapses for p in group.others)
    # A memory that exact copies fold into is merged no further this run (one fold per
    # memory), but it may still be proposed with others: it carries its copies.
    kept = {group.representative for group in plan.collapses}
    auto, held_for_review = [], []
    for i, j, jd in by_verdict.get(Verdict.AUTO_MERGE, []):
        if not {i, j} & folded:
            (held_for_review if {i, j} & kept else auto).append((i, j, jd))
    plan.auto_merges = _fold_groups(memories, auto, judge, judged.thresholds.auto_merge, "auto")
    if absorbed is not None:
        plan.auto_merges, held_back = hold_across_runs(plan.auto_merges, judged, absorbed)
        plan.clusters.extend(held_back)
    for group_ in plan.auto_merges:
        folded.update(group_.others)
    return folded, held_for_review


def _cluster(plan: Plan, judged: Judged, review: list, already_judged) -> None:
    """The plan's clusters for review: proposed ones first, joined by proposed edges (or
    ones a judge confirmed); then possible ones, joined by any, among the memories left."""
    judge = judged.judge

    def review_score(i: int, j: int, taken: set[int]):
        # Every two members at least possible, none set apart: a cluster of three
        # paraphrases holds although its outer two are nobody's nearest (which the model
        # reads as doubt), while two facts never share one.
        judgement = judge(i, j)
        if already_judged(i, j) or judgement.never_together or {i, j} & taken:
            return None
        confirmed = judgement.decided_by != "rule"
        return judgement.similarity, judgement.method, confirmed, judgement.p_one

    for tier in (PROPOSED, POSSIBLE):
        taken = {p for cluster in plan.clusters for p in cluster.members}
        edges = [
            judged.edge(i, j)
            for i, j, jd in review
            # A pair the model's own reading holds apart (never_together) is no edge,
            # though held back it may be possible (scoring.judgement.place): it shows
            # its doubt in its probabilities, and clusters do not chain through it.
            if not {i, j} & taken
            and (tier == POSSIBLE or jd.tier == PROPOSED)
            and not jd.never_together
        ]
        components = clustering.clusters(
            edges,
            pair_score=lambda i, j, taken=taken: review_score(i, j, taken),
            floor=judged.thresholds.possible_one,
        )
        for component in components:
            members = set(component.members)
            joining = [e for e in edges if {e.a, e.b} <= members]
            pairs = [judge(e.a, e.b) for e in component.edges]
            least = min(joining or component.edges, key=lambda e: e.strength)
            plan.clusters.append(
                ReviewCluster(
                    component.members,
                    component.edges,
                    component.weakest,
                    sorted({flag for jd in pairs for flag in jd.flags}),
                    tier=tier,
                    # How sure the proposal is: its weakest joining pair.
                    confidence=least.strength,
                    evidence=list(dict.fromkeys(f for jd in pairs for f in jd.findings)),
                    explanation=explain(judge(least.a, least.b), judged.model or stored_model()),
                )
            )


def hold_across_runs(
    groups: list[Group], judged: Judged, absorbed: Callable[[list[int]], dict[int, list]]
) -> tuple[list[Group], list[ReviewCluster]]:
    """Keep automatic merges from chaining across runs. A memory that absorbed others in
    an earlier run (S took A) folds again only with memories near-identical to every one
    it absorbed: without this, the next run would fold S into B although A and B were
    kept apart (the all-pairs condition, which holds within a run, would break across
    runs). Each group keeps the representative and every member compatible with all
    kept so far; a member held back goes to review with the one it was near-identical to
    (flagged), and a group left with one member is no fold."""
    memories, vectors = judged.memories, judged.vectors
    positions = [p for g in groups for p in (g.representative, *g.others)]
    ghosts = absorbed([memories[p].pk for p in positions]) if positions else {}
    if not ghosts:
        return groups, []

    def compatible(p: int, q: int) -> bool:
        for holder, other in ((p, q), (q, p)):
            for ghost in ghosts.get(memories[holder].pk, []):
                if ghost.embedding is None or vectors is None:
                    return False
                cosine = float(np.asarray(ghost.embedding, dtype=np.float32) @ vectors[other])
                older, newer = sorted((ghost, memories[other]), key=lambda m: m.created_at)
                verdict = assess_pair(
                    older,
                    newer,
                    cosine=cosine,
                    tfidf=judged.tfidf,
                    thresholds=judged.thresholds,
                    user_names=judged.user_names,
                    model=judged.model,
                ).verdict
                if verdict not in (Verdict.AUTO_MERGE, Verdict.EXACT):
                    return False
        return True

    kept_groups, held_back = [], []
    flag = "held back: an earlier automatic merge differs"
    for group_ in groups:
        kept = [group_.representative]
        for p in group_.others:
            if all(compatible(p, q) for q in kept):
                kept.append(p)
            else:
                edge = judged.edge(group_.representative, p)
                held_back.append(ReviewCluster(sorted((edge.a, edge.b)), [edge], edge, [flag]))
        if len(kept) > 1:
            edges = [e for e in group_.edges if e.a in kept and e.b in kept]
            keep = representative(kept, memory_of=memories.__getitem__)
            others = [p for p in kept if p != keep]
            kept_groups.append(Group(keep, others, edges, group_.reason))
    return kept_groups, held_back


def _fold_groups(
    memories: Sequence,
    pairs: list[tuple[int, int, Judgement]],
    judge: Callable[[int, int], Judgement],
    floor: float,
    reason: str,
) -> list[Group]:
    """Groups of memories to fold, where every pair inside carries the same verdict."""
    if not pairs:
        return []
    verdict = pairs[0][2].verdict
    edges = [
        clustering.Edge(i, j, jd.similarity if verdict == Verdict.EXACT else jd.cosine, jd.method)
        for i, j, jd in pairs
    ]

    def same_verdict(i: int, j: int) -> tuple[float, str] | None:
        judgement = judge(i, j)
        if judgement.verdict != verdict:
            return None
        return (1.0 if verdict == Verdict.EXACT else judgement.cosine), judgement.method

    groups = []
    for component in clustering.clusters(edges, pair_score=same_verdict, floor=floor):
        keep = representative(component.members, memory_of=memories.__getitem__)
        others = [p for p in component.members if p != keep]
        groups.append(Group(keep, others, component.edges, reason))
    return groups
