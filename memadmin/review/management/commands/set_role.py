import os
import secrets

from django.contrib.auth.models import User
from django.core.management.base import CommandError
from django.db import transaction

from memadmin.review.roles import ROLES, set_role
from memadmin.store.commands import MemadminCommand


class Command(MemadminCommand):
    help = (
        "Give a person one role (viewer, curator or admin), creating the account with "
        "--create. A new account's password comes from the variable --password-env names, "
        "else is generated and printed once."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("role", choices=ROLES)
        parser.add_argument("--create", action="store_true", help="create the account")
        parser.add_argument("--password-env", help="environment variable with the password")

    @transaction.atomic
    def handle(self, *args, username, role, create, password_env, **options):
        user = User.objects.filter(username=username).first()
        if user is None and not create:
            raise CommandError(f"no user {username!r} (add --create to make one)")
        if user is None:
            password = os.environ.get(password_env or "", "") if password_env else ""
            if password_env and not password:
                raise CommandError(f"the variable {password_env} is not set")
            user = User.objects.create_user(username, password=password or None)
            if not password:
                password = secrets.token_urlsafe(12)
                user.set_password(password)
                user.save()
                self.stdout.write(f"user {username!r} created, password: {password}")
            else:
                self.stdout.write(f"user {username!r} created")
        set_role(user, role)
        self.stdout.write(f"user {username!r} is now {role}")
