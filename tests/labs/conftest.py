"""Fixtures for the twin tests: skip (with the reason printed) where the live twin cannot run; a small compiled
reference fabric without a database (the containerlab export tests)."""

import pytest

from compiler.api import allocate, compile_fabric
from compiler.clos import ClosParams, plan_clos
from compiler.model import Allocations, Endpoint, FabricIntent, Network, RoceClass, Snapshot, Tenant
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


def reference_snapshot(**params) -> Snapshot:
    inventory = plan_clos(ClosParams(**params))
    networks = (
        Network("net10", "A", 10, "10.10.0.0/24", "10.10.0.1",
                attachments=(Endpoint("gpu0001", "eth0"), Endpoint("gpu0003", "eth0"))),
        Network("net20", "A", 20, "10.20.0.0/24", "10.20.0.1",
                attachments=(Endpoint("gpu0002", "eth0"), Endpoint("gpu0005", "eth0"))),
    )
    intent = FabricIntent(
        name="ref", inventory_fabric=inventory.fabric, tenants=(Tenant("A", "TENANT_A"),), networks=networks,
        roce_classes=(RoceClass("roce", (26,), 3, 3, True, 150, 1500, 10, 48, 6), RoceClass("cnp", (48,), 6, 6, False)),
    )
    return Snapshot(inventory, intent, allocate(inventory, intent, Allocations()))


@pytest.fixture(scope="session")
def reference_compile():
    return compile_fabric(reference_snapshot(platform="eos", leaf_platforms=("eos", "sonic")))
