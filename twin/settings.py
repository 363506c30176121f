"""Settings come from the environment.

Nothing set: SQLite file database (the embedded default) and Celery tasks run in-process (eager).
DATABASE_URL selects PostgreSQL (e.g. postgres://postgres@127.0.0.1:5432/fabric_twin);
CELERY_BROKER_URL selects a real broker (e.g. redis://127.0.0.1:6379/0).
SECRET_KEY must be set when DEBUG is off: the project refuses to start otherwise.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (refusing to start without it)")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"

ALLOWED_HOSTS = [host.strip() for host in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",")]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "twin",  # project-level management commands (demo)
    "inventory",
    "intents",
    "changes",
    "validation",
    "ui",
    "twins",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "twin.api_limits.QueryStringLimitsMiddleware",  # no NUL / over-long query parameter reaches an API view
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "changes.audit.AuditActorMiddleware",  # attributes audit rows to request.user (changes app)
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "twin.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "twin.wsgi.application"
ASGI_APPLICATION = "twin.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}", conn_max_age=60
    )
}
DATABASE_ENGINE_LABEL = DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []
# Production images run collectstatic (Dockerfile); in development WhiteNoise serves straight from the apps'
# static folders, so it needs no collected copy.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
if DEBUG:
    STATIC_ROOT.mkdir(exist_ok=True)

LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

# Where compiled configs, twin state and reports go on disk.
FT_OUTPUT_DIR = Path(os.environ.get("FT_OUTPUT_DIR", BASE_DIR / "out"))

# --- Celery: eager (in-process) unless a broker is configured.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", CELERY_BROKER_URL or None)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULE: dict = {
    # changes app: drift of running configs against the last rolled-out intent; resume rollouts whose worker died.
    "changes-drift-detect": {"task": "changes.drift_detect", "schedule": float(os.environ.get("FT_DRIFT_INTERVAL_S", 900))},
    "changes-resume-stalled": {"task": "changes.rollouts_resume_stalled", "schedule": 60.0},
}

# Largest request body, in bytes: Django's own limit for forms, and twin.api_limits.BoundedJSONParser's for JSON
# (a 413 beyond it). Django's default (2.5 MiB); the largest real body, a rollout with its topology, is a few KiB.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("FT_MAX_REQUEST_BODY_BYTES", 2_621_440))

# Batfish adapter is used only when BATFISH_HOST is set.
BATFISH_HOST = os.environ.get("BATFISH_HOST", "")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # Input limits (twin.api_limits, docs/security.md): JSON only, bounded size/depth/strings, bounded pages.
    "DEFAULT_PARSER_CLASSES": ["twin.api_limits.BoundedJSONParser"],
    "DEFAULT_FILTER_BACKENDS": [
        "twin.api_limits.FilterBackend",
        "rest_framework.filters.OrderingFilter",
        "rest_framework.filters.SearchFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "twin.api_limits.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "twin.api.exception_handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Fabric Twin API",
    "DESCRIPTION": "Inventory, intents, compiled configs, validation, the live twin and change pipelines.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "twin.api_schema.error_responses_hook"],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
