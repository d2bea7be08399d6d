"""The one place that talks to an LLM, through the official `anthropic` SDK.

The key comes from ANTHROPIC_API_KEY and the SDK honours ANTHROPIC_BASE_URL (a gateway,
or a local fake server in tests). Calls are sequential (rate limits); the SDK retries
429/529/5xx with back-off by itself (MEMADMIN_LLM_MAX_RETRIES), after which the caller
falls back to the rules. A `Session` counts calls, tokens and skips for one run and
stops calling at the cap.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass

from django.conf import settings

from memadmin.curation import prompts
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
    """One run's LLM use: at most `max_calls` calls, made one after another, within the
    run's time budget (LLM_RUN_BUDGET_SECONDS) and until LLM_BREAKER_FAILURES calls in a
    row have failed (the circuit opens: a gateway that hangs or errors is not asked about
    every pair). After that every call raises CapReached and the callers use the rules."""

    def __init__(self, *, max_calls: int | None = None, shared_cap=None):
        self.max_calls = settings.LLM_MAX_CALLS_PER_RUN if max_calls is None else max_calls
        # A run whose batches run on several workers shares one cap among them:
        # `shared_cap()` takes one call from it, or answers False when none is left.
        self._shared_cap = shared_cap
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

    def _stop(self, why: str) -> None:
        if not self.stopped:
            self.stopped = why
            logger.warning("DEDUP_FAIL the LLM is not called again in this run: %s", why)
        self.skipped += 1
        raise CapReached(why)

    def _call(self, **request):
        if self.calls >= self.max_calls:
            self.skipped += 1
            raise CapReached(f"the run's cap of {self.max_calls} LLM calls is reached")
        if self.failures_in_a_row >= settings.LLM_BREAKER_FAILURES:
            self._stop(f"{self.failures_in_a_row} calls in a row failed")
        remaining = settings.LLM_RUN_BUDGET_SECONDS - (time.monotonic() - self._started)
        if remaining <= 0:
            self._stop(f"the run's budget of {settings.LLM_RUN_BUDGET_SECONDS:g} s is spent")
        client = self._client_or_fail()
        if self._shared_cap is not None and not self._shared_cap():
            self.max_calls = self.calls  # spent for good: not asked again
            self.skipped += 1
            raise CapReached("the run's cap of LLM calls, shared by its batches, is reached")
        import anthropic

        # Every attempt (the SDK retries by itself) gets a share of what is left, so one
        # call never outlives the run's budget.
        attempts = settings.LLM_MAX_RETRIES + 1
        timeout = min(settings.LLM_TIMEOUT_SECONDS, max(remaining / attempts, 0.1))
        self.calls += 1
        started = time.perf_counter()
        try:
            message = client.with_options(timeout=timeout).messages.create(
                model=self.model, **request
            )
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
        except (AttributeError, TypeError, validation.Invalid) as error:
            # The HTTP answer parsed, but it is not a message: {}, "usage": null...
            self._failed()
            raise LLMFailed(f"malformed answer: {error}") from error
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        return message, blocks, latency_ms

    def _failed(self) -> None:
        self.failures += 1
        self.failures_in_a_row += 1

    def _answered(self) -> None:
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

    def verdict(self, older, newer) -> VerdictAnswer:
        """The LLM's verdict on a pair, answered through a tool. Raises LLMFailed."""
        prompt = prompts.verdict_prompt(older, newer)
        message, blocks, _ = self._call(
            max_tokens=settings.LLM_MAX_TOKENS,
            system=prompt.system,
            messages=[{"role": "user", "content": prompt.user}],
            tools=[prompts.VERDICT_TOOL],
            tool_choice={"type": "tool", "name": prompts.VERDICT_TOOL["name"]},
        )
        answer = next(
            (getattr(b, "input", None) for b in blocks if getattr(b, "type", None) == "tool_use"),
            None,
        )
        if not isinstance(answer, dict) or answer.get("label") not in prompts.VERDICT_LABELS:
            self._failed()
            raise LLMFailed(f"malformed verdict answer: {validation.shown(answer)}")
        label = answer["label"]
        kind = answer.get("conflict_kind", "")
        if label == "conflict" and kind not in ("update", "contradiction"):
            kind = "contradiction"
        reasoning = answer.get("reasoning", "")
        if not isinstance(reasoning, str) or validation.unreadable(reasoning):
            self._failed()
            raise LLMFailed("malformed verdict answer: its reasoning is not readable text")
        self._answered()
        return VerdictAnswer(
            label=label,
            conflict_kind=kind if label == "conflict" else "",
            # The LLM's explanation, shown to reviewers: its first 2,000 characters.
            reasoning=reasoning[:2000],
            model=str(message.model),
            prompt_version=prompt.version,
        )
