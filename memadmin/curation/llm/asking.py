"""How the LLM band's questions go to the LLM, within the calls the session grants and the
namespace's budget: pairs alone, a memory with several of its candidates, second
readings several a call; and what each answer is recorded as (curation.llm.band decides
what to ask and what the answers do)."""

from __future__ import annotations

import logging

from memadmin.curation import decisions
from memadmin.curation.llm import client as llm
from memadmin.curation.llm.groups import Asked, Reading, anchor

logger = logging.getLogger("memadmin.curation")


def spent(options, calls: int) -> None:
    """Take calls made from what the run's namespaces may still spend."""
    options.llm_pool = max(0.0, options.llm_pool - calls)


def ask_pairs(session, judged, namespace, options, to_ask: list[Asked], report):
    """Ask these pairs, one a call (second readings, the newer memory first, where each
    has had one reading), within the calls the session grants: each asked pair and its
    reading (None where the LLM failed: the rules keep it). Side effects: records each
    verdict (not in a dry run)."""
    if not to_ask:
        return []
    memories = judged.memories
    second = len(to_ask[0].earlier) == 1
    granted = session.reserve(len(to_ask))
    session.skip(len(to_ask) - granted)
    to_ask = to_ask[:granted]
    spent(options, granted)
    if not to_ask:
        return []
    results = session.verdicts(
        [(memories[a.older], memories[a.newer]) for a in to_ask], second_reading=second
    )
    return [
        (asked, reading_of(namespace, options, report, memories, asked, answer))
        for asked, answer in zip(to_ask, results, strict=True)
    ]


def ask_groups(session, judged, namespace, options, groups: list[list[Asked]], report):
    """Ask these groups, one call each, within the calls the session grants: (each asked
    pair and its reading, None where the LLM gave none; the calls made). Side effects:
    records each verdict under the group prompt's version (not in a dry run)."""
    memories = judged.memories
    granted = session.reserve(len(groups))
    session.skip(len(groups) - granted)
    groups = groups[:granted]
    spent(options, granted)
    asked = []
    for group in groups:
        held = anchor(group)
        others = [a.newer if a.older == held else a.older for a in group]
        asked.append((memories[held], [memories[other] for other in others]))
    found = []
    for group, answers in zip(groups, session.groups(asked), strict=True):
        for pair, answer in zip(group, answers, strict=True):
            found.append((pair, reading_of(namespace, options, report, memories, pair, answer)))
    return found, granted


def calls_for(readings: list[Asked], per_call: int) -> int:
    """The calls these further readings take: second readings `per_call` to a call, third
    readings one each."""
    return -(-len(nth(readings, 1)) // per_call) + len(nth(readings, 2))


def readings_within(readings: list[Asked], calls: int, per_call: int) -> list[Asked]:
    """As many of these further readings, in order, as `calls` calls can ask (second
    readings `per_call` to a call)."""
    taken: list[Asked] = []
    seconds = thirds = 0
    for reading in readings:
        second = len(reading.earlier) == 1
        if -(-(seconds + second) // per_call) + thirds + (not second) > calls:
            break
        seconds, thirds = seconds + second, thirds + (not second)
        taken.append(reading)
    return taken


def read_again(session, judged, namespace, options, readings: list[Asked], report, per_call: int):
    """Ask these further readings: second readings `per_call` a call (one alone as a
    pair), each the newer memory first, a third as the first was shown. (Each asked pair
    and its reading, None where the LLM gave none; the calls made.)"""
    seconds, thirds = nth(readings, 1), nth(readings, 2)
    found = ask_pairs(session, judged, namespace, options, thirds, report)
    made = len(found)
    if len(seconds) <= 1 or per_call == 1:
        again = ask_pairs(session, judged, namespace, options, seconds, report)
        return [*found, *again], made + len(again)
    count = -(-len(seconds) // per_call)
    granted = session.reserve(count)
    session.skip(count - granted)
    spent(options, granted)
    # Spread evenly over the calls granted: none holds one pair while another holds eight.
    calls = [seconds[k::count] for k in range(count)][:granted]
    memories = judged.memories
    asked = [[(memories[a.older], memories[a.newer]) for a in call] for call in calls]
    for call, answers in zip(calls, session.rechecks(asked), strict=True):
        for pair, answer in zip(call, answers, strict=True):
            found.append((pair, reading_of(namespace, options, report, memories, pair, answer)))
    return found, made + granted


def reading_of(namespace, options, report, memories, asked: Asked, answer) -> Reading | None:
    """The reading of one answer (recorded as a verdict, not in a dry run), or None where
    the LLM gave none: the rules keep the pair."""
    if isinstance(answer, llm.LLMFailed):
        if not isinstance(answer, llm.CapReached):
            logger.warning(
                "DEDUP_FAIL verdict %s / %s falls back to the rules: %s",
                memories[asked.older].external_id,
                memories[asked.newer].external_id,
                answer,
            )
        return None
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
    return Reading(answer.label, answer.conflict_kind, answer.reasoning)


def nth(asked: list[Asked], readings: int) -> list[Asked]:
    """The pairs of `asked` that have had this many readings."""
    return [a for a in asked if len(a.earlier) == readings]
