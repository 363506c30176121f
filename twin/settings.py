"""Settings come from the environment.

Nothing set: SQLite file database (the embedded default) and Celery tasks run in-process (eager).
DATABASE_URL selects PostgreSQL (e.g. postgres://postgres@127.0.0.1:5432/fabric_twin);
CELERY_BROKER_URL selects a real broker (e.g. redis://127.0.0.1:6379/0).
DEBUG is off unless DEBUG=1 (``make demo`` sets it). SECRET_KEY must be set when DEBUG is off: the project
refuses to start otherwise; with DEBUG on and none set, a per-install key file is generated (never a constant).
The hardening (HTTPS-only cookies, HSTS, CSP, throttling, expiring hashed API tokens) is described in
docs/security.md.
"""

import datetime
import os
import re
import secrets
import sys
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from common.keyfiles import KeyFileError, key_file_read_or_create

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r}: not an integer") from None


def env_rate(name: str, default: str) -> str:
    """A DRF throttle rate, checked here (DRF would only fail on the first request): N/second|minute|hour|day."""
    value = os.environ.get(name, "").strip() or default
    if not re.fullmatch(r"[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)", value):
        raise ImproperlyConfigured(f"{name}={value!r}: not a rate like 60/minute (N/second, minute, hour or day)")
    return value


DEBUG = env_bool("DEBUG", False)
# Per-install state that must survive restarts and never be served or archived (unlike FT_OUTPUT_DIR): the
# device-credential key file (changes.credentials) and, in development, the generated SECRET_KEY.
FT_DATA_DIR = Path(os.environ.get("FT_DATA_DIR", BASE_DIR / "data"))
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (refusing to start without it): set "
                                   "SECRET_KEY to a long random string, or DEBUG=1 for development (a key is then "
                                   "generated under FT_DATA_DIR)")
    try:
        SECRET_KEY = key_file_read_or_create(FT_DATA_DIR / "secret_key", lambda: secrets.token_urlsafe(50).encode(),
                                             setting="FT_DATA_DIR/secret_key").decode()
    except KeyFileError as exc:
        raise ImproperlyConfigured(str(exc)) from None

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
    "knox",  # hashed, expiring API tokens (``Authorization: Token <key>``); see docs/security.md
    "axes",  # failed-login throttling (lock-out per username and IP)
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc bundles as static files (no CDN)
    "twin",  # project-level management commands (demo, reap_runs, api_token)
    "common",  # the kernel: run record, API plumbing, authorisation (imports no app)
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
    "common.api_limits.QueryStringLimitsMiddleware",  # no NUL / over-long query parameter reaches an API view
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "changes.audit.AuditActorMiddleware",  # attributes audit rows to request.user (changes app)
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "common.security.ContentSecurityPolicyMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes requires: answers a locked-out login
]

# Failed logins are counted per (username, IP) by django-axes; after FT_LOGIN_FAILURE_LIMIT failures that pair
# is locked out for FT_LOGIN_COOLOFF_MINUTES (a correct password does not help meanwhile).
AUTHENTICATION_BACKENDS = [
    "common.security.LoginThrottleBackend",
    "common.security.PermissionsModelBackend",  # Django's ModelBackend, permissions in one query
]
# Passwords set through forms (admin, password change) must be at least 12 characters, not common, not all digits
# and not close to the username.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AXES_FAILURE_LIMIT = env_int("FT_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = env_int("FT_LOGIN_COOLOFF_MINUTES", 15) / 60  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False

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

# `manage.py runserver` (the demo): one thread per request (see DATABASES).
RUNSERVER = len(sys.argv) > 1 and sys.argv[1] == "runserver"

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Connections kept for 60 s (gunicorn, Celery): a new PostgreSQL connection per request costs a backend
        # start and cold catalog caches on every request (issue 29: the audit's gunicorn, without the Dockerfile's
        # DB_CONN_MAX_AGE=60, paid it). 0 (a connection per request) under runserver: it serves each request in a
        # new thread, and a persistent connection of a finished thread is never closed (leaked until it exits).
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0 if RUNSERVER else 60), conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The embedded default serves requests from threads (runserver) beside in-process background runs. SQLite's
    # deferred transactions fail at once with "database is locked" when two of them, both having read, try to
    # write (the busy timeout cannot help: waiting would deadlock), which answered 500 for "Preview" then "Save"
    # within a second (issue #30 point 10). BEGIN IMMEDIATE takes the write lock first, so the second waits
    # (up to the timeout); WAL lets readers go on beside a writer (Django 5.1+ options; sqlite.org/wal.html).
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "transaction_mode": "IMMEDIATE", "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"})
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

# --- HTTPS and browser hardening (docs/security.md). FT_HTTPS defaults to "not DEBUG": production serves HTTPS
# (directly or behind a TLS proxy that sets X-Forwarded-Proto when FT_TRUST_X_FORWARDED_PROTO=1).
FT_HTTPS = env_bool("FT_HTTPS", not DEBUG)
SECURE_SSL_REDIRECT = FT_HTTPS
SESSION_COOKIE_SECURE = FT_HTTPS
CSRF_COOKIE_SECURE = FT_HTTPS
SECURE_HSTS_SECONDS = env_int("FT_HSTS_SECONDS", 31_536_000) if FT_HTTPS else 0  # one year (RFC 6797 6.1.1)
SECURE_HSTS_INCLUDE_SUBDOMAINS = FT_HTTPS
SECURE_HSTS_PRELOAD = env_bool("FT_HSTS_PRELOAD", False)  # a commitment for the whole domain: opt in
if env_bool("FT_TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# Content-Security-Policy of every response (common.security): scripts only from this origin (the UI has no inline
# script or handler: ui/static/ui/ui.js); inline style attributes stay allowed (progress bars, legend colours).
FT_CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
          "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
          "frame-ancestors 'none'")
# Swagger UI (/api/docs/) and ReDoc (/api/redoc/) are served from this origin (drf-spectacular-sidecar's static
# builds): nothing loads from a CDN. ReDoc starts its search index in a blob: web worker.
FT_CSP_PATHS = {
    "/api/docs/": ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                   "connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"),
    "/api/redoc/": ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                    "worker-src 'self' blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
                    "base-uri 'self'; frame-ancestors 'none'"),
}

# API throttle counters live in the default cache (the login lock-out counts in the database, axes' tables): per process unless FT_CACHE_URL points at Redis
# (docker-compose.yml does, so gunicorn's workers share one count).
if os.environ.get("FT_CACHE_URL"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": os.environ["FT_CACHE_URL"]}}

LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

# Where compiled configs, twin state and reports go on disk.
FT_OUTPUT_DIR = Path(os.environ.get("FT_OUTPUT_DIR", BASE_DIR / "out"))
# The device-credential key file (changes.credentials), used unless FT_CREDENTIAL_KEY is set.
FT_CREDENTIAL_KEY_FILE = Path(os.environ.get("FT_CREDENTIAL_KEY_FILE", FT_DATA_DIR / "credential.key"))
# Where a device endpoint's password may come from besides the encrypted column (changes.credentials): files inside
# FT_SECRET_DIR (unset: none) and variables named FT_DEVICE_SECRET_<NAME>. An app admin picks where the password
# is sent, so any other file or variable would send the server's own secrets (SECRET_KEY, DATABASE_URL) there.
FT_SECRET_DIR = os.environ.get("FT_SECRET_DIR", "")
FT_DEVICE_SECRET_ENV_PREFIX = os.environ.get("FT_DEVICE_SECRET_ENV_PREFIX", "FT_DEVICE_SECRET_")

# --- Celery: eager (in-process) unless a broker is configured.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
# Without a broker, long actions (fabric build, compile, validate, rollout start, twin operations, NetBox syncs, the
# UI's compile and validate) run in a background thread of the web process after
# the request commits, so the API answers 202 at once as with a broker (common/runs.py run_in_background); off: they
# run inside the request (tests that read the outcome in the same transaction).
FT_RUN_IN_BACKGROUND = env_bool("FT_RUN_IN_BACKGROUND", True)
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
# Runs whose process died while its siblings live on are reaped every FT_REAP_INTERVAL_S (common/runs.py; also at
# every start-up): by Celery beat, and with no broker by a thread of each web process that runs work. 0: off.
FT_REAP_INTERVAL_S = float(os.environ.get("FT_REAP_INTERVAL_S", 60))
if FT_REAP_INTERVAL_S > 0:
    CELERY_BEAT_SCHEDULE["twin-reap-interrupted"] = {"task": "twin.runs_reap_interrupted",
                                                     "schedule": FT_REAP_INTERVAL_S}

# --- NetBox as the source of truth (docs/inventory.md "NetBox import"): the NetBox to read, the fabric it feeds,
# the webhook secret NetBox signs event-rule webhooks with (X-Hook-Signature, HMAC-SHA512), and a periodic re-sync.
FT_NETBOX_URL = os.environ.get("FT_NETBOX_URL", "")
FT_NETBOX_TOKEN = os.environ.get("FT_NETBOX_TOKEN", "")
FT_NETBOX_FABRIC = os.environ.get("FT_NETBOX_FABRIC", "")
FT_NETBOX_WEBHOOK_SECRET = os.environ.get("FT_NETBOX_WEBHOOK_SECRET", "")
FT_NETBOX_SYNC_INTERVAL_S = float(os.environ.get("FT_NETBOX_SYNC_INTERVAL_S", 0))  # 0: no scheduled re-sync
if FT_NETBOX_SYNC_INTERVAL_S > 0:
    CELERY_BEAT_SCHEDULE["inventory-netbox-sync"] = {"task": "inventory.netbox_sync",
                                                     "schedule": FT_NETBOX_SYNC_INTERVAL_S}

# Largest request body, in bytes: Django's own limit for forms, and common.api_limits.BoundedJSONParser's for JSON
# (a 413 beyond it). Django's default (2.5 MiB); the largest real body, a rollout with its topology, is a few KiB.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("FT_MAX_REQUEST_BODY_BYTES", 2_621_440))

# Batfish adapter is used only when BATFISH_HOST is set.
BATFISH_HOST = os.environ.get("BATFISH_HOST", "")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "twin.token_auth.TokenAuthentication",  # knox's, without its sweep of the caller's tokens per request
        "rest_framework.authentication.SessionAuthentication",
    ],
    # One policy for UI and API: each view action's capability from common/policy.py; a view it does not name is refused.
    "DEFAULT_PERMISSION_CLASSES": ["common.policy.PolicyPermission"],
    # Input limits (common.api_limits, docs/security.md): JSON only, bounded size/depth/strings, bounded pages.
    "DEFAULT_PARSER_CLASSES": ["common.api_limits.BoundedJSONParser"],
    "DEFAULT_FILTER_BACKENDS": [
        "common.api_limits.FilterBackend",
        "rest_framework.filters.OrderingFilter",
        "rest_framework.filters.SearchFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "common.api_limits.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "common.api.exception_handler",
    # Per client: anonymous callers by IP, authenticated users by id; answers 429 with Retry-After.
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("FT_API_THROTTLE_ANON", "60/minute"),
        "user": env_rate("FT_API_THROTTLE_USER", "1200/minute"),
        "token_rotate": env_rate("FT_API_THROTTLE_TOKEN", "30/hour"),
    },
}

# API tokens (django-rest-knox): only a SHA-512 digest is stored; each token expires FT_API_TOKEN_TTL_HOURS after
# it was issued. ``manage.py api_token USER`` issues one; POST /api/auth/token/rotate/ replaces the caller's.
REST_KNOX = {
    "TOKEN_TTL": datetime.timedelta(hours=env_int("FT_API_TOKEN_TTL_HOURS", 24)),
    "AUTH_HEADER_PREFIX": "Token",
    "AUTO_REFRESH": False,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Fabric Twin API",
    "DESCRIPTION": "Inventory, intents, compiled configs, validation, the live twin and change pipelines.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # One name for the twin's one status vocabulary (the Twin record and GET /api/twins/{id}/status/ share it).
    "ENUM_NAME_OVERRIDES": {"TwinStatusEnum": "twins.choices.TwinStatusChoices",
                            "TwinOperationKindEnum": "twins.choices.TwinOperationKindChoices",
                            "TwinShardStateEnum": "twins.choices.TwinShardStateChoices",
                            "RunStatusEnum": "common.runs.RunStatus",
                            # One severity vocabulary (findings, filters, external_peers) and the check statuses.
                            "SeverityEnum": "validation.models.SeverityChoices",
                            "CheckStatusEnum": "validators.findings.CHECK_STATUS_CHOICES"},
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "common.api_schema.error_responses_hook"],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Every line passes the one redaction helper (secret values seen by this process, name=value of secret names).
    "filters": {"redact_secrets": {"()": "common.redaction.RedactSecretsFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["redact_secrets"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    # Django's own loggers would also print through Django's default (unfiltered) console handler while DEBUG is
    # on (tracebacks of django.request included): route them through the redacting handler only.
    "loggers": {"django": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING"),
                           "propagate": False}},
}
