from django.core.management.base import BaseCommand

from common.roles import roles_ensure


class Command(BaseCommand):
    help = "Create or repair the viewer, operator and admin groups and their permissions (idempotent)."

    def handle(self, *args, **options):
        for role, codenames in roles_ensure().items():
            self.stdout.write(f"{role}: {', '.join(codenames)}")
