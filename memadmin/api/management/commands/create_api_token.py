from django.core.management.base import CommandError

from memadmin.api.models import ApiToken
from memadmin.store import validation
from memadmin.store.commands import MemadminCommand
from memadmin.store.models import Namespace


class Command(MemadminCommand):
    help = "Create an API token for one namespace (created if new); the token prints once."

    def add_arguments(self, parser):
        parser.add_argument("namespace")
        parser.add_argument("--name", default="cli", help="a label for the token")

    def handle(self, *args, namespace, name, **options):
        try:
            validation.namespace_name(namespace)
            validation.short_text(name, "--name", 100)
        except validation.Invalid as problem:
            raise CommandError(
                f"a namespace is letters, digits, '-' or '_' (at most 100): {problem}"
            ) from None
        target, _ = Namespace.objects.get_or_create(name=namespace)
        token, plain = ApiToken.issue(namespace=target, name=name)
        self.stderr.write(f"token {token.prefix}... for namespace {target.name} (shown once):")
        self.stdout.write(plain)
