"""The LLM band of a detection pass: every pair the calibrated model is not sure of is
asked, the most doubtful first, within a budget that grows with the pass, and the answers
decide those pairs before grouping. Answers are cached by (hash, hash, prompt version):
never asked twice.

The band weighs an answer against the model's probabilities tempered by the model's
`llm_temperature` (held out, the model is surer of a set it never saw than it has a right
to be: a right answer would otherwise change nothing). A pair is doubtful when its
likeliest tempered reading (one fact, conflict, two facts) has a probability under
LLM_SURE and it is one fact or a conflict with LLM_ASK_FLOOR or more: the rules' own
conflicts and the pairs a reader set apart are asked like any other. Calls the doubtful
pairs leave go to the pairs the model is sure of, the least sure first. In groups
(LLM_GROUP_SIZE: one call holds a memory and several of its candidates) every near
candidate is read, the doubtful first. The operator's vetoes bound what an answer does,
not what is asked: a guarded pair answered "one fact" joins no cluster, a protected
memory is merged by a person only.

An answer the tempered model gave under LLM_SECOND_READING_BELOW (it overturns the
model) is asked a second time, the newer memory shown first, and decides only if both
readings agree; an answer "conflict", which puts the pair before an admin, has its own
bar (LLM_CONFLICT_SECOND_READING_BELOW: read twice unless the model holds it likelier
than not), and so have an answer "duplicate", which proposes a merge
(LLM_DUPLICATE_SECOND_READING_BELOW; those wait for the calls the groups leave and go
LLM_SECOND_READINGS_A_CALL to a call), and an answer "two facts" the model barely leaned
to (LLM_DISTINCT_SECOND_READING_BELOW). Two agreeing answers the model gave under
LLM_THIRD_READING_BELOW (a conflict: LLM_CONFLICT_THIRD_READING_BELOW) are read a third
time, and so are two that disagree (LLM_THIRD_READING_WHERE_READINGS_DISAGREE), each
third in a form neither earlier reading took (asking.FORMS); of three, two agreeing
decide as two agreeing readings do. Until then, or where no answer has the readings it
needs, the model places the pair. An answer "one fact" makes a proposal; it merges with
no review only where the rules' strict check passed and the model is as sure as an
automatic merge needs. A merge or a conflict the readings leave under
LLM_ANSWER_PROPOSES_FROM (by `posterior`) is offered as possible only. How readings
weigh against the model is curation.llm.weighing's.
"""

from __future__ import annotations

import itertools
import logging
import math
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

import numpy as np
from django.conf import settings

from memadmin.curation.detection import guards
from memadmin.curation.detection.pipeline import Judged
from memadmin.curation.detection.scoring.judgement import Judgement
from memadmin.curation.detection.scoring.model import stored_model
from memadmin.curation.detection.verdicts import POSSIBLE, PROPOSED, Verdict
from memadmin.curation.llm import audit, joined
from memadmin.curation.llm import client as llm
from memadmin.curation.llm.asking import (
    ask_groups,
    ask_pairs,
    calls_for,
    form_of_next,
    nth,
    read_again,
    readings_within,
    spent,
)
from memadmin.curation.llm.groups import Asked, Reading, in_groups, packed
from memadmin.curation.llm.weighing import CLASS_OF, agreeing_needed, lifted, posterior
from memadmin.store.models import Namespace

logger = logging.getLogger("memadmin.curation")


class Options(Protocol):
    """What the band reads of a run's options (curation.runs.options.Options)."""

    llm_session: llm.Session | None
    llm_batch: list | None  # the pairs a Message Batch pass collects
    # A batch pass's later rounds (further readings only): what they sent before, by
    # namespace id; None in its first round.
    llm_batch_later: dict[int, int] | None
    llm_band: bool  # whether the session answers doubtful pairs (else it only audits)
    dry_run: bool
    llm_pool: float  # the calls the run's earlier namespaces left unspent
    llm_audit_pool: float  # of those, the calls kept for audits (curation.llm.audit)
    llm_audits: list  # the audits drawn and not asked yet, with their namespaces' reports


class Report(Protocol):
    """What the band counts on a namespace's report (curation.runs.options.Report):
    its changed memories, the cached and new verdicts, and the session's usage by name."""

    changed: int
    llm_cached: int
    llm_verdicts: int
    llm_audited: int


def band_prior(judged: Judged, judgement: Judgement):
    """The model's probabilities of a pair tempered for the band (see the docstring)."""
    if judgement.evidence is None:
        return judgement.probabilities
    model = judged.model or stored_model()
    tempered = model.probabilities(judgement.evidence.values, model.llm_temperature)
    return lifted(tuple(float(p) for p in tempered), judgement.implied_one)


def doubtful_pairs(judged: Judged, room: int = 0) -> list[tuple[int, int]]:
    """The pairs worth an LLM verdict (see the module's docstring), the most doubtful
    first: by the chance that what the tempered model says of them now is wrong. Where
    they leave some of `room` (the calls a pass may make), the pairs the model is sure
    of follow, the least sure first, to fill it: a model fit on other data can be sure
    and wrong, and only an answer shows it (the budget, not a bar, bounds the cost)."""
    undecided = [
        (key, judgement)
        for key, judgement in judged.judgements.items()
        # Not an exact copy, not decided already.
        if judgement.probabilities is not None and judgement.decided_by == "rule"
    ]
    doubtful, sure_of = [], []
    for ((i, j), _), prior in zip(undecided, _band_priors(judged, undecided), strict=True):
        sure = max(prior)
        if sure < settings.LLM_SURE and prior[0] + prior[1] >= settings.LLM_ASK_FLOOR:
            doubtful.append((1.0 - sure, i, j))
        elif room:
            sure_of.append((1.0 - sure, i, j))
    doubtful.sort(key=_most_doubtful_first)
    found = [(i, j) for _, i, j in doubtful]
    if len(found) < room:
        sure_of.sort(key=_most_doubtful_first)
        spare = ((i, j) for _, i, j in sure_of)
        found.extend(itertools.islice(spare, room - len(found)))
    return found


def answered_before(judged: Judged, answers: dict, listed: set) -> list[tuple[int, int]]:
    """The undecided pairs not `listed` that an earlier pass asked about (by content
    hashes in `answers`)."""
    if not answers:
        return []
    memories = judged.memories
    return [
        (i, j)
        for (i, j), judgement in judged.judgements.items()
        if (i, j) not in listed
        and judgement.probabilities is not None
        and judgement.decided_by == "rule"
        and tuple(sorted((memories[i].content_hash, memories[j].content_hash))) in answers
    ]


def _most_doubtful_first(item: tuple[float, int, int]) -> tuple[float, int, int]:
    doubt, i, j = item
    return -doubt, i, j


def _band_priors(judged: Judged, undecided: list) -> list:
    """band_prior of each (key, judgement), the tempered ones in one product: every run
    looks for doubtful pairs, with an LLM or not (earlier answers still apply), and a
    product per pair cost a pass over 50,000 pairs a second."""
    with_evidence = [
        judgement.evidence.values for _, judgement in undecided if judgement.evidence is not None
    ]
    model = judged.model or stored_model()
    tempered = iter(
        model.probabilities(np.stack(with_evidence), model.llm_temperature).tolist()
        if with_evidence
        else []
    )
    return [
        lifted(tuple(next(tempered)), judgement.implied_one)
        if judgement.evidence is not None
        else judgement.probabilities
        for _, judgement in undecided
    ]


def budget(options: Options, report: Report) -> int:
    """The calls a namespace's pass may make: LLM_CALLS_PER_MEMORY for each memory it
    compared, and what the run's earlier namespaces left unspent (`options.llm_pool`)."""
    options.llm_pool += settings.LLM_CALLS_PER_MEMORY * report.changed
    return math.floor(options.llm_pool + 1e-9)


def audits(options: Options) -> bool:
    """Whether a pass audits what it said (an LLM asked now: a pass that collects pairs
    for a Message Batch decides later; the pass after the batches audits)."""
    return (
        options.llm_session is not None
        and options.llm_batch is None
        and settings.LLM_AUDIT_SHARE > 0
    )


def _keeps_audit_share(options: Options) -> bool:
    """Whether the band leaves the audit's share of the budget: in a pass that audits, and
    in one that collects a batch's pairs (the pass after the batches audits with it)."""
    return audits(options) or (options.llm_batch is not None and settings.LLM_AUDIT_SHARE > 0)


def draw_audit(judged: Judged, plan, options: Options, report: Report) -> audit.Audit | None:
    """Draw the pairs of the pass's audit (curation.llm.audit), as many as the calls the
    run kept for audits (two readings a pair, LLM_AUDIT_PAIRS pairs a call) leave after
    the pairs its earlier namespaces drew: they are asked together (ask_audits). The
    audit, or None."""
    if not audits(options):
        return None
    calls = math.floor(options.llm_audit_pool + 1e-9)
    # Whole calls of two readings (one where a single call is all there is).
    allowed = max(calls // 2, min(calls, 1)) * settings.LLM_AUDIT_PAIRS
    drawn = sum(len(found.drawn) for found, _ in options.llm_audits)
    rng = random.Random(f"{len(options.llm_audits)}:{report.changed}")
    whole = report.changed >= report.memories
    found = audit.draw_pass(judged, plan, allowed - drawn, rng, whole=whole)
    if found is not None:
        options.llm_audits.append((found, report))
    return found


def ask_audits(options: Options) -> None:
    """Ask the judge about every pair the namespaces drew for their audits (draw_audit)
    since the last time, within the calls kept for them and what the run has left; the
    calls, tokens and audited pairs counted on each namespace's report by its share of
    the pairs."""
    pending, options.llm_audits = options.llm_audits, []
    if not pending or not audits(options):
        return
    session = options.llm_session
    before = session.usage()
    calls = min(math.floor(options.llm_audit_pool + 1e-9), math.floor(options.llm_pool + 1e-9))
    made = audit.ask(session, [found for found, _ in pending], calls, random.Random(len(pending)))
    spent(options, made)
    options.llm_audit_pool = max(0.0, options.llm_audit_pool - made)
    weights = [len(found.drawn) for found, _ in pending]
    for name, value in session.usage().items():
        _share_out([report for _, report in pending], weights, name, value - before.get(name, 0))
    for found, report in pending:
        report.llm_audited += len(found.pairs)


def _share_out(reports: list, weights: list[int], name: str, total: int) -> None:
    """Add `total` of a count to the reports by their weights, in whole numbers that add
    up to it (the last takes the rounding)."""
    if not total or not hasattr(reports[0], name):
        return
    given, whole = 0, sum(weights) or 1  # no pair drawn: no call made either
    for number, (report, weight) in enumerate(zip(reports, weights, strict=True)):
        share = total - given if number == len(reports) - 1 else total * weight // whole
        setattr(report, name, getattr(report, name) + share)
        given += share


# The share of a namespace's budget a Message Batch pass spends on first readings; the
# rest is its second batch's, for the second readings their answers need (with the
# oracle judge on every labelled set, 8 % of the first readings needed one: 1-11 % with
# a right judge, 6-26 % with one wrong 15 % of the time).
BATCH_FIRST_READINGS = 0.85


def ask_band(
    judged: Judged,
    namespace: Namespace,
    options: Options,
    report: Report,
    *,
    cached: Callable[[], dict],
) -> None:
    """Decide the doubtful pairs of `judged` (and, with calls to spare, those the model is
    sure of): by earlier answers where they are cached (`cached()` gives the namespace's
    readings by (hash, hash), one query a batch; they hold on any pair they were given
    for), else by asking the run's LLM session, LLM_CONCURRENCY at a time, within
    the namespace's budget: new pairs a few at a time, the further readings owed (an
    earlier pass's too) several a call as they mount (`_ask_now`). With
    `options.llm_batch` the pairs to ask are collected for a Message Batch instead
    (their second readings are a second batch's); without `options.llm_band` only the
    cached answers decide (the pass after the batches). Side effects: records each new
    verdict (not in a dry run); counts on `report`."""
    allowed = budget(options, report)
    if _keeps_audit_share(options):
        allowed = max(0, allowed - audit.reserve(options, report.changed))
    asking_now = options.llm_session is not None and options.llm_band
    asking = asking_now or options.llm_batch is not None
    grouped = options.llm_batch is None and asking_now and _group_size() > 1
    # In groups every near candidate is read (a call holds a memory and several of its
    # candidates): the budget bounds the calls, not the pairs.
    room = len(judged.judgements) if grouped else allowed if asking else 0
    pairs = doubtful_pairs(judged, room)
    answers = cached()
    # An earlier pass's answer on a pair the model is sure of still holds where this
    # pass has no call to spare for it (or no LLM): what it overturned stays overturned.
    pairs += answered_before(judged, answers, set(pairs))
    if not pairs:
        return
    new, owed, answered = _apply_cached(judged, pairs, answers, report)
    owed += _rejoin(judged, answered, {(a.older, a.newer) for a in owed}, affordable=False)
    owed = owed[:allowed]
    if options.llm_batch is not None:
        _collect_for_batch(judged, namespace, options, allowed, new, owed)
    elif asking_now and owed + new:
        _ask_now(judged, namespace, options, report, allowed, new, owed, answered)


def _apply_cached(judged: Judged, pairs, answers: dict, report: Report):
    """Apply the earlier answers cached for `pairs`: (the pairs never asked, the further
    readings earlier answers left owed, the answered pairs: `_rejoin`)."""
    memories = judged.memories
    new: list[Asked] = []
    owed: list[Asked] = []
    answered: dict = {}
    for i, j in pairs:
        older, newer = judged.ordered(i, j)
        hashes = tuple(sorted((memories[older].content_hash, memories[newer].content_hash)))
        readings = [
            Reading(v.verdict, v.conflict_kind, v.reason, v.prompt_version)
            for v in answers.get(hashes, [])
        ]
        if not readings:
            new.append(Asked(older, newer, hashes))
            continue
        report.llm_cached += 1
        answered[(older, newer)] = (judged.judge(older, newer), readings, hashes)
        # An answer whose confirmation only waits for spare calls decides until it comes
        # (as it did in the pass that asked it, when none was left).
        override(judged, older, newer, readings, affordable=False)
        if owes_reading(judged, older, newer, readings):
            owed.append(Asked(older, newer, hashes, tuple(readings)))
    return new, owed, answered


def _rejoin(judged: Judged, answered: dict, pending: set, *, affordable=True) -> list[Asked]:
    """The answered pairs (by (older, newer): the model's judgement before any answer,
    the readings, the hashes) that proposed one-fact pairs join through a third memory
    (curation.llm.joined), not `pending` another reading already: each weighed again
    from the model's judgement lifted to what the joining pairs imply. The further
    readings that leaves owed."""
    owed = []
    for (older, newer), implied in joined.implied_through_a_third(judged, answered).items():
        before, readings, hashes = answered[(older, newer)]
        judged.settle(older, newer, replace(before, implied_one=implied))
        override(judged, older, newer, readings, affordable=affordable)
        if (older, newer) not in pending and owes_reading(judged, older, newer, readings):
            owed.append(Asked(older, newer, hashes, tuple(readings)))
    return owed


def _collect_for_batch(judged, namespace, options: Options, allowed: int, new, owed) -> None:
    """Rounds within one budget: first readings (and further readings an earlier pass
    left owed) in the first batch; in each later one the further readings the answers
    before need (second readings, then third), within what the first left less what
    the run's later rounds sent before (`options.llm_batch_later`). Each goes as a pair
    alone, in the form asking.form_of_next gives it."""
    memories = judged.memories
    firsts = math.floor(allowed * BATCH_FIRST_READINGS)
    if options.llm_batch_later is not None:
        sent = options.llm_batch_later.get(namespace.pk, 0)
        owed, new = owed[: max(0, allowed - firsts - sent)], []
        taken = allowed  # each namespace keeps its own share: none carries to the next
    else:
        owed = owed[:firsts]
        new = new[: firsts - len(owed)]
        # The later rounds' share stays this namespace's: only first readings unasked carry.
        taken = len(owed) + len(new) + allowed - firsts
    options.llm_batch.extend(
        (namespace, memories[a.older], memories[a.newer], form_of_next(a)) for a in owed + new
    )
    spent(options, taken)


def _group_size() -> int:
    return settings.LLM_GROUP_SIZE


def _ask_now(judged, namespace, options: Options, report: Report, allowed, new, owed, answered):
    """Ask the run's session, a few first readings at a time (in groups: a few calls of a
    memory and its candidates); the second readings they need wait until a call's worth
    is owed (or no group is left) and go several a call. A confirmation is worth more
    than one more doubtful pair and must not find the budget spent: the calls it and the
    third it may owe take are kept back (`_reserve`), and at most half of what is left
    goes to first readings each time. Second readings owed only to the bar of an answer
    "duplicate" wait for the calls the groups do not need (`_waits_for_spare_calls`).
    Each time every reading owed is in, the answered pairs joined through a third
    memory are weighed again and owe what that leaves (`_rejoin`); `answered`: the
    pairs answered already (by cached answers)."""
    grouped = _group_size() > 1  # (a pass asking now, not collecting for a batch)
    session = options.llm_session
    before = session.usage()
    calls = 0
    # spare: the second readings that wait for the calls the groups leave.
    waits = [_waits_for_spare_calls(judged, a.older, a.newer, a.earlier) for a in owed]
    spare = [a for a, waiting in zip(owed, waits, strict=True) if waiting]
    seconds = [a for a, waiting in zip(owed, waits, strict=True) if not waiting]
    step = max(1, settings.LLM_CONCURRENCY) * 4
    new = packed(in_groups(new, _group_size()), _group_size()) if grouped else [[a] for a in new]
    several = settings.LLM_SECOND_READINGS_A_CALL
    while calls < allowed and (seconds or spare or new):
        room = allowed - calls - (len(new) if grouped else 0)
        reserve = _reserve(judged, seconds, several)
        pending = None  # the further readings this call goes to, and the calls they may take
        if seconds and _due(seconds, new, allowed - calls - reserve, several):
            pending, room = seconds, allowed - calls
        elif spare and (room > 0 or not new):
            # Those that wait go with the calls the groups leave (all that is left after).
            pending, room = spare, room if new else allowed - calls
        if pending is not None:
            wanted = readings_within(pending, room, several)
            if not wanted:
                break  # none fits the calls left
            del pending[: len(wanted)]
            found, made = read_again(session, judged, namespace, options, wanted, report, several)
            planned = calls_for(wanted, several)
        else:
            count = min(step, max(1, (allowed - calls - reserve) // 2))
            wanted, new = new[:count], new[count:]
            planned = len(wanted)
            if grouped and any(len(group) > 1 for group in wanted):
                found, made = ask_groups(session, judged, namespace, options, wanted, report)
            else:  # a pair alone goes as a pair (its prompt, its cache version)
                alone = [group[0] for group in wanted]
                found = ask_pairs(session, judged, namespace, options, alone, report)
                made = len(found)
        calls += made
        for asked, answer in found:
            if answer is None:
                continue
            readings = [*asked.earlier, answer]
            _record(judged, answered, asked, readings)
            override(judged, asked.older, asked.newer, readings)
            if owes_reading(judged, asked.older, asked.newer, readings):
                later = Asked(asked.older, asked.newer, asked.hashes, tuple(readings))
                waits = _waits_for_spare_calls(judged, asked.older, asked.newer, readings)
                (spare if waits else seconds).append(later)
        if not (new or seconds or spare):  # all read that was owed: what it joins
            seconds += _rejoin(judged, answered, set())
        if made < planned:
            # A cap stopped the run's calls: what the budget had left is skipped too (the
            # calls refused here are counted already).
            left = allowed - calls - (planned - made)
            session.skip(max(0, min(len(new) + len(seconds) + len(spare), left)))
            break
    for later in spare:  # no call was left to confirm them: the answer decides alone
        override(judged, later.older, later.newer, list(later.earlier), affordable=False)
    for name, value in session.usage().items():
        if hasattr(report, name):
            setattr(report, name, getattr(report, name) + value - before.get(name, 0))


def _record(judged: Judged, answered: dict, asked: Asked, readings: list[Reading]) -> None:
    """Record a pair's readings with the model's judgement before any answer (`_rejoin`),
    and where it was answered before, put that judgement back (lifted as it is): every
    reading is weighed from the model's, not from what one answer made of it."""
    key = (asked.older, asked.newer)
    if key in answered:
        before = answered[key][0]
        judged.settle(*key, replace(before, implied_one=judged.judge(*key).implied_one))
    else:
        before = judged.judge(*key)
    answered[key] = (before, readings, asked.hashes)


def _reserve(judged: Judged, seconds: list[Asked], several: int) -> int:
    """The calls the further readings owed take, and the third readings they will owe
    where the tempered model gave their answer under LLM_THIRD_READING_BELOW."""
    thirds = sum(
        agreeing_needed(band_prior(judged, judged.judge(a.older, a.newer)), a.earlier[0].label) > 2
        for a in nth(seconds, 1)
    )
    return calls_for(seconds, several) + thirds


def _due(seconds, new, spare_calls: int, several: int) -> bool:
    """Whether the further readings owed are asked now: a call's worth of second
    readings, any third, or no group left (or no call to spare for one)."""
    return not new or len(nth(seconds, 1)) >= several or bool(nth(seconds, 2)) or spare_calls < 2


def _waits_for_spare_calls(judged: Judged, i: int, j: int, readings) -> bool:
    """Whether a second reading is owed only to LLM_DUPLICATE_SECOND_READING_BELOW (an
    answer "duplicate" the tempered model gave no less than LLM_SECOND_READING_BELOW):
    it is asked with calls no first reading needs, and decides with the answer where it
    agrees (a merge proposed on one answer against the model's lean was most of the false
    ones with a judge wrong 15 % of the time); where no call is left, the answer decides
    alone, as under the general bar."""
    if len(readings) != 1 or readings[0].label != "duplicate":
        return False
    return band_prior(judged, judged.judge(i, j))[0] >= settings.LLM_SECOND_READING_BELOW


_TIMES = {2: "twice", 3: "three times"}
_DOUBTED = " (possible only: the evidence leaves it in doubt)"


def _read(votes: int, readings: int) -> str:
    """How many readings gave the answer that decides, for its reason."""
    if readings == 1:
        return ""
    if votes == readings:
        return f" (read {_TIMES[readings]})"
    return f" ({votes} of {readings} readings)"


def owes_reading(
    judged: Judged, i: int, j: int, readings: list[Reading], *, affordable: bool = True
) -> bool:
    """Whether the pair needs another reading: agreeing answers that overturn what the
    tempered model reads of it by more than they decide alone (`agreeing_needed`), or
    two answers that disagree, where a third could make a majority that decides."""
    prior = band_prior(judged, judged.judge(i, j))
    if prior is None or len(readings) >= 3:
        return False
    labels = [r.label for r in readings]
    if len(set(labels)) == 1:
        return len(readings) < agreeing_needed(prior, labels[0], affordable=affordable)
    # Two that disagree: a third can make a majority where two agreeing readings of one
    # of their answers would decide (not where a pass applies cached answers alone).
    return (
        settings.LLM_THIRD_READING_WHERE_READINGS_DISAGREE
        and affordable
        and any(agreeing_needed(prior, label) <= 2 for label in labels)
    )


def override(
    judged: Judged, i: int, j: int, readings: list[Reading], *, affordable: bool = True
) -> None:
    """Apply the LLM's readings of a pair to its judgement. Where most of them agree (all,
    of one or two), with as many agreeing as an answer against the tempered model needs
    (`agreeing_needed`), and the model's tempered probabilities updated by every reading
    (`posterior`) leave the answer likelier than not, it decides: "duplicate" is a
    proposal (merged with no review only where the rules' strict check passed and P(one
    fact) reaches the automatic threshold), "conflict" a proposed conflict (each possible
    only under LLM_ANSWER_PROPOSES_FROM), anything else two facts. Otherwise the model
    places the pair as with no LLM, and the reason says why. `affordable`: as above."""
    judgement = judged.judge(i, j)
    labels = [r.label for r in readings]
    votes = max(labels.count(label) for label in labels)
    first = next(r for r in readings if labels.count(r.label) == votes)
    prior = band_prior(judged, judgement)
    updated = posterior(prior, labels)
    said = f"LLM: {first.label}: {first.reason}".strip()
    answer = CLASS_OF.get(first.label, 2)
    likely = 1.0 if updated is None else updated[answer]
    short = prior is not None and votes < agreeing_needed(prior, first.label, affordable=affordable)
    guard = guards.metadata_guard(judged.memories[i], judged.memories[j])
    if first.label == "duplicate" and guard:
        why = f"{guard}: the guard keeps the pair out of every cluster"
    elif votes * 2 <= len(readings) or (short and votes < len(readings)):
        why = "the readings disagree: left to the evidence"
    elif short:
        why = "it overturns the evidence: it decides once another reading agrees"
    elif likely < 0.5:
        why = "too unlikely by the evidence to take alone"
    else:
        why = ""
    if why:
        kept = [r for r in judgement.reasons if not r.startswith("LLM: ")]
        reasons = (*kept, f"{said} ({why})")
        judged.settle(i, j, replace(judgement, llm_answer=first.label, reasons=reasons))
        return
    # Two of three against a model that gave it 0.1-0.2 are wrong more often than two of two.
    doubt = answer < 2 and likely < settings.LLM_ANSWER_PROPOSES_FROM
    doubted = _DOUBTED if doubt else ""
    answered = replace(
        judgement,
        llm_answer=first.label,
        probabilities=updated,
        decided_by="llm",
        reasons=(f"{said}{joined.reason(judgement)}{_read(votes, len(readings))}{doubted}",),
        tier=POSSIBLE if doubt else PROPOSED,
        never_together=True,  # set back for a merge below
    )
    if first.label == "duplicate":
        protected = any(guards.is_protected(judged.memories[k]) for k in (i, j))
        automatic = (
            judgement.rules.verdict == Verdict.AUTO_MERGE
            and answered.p_one >= judged.thresholds.auto_confidence
            and not (protected or doubt)  # a pair in doubt is never merged unseen
        )
        answered = replace(
            answered,
            verdict=Verdict.AUTO_MERGE if automatic else Verdict.REVIEW,
            method=judgement.method if automatic else "llm",
            never_together=False,
            flags=("protected",) if protected else judgement.flags,
        )
    elif first.label == "conflict":
        kind = first.kind or "contradiction"
        answered = replace(answered, verdict=Verdict.CONFLICT, conflict_kind=kind)
    else:
        answered = replace(answered, verdict=Verdict.DISTINCT, tier="")
    judged.settle(i, j, answered)
