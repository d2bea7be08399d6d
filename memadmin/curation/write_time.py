"""Write-time dedup: the policy that decides what an agent's new memory becomes, before
it is stored (the API calls this). It reads with the same judgement as find_duplicates
(curation.detection) and writes only through curation.decisions.

Exact repeat: no new row; the existing memory gains this session/source in its
provenance and the higher confidence (`duplicate`). Near-identical with every guard
passing: stored, the older superseded by it, undoable (`replaced`). The review band:
merged by the LLM when one is configured (`merged`), else stored and the pair queued for
review (`inserted`, queued_for_review). Otherwise stored (`inserted`). Whatever it becomes,
a Conflict is opened with each neighbour it contradicts or updates (a key-token difference
on the same subject, in the proposed tier): with every copy of the old fact, not only the
nearest.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from memadmin.curation import decisions
from memadmin.curation.detection import pipeline
from memadmin.curation.detection.candidates.counts import Counts
from memadmin.curation.detection.comparing.rules import RuleReading
from memadmin.curation.detection.scoring import judgement as scoring
from memadmin.curation.detection.scoring.model import stored_model
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import POSSIBLE, PROPOSED, Verdict
from memadmin.curation.llm import client as llm
from memadmin.curation.llm import merges
from memadmin.curation.models import HistoryEvent
from memadmin.store import embeddings, multilingual, queries
from memadmin.store.importing import Record
from memadmin.store.models import Memory, MemoryStatus, Namespace

logger = logging.getLogger("memadmin.curation")


@dataclass
class WriteResult:
    action: str  # duplicate | replaced | merged | inserted
    memory: Memory | None = None
    similar: list[dict] = field(default_factory=list)
    conflict_id: int | None = None  # the nearest of conflict_ids
    conflict_ids: list[int] = field(default_factory=list)
    cluster_id: int | None = None
    queued_for_review: bool = False
    check_failed: bool = False
    embed_ms: float = 0.0
    check_ms: float = 0.0


def _lock(namespace_id: int, kind: str, value: str) -> None:
    """A transaction-level advisory lock on (namespace, kind, value): writers of the same
    id, or of the same text, go one at a time."""
    raw = hashlib.sha256(f"memadmin.write:{namespace_id}:{kind}:{value}".encode()).digest()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(raw[:8], "big", signed=True)]
        )


def write_memory(
    *, namespace: Namespace, record: Record, actor: str, llm_session=None
) -> WriteResult:
    """An agent's new memory, checked against the namespace before it is stored (see the
    module's docstring for the outcomes).

    Writers of the same text in one namespace are serialized by a transaction-level
    advisory lock, so concurrent identical posts leave one row. If the similarity check
    itself fails, the memory is stored anyway (fail open) and the failure logged.
    """
    started = time.perf_counter()
    vector = embeddings.encode([record.content])[0]
    multi_vector = None
    if multilingual.wanted(record.content, decisions.note_languages(namespace, [record.content])):
        multi_vector = multilingual.encode([record.content])[0]
    result = WriteResult(action="inserted")
    result.embed_ms = (time.perf_counter() - started) * 1000
    memory = decisions.new_memory(record, namespace, timezone.now())
    # The check reads only, before the write transaction: a failure cannot abort the
    # write (fail open), and the row lock below is held for the write alone.
    # An exact copy with a vector is the nearest neighbour; the re-check under the lock
    # below finds any other, so the check needs no query of its own for it.
    check_started = time.perf_counter()
    judged: list = []
    try:
        judged = _check_write(memory, namespace, vector, multi_vector)
    except Exception:
        logger.exception("DEDUP_FAIL write-time check failed; storing without it")
        result.check_failed = True
    result.check_ms = (time.perf_counter() - check_started) * 1000
    try:
        with transaction.atomic():
            # The id first, then the text, always in this order (no two writers can each
            # hold one and wait for the other). Under them, a concurrent writer of the same
            # id or text has committed, and what it wrote is seen below.
            _lock(namespace.pk, "id", record.external_id)
            _lock(namespace.pk, "text", memory.content_hash)
            if Memory.objects.filter(namespace=namespace, external_id=record.external_id).exists():
                raise decisions.DecisionError(_taken(record, namespace))
            existing = (
                Memory.objects.select_for_update()
                .defer("embedding", "embedding_multi")
                .filter(
                    namespace=namespace,
                    content_hash=memory.content_hash,
                    status=MemoryStatus.ACTIVE,
                )
                .order_by("created_at", "id")
                .first()
            )
            if existing is not None:
                result.action = "duplicate"
                result.memory = decisions.record_repeat(
                    existing=existing, record=record, actor=actor
                )
                return result
            result.memory = decisions.insert_written(
                memory=memory, vector=vector, multi_vector=multi_vector, actor=actor
            )
            _act_on_write(memory, judged, actor, llm_session, result)
    except IntegrityError as error:
        # The locks make this unreachable for the id; should a writer outside this path
        # race it, the answer is still a refusal, never a server error.
        if "memory_unique_external_id" not in str(error):
            raise
        raise decisions.DecisionError(_taken(record, namespace)) from None
    return result


def _taken(record: Record, namespace: Namespace) -> str:
    return f"id {record.external_id!r} already exists in {namespace.name}"


def _check_write(memory: Memory, namespace: Namespace, vector, multi_vector) -> list:
    """The dedup check: the nearest active memories (by both models for a memory that has
    the multilingual vector) and the judgement of each pair (older, new), nearest first.
    Reads only."""
    neighbours = queries.nearest_memories(
        namespace, vector, k=settings.API_NEIGHBOURS, multi_vector=multi_vector
    )
    if multi_vector is not None and namespace.multilingual:
        # Elsewhere only short memories have the vector (as in a run): none is computed.
        neighbours = _with_multilingual_cosines(neighbours, multi_vector)
    thresholds = Thresholds.from_settings()
    # IDF over the neighbourhood: a whole-namespace IDF per write would cost more than
    # the rest of the request; the neighbours share the subject, which is what it weighs.
    # Likewise the names the user goes by, read from the neighbourhood.
    counts = Counts.of([memory.content, *(n.memory.content for n in neighbours)])
    tfidf, names = counts.tfidf(), counts.user_names()
    read = {}
    for index, n in enumerate(neighbours):
        candidate = n.similarity >= thresholds.candidate or (
            n.multi is not None and n.multi >= thresholds.multi_candidate
        )
        if candidate or n.memory.content_hash == memory.content_hash:
            read[index] = pipeline.read_pair(
                n.memory,
                memory,
                cosine=n.similarity,
                tfidf=tfidf,
                thresholds=thresholds,
                multi=n.multi,
                user_names=names,
            )
    # The new memory (position -1) and its nearest, as a run's namespace is scored: which
    # is the closest of each is evidence too.
    scored = scoring.score_together(
        {
            (index, -1): (rules, evidence, neighbours[index].memory, memory)
            for index, (rules, evidence) in read.items()
            if evidence is not None
        },
        stored_model(),
        thresholds,
    )
    judged = []
    for index, n in enumerate(neighbours):
        if (index, -1) in scored:
            judgement = scored[(index, -1)]
        elif index in read:
            judgement = scoring.exact(read[index][0])
        else:  # below the vector layer's floor: only listed as similar
            below = RuleReading(Verdict.DISTINCT, n.similarity, n.similarity, 0.0, "vector")
            judgement = scoring.listed_only(below)
        judged.append((n, judgement))
    return judged


def _with_multilingual_cosines(neighbours: list, multi_vector) -> list:
    """Neighbours stored before their namespace turned multilingual have no multilingual
    vector until the next find_duplicates or embed_memories run: computed here for the
    few the check reads (not stored: the check reads only)."""
    missing = [n for n in neighbours if n.multi is None]
    if not missing:
        return neighbours
    vectors = multilingual.encode([n.memory.content for n in missing])
    computed = {
        n.memory.pk: float(vector @ multi_vector)
        for n, vector in zip(missing, vectors, strict=True)
    }
    return [
        queries.Neighbour(n.memory, n.similarity, computed[n.memory.pk]) if n.multi is None else n
        for n in neighbours
    ]


def _act_on_write(memory: Memory, judged: list, actor: str, llm_session, result: WriteResult):
    """Open a conflict with each neighbour the new memory contradicts or updates, then act
    on the nearest judgement of one fact (merge or review, in the proposed tier); list the
    rest as `similar`. A doubtful pair is left to the next find_duplicates run, which
    ranks it with the namespace's other doubtful pairs (and asks the LLM about it, when
    one is configured)."""
    # A possible pair is listed as similar below: nothing is opened for it.
    verdicts = [
        Verdict.DISTINCT if judgement.tier == POSSIBLE else judgement.verdict
        for _, judgement in judged
    ]
    # The conflicts first: a merge that folds the new memory away then carries them to
    # the merged memory (curation.decisions.overlaps), as any merge does.
    gone = set()  # neighbours a concurrent write folded or changed after the check
    for (neighbour, judgement), verdict in zip(judged, verdicts, strict=True):
        if verdict != Verdict.CONFLICT:
            continue
        if not _still_active(neighbour.memory):
            gone.add(neighbour.memory.pk)
        else:
            conflict, _ = decisions.open_conflict(
                older=neighbour.memory, newer=memory, **judgement.conflict_fields(stored_model())
            )
            result.conflict_ids.append(conflict.pk)
    result.conflict_id = result.conflict_ids[0] if result.conflict_ids else None
    decided = False
    auto_merge = Thresholds.from_settings().auto_merge
    for (neighbour, judgement), verdict in zip(judged, verdicts, strict=True):
        older = neighbour.memory
        if not decided and verdict in (Verdict.AUTO_MERGE, Verdict.REVIEW):
            # A concurrent write folded or changed this neighbour after the check: act on
            # nothing against it. The new memory is stored all the same; the next run of
            # find_duplicates judges it against what stands now.
            if _still_active(older):
                _one_fact(memory, older, judgement, actor, llm_session, result)
                decided = True
            continue
        if judgement.similarity < auto_merge and older.pk not in gone:
            result.similar.append(
                {
                    "id": older.external_id,
                    "content": older.content,
                    "similarity": round(neighbour.similarity, 4),
                }
            )


def _one_fact(memory: Memory, older: Memory, judgement, actor: str, llm_session, result) -> None:
    """The new memory and its nearest neighbour of one fact: near-identical with every
    guard passing, the older superseded by it (`replaced`); else a cluster for review,
    merged now by the LLM where the model is as sure as an automatic merge needs."""
    if judgement.verdict == Verdict.AUTO_MERGE:
        cluster = decisions.fold_memories(
            survivor=memory,
            others=[older],
            edges=[_edge(older, memory, judgement)],
            action=HistoryEvent.Action.MERGE,
            actor=actor,
            reason=f"replaced at write time ({'; '.join(judgement.reasons)})",
        )
        result.action, result.cluster_id = "replaced", cluster.pk
        memory.refresh_from_db()
        return
    cluster, _ = decisions.open_cluster(
        namespace=memory.namespace,
        memories=[older, memory],
        edges=[_edge(older, memory, judgement)],
        flags=list(judgement.flags),
        tier=judgement.tier or PROPOSED,
        confidence=judgement.confidence,
        evidence=judgement.findings,
        explanation=scoring.explain(judgement, stored_model()),
    )
    result.cluster_id = cluster.pk
    merged = _merge_now(cluster, [older, memory], llm_session, actor, judgement)
    if merged is not None:
        result.action, result.memory = "merged", merged
    else:
        result.queued_for_review = True


def _still_active(memory: Memory) -> bool:
    """Lock the neighbour's row (until the write commits) and say whether it is active."""
    locked = Memory.objects.select_for_update().filter(pk=memory.pk, status=MemoryStatus.ACTIVE)
    return locked.values_list("pk", flat=True).first() is not None


def _merge_now(cluster, members, llm_session, actor, judgement) -> Memory | None:
    """The LLM writes the merged text of a pair at write time and it is accepted, when
    the calibrated model is as sure of one fact as an automatic merge needs (not for
    protected memories); the proposal and both originals stay in history. A pair it is
    less sure of waits for review."""
    if llm_session is None or not llm.configured() or judgement.flags:
        return None
    if judgement.p_one < Thresholds.from_settings().auto_confidence:
        return None
    draft = merges.draft_for(members, llm_session)
    if draft.author != "llm":
        return None
    proposal = decisions.record_proposal(cluster=cluster, members=members, draft=draft)
    return decisions.accept_proposal(proposal=proposal, user=None, actor=actor)


def _edge(a: Memory, b: Memory, judgement) -> dict:
    return {
        "a": a.pk,
        "b": b.pk,
        "similarity": round(float(judgement.similarity), 4),
        "method": judgement.method,
        "confidence": round(float(judgement.p_one), 4),
    }
