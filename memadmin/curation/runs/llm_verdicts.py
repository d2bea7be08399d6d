"""The LLM band of a detection pass: every pair the calibrated model is not sure of is
asked, the most doubtful first, within a budget that grows with the pass, and the answers
decide those pairs before grouping. Answers are cached by (hash, hash, prompt version):
never asked twice.

A pair is doubtful when its likeliest reading (one fact, conflict, two facts) has a
probability under LLM_SURE and it is one fact or a conflict with LLM_ASK_FLOOR or more:
the rules' own conflicts and the pairs a reader set apart are asked like any other.
Only the operator's vetoes keep a pair from the LLM: a metadata guard, a protected
memory. An answer "one fact" makes a proposal; it merges with no review only where the
rules' strict check passed and the model is as sure as an automatic merge needs.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings

from memadmin.curation import decisions, llm
from memadmin.curation.detection import guards
from memadmin.curation.detection.confidence import PROPOSED, place
from memadmin.curation.detection.judgement import PairJudgement, Verdict
from memadmin.curation.runs import planning
from memadmin.store.models import Namespace

if TYPE_CHECKING:
    from memadmin.curation.runs.options import NamespaceReport, Options

logger = logging.getLogger("memadmin.curation")


def doubtful_pairs(judged: planning.Judged) -> list[tuple[int, int]]:
    """The pairs worth an LLM verdict (see the module's docstring), the most doubtful
    first: by the chance that what the model says of them now is wrong."""
    found = []
    for (i, j), judgement in judged.judgements.items():
        if judgement.probabilities is None or judgement.decided_by != "rule":
            continue  # an exact copy, or decided already
        sure = max(judgement.probabilities)
        p_one, p_conflict, _ = judgement.probabilities
        if sure >= settings.LLM_SURE or p_one + p_conflict < settings.LLM_ASK_FLOOR:
            continue
        older, newer = judged.memories[i], judged.memories[j]
        if guards.metadata_guard(older, newer):
            continue  # the operator's veto comes before any LLM call
        if guards.is_protected(older) or guards.is_protected(newer):
            continue  # a protected memory is never sent, whatever its pair
        found.append((1.0 - sure, i, j))
    found.sort(key=lambda item: (-item[0], item[1], item[2]))
    return [(i, j) for _, i, j in found]


def budget(options: Options, report: NamespaceReport) -> int:
    """The calls a namespace's pass may make: LLM_CALLS_PER_MEMORY for each memory it
    compared, and what the run's earlier namespaces left unspent (`options.llm_pool`)."""
    options.llm_pool += settings.LLM_CALLS_PER_MEMORY * report.changed
    return math.floor(options.llm_pool + 1e-9)


def spent(options: Options, calls: int) -> None:
    options.llm_pool = max(0.0, options.llm_pool - calls)


@dataclass(frozen=True)
class Asked:
    """A pair to ask, by positions and content hashes."""

    older: int
    newer: int
    hashes: tuple[str, str]


def ask_band(
    judged: planning.Judged,
    namespace: Namespace,
    options: Options,
    report: NamespaceReport,
    *,
    cached: Callable[[], dict],
) -> None:
    """Decide the doubtful pairs of `judged`: by an earlier answer where one is cached
    (`cached()` gives the namespace's by (hash, hash), read only when a pair is
    doubtful), else by asking the run's LLM session, LLM_CONCURRENCY at a time, within
    the namespace's budget. With `options.llm_batch` the pairs to ask are collected for a
    Message Batch instead. Side effects: records each new verdict (not in a dry run);
    counts on `report`."""
    allowed = budget(options, report)
    pairs = doubtful_pairs(judged)
    if not pairs:
        return
    memories = judged.memories
    answers = cached()
    to_ask: list[Asked] = []
    for i, j in pairs:
        older, newer = judged.ordered(i, j)
        hashes = tuple(sorted((memories[older].content_hash, memories[newer].content_hash)))
        earlier = answers.get(hashes)
        if earlier is not None:
            override(judged, i, j, earlier.verdict, earlier.conflict_kind, earlier.reason)
            report.llm_cached += 1
        else:
            to_ask.append(Asked(older, newer, hashes))
    to_ask = to_ask[:allowed]
    if options.llm_batch is not None:
        options.llm_batch.extend((namespace, memories[a.older], memories[a.newer]) for a in to_ask)
        spent(options, len(to_ask))
        return
    session = options.llm_session
    if session is None or not to_ask:
        return
    before = session.usage()
    granted = session.reserve(len(to_ask))
    session.skip(len(to_ask) - granted)
    to_ask = to_ask[:granted]
    spent(options, granted)
    results = session.verdicts([(memories[a.older], memories[a.newer]) for a in to_ask])
    for asked, answer in zip(to_ask, results, strict=True):
        if isinstance(answer, llm.LLMFailed):
            if not isinstance(answer, llm.CapReached):
                logger.warning(
                    "DEDUP_FAIL verdict %s / %s falls back to the rules: %s",
                    memories[asked.older].external_id,
                    memories[asked.newer].external_id,
                    answer,
                )
            continue
        report.llm_verdicts += 1
        if not options.dry_run:
            decisions.record_verdict(
                namespace=namespace,
                hashes=asked.hashes,
                verdict=answer.label,
                conflict_kind=answer.conflict_kind,
                reason=answer.reasoning,
                decided_by="llm",
                prompt_version=answer.prompt_version,
            )
        override(
            judged, asked.older, asked.newer, answer.label, answer.conflict_kind, answer.reasoning
        )
    for name, value in session.usage().items():
        if hasattr(report, name):
            setattr(report, name, getattr(report, name) + value - before.get(name, 0))


_CLASS_OF = {"duplicate": 0, "conflict": 1}


def posterior(prior, label: str) -> tuple[float, float, float] | None:
    """How sure the pair is once the LLM answered, for the confidence shown: the model's
    probabilities updated by an answer right LLM_ACCURACY of the time (its errors split
    evenly between the two other readings)."""
    if prior is None:
        return None
    answered = _CLASS_OF.get(label, 2)
    right, wrong = settings.LLM_ACCURACY, (1.0 - settings.LLM_ACCURACY) / 2
    weighted = [p * (right if k == answered else wrong) for k, p in enumerate(prior)]
    total = sum(weighted) or 1.0
    return tuple(w / total for w in weighted)


def override(judged: planning.Judged, i: int, j: int, label: str, kind: str, reason: str) -> None:
    """Apply an LLM verdict to a pair's judgement. Its probabilities become the model's
    updated by the answer (`posterior`). Where that leaves the answer likelier than not,
    it decides: "duplicate" is a proposal (merged with no review only where the rules'
    strict check passed and P(one fact) reaches the automatic threshold), "conflict" a
    proposed conflict, anything else two facts. Where the model gave the answer too
    little chance for one answer to outweigh it (an LLM errs too: under one in twelve at
    LLM_ACCURACY 0.85), the pair is placed by its updated probabilities, as with no LLM."""
    judgement: PairJudgement = judged.judge(i, j)
    judgement.probabilities = posterior(judgement.probabilities, label)
    judgement.llm_answer = label
    said = f"LLM: {label}: {reason}".strip()
    believed = judgement.probabilities is None or (
        judgement.probabilities[_CLASS_OF.get(label, 2)] >= 0.5
    )
    if not believed:
        older, newer = judged.ordered(i, j)
        place(judgement, judged.memories[older], judged.memories[newer], judged.thresholds)
        judgement.reasons = [f"{said} (too unlikely by the evidence to take alone)"]
        return
    judgement.decided_by = "llm"
    judgement.reasons = [said]
    judgement.tier = PROPOSED
    if label == "duplicate":
        automatic = (
            judgement.rule_verdict == Verdict.AUTO_MERGE
            and judgement.p_one >= judged.thresholds.auto_confidence
        )
        judgement.verdict = Verdict.AUTO_MERGE if automatic else Verdict.REVIEW
        judgement.method = judgement.method if automatic else "llm"
        judgement.never_together = False
    elif label == "conflict":
        judgement.verdict = Verdict.CONFLICT
        judgement.conflict_kind = kind or "contradiction"
        judgement.never_together = True
    else:
        judgement.verdict, judgement.tier, judgement.never_together = Verdict.DISTINCT, "", True
