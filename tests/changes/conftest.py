"""Fixtures for the change-pipeline tests (the in-memory device double lives in changes_memory_fabric.py)."""

from __future__ import annotations

import pytest
from changes_memory_fabric import MemoryFabric

from labs.shell import twin_prerequisites


@pytest.fixture
def memory_fabric():
    return MemoryFabric(["leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"])


def twin_skip_reason() -> str | None:
    missing = twin_prerequisites()
    return "; ".join(missing) if missing else None


@pytest.fixture
def twin_required():
    reason = twin_skip_reason()
    if reason:
        pytest.skip(f"live twin unavailable: {reason}")
