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

logger = logging.getLogger("memadmin.curation")


class LLMFailed(Exception):
    """No usable answer: an error after the SDK's retries, a timeout, a malformed
    answer. The caller falls back to the rules."""


class CapReached(LLMFailed):
    """The run's call budget is spent."""


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
    """One run's LLM use: at most `max_calls` calls, made one after another."""

    def __init__(self, *, max_calls: int | None = None):
        self.max_calls = settings.LLM_MAX_CALLS_PER_RUN if max_calls is None else max_calls
        self.calls = 0
        self.skipped = 0
        self.failures = 0
        self.input_tokens = 0
        self.output_tokens = 0
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

    def _call(self, **request):
        if self.calls >= self.max_calls:
            self.skipped += 1
            raise CapReached(f"the run's cap of {self.max_calls} LLM calls is reached")
        client = self._client_or_fail()
        import anthropic

        self.calls += 1
        started = time.perf_counter()
        try:
            message = client.messages.create(model=self.model, **request)
        except anthropic.APIError as error:
            self.failures += 1
            raise LLMFailed(f"{type(error).__name__}: {error}") from error
        latency_ms = int((time.perf_counter() - started) * 1000)
        self.input_tokens += message.usage.input_tokens
        self.output_tokens += message.usage.output_tokens
        return message, latency_ms

    def merge(self, members) -> MergeAnswer:
        """The LLM's merged text for a cluster's members. Raises LLMFailed."""
        prompt = prompts.merge_prompt(members)
        message, latency_ms = self._call(
            max_tokens=settings.LLM_MAX_TOKENS,
            system=prompt.system,
            messages=[{"role": "user", "content": prompt.user}],
        )
        text = "".join(block.text for block in message.content if block.type == "text")
        return MergeAnswer(
            text=text.strip(),
            model=message.model,
            prompt_version=prompt.version,
            input_tokens=message.usage.input_tokens,
            output_tokens=message.usage.output_tokens,
            latency_ms=latency_ms,
        )

    def verdict(self, older, newer) -> VerdictAnswer:
        """The LLM's verdict on a pair, answered through a tool. Raises LLMFailed."""
        prompt = prompts.verdict_prompt(older, newer)
        message, _ = self._call(
            max_tokens=settings.LLM_MAX_TOKENS,
            system=prompt.system,
            messages=[{"role": "user", "content": prompt.user}],
            tools=[prompts.VERDICT_TOOL],
            tool_choice={"type": "tool", "name": prompts.VERDICT_TOOL["name"]},
        )
        answer = next((block.input for block in message.content if block.type == "tool_use"), None)
        if not isinstance(answer, dict) or answer.get("label") not in prompts.VERDICT_LABELS:
            self.failures += 1
            raise LLMFailed(f"malformed verdict answer: {answer!r}")
        label = answer["label"]
        kind = answer.get("conflict_kind", "")
        if label == "conflict" and kind not in ("update", "contradiction"):
            kind = "contradiction"
        return VerdictAnswer(
            label=label,
            conflict_kind=kind if label == "conflict" else "",
            reasoning=str(answer.get("reasoning", ""))[:2000],
            model=message.model,
            prompt_version=prompt.version,
        )
