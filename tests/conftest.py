"""Project-wide pytest fixtures: an authenticated API client and a real Celery worker on Redis.

The session header says which database engine and which Celery broker the run used.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def pytest_report_header(config):
    from django.conf import settings

    database = settings.DATABASES["default"]
    engine = database["ENGINE"].rsplit(".", 1)[-1]
    name = database.get("NAME")
    broker = settings.CELERY_BROKER_URL or "none (tasks run eagerly in-process)"
    worker_broker = os.environ.get("FT_TEST_REDIS_URL") or "unset (real-worker tests skip)"
    return [f"database: {engine} ({name}; tests use test_<name>)",
            f"celery broker: {broker}; real-worker broker (FT_TEST_REDIS_URL): {worker_broker}"]


# Tests that boot a live twin (root, namespaces, FRR) run one after another on one xdist worker: they share the
# host's kernel and their convergence timers assume a core of their own. Everything else is spread over the workers
# (make test: ``-n 2 --dist loadgroup``). Without xdist the mark is inert.
LIVE_GROUP = "live-twin"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("twin") and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(LIVE_GROUP))


@pytest.fixture(autouse=True)
def remembered_secrets_per_test(monkeypatch):
    """common.redaction remembers every clear secret the process decrypted and hides it in all text from then on: a
    password another test chose ("approved", "drop") must not blank out this test's words. Each test starts with
    an empty memory (restored after)."""
    from common import redaction

    monkeypatch.setattr(redaction, "_remembered", set())


@pytest.fixture(autouse=True)
def long_actions_in_the_request(settings):
    """Tests read a long action's outcome in the same test transaction, where an after-commit background thread
    would never start (pytest-django rolls back): they run in the request. The background mode (the default,
    common.runs.run_in_background) has its own tests with committed transactions (``in_background``)."""
    settings.FT_RUN_IN_BACKGROUND = False


@pytest.fixture
def in_background(settings):
    """Long actions run as deployed without a broker: 202 at once, the work in a background thread."""
    settings.FT_RUN_IN_BACKGROUND = True
    assert settings.CELERY_TASK_ALWAYS_EAGER, "these tests are about the no-broker (in-process) mode"


@pytest.fixture(autouse=True)
def credential_key_file(tmp_path_factory, settings):
    """Each test's device-credential key file is its own (never the checkout's data/credential.key)."""
    settings.FT_CREDENTIAL_KEY_FILE = tmp_path_factory.mktemp("data") / "credential.key"
    return settings.FT_CREDENTIAL_KEY_FILE


@pytest.fixture
def api_user(db):
    """A user in the admin role (the API checks roles: common/policy.py); tests of the roles use their own users."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user(username="api-tester")  # no password: nothing to hash
    user.groups.add(Group.objects.get(name="admin"))
    return user


@pytest.fixture
def api_client(api_user):
    """A DRF test client authenticated with a real token (``Authorization: Token <key>``; common.tokens)."""
    from rest_framework.test import APIClient

    from common.tokens import token_issue

    token, _ = token_issue(user=api_user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    client.token = token
    return client


class CeleryWorker:
    """A running worker subprocess and a client app that sends to its private queue."""

    def __init__(self, app, queue: str, process: subprocess.Popen, log_path: Path, env: dict[str, str]):
        self.app = app
        self.queue = queue
        self.process = process
        self.log_path = log_path
        self.env = env  # broker + database of the worker: a subprocess with it sends to the same broker and DB

    def run(self, task_name: str, *args, timeout: float = 120, **kwargs):
        """Send ``task_name`` to the worker and wait for its result (raises the task's error)."""
        result = self.app.send_task(task_name, args=args, kwargs=kwargs, queue=self.queue)
        return result.get(timeout=timeout)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def _database_url_of(settings_dict: dict) -> str:
    user = quote(settings_dict.get("USER") or "")
    password = quote(settings_dict.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{auth}{host}:{port}/{settings_dict['NAME']}"


@pytest.fixture
def celery_worker_redis(transactional_db, tmp_path, request):
    """A REAL Celery worker (``celery -A twin worker -P solo``) on the Redis broker from FT_TEST_REDIS_URL.

    The worker uses the same test database as the test (so the test must commit: ``transactional_db``), and a
    private queue so no other worker on the same broker takes its tasks (``indirect`` parametrization names
    the queue, e.g. a twin host's ``twin-shard.<host>`` with a unique host). Skips with the reason when Redis is
    unreachable or the database is not PostgreSQL.
    """
    from celery import Celery
    from django.db import connection

    broker_url = os.environ.get("FT_TEST_REDIS_URL")
    if not broker_url:
        pytest.skip("FT_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379/1); no broker for a real worker")
    try:
        import redis

        redis.Redis.from_url(broker_url, socket_connect_timeout=2).ping()
    except Exception as error:  # any failure means the broker is not usable here
        pytest.skip(f"Redis at {broker_url} is unreachable: {error}")
    if connection.vendor != "postgresql":
        pytest.skip("a real worker needs PostgreSQL: the SQLite test database lives in this process's memory")

    queue = getattr(request, "param", None) or f"ft-test-{uuid.uuid4().hex[:10]}"
    log_path = tmp_path / "celery-worker.log"
    env = {**os.environ, "CELERY_BROKER_URL": broker_url, "CELERY_RESULT_BACKEND": broker_url,
           "DATABASE_URL": _database_url_of(connection.settings_dict), "PYTHONPATH": str(REPO_ROOT)}
    celery_bin = Path(sys.executable).with_name("celery")
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [str(celery_bin), "-A", "twin", "worker", "-P", "solo", "-Q", queue, "--loglevel=INFO",
             "--without-gossip", "--without-mingle", "-n", f"{queue}@%h"],
            cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    app = Celery("ft-test-client", broker=broker_url, backend=broker_url)
    app.conf.update(task_serializer="json", accept_content=["json"], result_serializer="json")
    worker = CeleryWorker(app, queue, process, log_path, env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"celery worker exited with {process.returncode}:\n{worker.log()}")
            if app.control.ping(destination=[f"{queue}@{os.uname().nodename}"], timeout=1.0):
                break
        else:
            pytest.fail(f"celery worker did not answer a ping within 60 s:\n{worker.log()}")
        yield worker
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        app.close()
