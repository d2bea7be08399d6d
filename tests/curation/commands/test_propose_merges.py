"""propose_merges: rule proposals without a key, the LLM's text with one."""

import itertools

import pytest

from memadmin.curation.models import Cluster, MergeProposal
from tests.factories import line, near, unit
from tests.fake_anthropic import error, text_message, verdict

pytestmark = pytest.mark.django_db(transaction=True)


def test_propose_merges_writes_rule_proposals_without_a_key(run_command, load):
    load(
        line("a", "Her cat Miso is 4 years old, an orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.8), created_at="2026-02-01T00:00:00Z"),
    )
    run_command("find_duplicates")

    result = run_command("propose_merges")
    again = run_command("propose_merges")

    proposal = MergeProposal.objects.get()
    assert (proposal.author, proposal.status) == ("rule", "pending")
    assert proposal.merged_text == "Has a cat called Miso."  # the newest, as confident
    assert proposal.dropped_facts == ["duration: 4 years"]
    assert proposal.warnings == ["may drop: duration: 4 years"]
    assert result.stdout.startswith("proposed 1 merges: 0 by LLM, 1 by rule")
    assert again.stdout.startswith("proposed 0 merges")


def test_dev_set_proposals_are_the_servers_text_despite_529s(
    run_command, dev_memories_path, fake_llm, settings
):
    settings.LLM_MAX_CALLS_PER_RUN = 60
    merges = itertools.count(1)

    def answer(body, number):
        if number % 3 == 0:
            return error(529)  # every third request is overloaded
        if body.get("tools"):
            return verdict("unrelated")
        return text_message(f"merged text {next(merges)}")

    fake_llm.handler = answer
    assert run_command("import_memories", str(dev_memories_path)).error is None

    assert run_command("find_duplicates").error is None
    result = run_command("propose_merges")

    proposals = list(MergeProposal.objects.all())
    assert len(proposals) == Cluster.objects.filter(status="open").count() >= 5
    assert {p.author for p in proposals} == {"llm"}
    assert all(p.merged_text.startswith("merged text ") for p in proposals)
    assert len({p.merged_text for p in proposals}) == len(proposals)
    assert f"{len(proposals)} by LLM, 0 by rule" in result.stdout
