"""A TEST DOUBLE of a set of devices implementing the DeviceDriver interface in memory: configs are dicts, every
commit is counted per device, and a config containing the marker ``BREAKS_BGP`` makes that device report its BGP
sessions down (how a broken change looks to the health checks). It exercises the runner's logic (records, resume,
rollback, pause/cancel) without a network; the twin tests do the same for real.
"""

from __future__ import annotations

from changes.drivers.base import ConfigFiles, DeviceDriver, Health
from changes.rocegate.schema import Poll
from changes.rocegate.synthetic import SyntheticSource
from compiler.errors import DriverError

BREAKS_BGP = "BREAKS_BGP"
ROCE_FAULT = "ROCE_FAULT:"


class MemoryDevice(DeviceDriver):
    def __init__(self, fabric: MemoryFabric, hostname: str):
        self.fabric = fabric
        self.hostname = hostname
        self._candidate: ConfigFiles | None = None

    def get_running_config(self) -> ConfigFiles:
        return dict(self.fabric.configs[self.hostname])

    def load_candidate(self, config: ConfigFiles) -> None:
        self._candidate = dict(config)

    def compare(self) -> str:
        return "" if self._candidate == self.fabric.configs[self.hostname] else "changed"

    def commit(self) -> None:
        self.fabric.before_commit(self.hostname)
        self.fabric.configs[self.hostname] = self._candidate
        self.fabric.commits[self.hostname] = self.fabric.commits.get(self.hostname, 0) + 1
        self._candidate = None

    def discard(self) -> None:
        self._candidate = None

    def rollback(self, previous: ConfigFiles | None = None) -> None:
        self.fabric.configs[self.hostname] = dict(previous)
        self.fabric.rollbacks[self.hostname] = self.fabric.rollbacks.get(self.hostname, 0) + 1

    def drain(self) -> None:
        self.fabric.drained.add(self.hostname)

    def undrain(self) -> None:
        self.fabric.drained.discard(self.hostname)

    def is_drained(self) -> bool:
        return self.hostname in self.fabric.drained

    def transit_routes_via_me(self) -> int | None:
        return 0 if self.hostname in self.fabric.drained else 5

    def install_image(self, version: str) -> None:
        self.fabric.staged[self.hostname] = version

    def reboot(self) -> None:
        self.fabric.reboots[self.hostname] = self.fabric.reboots.get(self.hostname, 0) + 1
        if self.hostname in self.fabric.staged:
            self.fabric.versions[self.hostname] = self.fabric.staged.pop(self.hostname)

    def counters(self, *, lossless_queues) -> Poll:
        """From the synthetic counter plane (the twin driver's source): a config carrying ``ROCE_FAULT:<model>``
        shows that fault model (changes.rocegate.synthetic.FAULTS), as a push that broke the lossless class would."""
        self.fabric.counter_reads[self.hostname] = self.fabric.counter_reads.get(self.hostname, 0) + 1
        if self.hostname in self.fabric.counters_unreadable:
            raise DriverError(f"{self.hostname}: counters unreadable (test)")
        text = "".join(self.fabric.configs[self.hostname].values())
        fault = text.split(ROCE_FAULT, 1)[1].split()[0] if ROCE_FAULT in text else None
        return self.fabric.counter_source.read(self.hostname, fault)

    def health(self) -> Health:
        broken = any(BREAKS_BGP in text for text in self.fabric.configs[self.hostname].values())
        return Health(bgp_established=0 if broken else 2, bgp_total=2, routes=10,
                      version=self.fabric.versions.get(self.hostname, "1.0"))


class MemoryFabric:
    def __init__(self, hostnames: list[str]):
        self.configs = {name: {"config": f"hostname {name}\n"} for name in hostnames}
        self.commits: dict[str, int] = {}
        self.rollbacks: dict[str, int] = {}
        self.drained: set[str] = set()
        self.staged: dict[str, str] = {}
        self.versions: dict[str, str] = {}
        self.reboots: dict[str, int] = {}
        self.crash_before_commit_of: str | None = None
        self.counter_source = SyntheticSource(seed=7)
        self.counter_reads: dict[str, int] = {}
        self.counters_unreadable: set[str] = set()

    def driver(self, hostname: str) -> MemoryDevice:
        return MemoryDevice(self, hostname)

    def before_commit(self, hostname: str) -> None:
        if self.crash_before_commit_of == hostname:
            self.crash_before_commit_of = None
            raise SystemExit(f"simulated worker death while pushing {hostname}")
