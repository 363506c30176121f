"""The UI's Compile and Validate buttons never hold the request (issue #16 item 3): with no broker the run goes to
a background thread (common.runs.run_in_background), the page it redirects to shows the run's status and polls
itself until it is final."""

from __future__ import annotations

import threading
import time

import pytest

from intents.models import CompileRun
from validation.models import ValidationRun

FABRIC, INTENT = "uifab", "uifab-intent"  # as built by tests/ui/conftest.py


def _held(monkeypatch, target: str):
    """Replace the task the start function calls with the real one, held until the test releases it."""
    module, name = target.rsplit(".", 1)
    real = getattr(__import__(module, fromlist=[name]), name)
    gate = threading.Event()

    def held(run_id):
        assert gate.wait(30), "the test never released the run"
        return real(run_id)

    monkeypatch.setattr(target, held)
    return gate


def _final(model, pk: int, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while (run := model.objects.get(pk=pk)).active:
        assert time.monotonic() < deadline, run.status
        time.sleep(0.05)
    return run


@pytest.mark.django_db(transaction=True)
def test_compile_and_validate_buttons_answer_at_once_and_the_page_follows_the_run(operator, fabric_intent,
                                                                                 monkeypatch, in_background):
    gate = _held(monkeypatch, "intents.tasks.compile_run_execute_task")
    clock = time.perf_counter()
    response = operator.post(f"/intents/{INTENT}/compile/", follow=True)
    assert time.perf_counter() - clock < 10 and response.status_code == 200
    assert response.redirect_chain == [(f"/intents/{INTENT}/", 302)]
    run = CompileRun.objects.get()
    assert run.status == "pending" and any(f"Compile run #{run.pk} started" in str(m)
                                           for m in response.context["messages"])
    page = response.content.decode()
    assert 'id="compile-runs" hx-get=' in page and '<span class="pill pending">pending</span>' in page
    gate.set()
    assert _final(CompileRun, run.pk).status == "succeeded"
    assert 'id="compile-runs" hx-get=' not in operator.get(f"/intents/{INTENT}/").content.decode()  # stops polling

    gate = _held(monkeypatch, "validation.tasks.validation_run_execute_task")
    response = operator.post(f"/validation/{FABRIC}/run/", follow=True)
    assert response.status_code == 200 and response.redirect_chain == [(f"/validation/{FABRIC}/", 302)]
    validation = ValidationRun.objects.get()
    page = response.content.decode()
    assert 'id="validation-status" hx-get=' in page and f"run #{validation.pk} is pending" in page
    gate.set()
    assert _final(ValidationRun, validation.pk).status == "succeeded"
    assert 'id="validation-status" hx-get=' not in operator.get(f"/validation/{FABRIC}/").content.decode()
