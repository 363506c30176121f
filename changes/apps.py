"""App config: connects the audit signal handlers once Django has loaded every app."""

from django.apps import AppConfig


class ChangesConfig(AppConfig):
    name = "changes"
    verbose_name = "Change pipelines"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Audit trail for inventory, intents and changes models without editing those apps (see changes.audit).
        from .audit import connect_audit_signals  # in ready(): Django loads models only after every app config

        connect_audit_signals()
