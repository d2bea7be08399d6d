#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
    from django.core.management import execute_from_command_line
    from django.db.utils import ProgrammingError

    try:
        execute_from_command_line(sys.argv)
    except ProgrammingError as problem:
        # Any command on a database nobody migrated (a new data folder, a new DATABASE_URL):
        # one line that says what to do, not a traceback about a missing table.
        if "does not exist" not in str(problem) or "relation" not in str(problem):
            raise
        sys.stderr.write(
            "CommandError: this database has no memadmin tables yet: "
            "run `python manage.py migrate` first\n"
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
