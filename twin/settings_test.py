"""pytest's settings (pyproject DJANGO_SETTINGS_MODULE): the project's settings, run as in development.

DEBUG defaults to off in twin/settings.py; the suite runs with DEBUG=1 (plain-HTTP test client, WhiteNoise
finders), a random SECRET_KEY per run and API throttles lifted, unless the environment sets them. Subprocesses the tests start
(manage.py, Celery workers) inherit both. The production settings (DEBUG off) are tested in
tests/test_settings_env.py and tests/test_security_hardening.py, in subprocesses of twin.settings.
"""

import os
import secrets

os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("SECRET_KEY", f"test-run-{secrets.token_urlsafe(40)}")
# The suite (schemathesis, the authz matrix) sends thousands of API requests a minute from one client; the
# throttle tests set their own rates (tests/test_security_hardening.py).
for _rate in ("FT_API_THROTTLE_USER", "FT_API_THROTTLE_ANON", "FT_API_THROTTLE_TOKEN"):
    os.environ.setdefault(_rate, "1000000/minute")
# A connection per request, as before persistent connections became the default for servers: tests send requests
# from threads of their own (races), whose kept connections would outlive the test database.
os.environ.setdefault("DB_CONN_MAX_AGE", "0")
# No periodic reaper thread in the test process: tests reap explicitly and count what was reaped.
os.environ.setdefault("FT_REAP_INTERVAL_S", "0")

from twin.settings import *  # noqa: E402,F403
