from django.apps import AppConfig


class UiConfig(AppConfig):
    name = "ui"
    verbose_name = "Web UI"
    default_auto_field = "django.db.models.BigAutoField"
