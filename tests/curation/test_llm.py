"""The real anthropic SDK against a local fake API (tests/fake_anthropic.py): prompts,
answers, retries and failures of llm.Session."""

from types import SimpleNamespace

import pytest

from memadmin.curation.llm import client as llm
from memadmin.curation.llm import merges, prompts
from tests.factories import unsaved
from tests.fake_anthropic import error, text_message, tool_message, verdict

THREE = [
    unsaved("Alice lives in Lyon.", day=3),
    unsaved("Her home is in Lyon, France, on the Croix-Rousse hill.", day=9),
    unsaved("Alice est basée à Lyon, dans le 4e arrondissement.", day=5),
]


def test_every_prompt_renders_from_a_cluster_of_three_memories():
    merge = prompts.merge_prompt(THREE)
    pair = prompts.verdict_prompt(THREE[0], THREE[1])

    assert merge.version == "merge-v1" and pair.version == "verdict-v1"
    assert merge.user.splitlines()[1:4] == [
        "1. (2026-01-03 00:00 [fact]) Alice lives in Lyon.",
        "2. (2026-01-05 00:00 [fact]) Alice est basée à Lyon, dans le 4e arrondissement.",
        "3. (2026-01-09 00:00 [fact]) Her home is in Lyon, France, on the Croix-Rousse hill.",
    ]
    assert "prefer the newer" in merge.system
    assert pair.user == (
        "Older memory: (2026-01-03 00:00 [fact]) Alice lives in Lyon.\n"
        "Newer memory: (2026-01-09 00:00 [fact]) Her home is in Lyon, France, "
        "on the Croix-Rousse hill."
    )
    schema = prompts.VERDICT_TOOL["input_schema"]
    assert next(iter(schema["properties"])) == "reasoning"  # reasoning before the label


def test_a_good_merge_is_the_llm_text_with_its_usage(fake_llm):
    fake_llm.queue.append(text_message("Alice lives in Lyon (4th arrondissement, Croix-Rousse)."))
    session = llm.Session()

    draft = merges.draft_for(THREE, session)

    assert (draft.author, draft.text) == (
        "llm",
        "Alice lives in Lyon (4th arrondissement, Croix-Rousse).",
    )
    assert (draft.model, draft.prompt_version) == ("claude-haiku-5-5", "merge-v1")
    assert (draft.input_tokens, draft.output_tokens) == (120, 20)
    assert draft.latency_ms is not None
    (request,) = fake_llm.requests
    assert request["model"] == "claude-haiku-5-5"
    assert request["messages"][0]["content"].startswith("Memories, oldest to newest:")
    assert draft.dropped_facts == ["name: France"]  # the merge lost "France"


@pytest.mark.parametrize(
    ("answer", "label", "kind"),
    [
        (verdict("duplicate"), "duplicate", ""),
        (verdict("conflict", "update"), "conflict", "update"),
        (verdict("conflict", "none"), "conflict", "contradiction"),
        (verdict("related_distinct"), "related_distinct", ""),
        (verdict("unrelated"), "unrelated", ""),
    ],
)
def test_a_verdict_of_each_label(fake_llm, answer, label, kind):
    fake_llm.queue.append(answer)

    result = llm.Session().verdict(THREE[0], THREE[1])

    assert (result.label, result.conflict_kind, result.reasoning) == (label, kind, "compared both")
    request = fake_llm.requests[0]
    assert request["tool_choice"] == {"type": "tool", "name": "record_verdict"}
    assert request["tools"][0]["input_schema"]["required"] == [
        "reasoning",
        "label",
        "conflict_kind",
    ]


@pytest.mark.parametrize(
    "answer",
    [
        tool_message({"reasoning": "hm", "label": "maybe"}),
        text_message("They are duplicates."),
    ],
)
def test_a_malformed_verdict_fails_cleanly(fake_llm, answer):
    fake_llm.queue.append(answer)
    session = llm.Session()

    with pytest.raises(llm.LLMFailed, match="malformed"):
        session.verdict(THREE[0], THREE[1])
    assert session.failures == 1


def test_a_429_is_retried_by_the_sdk_then_succeeds(fake_llm):
    fake_llm.queue.extend([error(429, "rate_limit_error"), text_message("Alice lives in Lyon.")])

    draft = merges.draft_for(THREE[:2], llm.Session())

    assert (draft.author, draft.text) == ("llm", "Alice lives in Lyon.")
    assert len(fake_llm.requests) == 2


def test_the_call_cap_stops_calling(fake_llm):
    fake_llm.handler = lambda body, number: text_message("merged")
    session = llm.Session(max_calls=2)

    drafts = [merges.draft_for(THREE, session) for _ in range(3)]

    assert [d.author for d in drafts] == ["llm", "llm", "rule"]
    assert (session.calls, session.skipped, len(fake_llm.requests)) == (2, 1, 2)


def test_no_call_starts_before_an_announced_rate_limit_resets(fake_llm, settings):
    # The first answer says no request is left until a second from now: the next call
    # waits for it (the SDK itself honours retry-after on a 429).
    from datetime import UTC, datetime, timedelta

    settings.LLM_CONCURRENCY = 4

    def headers(number: int) -> dict[str, str]:
        reset = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
        left = "0" if number == 1 else "100"
        return {
            "anthropic-ratelimit-requests-remaining": left,
            "anthropic-ratelimit-requests-reset": reset,
        }

    fake_llm.headers = headers
    fake_llm.handler = lambda body, number: verdict("unrelated")
    session = llm.Session()
    older, newer = THREE[:2]

    session.verdict(older, newer)
    session.verdict(older, newer)

    assert len(fake_llm.requests) == 2
    assert fake_llm.started[1] - fake_llm.started[0] >= 0.8


def test_a_rate_limit_header_that_is_not_a_time_is_ignored(fake_llm):
    fake_llm.headers = lambda number: {
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": "soon",
    }
    fake_llm.handler = lambda body, number: verdict("unrelated")
    session = llm.Session()
    older, newer = THREE[:2]

    session.verdict(older, newer)
    session.verdict(older, newer)

    assert fake_llm.started[1] - fake_llm.started[0] < 0.8


def test_an_audit_call_shows_its_pairs_undated_and_reads_only_the_answers_it_can_use(fake_llm):
    pairs = [(THREE[0], THREE[1]), (THREE[1], THREE[2]), (THREE[2], THREE[0]), (THREE[0], THREE[2])]
    fake_llm.queue.append(
        tool_message(
            {
                "verdicts": [
                    {
                        "pair": 1,
                        "reasoning": "same city",
                        "label": "duplicate",
                        "conflict_kind": "none",
                    },
                    {"pair": 2, "reasoning": "x", "label": "maybe", "conflict_kind": "none"},
                    {"pair": 3, "reasoning": "a", "label": "conflict", "conflict_kind": "none"},
                    {"pair": 3, "reasoning": "b", "label": "duplicate", "conflict_kind": "none"},
                    {"pair": 99, "reasoning": "?", "label": "duplicate", "conflict_kind": "none"},
                    "not a verdict",
                    {"pair": "4", "reasoning": "\x00", "label": "duplicate"},
                ]
            }
        )
    )
    session = llm.Session()
    session.reserve(1)

    answers = session.audit_verdicts(pairs)

    (request,) = fake_llm.requests
    prompt = request["messages"][0]["content"]
    assert prompt.splitlines()[:3] == [
        "Pairs to judge:",
        '1. A: "Alice lives in Lyon."',
        '   B: "Her home is in Lyon, France, on the Croix-Rousse hill."',
    ]
    assert "2026" not in prompt  # no dates: another presentation than the band's
    assert request["tool_choice"] == {"type": "tool", "name": "record_pair_verdicts"}
    assert answers[0].label == "duplicate" and answers[0].prompt_version == "audit-v1"
    # An unknown label, a pair answered twice, one not answered: no answer, no error.
    assert all(isinstance(a, llm.LLMFailed) for a in answers[1:])
    assert "answered twice" in str(answers[2]) and "not answered" in str(answers[3])


def test_an_audit_call_that_fails_fails_each_of_its_pairs(fake_llm):
    fake_llm.queue.extend([error(500, "api_error")] * 3)
    session = llm.Session()
    session.reserve(1)

    answers = session.audit_verdicts([(THREE[0], THREE[1]), (THREE[1], THREE[2])])

    assert len(answers) == 2 and all(isinstance(a, llm.LLMFailed) for a in answers)


def test_second_readings_of_several_pairs_show_each_pair_dated_the_newer_first(fake_llm):
    pairs = [(THREE[0], THREE[1]), (THREE[0], THREE[2])]
    fake_llm.queue.append(
        tool_message(
            {
                "verdicts": [
                    {"pair": 2, "reasoning": "r", "label": "conflict", "conflict_kind": "update"},
                    {"pair": 1, "reasoning": "same city", "label": "duplicate"},
                ]
            }
        )
    )
    session = llm.Session()
    session.reserve(1)

    answers = session.recheck_verdicts(pairs)

    (request,) = fake_llm.requests
    assert request["messages"][0]["content"].splitlines() == [
        "Pairs to read again:",
        "1. Newer: (2026-01-09 00:00 [fact]) Her home is in Lyon, France, on the Croix-Rousse"
        " hill.",
        "   Older: (2026-01-03 00:00 [fact]) Alice lives in Lyon.",
        "2. Newer: (2026-01-05 00:00 [fact]) Alice est basée à Lyon, dans le 4e arrondissement.",
        "   Older: (2026-01-03 00:00 [fact]) Alice lives in Lyon.",
    ]
    assert request["tool_choice"] == {"type": "tool", "name": "record_pair_verdicts"}
    assert answers[0].label == "duplicate"  # each pair's answer by its number
    assert (answers[1].label, answers[1].conflict_kind) == ("conflict", "update")
    assert answers[1].prompt_version == "recheck-v1"


def test_first_readings_of_several_pairs_show_each_pair_dated_the_older_first(fake_llm):
    fake_llm.queue.append(
        tool_message(
            {
                "verdicts": [
                    {"pair": 1, "reasoning": "r", "label": "unrelated", "conflict_kind": "none"},
                    {"pair": 2, "reasoning": "same city", "label": "duplicate"},
                ]
            }
        )
    )
    session = llm.Session()
    session.reserve(1)

    answers = session.pair_verdicts([(THREE[0], THREE[1]), (THREE[1], THREE[2])])

    (request,) = fake_llm.requests
    assert request["messages"][0]["content"].splitlines() == [
        "Pairs to compare:",
        "1. Older: (2026-01-03 00:00 [fact]) Alice lives in Lyon.",
        "   Newer: (2026-01-09 00:00 [fact]) Her home is in Lyon, France, on the Croix-Rousse"
        " hill.",
        "2. Older: (2026-01-09 00:00 [fact]) Her home is in Lyon, France, on the Croix-Rousse"
        " hill.",
        "   Newer: (2026-01-05 00:00 [fact]) Alice est basée à Lyon, dans le 4e arrondissement.",
    ]
    assert request["tool_choice"] == {"type": "tool", "name": "record_pair_verdicts"}
    assert [a.label for a in answers] == ["unrelated", "duplicate"]
    assert answers[0].prompt_version == "pairs-v1"


@pytest.mark.parametrize("answer", [{}, {"verdicts": "all duplicates"}])
@pytest.mark.parametrize("reading", ["recheck_verdicts", "pair_verdicts"])
def test_a_several_pairs_answer_with_no_list_of_verdicts_fails_each_pair(fake_llm, answer, reading):
    fake_llm.queue.append(tool_message(answer))
    session = llm.Session()
    session.reserve(1)

    answers = getattr(session, reading)([(THREE[0], THREE[1]), (THREE[0], THREE[2])])

    assert len(answers) == 2 and all(isinstance(a, llm.LLMFailed) for a in answers)
    assert "malformed" in str(answers[0])


@pytest.mark.parametrize(
    "answer",
    [{}, {"verdicts": []}, {"verdicts": [{"pair": 1, "label": "maybe", "reasoning": "\x00"}]}],
)
def test_a_batch_answer_to_a_reading_in_the_recheck_form_that_says_nothing_usable_fails(answer):
    message = SimpleNamespace(
        content=[SimpleNamespace(type="tool_use", input=answer)], model="claude-haiku-5-5"
    )

    with pytest.raises(llm.LLMFailed):
        llm.reading_of(message, prompts.RECHECK_VERSION)


def test_a_batch_answer_is_read_as_its_request_s_form_asked():
    verdicts = {"verdicts": [{"pair": 1, "reasoning": "one city", "label": "duplicate"}]}
    recheck = SimpleNamespace(
        content=[SimpleNamespace(type="tool_use", input=verdicts)], model="claude-haiku-5-5"
    )
    alone = SimpleNamespace(
        content=[
            SimpleNamespace(type="tool_use", input=verdict("conflict")["content"][0]["input"])
        ],
        model="claude-haiku-5-5",
    )

    assert llm.reading_of(recheck, prompts.RECHECK_VERSION).prompt_version == "recheck-v1"
    answer = llm.reading_of(alone, prompts.SECOND_READING_VERSION)
    assert (answer.label, answer.prompt_version) == ("conflict", "verdict-v1/newer-first")
    request = llm.reading_request(THREE[0], THREE[1], prompts.RECHECK_VERSION)
    assert request["messages"][0]["content"].startswith("Pairs to read again:\n1. Newer: ")
