"""The LLM's merge of a cluster's members, checked like every proposal, with the rule's
text in its place when the LLM cannot give one (curation.proposals)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from memadmin.curation.llm import client as llm
from memadmin.curation.proposals import Draft, check, rule_draft

logger = logging.getLogger("memadmin.curation")


def draft_for(members: Sequence, session: llm.Session | None) -> Draft:
    """The LLM's merge of `members` when it can be had, else the rule's; checked either
    way. A merge the LLM answered but that cannot be stored (empty, unreadable, too long)
    is discarded with a warning, and the rule's draft takes its place."""
    if session is None or not llm.configured():
        return check(rule_draft(members, "no LLM configured"), members)
    try:
        answer = session.merge(members)
    except llm.UnusableMerge as problem:
        logger.warning("DEDUP_FAIL the LLM's merge %s; the rule's text is used", problem)
        fallback = check(rule_draft(members, f"the LLM's merge {problem}"), members)
        fallback.warnings = [f"the LLM's merge {problem} and was discarded", *fallback.warnings]
        return fallback
    except llm.LLMFailed as error:
        logger.warning("DEDUP_FAIL merge proposal falls back to the rule: %s", error)
        return check(rule_draft(members, f"LLM failed: {error}"), members)
    return check(
        Draft(
            text=answer.text,
            author="llm",
            model=answer.model,
            prompt_version=answer.prompt_version,
            rationale="LLM merge of all members, oldest to newest",
            input_tokens=answer.input_tokens,
            output_tokens=answer.output_tokens,
            latency_ms=answer.latency_ms,
        ),
        members,
    )
