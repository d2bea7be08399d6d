"""`python manage.py mcp_server --namespace NS`: memadmin as a local agent's memory over
MCP on stdin/stdout (api.mcp_tools). stdout carries the protocol only; logs go to stderr."""

from django.core.management.base import CommandError

from memadmin.api.mcp_tools import Grant, build_server
from memadmin.store import embeddings, validation
from memadmin.store.commands import MemadminCommand
from memadmin.store.models import Namespace


class Command(MemadminCommand):
    help = "Serve the MCP tools (remember, recall, profile, forget) for one namespace on stdio."

    def add_arguments(self, parser):
        parser.add_argument("--namespace", required=True, help="the agent's namespace")
        parser.add_argument(
            "--create", action="store_true", help="create the namespace if it does not exist"
        )

    def handle(self, *args, namespace, create, **options):
        try:
            validation.namespace_name(namespace)
        except validation.Invalid as problem:
            raise CommandError(str(problem)) from None
        found = Namespace.objects.filter(name=namespace).first()
        if found is None and not create:
            raise CommandError(f"no namespace {namespace!r} (add --create to start one)")
        if found is None:
            found = Namespace.objects.create(name=namespace)
        grant = Grant(namespace_id=found.pk, actor="mcp:stdio")
        embeddings.encode(["warm up"])  # the model loads now, not in the first call
        self.stderr.write(f"memadmin MCP server on stdio for namespace {found.name}")
        build_server(lambda ctx: grant).run("stdio")
