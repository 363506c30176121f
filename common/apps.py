from django.apps import AppConfig


class CommonConfig(AppConfig):
    name = "common"
    verbose_name = "Kernel (runs, API plumbing, authorisation)"
    default_auto_field = "django.db.models.BigAutoField"
