"""Measuring detection in memory, with no database: the labelled sets scored as they are
and perturbed (the invariance runs), and the minimal-pair suites. bench/calibrate.py and
bench/minimal_pairs.py print what this computes; the tests hold it to its bounds.

Everything runs the code find_duplicates runs (curation.planning over the same
judgement); only the reading of memories from files instead of the database differs.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from memadmin.curation.detection import guards, pipeline
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import PROPOSED
from memadmin.curation.learning import evaluation
from memadmin.curation.runs import planning
from memadmin.store import embeddings, multilingual
from memadmin.store.text import content_hash

# --- Labelled sets -----------------------------------------------------------------------


def load_set(folder: Path) -> tuple[list[dict], dict]:
    """A labelled set: memories.jsonl (the import format) and labels.json."""
    lines = (folder / "memories.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return rows, evaluation.read_labels(folder / "labels.json")


def as_memory(row: dict):
    """An import line as the fields detection reads of a Memory."""
    return SimpleNamespace(
        pk=row["id"],
        external_id=row["id"],
        content=row["content"],
        content_hash=content_hash(row["content"]),
        category=row.get("category", ""),
        source_ref=row.get("source_ref", ""),
        tags=row.get("tags", []),
        importance=row.get("importance", 0.5),
        confidence=row.get("confidence", 0.5),
        access_count=0,
        pinned=False,
        created_at=datetime.fromisoformat(row["created_at"].replace("Z", "+00:00")),
    )


class Vectors:
    """Both models' vectors of every text asked for, computed once per text."""

    def __init__(self) -> None:
        self.minilm: dict[str, np.ndarray] = {}
        self.multi: dict[str, np.ndarray] = {}

    def add(self, texts: Iterable[str]) -> None:
        missing = sorted({t for t in texts if t not in self.minilm})
        if missing:
            self.minilm.update(zip(missing, embeddings.encode(missing), strict=True))
            self.multi.update(zip(missing, multilingual.encode(missing), strict=True))


@dataclass
class Output:
    """One namespace's detection, in external ids: what is proposed (clusters, automatic
    merges, conflicts), and apart from it what is only possible."""

    ids: list[str]
    clusters: list[list[str]] = field(default_factory=list)
    automatic: list[list[str]] = field(default_factory=list)
    conflicts: list[tuple[str, str]] = field(default_factory=list)
    conflict_kinds: dict[frozenset, str] = field(default_factory=dict)
    possible_clusters: list[list[str]] = field(default_factory=list)
    possible_conflicts: list[tuple[str, str]] = field(default_factory=list)
    asked: set[frozenset] = field(default_factory=set)  # pairs the LLM decided
    candidates: set[frozenset] = field(default_factory=set)  # pairs any layer reached
    audit: object | None = None  # the LLM judge's audit of the pass (curation.llm.audit)


def with_possible(outputs: Sequence[Output]) -> list[Output]:
    """The outputs with their possible tier counted as proposed: what a curator who also
    works the possible filters reaches without an LLM (its recall is the one to hold
    against rules that proposed everything they found)."""
    return [
        replace(
            output,
            clusters=output.clusters + output.possible_clusters,
            conflicts=output.conflicts + output.possible_conflicts,
            possible_clusters=[],
            possible_conflicts=[],
        )
        for output in outputs
    ]


def judge_namespace(
    memories: Sequence, thresholds: Thresholds, vectors: Vectors, model=None
) -> pipeline.Judged:
    """Every candidate pair of one namespace judged as find_duplicates judges it (no
    LLM). Memories are taken in a fixed order (created, then external id), as a run
    reads them."""
    memories = sorted(memories, key=lambda m: (m.created_at, m.external_id))
    vectors.add(m.content for m in memories)
    minilm = np.stack([vectors.minilm[m.content] for m in memories])
    # As stored: the multilingual vector for every memory of a namespace of several
    # languages, else for the short ones (rows of zeros for the others).
    several = multilingual.needs_multilingual(m.content for m in memories)
    given = [multilingual.wanted(m.content, several) for m in memories]
    multi = None
    if any(given):
        multi = np.stack(
            [
                vectors.multi[m.content] if wanted else np.zeros_like(vectors.multi[m.content])
                for m, wanted in zip(memories, given, strict=True)
            ]
        )
    return pipeline.judge_namespace(
        memories, minilm, thresholds=thresholds, multi_vectors=multi, model=model
    )


def output_of(judged: pipeline.Judged, plan: planning.Plan | None = None) -> Output:
    """What grouping a namespace's judged pairs proposes (`plan`, else grouped here), in
    external ids."""
    plan = plan or planning.group(judged)
    ids = [m.external_id for m in judged.memories]
    output = Output(ids)
    for group in plan.collapses + plan.auto_merges:
        members = [ids[group.representative]] + [ids[p] for p in group.others]
        output.clusters.append(members)
        output.automatic.append(members)
    for cluster in plan.clusters:
        members = [ids[p] for p in cluster.members]
        (output.clusters if cluster.tier == PROPOSED else output.possible_clusters).append(members)
    for conflict in plan.conflicts:
        pair = (ids[conflict.older], ids[conflict.newer])
        if conflict.judgement.tier != PROPOSED:
            output.possible_conflicts.append(pair)
            continue
        output.conflicts.append(pair)
        output.conflict_kinds[frozenset(pair)] = conflict.judgement.conflict_kind
    output.audit = plan.audit
    return output


def plan_namespace(
    memories: Sequence, thresholds: Thresholds, vectors: Vectors, model=None, llm_options=None
) -> Output:
    """What find_duplicates proposes for these memories (one namespace): with no LLM, or
    with `llm_options` (a dry run's runs.Options with an LLM session) deciding the
    doubtful pairs as a run's band does (curation.llm.band, nothing recorded)."""
    judged = judge_namespace(memories, thresholds, vectors, model)
    plan = None
    if llm_options is not None:
        from memadmin.curation.llm import band as llm_verdicts
        from memadmin.curation.runs.options import NamespaceReport

        report = NamespaceReport(namespace="", changed=len(memories))
        llm_verdicts.ask_band(judged, None, llm_options, report, cached=dict)
        plan = planning.group(judged)
        plan.audit = llm_verdicts.draw_audit(judged, plan, llm_options, report)
    output = output_of(judged, plan)
    output.asked = {
        frozenset((judged.memories[i].external_id, judged.memories[j].external_id))
        for (i, j), judgement in judged.judgements.items()
        if judgement.llm_answer
    }
    output.candidates = {
        frozenset((judged.memories[i].external_id, judged.memories[j].external_id))
        for i, j in judged.judgements
    }
    return output


def by_namespace(rows: list[dict]) -> dict[str, list]:
    found: dict[str, list] = {}
    for row in rows:
        found.setdefault(row["namespace"], []).append(as_memory(row))
    return dict(sorted(found.items()))


def plan_set(
    rows: list[dict], thresholds: Thresholds, vectors: Vectors, model=None, session=None
) -> list[Output]:
    """Every namespace of a set, planned on its own; with `session`, as one run asking
    an LLM (its budget shared across the namespaces)."""
    llm_options = None
    if session is not None:
        from memadmin.curation.runs.options import Options

        llm_options = Options(dry_run=True, llm_session=session)
    outputs = [
        plan_namespace(memories, thresholds, vectors, model, llm_options)
        for memories in by_namespace(rows).values()
    ]
    if llm_options is not None:
        from memadmin.curation.llm import band as llm_verdicts

        llm_verdicts.ask_audits(llm_options)  # as a run asks a batch's audits together
    return outputs


def score(labels: dict, outputs: Sequence[Output]) -> evaluation.Score:
    return evaluation.score_output(labels, outputs)


# --- Invariance: the same set with its metadata changed ---------------------------------

# Each changes what a store's conventions decide and leaves the facts alone, so the
# labels stay true; detection should give the same figures.
PERTURBATIONS: dict[str, Callable[[list[dict], random.Random], list[dict]]] = {
    "tags emptied": lambda rows, _: [{**r, "tags": []} for r in rows],
    "tags renamed": lambda rows, _: [
        {**r, "tags": [f"t{content_hash(tag)[:6]}" for tag in r.get("tags", [])]} for r in rows
    ],
    # Each memory's tags in a language of its own: no two memories share a tag.
    "tags translated": lambda rows, _: [
        {**r, "tags": [f"{tag}@{r['id']}" for tag in r.get("tags", [])]} for r in rows
    ],
    "one category": lambda rows, _: [{**r, "category": "memory"} for r in rows],
    "dates shifted a year": lambda rows, _: [
        {**r, "created_at": _shift(r["created_at"], timedelta(days=365))} for r in rows
    ],
    "shuffled": lambda rows, rng: rng.sample(rows, len(rows)),
    "no metadata": lambda rows, _: [
        {"id": r["id"], "namespace": r["namespace"], "content": r["content"]}
        | {"created_at": r["created_at"]}
        for r in rows
    ],
}


def _shift(stamp: str, delta: timedelta) -> str:
    moved = datetime.fromisoformat(stamp.replace("Z", "+00:00")) + delta
    return moved.isoformat().replace("+00:00", "Z")


def labels_after(labels: dict, before: list[dict], after: list[dict]) -> dict:
    """The labels a perturbed set is scored by: a pair whose metadata guard was the
    metadata taken away (another category, source or session before, none now) is no
    longer guarded and is not scored either way; a memory protected only by a category
    it lost is no longer protected. Everything else stands."""
    old = {row["id"]: as_memory(row) for row in before}
    new = {row["id"]: as_memory(row) for row in after}
    namespaces: dict[str, list[str]] = {}
    for row in before:
        namespaces.setdefault(row["namespace"], []).append(row["id"])
    lost = {
        frozenset((a, b))
        for ids in namespaces.values()
        for index, a in enumerate(ids)
        for b in ids[index + 1 :]
        if guards.metadata_guard(old[a], old[b]) and not guards.metadata_guard(new[a], new[b])
    }
    guarded = [p for p in labels.get("guarded_pairs", []) if frozenset(p) not in lost]
    protected = [i for i in labels.get("protected_ids", []) if guards.is_protected(new[i])]
    return {
        **labels,
        "guarded_pairs": guarded,
        "protected_ids": protected,
        "unscored_pairs": list(labels.get("unscored_pairs", [])) + [sorted(p) for p in lost],
    }


@dataclass
class InvarianceRow:
    name: str
    score: evaluation.Score


def invariance(
    rows: list[dict], labels: dict, thresholds: Thresholds, vectors: Vectors, *, seed: int = 7
) -> list[InvarianceRow]:
    """The set as it is, then once per perturbation."""
    table = [InvarianceRow("as labelled", score(labels, plan_set(rows, thresholds, vectors)))]
    for name, perturb in PERTURBATIONS.items():
        changed = perturb(rows, random.Random(seed))
        outputs = plan_set(changed, thresholds, vectors)
        table.append(InvarianceRow(name, score(labels_after(labels, rows, changed), outputs)))
    return table


def format_invariance(table: list[InvarianceRow]) -> str:
    """The README's invariance table (Markdown)."""
    base = table[0].score
    lines = [
        "| run | duplicate P | duplicate R | conflict P | conflict R | unsafe automatic "
        "merges | largest change |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in table:
        lines.append(
            f"| {row.name} | {row.score.precision:.3f} | {row.score.recall:.3f} | "
            f"{row.score.conflict_precision:.3f} | {row.score.conflict_recall:.3f} | "
            f"{len(row.score.unsafe_auto_merges)} | {largest_change(base, row.score):.3f} |"
        )
    return "\n".join(lines)


def largest_change(base: evaluation.Score, other: evaluation.Score) -> float:
    """The largest move of the four figures between two runs."""
    return max(
        abs(base.precision - other.precision),
        abs(base.recall - other.recall),
        abs(base.conflict_precision - other.conflict_precision),
        abs(base.conflict_recall - other.conflict_recall),
    )


# --- Leave one namespace out --------------------------------------------------------------

# The thresholds leave-one-namespace-out chooses among (the rest stay as set).
GRID = {
    "review": (0.40, 0.45, 0.50),
    "multi_review": (0.85, 0.87, 0.89),
    "conflict": (0.38, 0.42, 0.46),
    "conflict_slot": (0.35, 0.40, 0.45),
}


def objective(result: evaluation.Score) -> float:
    """What calibration maximises: duplicate F1 + conflict F1, and never an unsafe merge."""
    if result.unsafe_auto_merges:
        return -1.0

    def f1(precision: float, recall: float) -> float:
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0

    return f1(result.precision, result.recall) + f1(
        result.conflict_precision, result.conflict_recall
    )


def leave_one_namespace_out(
    rows: list[dict],
    labels: dict,
    base: Thresholds,
    vectors: Vectors,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[evaluation.Score, list[tuple[str, dict, evaluation.Score]]]:
    """For each namespace, the thresholds of GRID are chosen on the other namespaces and
    scored on the one left out. The pooled held-out score, and each namespace's choice."""
    import itertools

    namespaces = sorted({row["namespace"] for row in rows})
    combos = [dict(zip(GRID, values, strict=True)) for values in itertools.product(*GRID.values())]
    outputs: dict[tuple[int, str], Output] = {}
    for index, combo in enumerate(combos):
        thresholds = dataclasses.replace(base, **combo)
        for output in plan_set(rows, thresholds, vectors):
            namespace = next(r["namespace"] for r in rows if r["id"] == output.ids[0])
            outputs[index, namespace] = output
        if on_progress:
            on_progress(index + 1, len(combos))
    held_out, chosen = [], []
    for namespace in namespaces:
        training = [ns for ns in namespaces if ns != namespace]

        def trained(index: int, training=training) -> float:
            return objective(score(labels, [outputs[index, ns] for ns in training]))

        best = max(range(len(combos)), key=trained)
        held_out.append(outputs[best, namespace])
        chosen.append((namespace, combos[best], score(labels, [outputs[best, namespace]])))
    return score(labels, held_out), chosen


# --- Minimal pairs ------------------------------------------------------------------------

LABELS = ("duplicate", "conflict", "update", "contradiction", "distinct")
_PAIR_LINE = re.compile(r"^\s*(\w+)\s*\|(.+)\|(.+)$")


@dataclass(frozen=True)
class Pair:
    suite: str
    line: int
    label: str
    older: str
    newer: str


class BadSuite(ValueError):
    pass


def read_suite(path: Path) -> list[Pair]:
    """A minimal-pair file: `label | older | newer` a line, `#` comments."""
    pairs = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        match = _PAIR_LINE.match(text)
        if not match or match.group(1) not in LABELS:
            raise BadSuite(f"{path.name}: line {number}: expected 'label | older | newer'")
        label, older, newer = (part.strip() for part in match.groups())
        pairs.append(Pair(path.stem, number, label, older, newer))
    return pairs


@dataclass(frozen=True)
class PairOutcome:
    pair: Pair
    # duplicate | automatic | conflict:<kind> | distinct, or possible:duplicate |
    # possible:conflict (the doubtful tier: not proposed, ranked apart)
    found: str
    reasons: str

    @property
    def wrong(self) -> bool:
        """Proposed as something it is not: a cluster or automatic merge of a pair that is
        not one fact, a conflict of a pair that is none (a doubtful pair is not wrong)."""
        label, found = self.pair.label, self.found
        if found in ("duplicate", "automatic"):
            return label != "duplicate"
        if found.startswith("conflict"):
            return label in ("duplicate", "distinct")
        return False

    @property
    def passed(self) -> bool:
        label = self.pair.label
        if label == "duplicate":
            return self.found in ("duplicate", "automatic")
        if label == "distinct":
            return self.found == "distinct"
        if label == "conflict":
            return self.found.startswith("conflict")
        return self.found == f"conflict:{label}"

    @property
    def unsafe(self) -> bool:
        """Merged with no review, and not one fact."""
        return self.found == "automatic" and self.pair.label != "duplicate"


def judge_pairs(
    pairs: Sequence[Pair], thresholds: Thresholds, vectors: Vectors, session=None
) -> list:
    """Each pair alone, as a namespace of two memories with no metadata, the newer 30 days
    after the older; with `session` (an llm.Session), the doubtful ones asked as a run
    asks them."""
    llm_options = None
    if session is not None:
        from memadmin.curation.runs.options import Options

        llm_options = Options(dry_run=True, llm_session=session)
    vectors.add(text for pair in pairs for text in (pair.older, pair.newer))
    start = datetime(2026, 1, 5, 9, 0).astimezone()
    outcomes = []
    for index, pair in enumerate(pairs):
        rows = [
            {"id": f"p{index}-a", "content": pair.older, "created_at": start.isoformat()},
            {
                "id": f"p{index}-b",
                "content": pair.newer,
                "created_at": (start + timedelta(days=30)).isoformat(),
            },
        ]
        output = plan_namespace(
            [as_memory(r) for r in rows], thresholds, vectors, llm_options=llm_options
        )
        if output.automatic:
            found = "automatic"
        elif output.clusters:
            found = "duplicate"
        elif output.conflicts:
            found = f"conflict:{next(iter(output.conflict_kinds.values()))}"
        elif output.possible_clusters:
            found = "possible:duplicate"
        elif output.possible_conflicts:
            found = "possible:conflict"
        else:
            found = "distinct"
        outcomes.append(PairOutcome(pair, found, ""))
    return outcomes


def format_pairs(outcomes: Sequence[PairOutcome]) -> str:
    """The README's minimal-pair table (Markdown): each suite, its pairs passed, by
    language of the pair, and automatic merges of pairs that are not one fact."""
    from memadmin.store.lexicon import language_of

    suites: dict[str, list[PairOutcome]] = {}
    for outcome in outcomes:
        suites.setdefault(outcome.pair.suite, []).append(outcome)
    lines = [
        "| suite | pairs | passed | doubtful | wrong | en | de | fr | zh | unsafe automatic "
        "merges |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for suite, found in suites.items():
        by_language: dict[str, list[bool]] = {}
        for outcome in found:
            languages = {language_of(outcome.pair.older), language_of(outcome.pair.newer)}
            for language in languages & {"en", "de", "fr", "zh"}:
                by_language.setdefault(language, []).append(outcome.passed)
        cells = [
            f"{sum(v)}/{len(v)}" if (v := by_language.get(lang)) else "-"
            for lang in ("en", "de", "fr", "zh")
        ]
        passed = sum(o.passed for o in found)
        doubtful = sum(o.found.startswith("possible") for o in found)
        wrong = sum(o.wrong for o in found)
        lines.append(
            f"| {suite} | {len(found)} | {passed / len(found):.0%} | {doubtful / len(found):.0%}"
            f" | {wrong / len(found):.0%} | {' | '.join(cells)} | "
            f"{sum(o.unsafe for o in found)} |"
        )
    return "\n".join(lines)
