"""find_duplicates --llm-batch: a full pass's doubtful pairs asked through the Message
Batches API (half the price of one call at a time, no rate limit to pace, up to a day to
answer).

1. A first pass plans every namespace as find_duplicates would, writing nothing, and
   collects the pairs it would ask (llm_verdicts.ask_band, within each namespace's
   budget).
2. They are recorded (an LlmBatch row: which texts each request asks about), then sent
   as one batch, and its id recorded.
3. The batch is followed until it ends, with progress; its answers are recorded as
   verdicts (one per pair of texts: applying one twice changes nothing).
4. The pass runs for real: every doubtful pair the batch answered is decided by that
   verdict, as a cached answer is.

A run killed at any point resumes from what the database holds: a batch recorded but
never known to be sent is sent again, one sent is followed and applied, then step 4.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.conf import settings
from django.db import transaction

from memadmin.curation import decisions
from memadmin.curation.llm import client as llm
from memadmin.curation.llm import prompts
from memadmin.curation.models import LlmBatch
from memadmin.store.models import Memory, Namespace

logger = logging.getLogger("memadmin.curation")


def unfinished() -> LlmBatch | None:
    """The batch an earlier --llm-batch run left before applying it, if any."""
    return (
        LlmBatch.objects.filter(status__in=[LlmBatch.Status.SUBMITTING, LlmBatch.Status.SUBMITTED])
        .order_by("created_at", "id")
        .first()
    )


def record(pairs: list[tuple], *, later: bool = False) -> LlmBatch | None:
    """Record the pairs to ask ((namespace, older, newer, form) each, the form one of
    curation.llm.asking.FORMS; one request per pair of texts and form) before anything is
    sent; `later`: a later round's (further readings only). None when there is nothing
    to ask."""
    requests, seen = {}, set()
    for namespace, older, newer, form in pairs:
        hashes = sorted((older.content_hash, newer.content_hash))
        if (namespace.pk, *hashes, form) in seen:
            continue
        seen.add((namespace.pk, *hashes, form))
        requests[f"pair-{len(requests):06d}"] = {
            "namespace": namespace.pk,
            "older": older.pk,
            "newer": newer.pk,
            "hashes": hashes,
            "form": form,
            "later": later,
        }
    if not requests:
        return None
    return LlmBatch.objects.create(requests=requests)


def submit(batch: LlmBatch, session: llm.Session) -> None:
    """Send a recorded batch and keep its id. Requests whose memories are gone since are
    left out. Side effects: the batch's provider id and status (or its failure)."""
    memories = Memory.objects.in_bulk(
        [i for r in batch.requests.values() for i in (r["older"], r["newer"])]
    )
    requests = [
        (custom_id, memories[r["older"]], memories[r["newer"]], form_of(r))
        for custom_id, r in batch.requests.items()
        if r["older"] in memories and r["newer"] in memories
    ]
    try:
        provider_id = session.submit_batch(requests)
    except llm.LLMFailed as error:
        batch.status, batch.error = LlmBatch.Status.FAILED, str(error)
        batch.save(update_fields=["status", "error", "updated_at"])
        raise
    batch.provider_id, batch.status = provider_id, LlmBatch.Status.SUBMITTED
    batch.save(update_fields=["provider_id", "status", "updated_at"])


def follow(batch: LlmBatch, session: llm.Session, on_progress: Callable[[int, int], None]) -> None:
    """Wait until the batch has ended, telling `on_progress(answered, total)` after each
    look (every LLM_BATCH_POLL_SECONDS)."""
    while True:
        ended, counts = session.batch_progress(batch.provider_id)
        total = sum(counts.values())
        on_progress(total - counts["processing"], total)
        if ended:
            return
        time.sleep(settings.LLM_BATCH_POLL_SECONDS)


def apply(batch: LlmBatch, session: llm.Session) -> dict[str, int]:
    """Record an ended batch's answers as verdicts (a request with no usable answer is
    left to the rules, logged). Side effects, in one transaction: PairVerdict rows; the
    batch applied, with its counts."""
    counts = {"verdicts": 0, "failed": 0}
    namespaces = Namespace.objects.in_bulk({r["namespace"] for r in batch.requests.values()})
    with transaction.atomic():
        batch = LlmBatch.objects.select_for_update().get(pk=batch.pk)
        if batch.status == LlmBatch.Status.APPLIED:
            return batch.counts  # another run applied it meanwhile
        forms = {custom_id: form_of(r) for custom_id, r in batch.requests.items()}
        for custom_id, answer in session.batch_answers(batch.provider_id, forms):
            asked = batch.requests.get(custom_id)
            if asked is None or asked["namespace"] not in namespaces:
                continue  # not one of ours, or its namespace is gone
            if isinstance(answer, str):
                counts["failed"] += 1
                logger.warning("DEDUP_FAIL batch verdict %s falls back to the rules: %s",
                               custom_id, answer)  # fmt: skip
                continue
            decisions.record_verdict(
                namespace=namespaces[asked["namespace"]],
                hashes=tuple(asked["hashes"]),
                verdict=answer.label,
                conflict_kind=answer.conflict_kind,
                reason=answer.reasoning,
                decided_by="llm",
                prompt_version=answer.prompt_version,
            )
            counts["verdicts"] += 1
        batch.status, batch.counts = LlmBatch.Status.APPLIED, counts
        batch.save(update_fields=["status", "counts", "updated_at"])
    return counts


def count_later(batch: LlmBatch, counts: dict[int, int]) -> None:
    """Add the batch's requests of a later round to `counts`, by namespace id (a batch
    resumed after a kill counts as the round that recorded it)."""
    for request in batch.requests.values():
        if request.get("later"):
            counts[request["namespace"]] = counts.get(request["namespace"], 0) + 1


def form_of(request: dict) -> str:
    """How a recorded request shows its pair (a prompt version of asking.FORMS); a batch
    recorded before forms says only whether it was a second reading."""
    if "form" in request:
        return request["form"]
    return (
        prompts.SECOND_READING_VERSION if request.get("second_reading") else prompts.VERDICT_VERSION
    )
