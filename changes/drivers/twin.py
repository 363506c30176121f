"""The live twin (labs.runtime: one netns + zebra/bgpd per switch) behind the DeviceDriver interface.

A thin adapter: what touches the twin (namespaces, the Linux plan delta, FRR files and reloads, daemon restarts)
is one switch of the twin, ``twins.switch.TwinSwitch`` (the twins app is the one door to labs/; a rollout builds
it from its Twin row); this module adds what a device driver means on top of it (candidate/compare/commit, the
push guard, drift, drain, staged versions, health).

A node's config is its two rendered files: ``frr.conf`` and ``linux-plan.json``. Commit applies them for real:
the Linux plan delta (bridges + VXLAN devices, port MTUs/addresses, loopbacks) with ``ip``/``bridge`` in the
node's namespace (``runtime.apply_plan_delta``), then frr.conf with FRR's ``frr-reload.py --reload --pathspace <ns>``
(``runtime.reload_frr_config``: a replace that applies only the delta; ``vtysh -f`` would merge). Every commit appends one line to ``/etc/frr/<ns>/ft-push-journal.log`` on the
node itself: the driver-side push count the crash tests assert on.

Drain (choice and why): an outbound route-map ``FT-DRAIN`` that prepends the node's own ASN three times on every
IPv4-unicast session. In an eBGP Clos with ``bestpath as-path multipath-relax`` every other path is shorter, so
neighbours drop this node from their ECMP sets, and it works whatever the neighbours' policies are. The RFC 8326
graceful-shutdown community needs a matching policy on every receiver, and MED (max-med) is only compared between
paths from the same neighbouring AS, which is not true for leaves in a multi-AS Clos. The drain is also kept in
``/etc/frr/<ns>/ft-drain.conf`` so a daemon restart (the "upgrade") comes back still drained.

Upgrade = ``install_image(version)`` stages a version tag, ``reboot()`` restarts the node's zebra and bgpd
(``runtime.restart_daemons``: stop by recorded PID, start as at boot), loads frr.conf plus the drain in one
``vtysh -f`` and records the tag in ``/etc/frr/<ns>/ft-version``; the twin's state file gets the new PIDs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from collections.abc import Iterable

from compiler.errors import DriverError
from twins.switch import STATIC_PLAN_KEYS, TwinSwitch, frr_conf_without_twin_lines

from ..credentials import secret_refs_resolve
from ..guard import DRAIN_ROUTE_MAP, push_guard
from ..rocegate import synthetic
from ..rocegate.schema import COUNTERS, TRAFFIC_COUNTERS, Poll
from .base import ConfigFiles, DeviceDriver, Health, config_diff, config_hash
from .frr_text import frr_comparable

DRAIN_PREPEND_COUNT = 3
ROCE_FAULT, ROCE_FAULT_ARMED = "ft-roce-fault", "ft-roce-fault.armed"  # synthetic-plane fault of a node (counters)
DEFAULT_VERSION = "frr-8.4"
_ROUTER_BGP = re.compile(r"^router bgp (\d+)\s*$", re.MULTILINE)


def normalize_frr_conf(text: str) -> str:
    """Drop what the twin runtime adds to every config (``runtime.twin_frr_conf``: the NHG workaround, netns lines
    of VRFs) and trailing blanks: two configs that differ only there are the same config to the twin."""
    return frr_conf_without_twin_lines(text)


def normalize_plan(text: str) -> str:
    """The plan as the twin applies it: sorted JSON without the static-only RoCE QoS translation, which no twin
    applies and a switch booted from its own EOS/SONiC config does not carry (labs.node_configs)."""
    try:
        plan = json.loads(text)
    except ValueError as exc:
        raise DriverError(f"linux-plan.json is not valid JSON: {exc}") from exc
    if isinstance(plan, dict):
        plan = {key: value for key, value in plan.items() if key not in STATIC_PLAN_KEYS}
    return json.dumps(plan, indent=2, sort_keys=True) + "\n"


def twin_files_normalized(files: ConfigFiles) -> ConfigFiles:
    """A node's files as the twin applies them (the driver's normalization; also what the configs page compares to
    tell a change the twin never runs): frr.conf without the twin's own lines, the plan without static-only keys."""
    out = dict(files)
    if "frr.conf" in out:
        out["frr.conf"] = normalize_frr_conf(out["frr.conf"])
    if "linux-plan.json" in out:
        out["linux-plan.json"] = normalize_plan(out["linux-plan.json"])
    return out


class TwinDriver(DeviceDriver):
    def __init__(self, prefix: str, hostname: str, state_dir: str | None = None, *, switch: TwinSwitch | None = None):
        self.switch = switch or TwinSwitch(prefix, hostname, state_dir)  # refuses names that are not plain
        self.prefix, self.hostname, self.state_dir = self.switch.prefix, self.switch.hostname, self.switch.state_dir
        self.netns = self.switch.netns
        self.etc = self.switch.etc
        self._candidate: ConfigFiles | None = None

    @classmethod
    def of(cls, switch: TwinSwitch) -> TwinDriver:
        """The driver of one switch of a twin (``TwinSwitch.of(twin, hostname)``: built from the Twin row)."""
        return cls(switch.prefix, switch.hostname, switch.state_dir, switch=switch)

    def __repr__(self) -> str:
        return f"TwinDriver({self.prefix!r}, {self.hostname!r})"

    # --------------------------------------------------------------------------------------------- state

    def _state(self):
        """The twin's runtime state, once the twin runs, the switch is one of it and our installation owns it."""
        return self.switch.state()

    def _vtysh(self, *commands: str, check: bool = True) -> str:
        return self.switch.vtysh(*commands, check=check)

    def _vtysh_json(self, command: str) -> dict:
        output = self._vtysh(command)
        try:
            return json.loads(output or "{}")
        except ValueError as exc:
            raise DriverError(f"{self.hostname}: {command!r} did not return JSON: {output[:200]!r}") from exc

    def comparable(self, files: ConfigFiles) -> ConfigFiles:
        """frr.conf as FRR prints it where that is known: a file equal to the one this node was given becomes FRR's
        recorded rendering of it (FRR reorders, drops profile defaults, adds its own lines, so only printing is
        compared with printing); any frr.conf then in the form of changes.drivers.frr_text."""
        out = self.normalize(files)
        if "frr.conf" not in out:
            return out
        rendering, deployed = self.etc / "ft-live.conf", self.etc / "frr.conf"
        if rendering.exists() and deployed.exists() and out["frr.conf"] == normalize_frr_conf(deployed.read_text()):
            out["frr.conf"] = normalize_frr_conf(rendering.read_text())
        out["frr.conf"] = frr_comparable(out["frr.conf"])
        return out

    def normalize(self, files: ConfigFiles) -> ConfigFiles:
        return twin_files_normalized(files)

    # --------------------------------------------------------------------------------------------- config

    def _applied_plan(self) -> dict:
        applied = self.etc / "ft-linux-plan.json"
        if applied.exists():
            return json.loads(applied.read_text())
        return self.switch.boot_plan()

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
        if not recorded.exists():
            # Never pushed since boot: FRR's rendering of the deployed file becomes the baseline at this first
            # read, so a change typed into FRR afterwards is seen (before, such a node never showed drift). A node
            # whose FRR does not answer (restarting) runs the deployed file as far as we know.
            with contextlib.suppress(DriverError):
                self._record_live()
        elif _sha256(live := self._vtysh("show running-config")) != recorded.read_text().strip():
            frr_conf = frr_comparable(normalize_frr_conf(live))  # someone used vtysh since our last commit
        plan = self._applied_plan()
        existing = self.switch.device_names()
        plan = {**plan, "bridges": [bridge for bridge in plan.get("bridges", []) if bridge["name"] in existing
                                    and (not bridge.get("vxlan") or bridge["vxlan"]["name"] in existing)]}
        return {"frr.conf": frr_conf, "linux-plan.json": json.dumps(plan, indent=2, sort_keys=True) + "\n"}

    def load_candidate(self, config: ConfigFiles) -> None:
        if set(config) != {"frr.conf", "linux-plan.json"}:
            raise DriverError(f"{self.hostname}: the twin takes frr.conf + linux-plan.json, got {sorted(config)}")
        # The same resolver as every driver: a secret reference in the files is resolved or the push is refused.
        self._candidate = self.normalize(secret_refs_resolve(config, device=self.hostname, platform="frr"))

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
        armed = self._etc_text(ROCE_FAULT_ARMED)
        # The same guard as every driver: no change to a management VRF or to the FT-DRAIN drain state. The drain is
        # device state carried over (re-applied after the reload below), so both sides are compared with it.
        drain = (self.etc / "ft-drain.conf").read_text() if self.is_drained() else ""
        running = self.get_running_config()
        push_guard(device=self.hostname, platform="frr", running={**running, "frr.conf": running["frr.conf"] + drain},
                   effective={**candidate, "frr.conf": candidate["frr.conf"] + drain})
        self._apply(candidate)
        if armed:  # an injected RoCE fault shows from this push on (the push "broke" the lossless class)
            self._write_etc(ROCE_FAULT, armed)
            self._write_etc(ROCE_FAULT_ARMED, "")

    def _apply(self, candidate: ConfigFiles) -> None:
        new_plan = json.loads(candidate["linux-plan.json"])
        self.switch.apply_plan_delta(self._applied_plan(), new_plan)
        self._write_etc("ft-linux-plan.json", json.dumps(new_plan, indent=2, sort_keys=True) + "\n")
        self.switch.reload_frr_config(candidate["frr.conf"])
        if self.is_drained():
            self._apply_drain()  # a replace must not silently undrain a node that is in maintenance
        self._record_live()
        with open(self.etc / "ft-push-journal.log", "a") as journal:
            journal.write(f"{time.time():.3f} {config_hash(candidate)}\n")
        self._candidate = None

    def _record_live(self) -> None:
        """Remember how FRR renders the config we applied (its hash, to tell later whether someone changed it, and
        its text, what drift compares a changed rendering with: FRR's printing against FRR's printing)."""
        live = self._vtysh("show running-config")
        self._write_etc("ft-live.conf", live)
        self._write_etc("ft-live.sha256", _sha256(live) + "\n")

    def push_count(self) -> int:
        """Commits recorded on the node itself (driver side, independent of the database)."""
        journal = self.etc / "ft-push-journal.log"
        return len(journal.read_text().splitlines()) if journal.exists() else 0

    def rollback(self, previous: ConfigFiles | None = None) -> None:
        if previous is None:
            raise DriverError(f"{self.hostname}: twin rollback needs the previous config")
        self.load_candidate(previous)
        self._apply(self._candidate)  # not guarded: the config the node ran before, management and drain included
        self._write_etc(ROCE_FAULT, "")  # the config the fault came with is gone

    # --------------------------------------------------------------------------------------------- RoCE counters

    def _etc_text(self, name: str) -> str:
        path = self.etc / name
        return path.read_text().strip() if path.exists() else ""

    def port_names(self) -> dict[str, str]:
        """Linux interface -> the port's name on the switch it stands for (the plan's ``source_name``, e.g.
        Ethernet1/1): counters are reported under the names the intent and the gate's rules use."""
        return {link["name"]: link.get("source_name") or link["name"] for link in self._applied_plan().get("links", [])}

    def traffic_layout(self) -> synthetic.Layout:
        """The node's ports as the synthetic plane models them, by their switch names (:meth:`port_names`): its
        fabric links (uplinks, in port order) and the ports facing twin hosts, each with the host and the host's
        interface (its "NIC")."""
        topology, names = self.switch.topology(), self.port_names()
        uplinks = {link.a_ifname for link in topology.links if link.a_node == self.hostname}
        uplinks |= {link.b_ifname for link in topology.links if link.b_node == self.hostname}
        servers = [(names.get(interface.peer_ifname, interface.peer_ifname), host.name, interface.ifname)
                   for host in topology.hosts for interface in host.interfaces if interface.peer_node == self.hostname]
        return synthetic.Layout(tuple(sorted((names.get(name, name) for name in uplinks), key=_port_order)),
                                tuple(sorted(servers, key=lambda item: _port_order(item[0]))))

    def counters(self, *, lossless_queues: Iterable[int]) -> Poll:
        """Veths have no PFC, ECN or RoCE NICs: a twin node's RoCE counters come from this twin's synthetic counter
        plane (changes.rocegate.synthetic.source_for(prefix)), driven by the traffic the node's veths really carried
        since the previous read, its ports named as on the switch (Ethernet3, not eth3) (``TwinSwitch.link_counters``: the
        kernel's byte and packet counters; they appear in
        the poll as ``tx_packets`` …), with the fault model injected on the node if any. Everything but the
        traffic counters is modelled (synthetic.SYNTHETIC). The plane's queue 3 is the lossless, ECN-marked one
        whatever ``lossless_queues`` says."""
        layout, names = self.traffic_layout(), self.port_names()
        ports = set(layout.uplinks) | {port for port, _host, _nic in layout.servers}
        counters = self.switch.link_counters()
        clock = time.monotonic()
        measured = {names.get(ifname, ifname): (link.tx_packets, link.tx_bytes, link.rx_packets, link.rx_bytes)
                    for ifname, link in counters.items() if names.get(ifname, ifname) in ports}
        try:
            return synthetic.source_for(self.prefix).read(self.hostname, self._etc_text(ROCE_FAULT) or None,
                                                          layout=layout, link_counters=measured, clock=clock)
        except ValueError as exc:
            raise DriverError(f"{self.hostname}: {exc}") from exc

    def counter_sources(self) -> dict[str, str]:
        """Which counter kinds this driver measures and which it models (the gate's step records it)."""
        return {name: ("measured" if name in TRAFFIC_COUNTERS else "synthetic") for name in COUNTERS}

    def roce_fault_inject(self, fault: str) -> None:
        """Failure injection on the synthetic counter plane: the node's counters show ``fault``
        (changes.rocegate.synthetic.FAULTS) from its next commit until a rollback, as a push that broke the lossless
        class would."""
        if fault not in synthetic.FAULTS:
            raise DriverError(f"{self.hostname}: fault {fault!r} is not one of {', '.join(sorted(synthetic.FAULTS))}")
        self._state()
        self._write_etc(ROCE_FAULT_ARMED, fault)

    def _write_etc(self, name: str, text: str) -> None:
        self.switch.write_file(name, text)

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
        plan = self._applied_plan()
        own = {address.split("/")[0] for address in plan.get("loopback_addresses", [])}
        my_addresses = {port["address"].split("/")[0] for port in plan.get("links", []) if port.get("address")}
        count = 0
        for routes in self.switch.neighbours_bgp_routes().values():
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
        self._state()  # the twin runs and this installation owns the switch, before anything is read or restarted
        # frr.conf and the drain in ONE load, so sessions never come up undrained.
        combined = (self.etc / "frr.conf").read_text()
        if self.is_drained():
            combined += "\n" + (self.etc / "ft-drain.conf").read_text()
        self.switch.restart(combined)
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


def _port_order(name: str) -> tuple:
    """eth2 before eth10."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
