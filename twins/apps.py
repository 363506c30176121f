from django.apps import AppConfig


class TwinsConfig(AppConfig):
    name = "twins"
    verbose_name = "Live twins"
    default_auto_field = "django.db.models.BigAutoField"
