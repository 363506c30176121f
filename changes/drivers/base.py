"""The one interface every device driver implements (NAPALM EOS, Netmiko SONiC, the live twin).

Configs travel as ``ConfigFiles``: file name -> text, exactly what the renderers emit (``startup-config`` for EOS;
``config_db.json`` + ``frr.conf`` for SONiC; ``frr.conf`` + ``linux-plan.json`` for the twin). The hash of a set of
files is the same sha256 the compiler stores, so "is the device already at the intended config?" is a string
comparison (``config_hash``).
"""

from __future__ import annotations

import difflib
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field

from compiler.errors import DriverError

from ..rocegate.schema import Poll

ConfigFiles = dict[str, str]


def config_hash(files: ConfigFiles) -> str:
    """sha256 over the files in name order (name, NUL, text, NUL): independent of dict order."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + files[name].encode() + b"\0")
    return digest.hexdigest()


def config_diff(running: ConfigFiles, intended: ConfigFiles, context: int = 3) -> str:
    """Unified diff per file, running -> intended; empty when identical."""
    chunks = []
    for name in sorted(set(running) | set(intended)):
        before, after = running.get(name, ""), intended.get(name, "")
        if before == after:
            continue
        chunks.extend(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                           fromfile=f"running/{name}", tofile=f"intended/{name}", n=context))
    return "".join(chunks)


@dataclass(frozen=True)
class Health:
    """What a device says about itself after a change: BGP sessions and route counts."""

    bgp_established: int
    bgp_total: int
    routes: int = 0  # IPv4 unicast routes in the RIB
    evpn_routes: int = 0
    down_peers: tuple[str, ...] = ()
    version: str = ""
    detail: dict = field(default_factory=dict)

    @property
    def all_established(self) -> bool:
        return self.bgp_total > 0 and self.bgp_established == self.bgp_total

    def as_dict(self) -> dict:
        return {"bgp_established": self.bgp_established, "bgp_total": self.bgp_total, "routes": self.routes,
                "evpn_routes": self.evpn_routes, "down_peers": list(self.down_peers), "version": self.version}


class DeviceDriver(ABC):
    """One device. Methods raise compiler.errors.DriverError with the device and what failed.

    Push protocol (NAPALM's): ``load_candidate`` stages a full replacement, ``compare`` shows what would change,
    ``commit`` applies it, ``discard`` drops a staged candidate. ``rollback(previous)`` returns the device to the
    config it ran before the last commit (``previous`` is that config, kept in the change set, for platforms
    without a native rollback)."""

    hostname: str

    def open(self) -> None:  # noqa: B027 - optional hook
        """Connect (no-op for drivers that connect per call)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Disconnect."""

    def __enter__(self) -> DeviceDriver:
        self.open()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @abstractmethod
    def get_running_config(self) -> ConfigFiles: ...

    def normalize(self, files: ConfigFiles) -> ConfigFiles:
        """Formatting the device does not care about removed (e.g. JSON key order), so hashes compare meaning."""
        return dict(files)

    def comparable(self, files: ConfigFiles) -> ConfigFiles:
        """``files`` in the form drift compares: what the device prints and the file it was given made alike
        (FRR: changes.drivers.frr_text). The normalized files where the device prints what it was given."""
        return self.normalize(files)

    def running_hash(self) -> str:
        return config_hash(self.normalize(self.get_running_config()))

    def is_at(self, config: ConfigFiles) -> bool:
        """Does the device already run exactly this config? (asked before every push: never push twice)"""
        return self.running_hash() == config_hash(self.normalize(config))

    def planned_diff(self, running: ConfigFiles, intended: ConfigFiles) -> str:
        """What pushing ``intended`` onto a device running ``running`` would change, computed offline (change sets,
        drift). A unified diff here; drivers whose push merges (SONiC) show what they would really send."""
        return config_diff(running, intended)

    def effective_after_push(self, running: ConfigFiles, pushed: ConfigFiles) -> ConfigFiles:
        """What the device should run after ``pushed`` was pushed onto ``running`` (post-push verification compares
        the running config with it): the pushed files. Drivers whose push merges (SONiC's patch) or carries device
        state (EOS: AAA, drain) override it."""
        return dict(pushed)

    def runs_exactly(self, config: ConfigFiles) -> bool:
        """Does the device run exactly this saved config (asked before a rollback)? Drivers whose push merges
        (SONiC: tables we do not own) override it, since there ``is_at`` ignores what the candidate leaves out."""
        return self.is_at(config)

    def transit_routes_via_me(self) -> int | None:
        """Routes on neighbours still forwarding through this device (0 = drained); None when not measurable."""
        return None

    @abstractmethod
    def load_candidate(self, config: ConfigFiles) -> None: ...

    @abstractmethod
    def compare(self) -> str: ...

    @abstractmethod
    def commit(self) -> None: ...

    @abstractmethod
    def discard(self) -> None: ...

    @abstractmethod
    def rollback(self, previous: ConfigFiles | None = None) -> None: ...

    @abstractmethod
    def drain(self) -> None: ...

    @abstractmethod
    def undrain(self) -> None: ...

    @abstractmethod
    def is_drained(self) -> bool: ...

    @abstractmethod
    def install_image(self, version: str) -> None: ...

    @abstractmethod
    def reboot(self) -> None: ...

    @abstractmethod
    def health(self) -> Health: ...

    def counters(self, *, lossless_queues: Iterable[int]) -> Poll:
        """One poll of the device's RoCE-health counters (changes.rocegate.schema), its NICs' too where the driver
        reaches them; ``lossless_queues`` says which queues' drops are lossless-queue drops. Drivers that cannot
        read them say so: a gate that cannot read counters stops the rollout, it never passes."""
        raise DriverError(f"{self.hostname}: {type(self).__name__} cannot read RoCE counters (roce_gate)")

    def counter_sources(self) -> dict[str, str]:
        """Counter kind -> "measured" or "synthetic" for a driver whose ``counters()`` models some of them (the
        twin: veths have no DCB); empty: every counter is read from the device."""
        return {}

    def push(self, config: ConfigFiles) -> str:
        """load + compare + commit; returns the diff that was applied (empty: nothing to do, nothing committed)."""
        self.load_candidate(config)
        diff = self.compare()
        if not diff.strip():
            self.discard()
            return ""
        self.commit()
        return diff
