"""Fixtures for the compiler tests: small fabrics built with compiler.clos through scenario dicts."""

from __future__ import annotations

import pytest
from compiler_scenarios import scenario

from compiler.scenario import snapshot_from_scenario


@pytest.fixture
def make_snapshot():
    def build(**changes):
        return snapshot_from_scenario(scenario(**changes))

    return build


@pytest.fixture
def snapshot(make_snapshot):
    return make_snapshot()
