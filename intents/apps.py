from django.apps import AppConfig


class IntentsConfig(AppConfig):
    name = "intents"
    verbose_name = "Intents"
    default_auto_field = "django.db.models.BigAutoField"
