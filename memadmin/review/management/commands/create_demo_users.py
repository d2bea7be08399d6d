import os
import secrets

from django.contrib.auth.models import User
from django.db import transaction

from memadmin.review.roles import ADMIN, CURATOR, set_role
from memadmin.store.commands import MemadminCommand

DEMO_USERS = (
    ("curator", CURATOR, "MEMADMIN_DEMO_CURATOR_PASSWORD"),
    ("admin", ADMIN, "MEMADMIN_DEMO_ADMIN_PASSWORD"),
)


class Command(MemadminCommand):
    help = (
        "Create the demo users 'curator' and 'admin' in their roles. Passwords come from "
        "MEMADMIN_DEMO_CURATOR_PASSWORD / MEMADMIN_DEMO_ADMIN_PASSWORD, else are generated "
        "and printed. Existing users keep their password unless the variable is set."
    )

    @transaction.atomic
    def handle(self, *args, **options):
        for username, role, variable in DEMO_USERS:
            user, created = User.objects.get_or_create(username=username)
            password = os.environ.get(variable)
            if created or password:
                password = password or secrets.token_urlsafe(9)
                user.set_password(password)
                user.save()
                self.stdout.write(f"user {username!r} ({role}) password: {password}")
            else:
                self.stdout.write(f"user {username!r} ({role}) exists; password unchanged")
            set_role(user, role)
