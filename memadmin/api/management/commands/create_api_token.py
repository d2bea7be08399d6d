from django.core.management.base import BaseCommand, CommandError

from memadmin.api.models import ApiToken
from memadmin.store.importing import NAMESPACE_PATTERN
from memadmin.store.models import Namespace


class Command(BaseCommand):
    help = "Create an API token for one namespace (created if new); the token prints once."

    def add_arguments(self, parser):
        parser.add_argument("namespace")
        parser.add_argument("--name", default="cli", help="a label for the token")

    def handle(self, *args, namespace, name, **options):
        if not NAMESPACE_PATTERN.match(namespace):
            raise CommandError("a namespace is letters, digits, '-' or '_' (at most 100)")
        target, _ = Namespace.objects.get_or_create(name=namespace)
        token, plain = ApiToken.issue(namespace=target, name=name)
        self.stderr.write(f"token {token.prefix}... for namespace {target.name} (shown once):")
        self.stdout.write(plain)
