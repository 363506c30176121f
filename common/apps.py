from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CommonConfig(AppConfig):
    name = "common"
    verbose_name = "Kernel (runs, API plumbing, authorisation)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from .roles import roles_ensure_after_migrate  # in ready(): Django loads models only after every app config

        # The groups exist in every database the project migrates (tests included), not only after ui_roles.
        post_migrate.connect(roles_ensure_after_migrate, sender=self, dispatch_uid="common_roles_ensure")
