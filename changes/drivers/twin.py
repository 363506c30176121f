"""The live twin (labs.runtime: one netns + zebra/bgpd per switch) behind the DeviceDriver interface.

A node's config is its two rendered files: ``frr.conf`` and ``linux-plan.json``. Commit applies them for real:
the Linux plan delta (bridges + VXLAN devices, port MTUs/addresses, loopbacks) with ``ip``/``bridge`` in the
node's namespace, then frr.conf with FRR's ``frr-reload.py --reload --pathspace <ns>`` (a replace that applies only
the delta; ``vtysh -f`` would merge). Every commit appends one line to ``/etc/frr/<ns>/ft-push-journal.log`` on the
node itself: the driver-side push count the crash tests assert on.

Drain (choice and why): an outbound route-map ``FT-DRAIN`` that prepends the node's own ASN three times on every
IPv4-unicast session. In an eBGP Clos with ``bestpath as-path multipath-relax`` every other path is shorter, so
neighbours drop this node from their ECMP sets, and it works whatever the neighbours' policies are. The RFC 8326
graceful-shutdown community needs a matching policy on every receiver, and MED (max-med) is only compared between
paths from the same neighbouring AS, which is not true for leaves in a multi-AS Clos. The drain is also kept in
``/etc/frr/<ns>/ft-drain.conf`` so a daemon restart (the "upgrade") comes back still drained.

Upgrade = ``install_image(version)`` stages a version tag, ``reboot()`` restarts the node's zebra and bgpd (stop by
recorded PID, start like labs.runtime does, load frr.conf plus the drain in one ``vtysh -f``) and records the tag in
``/etc/frr/<ns>/ft-version``; the twin's state file gets the new PIDs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import tempfile
import time
from pathlib import Path

from compiler.errors import DriverError, TwinError
from labs import ownership, runtime
from labs.shell import ip_batch, ns_exec, run

from ..guard import push_guard
from .base import ConfigFiles, DeviceDriver, Health, config_diff, config_hash

ETC_FRR = Path("/etc/frr")
RUN_FRR = Path("/var/run/frr")
FRR_RELOAD = "/usr/lib/frr/frr-reload.py"
DRAIN_ROUTE_MAP = "FT-DRAIN"
DRAIN_PREPEND_COUNT = 3
DEFAULT_VERSION = "frr-8.4"
_SAFE_PREFIX = re.compile(r"[a-z][a-z0-9]{2,15}")  # fullmatch: "$" would accept a trailing newline
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,47}")
_ROUTER_BGP = re.compile(r"^router bgp (\d+)\s*$", re.MULTILINE)


def normalize_frr_conf(text: str) -> str:
    """Drop what the twin runtime adds to every config (``runtime.twin_frr_conf``: the NHG workaround, netns lines
    of VRFs) and trailing blanks: two configs that differ only there are the same config to the twin."""
    return runtime.strip_twin_lines(text)


def normalize_plan(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    except ValueError as exc:
        raise DriverError(f"linux-plan.json is not valid JSON: {exc}") from exc


class TwinDriver(DeviceDriver):
    def __init__(self, prefix: str, hostname: str, state_dir: str | None = None):
        # Both become file paths under /etc/frr written as root: refuse anything that is not a plain name.
        if not _SAFE_PREFIX.fullmatch(prefix or "") or not _SAFE_NAME.fullmatch(hostname or ""):
            raise DriverError(f"twin driver: prefix={prefix!r} / hostname={hostname!r} are not plain names")
        self.prefix = prefix
        self.hostname = hostname
        self.state_dir = state_dir
        self.netns = f"{prefix}-{hostname}"
        self.etc = ETC_FRR / self.netns
        self._candidate: ConfigFiles | None = None

    def __repr__(self) -> str:
        return f"TwinDriver({self.prefix!r}, {self.hostname!r})"

    # --------------------------------------------------------------------------------------------- state

    def _state(self) -> runtime.TwinState:
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

    def _boot_node(self):
        return self._state().topology_obj().nodes_by_name[self.hostname]

    def _vtysh(self, *commands: str, check: bool = True) -> str:
        args = ["vtysh", "-N", self.netns]
        for command in commands:
            args += ["-c", command]
        try:
            result = run(args, check=check, timeout=60)
        except TwinError as exc:
            raise DriverError(f"{self.hostname}: {exc}") from exc
        return result.stdout

    def _vtysh_json(self, command: str) -> dict:
        output = self._vtysh(command)
        try:
            return json.loads(output or "{}")
        except ValueError as exc:
            raise DriverError(f"{self.hostname}: {command!r} did not return JSON: {output[:200]!r}") from exc

    def normalize(self, files: ConfigFiles) -> ConfigFiles:
        out = dict(files)
        if "frr.conf" in out:
            out["frr.conf"] = normalize_frr_conf(out["frr.conf"])
        if "linux-plan.json" in out:
            out["linux-plan.json"] = normalize_plan(out["linux-plan.json"])
        return out

    # --------------------------------------------------------------------------------------------- config

    def _applied_plan(self) -> dict:
        applied = self.etc / "ft-linux-plan.json"
        if applied.exists():
            return json.loads(applied.read_text())
        return self._boot_node().linux_plan

    def get_running_config(self) -> ConfigFiles:
        """The deployed files, checked against the live node: if FRR's running config changed since our last
        commit (someone used vtysh), frr.conf is what FRR runs now; plan bridges whose kernel devices are gone are
        left out. So drift detection sees out-of-band changes, not just the files we wrote."""
        self._state()
        conf_path = self.etc / "frr.conf"
        if not conf_path.exists():
            raise DriverError(f"{self.hostname}: {conf_path} missing")
        frr_conf = normalize_frr_conf(conf_path.read_text())
        recorded = self.etc / "ft-live.sha256"
        if recorded.exists():
            live = self._vtysh("show running-config")
            if _sha256(live) != recorded.read_text().strip():
                frr_conf = normalize_frr_conf(live)
        plan = self._applied_plan()
        existing = set(self._device_locations(self._state()))
        plan = {**plan, "bridges": [bridge for bridge in plan.get("bridges", []) if bridge["name"] in existing
                                    and (not bridge.get("vxlan") or bridge["vxlan"]["name"] in existing)]}
        return {"frr.conf": frr_conf, "linux-plan.json": json.dumps(plan, indent=2, sort_keys=True) + "\n"}

    def load_candidate(self, config: ConfigFiles) -> None:
        if set(config) != {"frr.conf", "linux-plan.json"}:
            raise DriverError(f"{self.hostname}: the twin takes frr.conf + linux-plan.json, got {sorted(config)}")
        self._candidate = self.normalize(config)

    def compare(self) -> str:
        if self._candidate is None:
            raise DriverError(f"{self.hostname}: compare without a loaded candidate")
        return config_diff(self.get_running_config(), self._candidate)

    def discard(self) -> None:
        self._candidate = None

    def commit(self) -> None:
        if self._candidate is None:
            raise DriverError(f"{self.hostname}: commit without a loaded candidate")
        candidate = self._candidate
        # The same guard as every driver: no change to a management VRF or to the FT-DRAIN drain state. The drain is
        # device state carried over (re-applied after the reload below), so both sides are compared with it.
        drain = (self.etc / "ft-drain.conf").read_text() if self.is_drained() else ""
        running = self.get_running_config()
        push_guard(device=self.hostname, platform="frr", running={**running, "frr.conf": running["frr.conf"] + drain},
                   effective={**candidate, "frr.conf": candidate["frr.conf"] + drain})
        self._apply(candidate)

    def _apply(self, candidate: ConfigFiles) -> None:
        new_plan = json.loads(candidate["linux-plan.json"])
        try:
            self._apply_plan_delta(self._applied_plan(), new_plan)
        except TwinError as exc:
            raise DriverError(f"{self.hostname}: applying the Linux plan failed: {exc}") from exc
        self._write_etc("ft-linux-plan.json", json.dumps(new_plan, indent=2, sort_keys=True) + "\n")
        # As at boot: the NHG workaround, and the netns binding of this switch's VRFs (without it the reload would
        # unbind them: runtime.twin_frr_conf).
        frr_conf = runtime.twin_frr_conf(candidate["frr.conf"], self._state().vrf_netns.get(self.hostname, {}))
        # frr-reload ends with "write memory" (FRR renders its own frr.conf: version line, defaults), so it reads
        # the candidate from a separate file and the intended text is written as frr.conf afterwards.
        self._write_etc("ft-candidate.conf", frr_conf)
        reload = run([FRR_RELOAD, "--reload", "--pathspace", self.netns, "--stdout", str(self.etc / "ft-candidate.conf")],
                     check=False, timeout=120)
        if reload.returncode != 0:
            raise DriverError(f"{self.hostname}: frr-reload failed (rc={reload.returncode}): "
                              f"{(reload.stderr or reload.stdout).strip()[-800:]}")
        self._write_etc("frr.conf", frr_conf)
        if self.is_drained():
            self._apply_drain()  # a replace must not silently undrain a node that is in maintenance
        self._record_live()
        with open(self.etc / "ft-push-journal.log", "a") as journal:
            journal.write(f"{time.time():.3f} {config_hash(candidate)}\n")
        self._candidate = None

    def _record_live(self) -> None:
        """Remember how FRR renders the config we applied, to tell later whether someone changed it."""
        self._write_etc("ft-live.sha256", _sha256(self._vtysh("show running-config")) + "\n")

    def push_count(self) -> int:
        """Commits recorded on the node itself (driver side, independent of the database)."""
        journal = self.etc / "ft-push-journal.log"
        return len(journal.read_text().splitlines()) if journal.exists() else 0

    def rollback(self, previous: ConfigFiles | None = None) -> None:
        if previous is None:
            raise DriverError(f"{self.hostname}: twin rollback needs the previous config")
        self.load_candidate(previous)
        self._apply(self._candidate)  # not guarded: the config the node ran before, management and drain included

    def _write_etc(self, name: str, text: str) -> None:
        path = self.etc / name
        temporary = path.with_suffix(path.suffix + ".tmp")
        temporary.write_text(text)
        with contextlib.suppress(LookupError, PermissionError):
            os.chown(temporary, _uid("frr"), _gid("frr"))
        temporary.chmod(0o640)
        temporary.replace(path)

    def _device_locations(self, state: runtime.TwinState) -> dict[str, str]:
        """Link name -> the namespace of this switch it is in (its own, or one of its VRF namespaces)."""
        location = {}
        for namespace in reversed(state.switch_namespaces(self.hostname)):
            for link in json.loads(run(["ip", "-n", namespace, "-j", "link", "show"], timeout=30).stdout or "[]"):
                location.setdefault(link.get("ifname"), namespace)
        return location

    def _apply_plan_delta(self, old: dict, new: dict) -> None:
        """The Linux side of a replace: remove what the old plan had and the new one lacks, (re)create what changed.
        Tenant VRFs follow the twin's backend (``runtime.LinuxBatches``): with netns VRFs a tenant's bridges live
        in its VRF namespace, and a VRF the new plan adds (or drops) gets its namespace created (or removed)."""
        state = self._state()
        topology = state.topology_obj()
        cabled = {link.a_ifname for link in topology.links if link.a_node == self.hostname}
        cabled |= {link.b_ifname for link in topology.links if link.b_node == self.hostname}
        cabled |= {i.peer_ifname for host in topology.hosts for i in host.interfaces if i.peer_node == self.hostname}
        old_bridges = {bridge["name"]: bridge for bridge in old.get("bridges", [])}
        new_bridges = {bridge["name"]: bridge for bridge in new.get("bridges", [])}
        old_bridges |= {vrf["bridge"]["name"]: {**vrf["bridge"], "vrf": vrf["name"]}
                        for vrf in old.get("vrfs", []) if vrf.get("bridge")}
        new_bridges |= {vrf["bridge"]["name"]: {**vrf["bridge"], "vrf": vrf["name"]}
                        for vrf in new.get("vrfs", []) if vrf.get("bridge")}
        old_vrfs = {vrf["name"]: vrf for vrf in old.get("vrfs", [])}
        new_vrfs = {vrf["name"]: vrf for vrf in new.get("vrfs", [])}
        # A commit interrupted by a crash may have done part of this already: act on what exists now, where it is.
        location = self._device_locations(state)
        deletions: dict[str, list[str]] = {}
        deleted: set[str] = set()
        for name, bridge in {**old_bridges, **new_bridges}.items():
            if old_bridges.get(name) == new_bridges.get(name):
                continue
            for device in (bridge.get("vxlan", {}).get("name"), name):
                if device and device in location and device not in deleted:
                    deletions.setdefault(location[device], []).append(f"link del {device}")
                    deleted.add(device)
        for name, vrf in old_vrfs.items():
            if state.vrf_backend == "kernel" and name in location and new_vrfs.get(name) != vrf:
                deletions.setdefault(location[name], []).append(f"link del {name}")
                deleted.add(name)
        for namespace, commands in deletions.items():
            ip_batch(commands, netns=namespace)
        if state.vrf_backend == "netns":
            wanted = {vrf for vrf in new_vrfs} | {b["vrf"] for b in new.get("bridges", []) if b.get("vrf")}
            for vrf in sorted(wanted - set(state.vrf_netns.get(self.hostname, {}))):
                runtime.add_netns_vrf(state, self.hostname, vrf)
            for vrf in sorted(set(state.vrf_netns.get(self.hostname, {})) - wanted):
                runtime.remove_netns_vrf(state, self.hostname, vrf)
            location = self._device_locations(state)
        batches = runtime.LinuxBatches(self.netns, state.vrf_backend, state.vrf_netns.get(self.hostname, {}), cabled,
                                       location)
        ip_cmds = batches.ip[self.netns]
        addresses = {(entry.get("ifname"), f"{info.get('local')}/{info.get('prefixlen')}")
                     for entry in json.loads(run(["ip", "-n", self.netns, "-j", "addr", "show"], timeout=30).stdout
                                             or "[]") for info in entry.get("addr_info", [])}
        old_loopbacks, new_loopbacks = set(old.get("loopback_addresses", [])), set(new.get("loopback_addresses", []))
        ip_cmds += [f"addr del {address} dev lo" for address in sorted(old_loopbacks - new_loopbacks)
                    if ("lo", address) in addresses]
        ip_cmds += [f"addr replace {address} dev lo" for address in sorted(new_loopbacks - old_loopbacks)]
        old_ports = {port["name"]: port for port in old.get("links", [])}
        for port in new.get("links", []):
            if port["name"] not in cabled:
                continue
            before = old_ports.get(port["name"], {})
            if port.get("mtu") and port.get("mtu") != before.get("mtu"):
                # A server port may sit in a VRF namespace (netns VRFs): set it where it is.
                batches.ip.setdefault(location.get(port["name"], self.netns), []).append(
                    f"link set dev {port['name']} mtu {port['mtu']}")
            if port.get("address") != before.get("address"):
                if before.get("address") and (port["name"], before["address"]) in addresses:
                    ip_cmds.append(f"addr del {before['address']} dev {port['name']}")
                if port.get("address"):
                    ip_cmds.append(f"addr replace {port['address']} dev {port['name']}")
        for name, vrf in new_vrfs.items():
            if old_vrfs.get(name) != vrf or name in deleted:
                batches.add_vrf_device(vrf)
        for name, bridge in new_bridges.items():
            if old_bridges.get(name) != bridge:
                batches.add_bridge(bridge, bridge.get("vrf"))
        batches.apply()
        if new.get("sysctls") and new.get("sysctls") != old.get("sysctls"):
            ns_exec(self.netns, ["sysctl", "-qw", *(f"{key}={value}" for key, value in new["sysctls"].items())])
        if any(" mtu " in command for commands in batches.ip.values() for command in commands):
            # Linux keeps learned path-MTU exceptions (net.ipv4.route.mtu_expires, 10 min) on every node that got a
            # "fragmentation needed" through this node; hardware VTEPs have no such cache. Flush them twin-wide, or
            # an MTU fixed (or rolled back) here stays broken elsewhere (docs/twin-notes.md).
            state = self._state()
            for namespace in state.namespaces:
                run(["ip", "-n", namespace, "route", "flush", "cache"], check=False)

    # --------------------------------------------------------------------------------------------- drain

    def _asn(self) -> int:
        match = _ROUTER_BGP.search((self.etc / "frr.conf").read_text())
        if not match:
            raise DriverError(f"{self.hostname}: no 'router bgp <asn>' in frr.conf")
        return int(match.group(1))

    def _neighbors(self) -> list[str]:
        summary = self._vtysh_json("show bgp ipv4 unicast summary json")
        return sorted(summary.get("peers", {}))

    def _drain_commands(self, undo: bool = False) -> list[str]:
        asn = self._asn()
        prefix = "no " if undo else ""
        commands = [] if undo else [f"route-map {DRAIN_ROUTE_MAP} permit 10",
                                    f" set as-path prepend {' '.join([str(asn)] * DRAIN_PREPEND_COUNT)}", "exit"]
        commands += [f"router bgp {asn}", " address-family ipv4 unicast"]
        commands += [f"  {prefix}neighbor {peer} route-map {DRAIN_ROUTE_MAP} out" for peer in self._neighbors()]
        commands += [" exit-address-family", "exit"]
        if undo:
            commands.append(f"no route-map {DRAIN_ROUTE_MAP}")
        return commands

    def _apply_drain(self) -> None:
        commands = self._drain_commands()
        self._write_etc("ft-drain.conf", "\n".join(commands) + "\n")
        self._vtysh("configure terminal", *(command.strip() for command in commands))
        self._vtysh("clear bgp ipv4 unicast * soft out")
        if (self.etc / "ft-live.sha256").exists():
            self._record_live()

    def drain(self) -> None:
        self._apply_drain()

    def undrain(self) -> None:
        self._vtysh("configure terminal", *(command.strip() for command in self._drain_commands(undo=True)))
        with contextlib.suppress(FileNotFoundError):
            (self.etc / "ft-drain.conf").unlink()
        self._vtysh("clear bgp ipv4 unicast * soft out")
        if (self.etc / "ft-live.sha256").exists():
            self._record_live()

    def is_drained(self) -> bool:
        return (self.etc / "ft-drain.conf").exists()

    def transit_routes_via_me(self) -> int:
        """Routes on the neighbouring switches that still forward through this node to somewhere else: 0 once a
        drain has moved the traffic away. Own prefixes (loopbacks, link subnets) are not transit."""
        state = self._state()
        topology = state.topology_obj()
        plan = self._applied_plan()
        own = {address.split("/")[0] for address in plan.get("loopback_addresses", [])}
        my_addresses = {port["address"].split("/")[0] for port in plan.get("links", []) if port.get("address")}
        neighbours = {link.b_node for link in topology.links if link.a_node == self.hostname}
        neighbours |= {link.a_node for link in topology.links if link.b_node == self.hostname}
        count = 0
        for neighbour in sorted(neighbours):
            routes = json.loads(run(["ip", "-n", f"{self.prefix}-{neighbour}", "-j", "route", "show", "proto", "bgp"],
                                    timeout=30).stdout or "[]")
            for route in routes:
                if route.get("dst", "").split("/")[0] in own:
                    continue
                hops = [route.get("gateway")] + [hop.get("gateway") for hop in route.get("nexthops", [])]
                if any(hop in my_addresses for hop in hops if hop):
                    count += 1
        return count

    # --------------------------------------------------------------------------------------------- upgrade

    def install_image(self, version: str) -> None:
        if not re.fullmatch(r"[A-Za-z0-9._+-]{1,64}", version):
            raise DriverError(f"{self.hostname}: version={version!r}: use letters, digits and ._+-")
        self._write_etc("ft-version.staged", version + "\n")

    def version(self) -> str:
        path = self.etc / "ft-version"
        return path.read_text().strip() if path.exists() else DEFAULT_VERSION

    def reboot(self) -> None:
        """Restart zebra + bgpd of this node; the staged version becomes the running one."""
        state = self._state()
        node = self._boot_node()
        old_pids = state.pids.get(self.hostname, {})
        for daemon in ("bgpd", "zebra"):
            _stop(old_pids.get(daemon), self.netns)
        log_dir = Path(state.state_dir) / self.prefix / "logs"
        pids = {}
        netns_vrfs = bool(state.vrf_netns.get(self.hostname))
        # Started exactly as at boot (arguments, memory settings, VRF view); bfdd keeps running.
        for daemon, extra in runtime.daemons_for("", netns_vrfs):
            try:
                pids[daemon] = runtime.start_daemon(self.netns, node.name, daemon, extra, log_dir, netns_vrfs)
            except TwinError as exc:
                raise DriverError(f"{self.hostname}: {daemon} did not restart: {exc}") from exc
        # frr.conf and the drain in ONE load, so sessions never come up undrained.
        combined = (self.etc / "frr.conf").read_text()
        if self.is_drained():
            combined += "\n" + (self.etc / "ft-drain.conf").read_text()
        with tempfile.NamedTemporaryFile("w", suffix=".conf", dir=RUN_FRR / self.netns, delete=False) as handle:
            handle.write(combined)
        try:
            loaded = run(["vtysh", "-N", self.netns, "-f", handle.name], check=False, timeout=120)
        finally:
            os.unlink(handle.name)
        if loaded.returncode != 0:
            raise DriverError(f"{self.hostname}: config load after restart failed: {loaded.stdout[-500:]}")
        fresh = runtime.TwinState.load(self.prefix, self.state_dir) or state
        fresh.pids[self.hostname] = {**fresh.pids.get(self.hostname, {}), **pids}  # bfdd kept running
        fresh.save()
        staged = self.etc / "ft-version.staged"
        if staged.exists():
            staged.replace(self.etc / "ft-version")
        if (self.etc / "ft-live.sha256").exists():
            self._record_live()  # the restart reloaded the deployed files: that is the config now

    # --------------------------------------------------------------------------------------------- health

    def health(self) -> Health:
        summary = self._vtysh_json("show bgp summary json")
        peers = summary.get("ipv4Unicast", {}).get("peers", {})
        down = tuple(sorted(peer for peer, data in peers.items() if data.get("state") != "Established"))
        evpn_peers = summary.get("l2VpnEvpn", {}).get("peers", {})
        routes = self._vtysh_json("show ip route summary json")
        return Health(
            bgp_established=len(peers) - len(down),
            bgp_total=len(peers),
            routes=int(routes.get("routesTotal", 0)),
            evpn_routes=sum(int(data.get("pfxRcd", 0) or 0) for data in evpn_peers.values()),
            down_peers=down,
            version=self.version(),
            detail={"evpn_established": sum(1 for d in evpn_peers.values() if d.get("state") == "Established"),
                    "evpn_total": len(evpn_peers)},
        )

def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _is_daemon_of(pid: int, pathspace: str) -> bool:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return any(argv[i] == b"-N" and argv[i + 1] == pathspace.encode() for i in range(len(argv) - 1))


def _stop(pid: int | None, pathspace: str, grace_s: float = 5.0) -> None:
    """Stop one recorded daemon (never by name: other twins run the same binaries)."""
    if not pid or not _is_daemon_of(pid, pathspace):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and _is_daemon_of(pid, pathspace):
        time.sleep(0.05)
    if _is_daemon_of(pid, pathspace):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _uid(name: str) -> int:
    import pwd

    return pwd.getpwnam(name).pw_uid


def _gid(name: str) -> int:
    import grp

    return grp.getgrnam(name).gr_gid
