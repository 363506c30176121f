"""pytest's settings (pyproject DJANGO_SETTINGS_MODULE): the project's settings, run as in development.

DEBUG defaults to off in twin/settings.py; the suite runs with DEBUG=1 (plain-HTTP test client, WhiteNoise
finders) and a random SECRET_KEY per run, unless the environment sets them. Subprocesses the tests start
(manage.py, Celery workers) inherit both. The production settings (DEBUG off) are tested in
tests/test_settings_env.py and tests/test_security_hardening.py, in subprocesses of twin.settings.
"""

import os
import secrets

os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("SECRET_KEY", f"test-run-{secrets.token_urlsafe(40)}")

from twin.settings import *  # noqa: E402,F403
