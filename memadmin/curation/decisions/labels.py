"""A labelled sample of the store's own pairs (PairLabel), imported from a labels file in
the format evaluate_detection reads: the store's measured error rate rests on it and on
its people's decisions (curation.reads.measured)."""

from __future__ import annotations

import itertools
from collections import Counter

from django.db import transaction

from memadmin.curation.decisions.history import DecisionError
from memadmin.curation.models import JudgeAudit, LabelledMemory, PairLabel
from memadmin.store.models import Memory, Namespace

# The labels file's lists, and what each says of its pairs.
_LISTS = (
    ("hard_negatives", PairLabel.Label.TWO_FACTS),
    ("distinct_related", PairLabel.Label.TWO_FACTS),
)


def import_labels(
    labels: dict,
    *,
    source: str,
    actor: str,
    namespace: Namespace | None = None,
    complete: bool = False,
) -> Counter:
    """Store what a labels file says of its pairs: every two ids of a duplicate group one
    fact, each conflict a conflict (with its kind), hard negatives and distinct related
    pairs two facts. A pair labelled before takes the new label. `complete`: the file
    labels every pair of the memories it names, as evaluate_detection reads one (a pair of
    them it does not list is two facts); each named memory is noted as covered by it.
    Every id must name one memory of the store (of `namespace` when given) and both of a
    pair one namespace: refused by name (DecisionError), and nothing imported. Returns
    the pairs by label."""
    pairs: dict[tuple[str, str], tuple[str, str]] = {}
    for group in labels.get("duplicate_groups", []):
        for a, b in itertools.combinations(group, 2):
            pairs[_ordered(a, b)] = (PairLabel.Label.ONE_FACT, "")
    for conflict in labels.get("conflicts", []):
        kind = conflict.get("kind") if isinstance(conflict.get("kind"), str) else ""
        pairs[_ordered(conflict["a"], conflict["b"])] = (PairLabel.Label.CONFLICT, kind[:14])
    for key, label in _LISTS:
        for a, b in labels.get(key, []):
            pairs.setdefault(_ordered(a, b), (label, ""))
    named = {i for pair in pairs for i in pair}
    if complete:  # the ids it names alone count too: every pair of them is labelled
        named |= {i for group in labels.get("duplicate_groups", []) for i in group}
    memories = _memories_named(named, namespace)
    rows = []
    for (a, b), (label, kind) in pairs.items():
        first, second = sorted((memories[a], memories[b]), key=lambda m: m.pk)
        if first.pk == second.pk:
            continue  # an id paired with itself says nothing
        if first.namespace_id != second.namespace_id:
            raise DecisionError(f"{a} and {b} are in two namespaces: a pair is of one")
        rows.append(
            PairLabel(
                namespace_id=first.namespace_id,
                memory_a=first,
                memory_b=second,
                label=label,
                kind=kind,
                source=source,
                actor=actor,
            )
        )
    with transaction.atomic():
        PairLabel.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["memory_a", "memory_b"],
            update_fields=["label", "kind", "source", "actor", "created_at"],
        )
        if complete:
            LabelledMemory.objects.bulk_create(
                [LabelledMemory(memory=m, source=source, actor=actor) for m in memories.values()],
                update_conflicts=True,
                unique_fields=["memory"],
                update_fields=["source", "actor", "created_at"],
            )
    return Counter(row.label for row in rows)


def _ordered(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _memories_named(ids: set[str], namespace: Namespace | None) -> dict[str, Memory]:
    """The memory each external id names, refused by name when none does or several do
    (one per namespace: then the file must say which namespace it labels)."""
    found = Memory.objects.filter(external_id__in=ids).only("pk", "namespace_id", "external_id")
    if namespace is not None:
        found = found.filter(namespace=namespace)
    named: dict[str, list[Memory]] = {}
    for memory in found:
        named.setdefault(memory.external_id, []).append(memory)
    missing = sorted(ids - set(named))
    if missing:
        where = f"namespace {namespace.name}" if namespace else "the store"
        shown = ", ".join(missing[:10]) + (
            f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        )
        raise DecisionError(f"not in {where}: {shown}")
    several = sorted(i for i, memories in named.items() if len(memories) > 1)
    if several:
        raise DecisionError(
            f"in several namespaces: {', '.join(several[:10])}; say which with --namespace"
        )
    return {i: memories[0] for i, memories in named.items()}


def label_pair(*, memory_ids: tuple[int, int], label: str, user) -> PairLabel:
    """A person's answer on the audit queue: what the two memories are (or "unsure"),
    replacing any earlier label of the pair. Refused (DecisionError) for a memory that is
    not there, one memory twice, or two namespaces."""
    if label not in PairLabel.Label.values:
        raise DecisionError(f"no such answer: {label}")
    found = {m.pk: m for m in Memory.objects.filter(pk__in=memory_ids).only("pk", "namespace_id")}
    if len(set(memory_ids)) != 2 or len(found) != 2:
        raise DecisionError("those two memories are not a pair of this store")
    first, second = sorted(found.values(), key=lambda m: m.pk)
    if first.namespace_id != second.namespace_id:
        raise DecisionError("the two memories are in two namespaces: a pair is of one")
    labelled, _ = PairLabel.objects.update_or_create(
        memory_a=first,
        memory_b=second,
        defaults={
            "namespace_id": first.namespace_id,
            "label": label,
            "kind": "",
            "source": PairLabel.AUDIT_QUEUE,
            "actor": f"user:{user.get_username()}",
        },
    )
    return labelled


def record_audit(
    *,
    namespace_id: int,
    strata: list[dict],
    readings: int,
    disagreed: int,
    pairs: list,
    whole: bool = True,
) -> JudgeAudit:
    """Keep what the judge answered on a pass's audit (curation.llm.audit): a namespace's
    newest audit of a whole pass and those of the incremental passes since are what its
    measured error rate is estimated from (reads.measured)."""
    return JudgeAudit.objects.create(
        namespace_id=namespace_id,
        strata=strata,
        readings=readings,
        disagreed=disagreed,
        pairs=pairs,
        whole=whole,
    )
