"""One switch of a running twin, as the twin device driver (changes/drivers/twin.py) reaches it: the twins app is
the one Django door to the engine (issue #28), so the driver holds a ``TwinSwitch`` built from the Twin row (the
handle: ``TwinSwitch.of(twin, hostname)``) and never imports labs/.

Each method is one public ``labs.runtime`` action on this switch (its namespace, FRR pathspace and the twin's
state file), with the checks every action needs first: the twin runs, the switch is one of it, and this
installation owns its namespace (labs.ownership). Errors are ``DriverError`` naming the switch.
"""

from __future__ import annotations

import json
from pathlib import Path

from compiler.errors import DriverError, TwinError
from labs import measure, ownership, runtime
from labs.frr_binaries import active_frr
from labs.node_configs import STATIC_PLAN_KEYS
from labs.shell import run

from .models import Twin

__all__ = ("STATIC_PLAN_KEYS", "TwinSwitch", "frr_conf_without_twin_lines")


def frr_conf_without_twin_lines(text: str) -> str:
    """frr.conf without what the twin runtime adds to every config (``labs.runtime.strip_twin_lines``)."""
    return runtime.strip_twin_lines(text)


class TwinSwitch:
    def __init__(self, prefix: str, hostname: str, state_dir: str | None = None):
        # Both become file paths under /etc/frr written as root: refuse anything that is not a plain name.
        try:
            self.netns = runtime.node_namespace(prefix, hostname)
        except TwinError:
            raise DriverError(f"twin driver: prefix={prefix!r} / hostname={hostname!r} are not plain names") from None
        self.prefix, self.hostname, self.state_dir = prefix, hostname, state_dir
        self.etc: Path = runtime.ETC_FRR / self.netns  # the switch's FRR pathspace: its deployed files

    @classmethod
    def of(cls, twin: Twin, hostname: str) -> TwinSwitch:
        """Switch ``hostname`` of ``twin``, from the handle (its prefix and state directory)."""
        return cls(twin.prefix, hostname, twin.state_dir or None)

    def state(self) -> runtime.TwinState:
        state = runtime.TwinState.load(self.prefix, self.state_dir)
        if state is None:
            raise DriverError(f"{self.hostname}: twin {self.prefix!r} is not running (no state file)")
        if self.hostname not in state.node_netns:
            raise DriverError(f"{self.hostname}: not a switch of twin {self.prefix!r}")
        if not ownership.is_owned(self.netns, state.installation):
            # The state file's installation must own the namespace the driver is about to configure.
            raise DriverError(f"{self.hostname}: namespace {ownership.describe_owner(self.netns)} is not owned by "
                              f"installation {state.installation or 'unknown'} of twin {self.prefix!r}; not touched")
        return state

    def topology(self):
        """The twin's topology (labs.topology.TwinTopology) as it booted."""
        return self.state().topology_obj()

    def link_counters(self) -> dict:
        """Per Linux interface of the switch (its namespace and its VRF namespaces), the kernel's byte and packet
        counters (``labs.measure.link_counters``)."""
        state = self.state()
        try:
            return measure.link_counters(state, self.hostname)
        except TwinError as exc:
            raise DriverError(f"{self.hostname}: link counters could not be read: {exc}") from exc

    def boot_plan(self) -> dict:
        """The Linux plan the switch booted with."""
        return self.state().topology_obj().nodes_by_name[self.hostname].linux_plan

    def vtysh(self, *commands: str, check: bool = True) -> str:
        self.state()  # loading the twin's state selects the FRR it runs (labs.frr_binaries): its own vtysh
        args = [active_frr().vtysh, "-N", self.netns]
        for command in commands:
            args += ["-c", command]
        try:
            result = run(args, check=check, timeout=60)
        except TwinError as exc:
            raise DriverError(f"{self.hostname}: {exc}") from exc
        return result.stdout

    def device_names(self) -> set[str]:
        """The kernel devices that exist for this switch (its namespace and its VRF namespaces)."""
        return set(runtime.device_locations(self.state(), self.hostname))

    def apply_plan_delta(self, applied: dict, wanted: dict) -> None:
        try:
            runtime.apply_plan_delta(self.state(), self.hostname, applied, wanted)
        except TwinError as exc:
            raise DriverError(f"{self.hostname}: applying the Linux plan failed: {exc}") from exc

    def reload_frr_config(self, frr_conf: str) -> None:
        try:
            runtime.reload_frr_config(self.state(), self.hostname, frr_conf)
        except TwinError as exc:
            raise DriverError(f"{self.hostname}: {exc}") from exc

    def write_file(self, name: str, text: str) -> None:
        """One file of the switch's FRR pathspace, replaced atomically."""
        runtime.write_frr_file(self.netns, name, text)

    def neighbours_bgp_routes(self) -> dict[str, list[dict]]:
        """Per neighbouring switch, its BGP routes in the kernel (``ip -j route show proto bgp``)."""
        state = self.state()
        topology = state.topology_obj()
        neighbours = {link.b_node for link in topology.links if link.a_node == self.hostname}
        neighbours |= {link.a_node for link in topology.links if link.b_node == self.hostname}
        return {neighbour: json.loads(run(["ip", "-n", state.node_netns[neighbour], "-j", "route", "show", "proto",
                                           "bgp"], timeout=30).stdout or "[]")
                for neighbour in sorted(neighbours)}

    def restart(self, frr_conf: str) -> None:
        """Restart the switch's zebra and bgpd (stopped by recorded PID, started as at boot), load ``frr_conf`` in
        one ``vtysh -f`` and record the new PIDs in the twin's state file."""
        state = self.state()
        try:
            pids = runtime.restart_daemons(state, self.hostname)
        except TwinError as exc:
            raise DriverError(f"{self.hostname}: {exc}") from exc
        loaded = runtime.vtysh_load(self.netns, frr_conf)
        if loaded.returncode != 0:
            raise DriverError(f"{self.hostname}: config load after restart failed: {loaded.stdout[-500:]}")
        runtime.record_daemon_pids(state, self.hostname, pids)
