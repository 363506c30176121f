"""The Celery app. With no CELERY_BROKER_URL set, tasks run in-process (eager) — see settings."""

import os

from celery import Celery
from celery.signals import worker_ready

from common.runs import runs_reap_interrupted  # pure at import: it loads the run models only when called

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings")

app = Celery("twin")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_ready.connect
def reap_interrupted_runs(**_kwargs) -> None:
    """A worker (re)starting: runs whose process is gone are marked failed "interrupted" (common/runs.py)."""
    runs_reap_interrupted()


@app.task(name="twin.runs_reap_interrupted")
def runs_reap_interrupted_task() -> dict[str, int]:
    """The same, every FT_REAP_INTERVAL_S from Celery beat (CELERY_BEAT_SCHEDULE "twin-reap-interrupted")."""
    return runs_reap_interrupted()
