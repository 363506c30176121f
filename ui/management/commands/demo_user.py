"""``manage.py demo_user``: the demo's log-in, printed to stdout.

Creates (or resets) user "admin" in the admin group and, for trying the roles, "operator" and "viewer".
The password is generated unless ``--password`` or FT_DEMO_PASSWORD is given; it is printed once.
"""

import os
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction

from common.roles import ADMIN, OPERATOR, VIEWER, roles_ensure


class Command(BaseCommand):
    help = "Create the demo users admin/operator/viewer with a generated (or given) password and print it."

    def add_arguments(self, parser):
        parser.add_argument("--password", default=os.environ.get("FT_DEMO_PASSWORD", ""),
                            help="password for the demo users (default: generated, or FT_DEMO_PASSWORD)")

    @transaction.atomic
    def handle(self, *args, password: str, **options):
        roles_ensure()
        password = password or secrets.token_urlsafe(9)
        user_model = get_user_model()
        for username, role in ((ADMIN, ADMIN), (OPERATOR, OPERATOR), (VIEWER, VIEWER)):
            user, _ = user_model.objects.get_or_create(username=username)
            user.set_password(password)
            user.is_staff = role == ADMIN  # the admin may also use /admin/
            user.is_superuser = False
            user.save()
            user.groups.set([Group.objects.get(name=role)])
        self.stdout.write(f"Demo users admin, operator and viewer; password: {password}")
