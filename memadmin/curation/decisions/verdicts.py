"""Judgements on pairs of texts (PairVerdict), keyed by content hash: a person's "not a
duplicate" or "both valid", or the LLM's cached verdict. A judged pair is never proposed
(or asked) again."""

from __future__ import annotations

from collections.abc import Sequence

from memadmin.curation.models import PairVerdict
from memadmin.store.models import Memory, Namespace


def record_verdict(
    *,
    namespace: Namespace,
    hashes: tuple[str, str],
    verdict: str,
    conflict_kind: str,
    reason: str,
    decided_by: str,
    prompt_version: str = "",
    user=None,
) -> PairVerdict:
    """Remember a judgement on a pair of texts (by content hash), so it is never asked or
    proposed again. Side effects: creates one PairVerdict (or returns the existing one)."""
    low, high = sorted(hashes)
    pair_verdict, _ = PairVerdict.objects.get_or_create(
        namespace=namespace,
        hash_low=low,
        hash_high=high,
        decided_by=decided_by,
        prompt_version=prompt_version,
        defaults={
            "verdict": verdict,
            "conflict_kind": conflict_kind,
            "reason": reason,
            "user": user,
        },
    )
    return pair_verdict


def forget_verdict(
    *, namespace_id: int, hashes: tuple[str, str], verdict: str, reason: str | None = None
) -> None:
    """Take back a person's verdict on a pair (an undone dismissal, exclusion, split or
    settlement): the pair may be proposed again. `reason` narrows it to the verdict one
    decision wrote. Side effects: deletes that PairVerdict."""
    low, high = sorted(hashes)
    PairVerdict.objects.filter(
        namespace_id=namespace_id,
        hash_low=low,
        hash_high=high,
        decided_by="human",
        verdict=verdict,
        **({"reason": reason} if reason is not None else {}),
    ).delete()


def remember_apart(
    namespace: Namespace,
    memory: Memory,
    others: Sequence[Memory],
    user,
    reason: str,
    *,
    same_text: bool = False,
) -> None:
    """A person said `memory` is no duplicate of any of `others`: one human verdict per
    pair of different texts (and of copies of one text too, with `same_text`)."""
    for other in others:
        if same_text or other.content_hash != memory.content_hash:
            record_verdict(
                namespace=namespace,
                hashes=(memory.content_hash, other.content_hash),
                verdict=PairVerdict.Verdict.NOT_DUPLICATE,
                conflict_kind="",
                reason=reason,
                decided_by="human",
                user=user,
            )
