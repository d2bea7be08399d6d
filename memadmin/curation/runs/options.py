"""What a find_duplicates run is asked to do (Options) and what it did in each namespace
(NamespaceReport). No other module of the run is imported here: every one of them, the
command and the queue's tasks read these types, so they stay at the bottom of the
imports (no circle)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memadmin.curation.llm import client as llm

ACTOR = "command:find_duplicates"


@dataclass
class Options:
    dry_run: bool = False
    max_ops: int = 200
    full: bool = False
    since: timedelta | None = None
    actor: str = ACTOR
    # The run's LLM session (None: rules only). A run with an LLM takes the namespaces
    # one after another; each namespace's doubtful pairs are asked several at once.
    llm_session: llm.Session | None = None
    # find_duplicates --llm-batch, first pass: the pairs to ask are collected here as
    # (namespace, older, newer, form: curation.llm.asking.FORMS) for one Message Batch,
    # none asked, nothing written; `llm_batch_later` (the requests the run's later rounds
    # sent before, by namespace id) collects only the further readings the earlier
    # batches' answers need (its later rounds).
    llm_batch: list | None = None
    llm_batch_later: dict[int, int] | None = None
    # Whether the session answers the band's doubtful pairs. Not in the pass that follows
    # the batches: their answers decide, cached; the session only audits (live calls:
    # the audit's pairs are drawn from that pass's own plan).
    llm_band: bool = True
    # LLM calls the run may still make (curation.llm.band.budget): each namespace adds its
    # share, spends what it needs, and leaves the rest to the next.
    llm_pool: float = 0.0
    # Of those, the calls kept to audit what the passes said (curation.llm.audit).
    llm_audit_pool: float = 0.0
    # The audits drawn and not yet asked (curation.llm.band.draw_audit), with the report of
    # the namespace each is of: a batch of namespaces asks them together.
    llm_audits: list = field(default_factory=list)


@dataclass
class NamespaceReport:
    namespace: str
    memories: int = 0
    changed: int = 0
    pairs_checked: int = 0
    exact_collapsed: int = 0
    auto_merged: int = 0
    clusters_opened: int = 0  # proposed (curation.detection.scoring's tiers)
    clusters_grown: int = 0
    conflicts_opened: int = 0  # proposed
    clusters_possible: int = 0  # doubtful: opened in the "possible" tier, counted apart
    conflicts_possible: int = 0
    deferred: int = 0  # automatic changes left for the next run by --max-ops
    failed: int = 0
    llm_verdicts: int = 0  # pairs the LLM judged in this run
    llm_cached: int = 0  # pairs judged by an earlier run's LLM answer (no call made)
    llm_audited: int = 0  # pairs the LLM judge audited (curation.llm.audit), of llm_calls
    llm_calls: int = 0
    llm_calls_skipped: int = 0
    llm_failures: int = 0
    llm_input_tokens: int = 0
    llm_output_tokens: int = 0
    duration_s: float = 0.0
    route: str = "matrix"  # how the vector layer ran: matrix, database (both exact), hnsw
    alerts: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)  # what a dry run would do

    COUNTED = (
        "memories",
        "changed",
        "pairs_checked",
        "exact_collapsed",
        "auto_merged",
        "clusters_opened",
        "clusters_grown",
        "conflicts_opened",
        "clusters_possible",
        "conflicts_possible",
        "deferred",
        "failed",
        "llm_verdicts",
        "llm_cached",
        "llm_audited",
        "llm_calls",
        "llm_calls_skipped",
        "llm_failures",
        "llm_input_tokens",
        "llm_output_tokens",
    )

    @property
    def removal_rate(self) -> float:
        removed = self.exact_collapsed + self.auto_merged
        return removed / self.memories if self.memories else 0.0

    def count_cluster(self, tier: str) -> None:
        if tier == "possible":
            self.clusters_possible += 1
        else:
            self.clusters_opened += 1

    def count_conflict(self, tier: str) -> None:
        if tier == "possible":
            self.conflicts_possible += 1
        else:
            self.conflicts_opened += 1

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.COUNTED}
