"""What every memadmin management command shares."""

from django.core.management.base import BaseCommand, CommandError
from django.db import InterfaceError, OperationalError

from memadmin.store.text import first_line


class MemadminCommand(BaseCommand):
    """A command whose database cannot be reached, or goes away while it runs, ends with
    one line that says so (and exit status 1), not a chain of tracebacks. What was done
    before is kept: every write is its own transaction."""

    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except (OperationalError, InterfaceError) as error:
            raise CommandError(f"the database is unreachable: {first_line(error)}") from None
