"""Settings come from the environment: embedded defaults, PostgreSQL/broker by URL, no start without SECRET_KEY."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = ("import django, json; from django.conf import settings; django.setup(); "
         "print(json.dumps([settings.DATABASES['default']['ENGINE'], settings.CELERY_TASK_ALWAYS_EAGER]))")


def _settings(env: dict) -> subprocess.CompletedProcess:
    clean = {key: value for key, value in os.environ.items()
             if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY", "DEBUG"}}
    return subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**clean, "DJANGO_SETTINGS_MODULE": "twin.settings", **env})


def test_embedded_defaults_are_sqlite_and_in_process_tasks():
    result = _settings({})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '["django.db.backends.sqlite3", true]'


def test_urls_select_postgresql_and_a_real_broker():
    result = _settings({"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x",
                        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/9"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '["django.db.backends.postgresql", false]'


def test_refuses_to_start_without_secret_key_when_debug_is_off():
    refused = _settings({"DEBUG": "0"})
    assert refused.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in refused.stderr
    assert _settings({"DEBUG": "0", "SECRET_KEY": "x" * 50}).returncode == 0
