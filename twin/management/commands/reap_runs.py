"""`manage.py reap_runs`: mark runs whose process is gone as failed ("interrupted"), see common/runs.py.

Run at start-up by whatever executes runs in-process (``make demo`` and the docker-compose web command, before the
server starts); the Celery worker does the same on ``worker_ready``. Safe to run at any time: runs of live
processes and of other hosts are left alone.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from changes.lifecycle import rollouts_reap_interrupted
from common.runs import runs_reap_interrupted


class Command(BaseCommand):
    help = ("Mark runs (compile, validation, twin operation, fabric build) and twin boots whose process is gone as "
            "failed (interrupted); pause rollouts whose in-process runner died (start resumes them).")

    def handle(self, *args, **options):
        reaped = runs_reap_interrupted()
        total = sum(reaped.values())
        details = ", ".join(f"{count} {label.replace('_', ' ')}" for label, count in reaped.items())
        self.stdout.write(f"reaped {total} interrupted run(s): {details}")
        # rollouts run in a background thread of a web process that died: paused, `start` resumes them
        self.stdout.write(f"paused {rollouts_reap_interrupted()} interrupted in-process rollout(s)")
