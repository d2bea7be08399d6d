"""The one place that talks to an LLM, through the official `anthropic` SDK.

The key comes from ANTHROPIC_API_KEY and the SDK honours ANTHROPIC_BASE_URL (a gateway,
or a local fake server in tests). The SDK retries 429/529/5xx with back-off by itself,
honouring retry-after (MEMADMIN_LLM_MAX_RETRIES), after which the caller falls back to
the rules. A `Session` counts calls, tokens and skips for one run and stops calling at
its cap; verdicts go several at a time (MEMADMIN_LLM_CONCURRENCY), each waiting out a
rate limit the last answer's headers announced, and a full pass may go through the
Message Batches API instead (`submit_batch`, `batch_progress`, `batch_answers`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from memadmin.curation.llm import prompts
from memadmin.store import validation

logger = logging.getLogger("memadmin.curation")


class LLMFailed(Exception):
    """No usable answer: an error after the SDK's retries, a timeout, a malformed
    answer. The caller falls back to the rules."""


class CapReached(LLMFailed):
    """The run's call budget is spent."""


class UnusableMerge(LLMFailed):
    """The LLM answered a merge that cannot be stored: empty, unreadable or too long.
    The message says which, as a phrase ("was empty", "is longer than 8192 bytes")."""


@dataclass(frozen=True)
class MergeAnswer:
    text: str
    model: str
    prompt_version: str
    input_tokens: int
    output_tokens: int
    latency_ms: int


@dataclass(frozen=True)
class VerdictAnswer:
    label: str  # duplicate | conflict | related_distinct | unrelated
    conflict_kind: str  # update | contradiction | "" (for other labels)
    reasoning: str
    model: str
    prompt_version: str


def configured() -> bool:
    """Whether an LLM can be called at all (an API key is set)."""
    return bool(os.environ.get("ANTHROPIC_API_KEY"))


class Session:
    """One run's LLM use: at most `max_calls` calls, within the run's time budget
    (LLM_RUN_BUDGET_SECONDS) and until LLM_BREAKER_FAILURES calls in a row have failed
    (the circuit opens: a gateway that hangs or errors is not asked about every pair).
    After that every call raises CapReached and the callers use the rules. Thread-safe:
    `verdicts` asks several pairs at once, from calls reserved beforehand."""

    def __init__(self, *, max_calls: int | None = None, shared_cap=None):
        self.max_calls = settings.LLM_MAX_CALLS_PER_RUN if max_calls is None else max_calls
        # A run whose batches run on several workers shares one cap among them:
        # `shared_cap(n)` takes up to n calls from it and says how many it took.
        self._shared_cap = shared_cap
        self._lock = threading.Lock()
        self._reserved = 0  # calls taken from the caps for `verdicts` and not made yet
        self._not_before = 0.0  # monotonic time before which no call starts (rate limit)
        self.calls = 0
        self.skipped = 0
        self.failures = 0
        self.failures_in_a_row = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.stopped = ""  # why the session stopped calling, once it has
        self._started = time.monotonic()
        self._client = None

    @property
    def model(self) -> str:
        return settings.LLM_MODEL

    def usage(self) -> dict[str, int]:
        return {
            "llm_calls": self.calls,
            "llm_calls_skipped": self.skipped,
            "llm_failures": self.failures,
            "llm_input_tokens": self.input_tokens,
            "llm_output_tokens": self.output_tokens,
        }

    def _client_or_fail(self):
        if not configured():
            raise LLMFailed("no ANTHROPIC_API_KEY")
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(
                timeout=settings.LLM_TIMEOUT_SECONDS, max_retries=settings.LLM_MAX_RETRIES
            )
        return self._client

    def _stopped(self, why: str) -> None:
        """Note that the run calls no more (the lock is held), said once."""
        if not self.stopped:
            self.stopped = why
            logger.warning("DEDUP_FAIL the LLM is not called again in this run: %s", why)

    def _why_not(self) -> str:
        """Why no call may start now ("" when one may; the lock is held)."""
        if self.stopped:
            return self.stopped
        if settings.LLM_RUN_BUDGET_SECONDS - (time.monotonic() - self._started) <= 0:
            return f"the run's budget of {settings.LLM_RUN_BUDGET_SECONDS:g} s is spent"
        if self.failures_in_a_row >= settings.LLM_BREAKER_FAILURES:
            return f"{self.failures_in_a_row} calls in a row failed"
        return ""

    def _stop(self, why: str, reserved: bool = False) -> None:
        """Stop calling for the rest of the run (the lock is held)."""
        self._stopped(why)
        self.skipped += 1
        if reserved:
            self._reserved -= 1
        raise CapReached(why)

    def reserve(self, wanted: int) -> int:
        """Take up to `wanted` calls from the run's caps for `verdicts` (in the calling
        thread: the shared cap is a database row); how many were taken."""
        with self._lock:
            if why := self._why_not():
                self._stopped(why)  # a band that asks a few at a time hears it here
                return 0
            left = self.max_calls - self.calls - self._reserved
            wanted = max(0, min(wanted, left))
        if wanted and self._shared_cap is not None:
            granted = self._shared_cap(wanted)
            if granted < wanted:
                self.max_calls = self.calls + self._reserved + granted  # spent for good
            wanted = granted
        with self._lock:
            self._reserved += wanted
        return wanted

    def skip(self, count: int) -> None:
        """Count calls the caps kept from being made."""
        with self._lock:
            self.skipped += count

    def _call(self, *, reserved: bool = False, **request):
        with self._lock:
            if not reserved and self.calls + self._reserved >= self.max_calls:
                self.skipped += 1
                raise CapReached(f"the run's cap of {self.max_calls} LLM calls is reached")
            if self.failures_in_a_row >= settings.LLM_BREAKER_FAILURES:
                self._stop(f"{self.failures_in_a_row} calls in a row failed", reserved)
            remaining = settings.LLM_RUN_BUDGET_SECONDS - (time.monotonic() - self._started)
            if remaining <= 0:
                self._stop(
                    f"the run's budget of {settings.LLM_RUN_BUDGET_SECONDS:g} s is spent",
                    reserved,
                )
        client = self._client_or_fail()
        if not reserved and self._shared_cap is not None and not self._shared_cap(1):
            self.max_calls = self.calls  # spent for good: not asked again
            with self._lock:
                self.skipped += 1
            raise CapReached("the run's cap of LLM calls, shared by its batches, is reached")
        import anthropic

        self._wait_for_the_rate_limit(remaining)
        # Every attempt (the SDK retries by itself) gets a share of what is left, so one
        # call never outlives the run's budget.
        attempts = settings.LLM_MAX_RETRIES + 1
        timeout = min(settings.LLM_TIMEOUT_SECONDS, max(remaining / attempts, 0.1))
        with self._lock:
            self.calls += 1
            if reserved:
                self._reserved -= 1
        started = time.perf_counter()
        try:
            raw = client.with_options(timeout=timeout).messages.with_raw_response.create(
                model=self.model, **request
            )
            self._note_rate_limit(raw.headers)
            message = raw.parse()
            latency_ms = int((time.perf_counter() - started) * 1000)
            usage = message.usage
            input_tokens = validation.count(usage.input_tokens, "usage.input_tokens")
            output_tokens = validation.count(usage.output_tokens, "usage.output_tokens")
            blocks = message.content
            if not isinstance(blocks, list):
                raise validation.Invalid("content", "is not a list of blocks")
        except anthropic.APIError as error:
            self._failed()
            raise LLMFailed(f"{type(error).__name__}: {error}") from error
        except (AttributeError, TypeError, ValueError, validation.Invalid) as error:
            # The HTTP answer parsed, but it is not a message: {}, "usage": null...
            self._failed()
            raise LLMFailed(f"malformed answer: {error}") from error
        with self._lock:
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens
        return message, blocks, latency_ms

    def _wait_for_the_rate_limit(self, remaining: float) -> None:
        """Sleep until the rate limit the last answer announced resets (never past the
        run's budget)."""
        with self._lock:
            wait = self._not_before - time.monotonic()
        if wait > 0:
            time.sleep(min(wait, max(remaining - 1.0, 0.0)))

    def _note_rate_limit(self, headers) -> None:
        """From the answer's headers: when fewer requests are left than calls run at
        once, no call starts before the limit resets."""
        left = headers.get("anthropic-ratelimit-requests-remaining")
        reset = headers.get("anthropic-ratelimit-requests-reset")
        if left is None or reset is None:
            return
        try:
            left = int(left)
            reset_at = datetime.fromisoformat(reset.replace("Z", "+00:00"))
        except ValueError:
            return  # not what the API documents: no pacing from it
        if left >= settings.LLM_CONCURRENCY:
            return
        wait = min((reset_at - datetime.now(reset_at.tzinfo)).total_seconds(), 60.0)
        if wait > 0:
            with self._lock:
                self._not_before = max(self._not_before, time.monotonic() + wait)

    def _failed(self) -> None:
        with self._lock:
            self.failures += 1
            self.failures_in_a_row += 1

    def _answered(self) -> None:
        with self._lock:
            self.failures_in_a_row = 0

    def merge(self, members) -> MergeAnswer:
        """The LLM's merged text for a cluster's members: readable text within the
        content limit, else LLMFailed (the rule's text is used)."""
        prompt = prompts.merge_prompt(members)
        message, blocks, latency_ms = self._call(
            max_tokens=settings.LLM_MAX_TOKENS,
            system=prompt.system,
            messages=[{"role": "user", "content": prompt.user}],
        )
        try:
            text = "".join(
                validation.text(block.text, "text", blank=True)
                for block in blocks
                if getattr(block, "type", None) == "text"
            ).strip()
            if not text:
                raise validation.Invalid("", "was empty")
            validation.content(text)
        except (AttributeError, validation.Invalid) as problem:
            self._failed()
            reason = getattr(problem, "message", "is not text")
            raise UnusableMerge(reason) from None
        self._answered()
        return MergeAnswer(
            text=text,
            model=str(message.model),
            prompt_version=prompt.version,
            input_tokens=message.usage.input_tokens,
            output_tokens=message.usage.output_tokens,
            latency_ms=latency_ms,
        )

    def verdict(
        self, older, newer, *, reserved: bool = False, second_reading: bool = False
    ) -> VerdictAnswer:
        """The LLM's verdict on a pair, answered through a tool (`second_reading`: the
        pair shown the newer first). Raises LLMFailed."""
        prompt = prompts.verdict_prompt(older, newer, second_reading=second_reading)
        message, blocks, _ = self._call(reserved=reserved, **verdict_request(prompt))
        try:
            answer = verdict_of(blocks, str(message.model), prompt.version)
        except LLMFailed:
            self._failed()
            raise
        self._answered()
        return answer

    def verdicts(
        self, pairs: Sequence[tuple], *, second_reading: bool = False
    ) -> list[VerdictAnswer | LLMFailed]:
        """Verdicts on (older, newer) pairs, LLM_CONCURRENCY at a time, from calls the
        caller reserved (`reserve`) for exactly these pairs: each answer, or the failure
        that left a pair to the rules, in the pairs' order."""

        def ask(pair):
            try:
                return self.verdict(*pair, reserved=True, second_reading=second_reading)
            except LLMFailed as failure:
                return failure

        if len(pairs) <= 1 or settings.LLM_CONCURRENCY <= 1:
            return [ask(pair) for pair in pairs]
        with ThreadPoolExecutor(max_workers=settings.LLM_CONCURRENCY) as pool:
            return list(pool.map(ask, pairs))

    def group_verdicts(self, anchor, candidates: Sequence) -> list[VerdictAnswer | LLMFailed]:
        """One call on a memory and its candidates (a reserved call): for each candidate,
        in order, the LLM's verdict on the pair, or why there is none (a candidate the
        answer skipped or answered unreadably is left to the rules alone; the rest
        stand). The whole call failing fails every candidate."""
        prompt = prompts.group_prompt(anchor, candidates)
        try:
            message, blocks, _ = self._call(reserved=True, **group_request(prompt))
        except LLMFailed as failure:  # counted as a failure by _call already
            return [failure] * len(candidates)
        try:
            answers = group_verdicts_of(blocks, len(candidates), str(message.model))
        except LLMFailed as failure:
            self._failed()
            return [failure] * len(candidates)
        self._answered()
        return answers

    def audit_verdicts(self, pairs: Sequence[tuple]) -> list[VerdictAnswer | LLMFailed]:
        """One call on several (A, B) pairs of an audit (a reserved call): each pair's
        verdict, or why there is none, in order (as group_verdicts)."""
        return self._pair_verdicts(prompts.audit_prompt(pairs), len(pairs))

    def recheck_verdicts(self, pairs: Sequence[tuple]) -> list[VerdictAnswer | LLMFailed]:
        """One call reading several (older, newer) pairs a second time, each the newer
        first (a reserved call): each pair's verdict, or why there is none, in order."""
        return self._pair_verdicts(prompts.recheck_prompt(pairs), len(pairs))

    def pair_verdicts(self, pairs: Sequence[tuple]) -> list[VerdictAnswer | LLMFailed]:
        """One call reading several (older, newer) pairs a first time, each the older
        first (a reserved call): each pair's verdict, or why there is none, in order."""
        return self._pair_verdicts(prompts.pairs_prompt(pairs), len(pairs))

    def _pair_verdicts(self, prompt: prompts.Prompt, count: int) -> list[VerdictAnswer | LLMFailed]:
        """One call on a prompt of `count` numbered pairs, answered with PAIRS_TOOL."""
        try:
            message, blocks, _ = self._call(reserved=True, **pairs_request(prompt))
        except LLMFailed as failure:
            return [failure] * count
        try:
            answers = group_verdicts_of(
                blocks, count, str(message.model), key="pair", version=prompt.version
            )
        except LLMFailed as failure:
            self._failed()
            return [failure] * count
        self._answered()
        return answers

    def audits(self, calls: Sequence[Sequence[tuple]]) -> list[list[VerdictAnswer | LLMFailed]]:
        """audit_verdicts of each call's pairs, LLM_CONCURRENCY at a time, from calls the
        caller reserved for exactly these."""
        return self._each(self.audit_verdicts, calls)

    def rechecks(self, calls: Sequence[Sequence[tuple]]) -> list[list[VerdictAnswer | LLMFailed]]:
        """recheck_verdicts of each call's pairs, as `audits`."""
        return self._each(self.recheck_verdicts, calls)

    def pairs(self, calls: Sequence[Sequence[tuple]]) -> list[list[VerdictAnswer | LLMFailed]]:
        """pair_verdicts of each call's pairs, as `audits`."""
        return self._each(self.pair_verdicts, calls)

    def _each(self, ask, calls: Sequence) -> list:
        if len(calls) <= 1 or settings.LLM_CONCURRENCY <= 1:
            return [ask(one) for one in calls]
        with ThreadPoolExecutor(max_workers=settings.LLM_CONCURRENCY) as pool:
            return list(pool.map(ask, calls))

    def groups(self, asked: Sequence[tuple]) -> list[list[VerdictAnswer | LLMFailed]]:
        """group_verdicts of each (anchor, candidates), LLM_CONCURRENCY at a time, from
        calls the caller reserved for exactly these groups."""
        return self._each(lambda one: self.group_verdicts(*one), asked)

    # --- Message Batches: a full pass's verdicts in one request -------------------------

    def submit_batch(self, requests: Sequence[tuple[str, object, object, str]]) -> str:
        """Send (custom id, older, newer, form) verdict requests as one Message Batch, each
        pair shown in its form (a prompt version: the verdict prompt, the older or the
        newer memory first, or the recheck prompt of that pair alone); its id. Raises
        LLMFailed."""
        import anthropic

        client = self._client_or_fail()
        body = [
            {
                "custom_id": custom_id,
                "params": {"model": self.model, **reading_request(older, newer, form)},
            }
            for custom_id, older, newer, form in requests
        ]
        try:
            return str(client.messages.batches.create(requests=body).id)
        except anthropic.APIError as error:
            raise LLMFailed(f"{type(error).__name__}: {error}") from error

    def batch_progress(self, batch_id: str) -> tuple[bool, dict[str, int]]:
        """(whether the batch has ended, its requests counted by state)."""
        import anthropic

        client = self._client_or_fail()
        try:
            found = client.messages.batches.retrieve(batch_id)
        except anthropic.APIError as error:
            raise LLMFailed(f"{type(error).__name__}: {error}") from error
        counts = found.request_counts
        return found.processing_status == "ended", {
            state: int(getattr(counts, state, 0) or 0)
            for state in ("processing", "succeeded", "errored", "canceled", "expired")
        }

    def batch_answers(
        self, batch_id: str, forms: dict[str, str]
    ) -> Iterator[tuple[str, VerdictAnswer | str]]:
        """An ended batch's answers: (custom id, the verdict, or why there is none), each
        read as its request's form asked (`forms` by custom id)."""
        import anthropic

        client = self._client_or_fail()
        try:
            for entry in client.messages.batches.results(batch_id):
                result = entry.result
                if getattr(result, "type", "") != "succeeded":
                    yield entry.custom_id, f"the request {getattr(result, 'type', 'failed')}"
                    continue
                message = result.message
                try:
                    with self._lock:
                        self.input_tokens += int(message.usage.input_tokens or 0)
                        self.output_tokens += int(message.usage.output_tokens or 0)
                    form = forms.get(entry.custom_id, prompts.VERDICT_VERSION)
                    yield entry.custom_id, reading_of(message, form)
                except (LLMFailed, AttributeError, TypeError, ValueError) as problem:
                    yield entry.custom_id, str(problem)
        except anthropic.APIError as error:
            raise LLMFailed(f"{type(error).__name__}: {error}") from error


def reading_request(older, newer, form: str) -> dict:
    """The Messages API parameters (but the model) of one pair's reading in `form`."""
    if form == prompts.RECHECK_VERSION:
        return pairs_request(prompts.recheck_prompt([(older, newer)]))
    newer_first = form == prompts.SECOND_READING_VERSION
    return verdict_request(prompts.verdict_prompt(older, newer, second_reading=newer_first))


def reading_of(message, form: str) -> VerdictAnswer:
    """The verdict of a message answering one pair's reading in `form`. Raises LLMFailed."""
    if form != prompts.RECHECK_VERSION:
        return verdict_of(message.content, str(message.model), form)
    [answer] = group_verdicts_of(message.content, 1, str(message.model), key="pair", version=form)
    if isinstance(answer, LLMFailed):
        raise answer
    return answer


def verdict_request(prompt: prompts.Prompt) -> dict:
    """The Messages API parameters of a verdict (but the model)."""
    return _tool_request(prompt, prompts.VERDICT_TOOL, settings.LLM_MAX_TOKENS)


def group_request(prompt: prompts.Prompt) -> dict:
    """The Messages API parameters of a group's verdicts (but the model): room for a
    short reasoning on each candidate."""
    return _tool_request(prompt, prompts.GROUP_TOOL, settings.LLM_MAX_TOKENS * 4)


def pairs_request(prompt: prompts.Prompt) -> dict:
    """The Messages API parameters of several numbered pairs' verdicts (an audit's, second
    readings'), as a group's."""
    return _tool_request(prompt, prompts.PAIRS_TOOL, settings.LLM_MAX_TOKENS * 4)


def _tool_request(prompt: prompts.Prompt, tool: dict, max_tokens: int) -> dict:
    return {
        "max_tokens": max_tokens,
        "system": prompt.system,
        "messages": [{"role": "user", "content": prompt.user}],
        "tools": [tool],
        "tool_choice": {"type": "tool", "name": tool["name"]},
    }


def group_verdicts_of(
    blocks, count: int, model: str, *, key: str = "memory", version: str = prompts.GROUP_VERSION
) -> list[VerdictAnswer | LLMFailed]:
    """Each of `count` candidates' verdict from a group answer's blocks, in order (each
    verdict names its candidate's number under `key`); an LLMFailed for a candidate
    answered twice, unreadably or not at all. LLMFailed when the answer holds no list of
    verdicts."""
    if not isinstance(blocks, list):
        raise LLMFailed("malformed group answer: its content is not a list of blocks")
    answer = next(
        (getattr(b, "input", None) for b in blocks if getattr(b, "type", None) == "tool_use"),
        None,
    )
    listed = answer.get("verdicts") if isinstance(answer, dict) else None
    if not isinstance(listed, list):
        raise LLMFailed(f"malformed group answer: {validation.shown(answer)}")
    found: dict[int, VerdictAnswer | LLMFailed] = {}
    for item in listed[: count * 2]:
        number = item.get(key) if isinstance(item, dict) else None
        if type(number) is not int or not 1 <= number <= count:
            continue  # not one of the numbered memories: nothing to apply it to
        if number in found:
            found[number] = LLMFailed(f"{key} {number} was answered twice")
            continue
        try:
            found[number] = verdict_of([_ToolUse(item)], model, version, what="group answer")
        except LLMFailed as failure:
            found[number] = failure
    return [
        found.get(number, LLMFailed(f"{key} {number} was not answered"))
        for number in range(1, count + 1)
    ]


@dataclass(frozen=True)
class _ToolUse:
    """One verdict of a group answer, read as a pair's tool call is."""

    input: object
    type: str = "tool_use"


def verdict_of(
    blocks, model: str, prompt_version: str, *, what: str = "verdict answer"
) -> VerdictAnswer:
    """A verdict from a message's content blocks, or LLMFailed when they hold none a
    reader can use."""
    if not isinstance(blocks, list):
        raise LLMFailed(f"malformed {what}: its content is not a list of blocks")
    answer = next(
        (getattr(b, "input", None) for b in blocks if getattr(b, "type", None) == "tool_use"),
        None,
    )
    if not isinstance(answer, dict) or answer.get("label") not in prompts.VERDICT_LABELS:
        raise LLMFailed(f"malformed {what}: {validation.shown(answer)}")
    label = answer["label"]
    kind = answer.get("conflict_kind", "")
    if label == "conflict" and kind not in ("update", "contradiction"):
        kind = "contradiction"
    reasoning = answer.get("reasoning", "")
    if not isinstance(reasoning, str) or validation.unreadable(reasoning):
        raise LLMFailed(f"malformed {what}: its reasoning is not readable text")
    return VerdictAnswer(
        label=label,
        conflict_kind=kind if label == "conflict" else "",
        # The LLM's explanation, shown to reviewers: its first 2,000 characters.
        reasoning=reasoning[:2000],
        model=model,
        prompt_version=prompt_version,
    )
