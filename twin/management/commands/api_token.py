"""``manage.py api_token USER``: issue an API token for USER and print it (the only time it is shown).

Only its SHA-512 digest is stored (django-rest-knox). ``--ttl-hours`` overrides FT_API_TOKEN_TTL_HOURS
(0 = never expires: for automation that cannot rotate; prefer rotating via POST /api/auth/token/rotate/).
``--revoke-all`` first revokes every token USER has.
"""

import datetime

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from knox.models import AuthToken

from common.tokens import token_issue


class Command(BaseCommand):
    help = "Issue an API token for a user and print it once (stored hashed; expires after --ttl-hours)."

    def add_arguments(self, parser):
        parser.add_argument("username", help="the user the token authenticates as (must exist)")
        parser.add_argument("--ttl-hours", type=int, default=None,
                            help="lifetime in hours (default FT_API_TOKEN_TTL_HOURS; 0: never expires)")
        parser.add_argument("--revoke-all", action="store_true", help="revoke the user's existing tokens first")

    @transaction.atomic
    def handle(self, *args, username: str, ttl_hours: int | None, revoke_all: bool, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"username={username!r}: no such user")
        if not user.is_active:
            raise CommandError(f"username={username!r}: the user is inactive")
        if ttl_hours is not None and ttl_hours < 0:
            raise CommandError(f"--ttl-hours={ttl_hours}: must be 0 (never expires) or positive")
        if revoke_all:
            AuthToken.objects.filter(user=user).delete()
        if ttl_hours is None:
            token, instance = token_issue(user=user)
        else:
            token, instance = token_issue(user=user, ttl=datetime.timedelta(hours=ttl_hours) if ttl_hours else None)
        expiry = instance.expiry.isoformat() if instance.expiry else "never"
        self.stderr.write(f"token for {username}, expires {expiry}:")
        self.stdout.write(token)
