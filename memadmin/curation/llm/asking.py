"""How the LLM band's questions go to the LLM, within the calls the session grants and the
namespace's budget: pairs alone, a memory with several of its candidates, second
readings several a call; and what each answer is recorded as (curation.llm.band decides
what to ask and what the answers do)."""

from __future__ import annotations

import logging

from memadmin.curation import decisions
from memadmin.curation.llm import client as llm
from memadmin.curation.llm import prompts
from memadmin.curation.llm.groups import Asked, Reading, anchor, shared_memory

# The forms a reading of a pair alone takes, by the prompt version it is recorded under. A
# third reading is asked in the first one its earlier readings did not take: a judge that
# answers one prompt the same way each time would only confirm itself, and a reading in
# a form of its own is cached apart from the others.
FORMS = (prompts.VERDICT_VERSION, prompts.SECOND_READING_VERSION, prompts.RECHECK_VERSION)

logger = logging.getLogger("memadmin.curation")


def spent(options, calls: int) -> None:
    """Take calls made from what the run's namespaces may still spend."""
    options.llm_pool = max(0.0, options.llm_pool - calls)


def form_of_next(asked: Asked) -> str:
    """How the next reading of a pair goes alone (a Message Batch's request): a first with
    the older memory first, a second with the newer first, a third in a form of its own."""
    if len(asked.earlier) < 2:
        return FORMS[len(asked.earlier)]
    taken = {reading.version for reading in asked.earlier}
    return next((form for form in FORMS if form not in taken), FORMS[0])


def ask_pairs(
    session, judged, namespace, options, to_ask: list[Asked], report, *, newer_first=False
):
    """Ask these pairs, one a call (`newer_first`: shown so, as a second reading is),
    within the calls the session grants: each asked pair and its reading (None where the
    LLM failed: the rules keep it). Side effects: records each verdict (not in a dry
    run)."""
    if not to_ask:
        return []
    memories = judged.memories
    granted = session.reserve(len(to_ask))
    session.skip(len(to_ask) - granted)
    to_ask = to_ask[:granted]
    spent(options, granted)
    if not to_ask:
        return []
    results = session.verdicts(
        [(memories[a.older], memories[a.newer]) for a in to_ask], second_reading=newer_first
    )
    return [
        (asked, reading_of(namespace, options, report, memories, asked, answer))
        for asked, answer in zip(to_ask, results, strict=True)
    ]


def ask_groups(session, judged, namespace, options, groups: list[list[Asked]], report):
    """Ask these calls, one each, within the calls the session grants: a call whose pairs
    share a memory as a group (that memory and its candidates), any other as pairs,
    each on its own and the older first (groups.packed). (Each asked pair and its
    reading, None where the LLM gave none; the calls made.) Side effects: records each
    verdict under its prompt's version (not in a dry run)."""
    memories = judged.memories
    granted = session.reserve(len(groups))
    session.skip(len(groups) - granted)
    groups = groups[:granted]
    spent(options, granted)
    anchored = [g for g in groups if shared_memory(g) is not None]
    packed = [g for g in groups if shared_memory(g) is None]
    asked = []
    for group in anchored:
        held = anchor(group)
        others = [a.newer if a.older == held else a.older for a in group]
        asked.append((memories[held], [memories[other] for other in others]))
    answered = session.groups(asked) if asked else []
    pairs = [[(memories[a.older], memories[a.newer]) for a in call] for call in packed]
    answered += session.pairs(pairs) if pairs else []
    found = []
    for group, answers in zip(anchored + packed, answered, strict=True):
        for pair, answer in zip(group, answers, strict=True):
            found.append((pair, reading_of(namespace, options, report, memories, pair, answer)))
    return found, granted


def packs(asked: Asked, per_call: int) -> bool:
    """Whether a third reading of this pair goes `per_call` a call (`pairs-v1`, each pair
    on its own): where no earlier reading took that form, and not one a call."""
    taken = {reading.version for reading in asked.earlier}
    return per_call > 1 and prompts.PAIRS_VERSION not in taken


def _kind(asked: Asked, per_call: int) -> int:
    """0 a second reading, 1 a third that goes several a call, 2 a third alone."""
    return 0 if len(asked.earlier) == 1 else 1 if packs(asked, per_call) else 2


def _calls(counts: list[int], per_call: int) -> int:
    return -(-counts[0] // per_call) + -(-counts[1] // per_call) + counts[2]


def calls_for(readings: list[Asked], per_call: int) -> int:
    """The calls these further readings take: second readings `per_call` to a call, third
    readings too where they may go as pairs (`packs`), the others one each."""
    counts = [0, 0, 0]
    for reading in readings:
        counts[_kind(reading, per_call)] += 1
    return _calls(counts, per_call)


def readings_within(readings: list[Asked], calls: int, per_call: int) -> list[Asked]:
    """As many of these further readings, in order, as `calls` calls can ask (calls_for)."""
    taken: list[Asked] = []
    counts = [0, 0, 0]
    for reading in readings:
        counts[_kind(reading, per_call)] += 1
        if _calls(counts, per_call) > calls:
            break
        taken.append(reading)
    return taken


def read_again(session, judged, namespace, options, readings: list[Asked], report, per_call: int):
    """Ask these further readings: second readings `per_call` a call (one alone as a
    pair), each the newer memory first; a third `per_call` a call in `pairs-v1` where no
    earlier reading took that form (`packs`), else one a call in a form its pair's
    earlier readings did not take (form_of_next). (Each asked pair and its reading, None
    where the LLM gave none; the calls made.)"""
    seconds, thirds = nth(readings, 1), nth(readings, 2)

    def several(ask, pairs: list[Asked], count: int):
        # Spread evenly over the calls: none holds one pair while another holds eight.
        calls = [pairs[k::count] for k in range(count)]
        return _several(ask, session, judged, namespace, options, calls, report)

    together = [a for a in thirds if packs(a, per_call)]
    found, made = several(session.pairs, together, -(-len(together) // per_call))
    for form in FORMS:
        these = [a for a in thirds if form_of_next(a) == form and not packs(a, per_call)]
        if form == prompts.RECHECK_VERSION:
            again, calls = several(session.rechecks, these, len(these))
        else:
            newer_first = form == prompts.SECOND_READING_VERSION
            again = ask_pairs(
                session, judged, namespace, options, these, report, newer_first=newer_first
            )
            calls = len(again)
        found, made = [*found, *again], made + calls
    if len(seconds) <= 1 or per_call == 1:
        again = ask_pairs(session, judged, namespace, options, seconds, report, newer_first=True)
        return [*found, *again], made + len(again)
    again, calls = several(session.rechecks, seconds, -(-len(seconds) // per_call))
    return [*found, *again], made + calls


def _several(ask, session, judged, namespace, options, calls: list[list[Asked]], report):
    """Ask each call's pairs in one prompt (`ask`: session.rechecks, each the newer memory
    first, or session.pairs, each the older first), within the calls the session grants:
    (each asked pair and its reading, the calls made)."""
    if not calls:
        return [], 0
    granted = session.reserve(len(calls))
    session.skip(len(calls) - granted)
    spent(options, granted)
    calls = calls[:granted]
    memories = judged.memories
    asked = [[(memories[a.older], memories[a.newer]) for a in call] for call in calls]
    found = []
    for call, answers in zip(calls, ask(asked), strict=True):
        for pair, answer in zip(call, answers, strict=True):
            found.append((pair, reading_of(namespace, options, report, memories, pair, answer)))
    return found, granted


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
    return Reading(answer.label, answer.conflict_kind, answer.reasoning, answer.prompt_version)


def nth(asked: list[Asked], readings: int) -> list[Asked]:
    """The pairs of `asked` that have had this many readings."""
    return [a for a in asked if len(a.earlier) == readings]
