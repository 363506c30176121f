"""A production canary rollout whose push really runs and really rolls back, without a network (issue #30 point 2,
browser path): every production device is reached through the in-memory device double of the change-pipeline
tests (tests/changes/changes_memory_fabric.py), whose BGP reports down once a pushed config is on it. The
runner (changes.pipelines.runner) pushes the canary, sees BGP down and rolls it back, as against real switches."""

from __future__ import annotations

from changes import services as change_services
from changes.drivers.base import Health
from intents import services as intent_services
from inventory.models import Fabric, Switch
from tests.changes import changes_memory_fabric as memory


class BreaksOnPush(memory.MemoryDevice):
    """BGP is down while a pushed (EOS startup-config) file is on the device: the canary's health check fails."""

    def health(self) -> Health:
        pushed = "startup-config" in self.fabric.configs[self.hostname]
        return Health(bgp_established=0 if pushed else 2, bgp_total=2, routes=10, version="1.0")


class BreakingFabric(memory.MemoryFabric):
    def driver(self, hostname: str) -> BreaksOnPush:
        return BreaksOnPush(self, hostname)


def production_intent(fabric_name: str, monkeypatch) -> tuple[str, BreakingFabric]:
    """An intent of ``fabric_name``, compiled, an endpoint per switch, and the drivers of the change set and the
    runner pointed at the in-memory devices. Returns the intent's name and the devices."""
    fabric = Fabric.objects.get(name=fabric_name)
    intent = intent_services.fabric_intent_create(fabric=fabric, name=f"{fabric_name}-intent")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    intent_services.compile_run_create(fabric_intent=intent)
    hostnames = list(Switch.objects.filter(fabric=fabric).values_list("hostname", flat=True))
    for number, hostname in enumerate(hostnames, start=1):
        change_services.endpoint_create(hostname=hostname, driver="napalm_eos", address=f"192.0.2.{number}",
                                        username="admin", password="not-used-by-the-double")
    devices = BreakingFabric(hostnames)
    from changes import drivers
    from changes.pipelines import runner

    # change sets read devices through changes.drivers.endpoint_driver_factories, rollouts through the runner
    monkeypatch.setattr(drivers, "driver_for_endpoint", lambda endpoint, twin=None: devices.driver(endpoint.hostname))
    monkeypatch.setattr(runner, "driver_for_endpoint", lambda endpoint: devices.driver(endpoint.hostname))
    return intent.name, devices
