"""Fixtures for the twins tests: a persisted 2 spines x 4 leaves Clos with an intent of two tenants whose
networks have attached NICs, and the twin prerequisites (root + FRR + ip netns; skipped with the reason)."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest

from compiler.clos import ClosParams, plan_clos

FABRIC = "twinref"


def twin_skip_reason() -> str | None:
    from labs.shell import twin_prerequisites

    missing = twin_prerequisites()
    return "; ".join(missing) if missing else None


@pytest.fixture
def twin_required():
    reason = twin_skip_reason()
    if reason:
        print(f"SKIP live twin tests: {reason}")
        pytest.skip(f"live twin unavailable: {reason}")


@pytest.fixture
def twin_intent(db):
    """2x4 Clos (2 servers per leaf, EOS/SONiC leaves: the twin runs their FRR rendering), tenants A and B:
    A has train (servers on leaves 1-4) and storage (leaves 1-2), B has train (leaves 3-4)."""
    from intents import services
    from inventory.models import Fabric, NicPort
    from inventory.services import inventory_persist

    inventory_persist(inventory=plan_clos(ClosParams(name=FABRIC, spines=2, leaves=4, servers_per_leaf=2,
                                                     leaf_platforms=("eos", "sonic"))))
    fabric = Fabric.objects.get(name=FABRIC)
    intent = services.fabric_intent_create(fabric=fabric, name=f"{FABRIC}-intent")
    tenant_a = services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    tenant_b = services.tenant_create(fabric_intent=intent, name="B", vrf="TENANT_B")

    def nics(*servers):
        return list(NicPort.objects.filter(server__name__in=servers, name="eth0"))

    services.network_create(tenant=tenant_a, name="a-train", vlan_id=10, subnet="10.10.0.0/24", gateway="10.10.0.1",
                            attachments=nics("gpu0001", "gpu0003", "gpu0005", "gpu0007"))
    services.network_create(tenant=tenant_a, name="a-storage", vlan_id=20, subnet="10.20.0.0/24",
                            gateway="10.20.0.1", attachments=nics("gpu0002", "gpu0004"))
    services.network_create(tenant=tenant_b, name="b-train", vlan_id=30, subnet="10.30.0.0/24", gateway="10.30.0.1",
                            attachments=nics("gpu0006", "gpu0008"))
    return intent


@pytest.fixture
def twin_place(tmp_path):
    """A unique prefix and a private state directory, so the tests run beside any other twin."""
    return {"prefix": "tw" + uuid.uuid4().hex[:6], "state_dir": str(tmp_path / "twins")}


@pytest.fixture
def twin_leftovers():
    return leftovers


def leftovers(prefix: str) -> dict:
    """Namespaces, FRR directories and FRR processes of a twin prefix that still exist."""
    namespaces = [line.split()[0] for line in subprocess.run(["ip", "netns", "list"], capture_output=True,
                                                             text=True).stdout.splitlines()
                  if line.startswith(f"{prefix}-")]
    frr_dirs = [str(path) for base in (Path("/etc/frr"), Path("/var/run/frr")) for path in base.glob(f"{prefix}-*")]
    processes = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if any(arg.decode(errors="replace").startswith(f"{prefix}-") for arg in args) and b"-N" in args:
            processes.append(cmdline.parent.name)
    return {"namespaces": namespaces, "frr_dirs": frr_dirs, "processes": processes}
