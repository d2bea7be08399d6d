"""Test data, built one way for every test module: vectors with a chosen cosine, memory
lines in the import format, stored memories (through the real import), namespaces, people
holding a role, and clusters opened through curation.decisions."""

from __future__ import annotations

import json
import re

import numpy as np

NAMESPACE = "alice"
CREATED_AT = "2026-01-01T00:00:00Z"


def unit(seed: int) -> np.ndarray:
    """A random unit vector of the embedding's dimension, the same for the same seed."""
    vector = np.random.default_rng(seed).normal(size=384)
    return vector / np.linalg.norm(vector)


def close_to(vector, cosine: float, other_seed: int = 7) -> list[float]:
    """A unit vector whose cosine with the unit `vector` is `cosine`."""
    vector = np.asarray(vector)
    noise = unit(other_seed)
    noise = noise - (noise @ vector) * vector
    noise /= np.linalg.norm(noise)
    return list(cosine * vector + np.sqrt(1 - cosine**2) * noise)


def near(seed: int, cosine: float, other_seed: int = 999) -> list[float]:
    """A unit vector whose cosine with unit(seed) is `cosine`."""
    base, noise = unit(seed), unit(other_seed)
    noise = noise - (noise @ base) * base
    noise /= np.linalg.norm(noise)
    return list(cosine * base + np.sqrt(1 - cosine**2) * noise)


def line(
    external_id: str,
    content: str,
    vector=None,
    *,
    namespace: str = NAMESPACE,
    category: str = "fact",
    created_at: str = CREATED_AT,
    **fields,
) -> dict:
    """One memory in the import format (a JSONL line); `vector` becomes its embedding (else
    the model embeds the text). A field given as None is left out of the line."""
    built = {
        "id": external_id,
        "namespace": namespace,
        "content": content,
        "category": category,
        "created_at": created_at,
        **fields,
    }
    if vector is not None:
        built["embedding"] = [float(x) for x in vector]
    return {key: value for key, value in built.items() if value is not None}


def llm_band_pair(namespace: str = NAMESPACE) -> tuple[dict, dict]:
    """Two memories the rules leave to the LLM (cosine 0.62, in its band): one preference
    said two ways."""
    return (
        line(
            "a",
            "Prefers a once-a-day summary of alerts over real-time pings.",
            unit(1),
            namespace=namespace,
            tags=["alerts"],
        ),
        line(
            "b",
            "Owner likes homelab alerts batched into a daily digest.",
            near(1, 0.62),
            namespace=namespace,
            tags=["alerts"],
            created_at="2026-02-01T00:00:00Z",
        ),
    )


def hosting_change(old: str = "old", new: str = "new", seed: int = 1) -> list[dict]:
    """The seeds' worked example: one fact changed ("deployed on Hetzner", months later
    "on Railway"), near-identical vectors, a conflict and never a merge."""
    return [
        line(old, "The billing API is deployed on Hetzner.", unit(seed)),
        line(
            new,
            "The billing API is deployed on Railway.",
            near(seed, 0.97),
            created_at="2026-05-01T00:00:00Z",
        ),
    ]


def store(*lines: dict):
    """Import `lines` through curation.decisions.import_records (the import command's own
    writer); returns the memories, in order."""
    from memadmin.curation import decisions
    from memadmin.store.importing import parse_record
    from memadmin.store.models import Memory

    records = [parse_record(raw, line=n, default_namespace=None) for n, raw in enumerate(lines, 1)]
    decisions.import_records(records=records, actor="test")
    stored = {
        (m.namespace.name, m.external_id): m
        for m in Memory.objects.select_related("namespace").filter(
            external_id__in=[r.external_id for r in records]
        )
    }
    return [stored[(r.namespace, r.external_id)] for r in records]


def unsaved(content: str = "x", *, day: int = 1, namespace=None, **fields):
    """A Memory that is not stored (for the pure functions: guards, prompts, proposals):
    created on 2026-01-`day`, category "fact", pk `day` unless given."""
    from datetime import UTC, datetime

    from memadmin.store.models import Memory
    from memadmin.store.text import content_hash

    defaults = {
        "pk": day,
        "external_id": f"m{day}",
        "category": "fact",
        "created_at": datetime(2026, 1, day, tzinfo=UTC),
        "content_hash": content_hash(content),
    }
    if namespace is not None:
        defaults["namespace"] = namespace
    return Memory(content=content, **{**defaults, **fields})


def namespace(name: str = NAMESPACE):
    from memadmin.store.models import Namespace

    return Namespace.objects.get_or_create(name=name)[0]


def person(name: str, role: str | None, *, password: str | None = None):
    """A user holding one role (viewer, curator or admin), or none."""
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user(name, password=password)
    if role:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def cluster(*memories, similarity: float = 0.8, method: str = "vector", flags=()):
    """An open cluster of `memories` (every pair at `similarity`), opened as detection
    opens one."""
    from memadmin.curation import decisions

    edges = [
        {"a": a.pk, "b": b.pk, "similarity": similarity, "method": method}
        for position, a in enumerate(memories)
        for b in memories[position + 1 :]
    ]
    opened, _ = decisions.open_cluster(
        namespace=memories[0].namespace, memories=memories, edges=edges, flags=list(flags)
    )
    return opened


def memory(external_id: str, namespace_name: str = NAMESPACE):
    """A stored memory, as it is now."""
    from memadmin.store.models import Memory

    return Memory.objects.get(namespace__name=namespace_name, external_id=external_id)


def status(external_id: str, namespace_name: str = NAMESPACE) -> str:
    return memory(external_id, namespace_name).status


# The longest namespace name the validation layer takes.
EXTREME_NAMESPACE = "n" * 99 + "-"


def deep(levels: int) -> dict:
    """JSON nested `levels` containers deep, with numbers at the edges of what is kept."""
    value: dict = {"leaf": [2**31 - 1, -(2**31 - 1), 1e308, 5e-324, -0.0, "ü" * 50]}
    for _ in range(levels - 2):
        value = {"n": value}
    return value


def extreme(external_id: str, content: str, vector=None, **fields) -> dict:
    """A memory line with every field at the edge of what the validation layer takes."""
    from memadmin.store import validation

    values = {
        "namespace": EXTREME_NAMESPACE,
        "category": "c" * 100,
        "source_ref": "s" * 200,
        "session_id": "i" * 200,
        "tags": ["t" * 100, "🏷" * 100, *(f"tag{n}" for n in range(60))],
        "importance": 1.0,
        "confidence": 0.0,
        "access_count": validation.MAX_INTEGER,
        "created_at": "1970-01-01T00:00:00Z",
        "last_accessed_at": "9999-12-31T23:59:59.999999Z",
        "valid_from": "1970-01-01T00:00:00Z",
        "valid_until": "9999-12-31T23:59:59.999999+00:00",
        "metadata": deep(validation.MAX_DEPTH),
        "provenance": [deep(validation.MAX_DEPTH - 1)],
    }
    return line(external_id, content, vector, **{**values, **fields})


def run_state(prefix: str = "") -> dict:
    """What a run left in the namespaces whose names start with `prefix`, by external ids
    and namespace names without the prefix (row ids and times differ between runs): what
    two ways of running detection over the same memories must leave alike."""
    from memadmin.curation.models import Cluster, Conflict, DedupRun, HistoryEvent
    from memadmin.store.models import Memory

    memories = Memory.objects.filter(namespace__name__startswith=prefix)
    name = dict(memories.values_list("pk", "external_id"))

    def named(values):
        if values is None:
            return None
        kept = {k: v for k, v in values.items() if k not in ("created_at", "updated_at")}
        kept["superseded_by_id"] = name.get(kept.get("superseded_by_id"))
        return kept

    def members(cluster):
        return tuple(sorted(name[m] for m in cluster.memberships.values_list("memory", flat=True)))

    def space(row):
        return row.namespace.name.removeprefix(prefix)

    # A reason names a conflict by its row id ("conflict 21 overtaken: ..."): by its two
    # memories instead.
    conflict_names = {
        c.pk: f"{name[c.memory_a_id]}~{name[c.memory_b_id]}"
        for c in Conflict.objects.filter(namespace__name__startswith=prefix)
    }

    def reason(text: str) -> str:
        # ... and says when ("merged into d0203 by ... at 2026-12-05 12:57"): two runs
        # a minute apart write two minutes.
        text = re.sub(r" at \d{4}-\d\d-\d\d \d\d:\d\d", " at (when)", text)
        return re.sub(
            r"conflict (\d+)",
            lambda m: f"conflict {conflict_names.get(int(m[1]), m[1])}",
            text,
        )

    return {
        "memories": sorted(
            (
                space(m),
                m.external_id,
                m.status,
                name.get(m.superseded_by_id),
                m.tags,
                m.provenance,
                m.importance,
                m.confidence,
                m.access_count,
            )
            for m in memories.select_related("namespace")
        ),
        "clusters": sorted(
            (
                space(c),
                members(c),
                c.status,
                c.flags,
                c.min_similarity,
                sorted((name[e["a"]], name[e["b"]], e["similarity"], e["method"]) for e in c.edges),
            )
            for c in Cluster.objects.filter(namespace__name__startswith=prefix).select_related(
                "namespace"
            )
        ),
        "conflicts": sorted(
            (space(c), name[c.memory_a_id], name[c.memory_b_id], c.kind, c.reason, c.status)
            for c in Conflict.objects.filter(namespace__name__startswith=prefix).select_related(
                "namespace"
            )
        ),
        "history": sorted(
            (
                space(e),
                e.action,
                name.get(e.memory_id),
                e.actor,
                reason(e.reason),
                repr(named(e.before)),
                repr(named(e.after)),
                sorted(name[i] for i in e.related_memory_ids),
                members(e.cluster) if e.cluster_id else None,
            )
            for e in HistoryEvent.objects.filter(namespace__name__startswith=prefix).select_related(
                "cluster", "namespace"
            )
        ),
        "runs": sorted(
            (space(r), r.status, json.dumps({**r.counts}, sort_keys=True))
            for r in DedupRun.objects.filter(namespace__name__startswith=prefix).select_related(
                "namespace"
            )
        ),
    }
