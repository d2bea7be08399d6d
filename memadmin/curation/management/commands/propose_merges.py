from django.conf import settings
from django.core.management.base import CommandError

from memadmin.curation import decisions
from memadmin.curation.llm import client as llm
from memadmin.curation.llm import merges
from memadmin.curation.reads.clusters import clusters_needing_proposals
from memadmin.store.commands import MemadminCommand
from memadmin.store.models import Namespace
from memadmin.store.progress import progress_bar


class Command(MemadminCommand):
    help = (
        "Write a merge proposal for each open cluster that has no current one: the LLM's "
        "merged text (ANTHROPIC_API_KEY), else the rule's (the most confident, newest "
        "member), each checked for dropped facts."
    )

    def add_arguments(self, parser):
        parser.add_argument("--namespace")
        parser.add_argument(
            "--limit", type=int, default=None, help="clusters at most (default: every one)"
        )
        parser.add_argument("--no-llm", action="store_true", help="rule proposals only")

    def handle(self, *args, namespace, limit, no_llm, **options):
        if namespace and not Namespace.objects.filter(name=namespace).exists():
            raise CommandError(f"no namespace {namespace!r}")
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1")
        session = llm.Session() if llm.configured() and not no_llm else None
        todo = clusters_needing_proposals(namespace, limit=limit)
        by_author = {"llm": 0, "rule": 0}
        warned = 0
        with progress_bar(total=len(todo), desc="propose_merges", unit="clusters") as bar:
            for cluster, members in todo:
                draft = merges.draft_for(members, session)
                decisions.record_proposal(cluster=cluster, members=members, draft=draft)
                by_author[draft.author] += 1
                warned += bool(draft.warnings)
                bar.update(1)
        summary = (
            f"proposed {len(todo)} merges: {by_author['llm']} by LLM, {by_author['rule']} by "
            f"rule, {warned} with warnings"
        )
        if session is None:
            summary += " (no LLM: rule proposals)"
        else:
            summary += (
                f"; LLM {settings.LLM_MODEL}: {session.calls} calls ({session.skipped} skipped "
                f"by the cap, {session.failures} failed), "
                f"{session.input_tokens} input and {session.output_tokens} output tokens"
            )
        self.stdout.write(summary)
