"""Fixtures for the twin tests: skip (with the reason printed) where the live twin cannot run."""

import pytest

from labs.shell import twin_prerequisites


def twin_skip_reason() -> str | None:
    missing = twin_prerequisites()
    return "; ".join(missing) if missing else None


@pytest.fixture(scope="session")
def twin_required():
    reason = twin_skip_reason()
    if reason:
        print(f"SKIP twin tests: {reason}")
        pytest.skip(f"live twin unavailable: {reason}")
