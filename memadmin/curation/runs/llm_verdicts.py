"""The LLM band of a detection pass: pairs the rules cannot settle are asked, closest to
the automatic threshold first, and the answers override the rule judgements before
grouping. Answers are cached by (hash, hash, prompt version): never asked twice."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from django.conf import settings

from memadmin.curation import decisions, llm
from memadmin.curation.detection.judgement import PairJudgement, Verdict
from memadmin.curation.runs import planning
from memadmin.store.models import Namespace

if TYPE_CHECKING:
    from memadmin.curation.runs.options import NamespaceReport, Options

logger = logging.getLogger("memadmin.curation")


def ask_band(
    judged: planning.Judged,
    namespace: Namespace,
    options: Options,
    report: NamespaceReport,
    *,
    cached: Callable[[], dict],
) -> None:
    """Ask the LLM about the band (planning.llm_band) and apply its answers to `judged`.
    `cached()` gives the namespace's earlier answers by (hash, hash) (read only when the
    band holds a pair). Side effects: records each new verdict (not in a dry run); counts
    on `report`."""
    band = planning.llm_band(judged, low=settings.LLM_BAND_LOW)
    if not band:
        return
    memories = judged.memories
    cached = cached()
    session = options.llm_session
    before = session.usage() if session else {}
    for i, j in band:
        older, newer = judged.ordered(i, j)
        hashes = tuple(sorted((memories[older].content_hash, memories[newer].content_hash)))
        verdict = cached.get(hashes)
        if verdict is not None:
            label, kind, reason = verdict.verdict, verdict.conflict_kind, verdict.reason
            report.llm_cached += 1
        elif session is not None:
            try:
                answer = session.verdict(memories[older], memories[newer])
            except llm.CapReached:
                continue
            except llm.LLMFailed as error:
                logger.warning(
                    "DEDUP_FAIL verdict %s / %s falls back to the rules: %s",
                    memories[older].external_id,
                    memories[newer].external_id,
                    error,
                )
                continue
            label, kind, reason = answer.label, answer.conflict_kind, answer.reasoning
            report.llm_verdicts += 1
            if not options.dry_run:
                decisions.record_verdict(
                    namespace=namespace,
                    hashes=hashes,
                    verdict=label,
                    conflict_kind=kind,
                    reason=reason,
                    decided_by="llm",
                    prompt_version=answer.prompt_version,
                )
        else:
            continue
        override(judged.judge(i, j), label, kind, reason)
    if session:
        for name, value in session.usage().items():
            if hasattr(report, name):
                setattr(report, name, value - before.get(name, 0))


def override(judgement: PairJudgement, label: str, kind: str, reason: str) -> None:
    """Apply an LLM verdict to a rule judgement."""
    judgement.decided_by = "llm"
    judgement.reasons = [f"LLM: {label}: {reason}".strip()]
    if label == "duplicate":
        judgement.verdict, judgement.method = Verdict.REVIEW, "llm"
    elif label == "conflict":
        judgement.verdict = Verdict.CONFLICT
        judgement.conflict_kind = kind or "contradiction"
        judgement.never_together = True
    else:
        judgement.verdict, judgement.never_together = Verdict.DISTINCT, True
