"""Selectors of a GPU server's host config (issue 31): its rendered NIC files and each NIC beside the switch port
it is cabled to, with every ``hosts.*`` mismatch. Read-only; the API (``GET /api/fabric-intents/{id}/host/``) and
the server page call these.

The switch side is the latest succeeded compile run's stored structured configs (what the switches were given),
else the current intent compiled in memory; the NIC side is the host config the compiler derives for the
intent (compiler.host_config). Derivation and checks run over the whole fabric (the rail check compares a NIC
with the others on its leaf): a few hundred milliseconds at demo scale, ~2 s CPU at 2,048 servers x 8 NICs
(bench/results/hosts.md).

``host_drift_report`` compares the states collected on servers (``scripts/collect-host-state.sh``) with the host
configs the intent derives, NIC field by NIC field (compiler.parse.drift.host_drift), and runs the ``hosts.*``
checks on the collected state against the switch side: what drifted, and which drift breaks the wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from compiler.api import build_facts, structured_configs
from compiler.errors import FieldError, InputError
from compiler.host_config import HostConfig, build_host_configs
from compiler.natural import natural_key
from compiler.nics import FAMILY_LABEL
from compiler.parse.drift import host_drift
from compiler.parse.hosts import read_host_states
from compiler.render.hosts import render_host
from compiler.validate import check_intent
from validators.context import ValidationInput
from validators.findings import Finding, Severity
from validators.run import validate_fabric
from validators.subjects import Subject, SubjectEnd

from . import adapters, selectors
from .models import FabricIntent


@dataclass(frozen=True)
class ServerHostView:
    server: str
    fabric_intent: str
    config: HostConfig
    files: dict[str, str]
    rows: list[dict]  # one per NIC: its settings beside the switch port's, and the findings on that link
    findings: list[Finding]  # every hosts.* finding about this server
    switch_source: str  # "compile run N" or "the current intent, compiled in memory"

    def as_dict(self) -> dict:
        return {"server": self.server, "fabric_intent": self.fabric_intent, "model": self.config.model,
                "switch_source": self.switch_source, "nics": self.rows, "files": self.files,
                "findings": [finding.as_dict() for finding in self.findings]}


def _switch_side(fabric_intent: FabricIntent, snapshot):
    run = selectors.compile_run_latest(fabric_intent=fabric_intent)
    if run is not None:
        try:
            return selectors.compile_run_result(run=run).structured, f"compile run {run.pk}"
        except InputError:
            pass  # stale run (the fabric changed since): compile the current intent instead
    allocations = check_intent(snapshot)  # an intent the compiler refuses is an IntentValidationError, never a crash
    return structured_configs(snapshot, build_facts(snapshot, allocations)), "the current intent, compiled in memory"


def server_host_view(*, fabric_intent: FabricIntent, server: str) -> ServerHostView:
    """``server``'s host files and NIC-vs-switch-port table; InputError naming ``server`` when the fabric has none."""
    snapshot = adapters.fabric_snapshot(fabric_intent)
    if server not in snapshot.inventory.servers_by_name:
        raise InputError(FieldError("server", server, f"not a server of fabric {snapshot.inventory.fabric}"))
    structured, source = _switch_side(fabric_intent, snapshot)
    hosts = build_host_configs(snapshot)
    report = validate_fabric(ValidationInput(structured=structured, snapshot=snapshot, hosts=hosts), checks=["hosts"])
    mine = [finding for finding in report.findings if finding.subject == server
            or finding.subject.startswith(f"{server}:")]
    config = hosts[server]
    rows = []
    for nic in config.nics:
        port = next((interface for interface in structured.get(nic.leaf, {}).get("interfaces", ())
                     if interface["name"] == nic.leaf_interface), None) if nic.leaf else None
        port_qos = (port or {}).get("qos") or {}
        rows.append({
            "nic": nic.name, "rail": nic.rail, "rdma_device": nic.rdma_device, "model": nic.nic_model,
            "family": FAMILY_LABEL.get(nic.family, nic.family), "speed_gbps": nic.speed_gbps, "mtu": nic.mtu,
            "pfc_priorities": list(nic.pfc_priorities) if nic.pfc_priorities is not None else None,
            "trust": nic.trust, "cable_length_m": nic.cable_length_m, "roce_tos": nic.roce_tos,
            "pcie": f"Gen{nic.pcie_gen} x{nic.pcie_lanes}" if nic.pcie_gen else None,
            "switch_port": f"{nic.leaf}:{nic.leaf_interface}" if nic.leaf else None,
            "switch_speed_gbps": (port or {}).get("speed_gbps"), "switch_mtu": (port or {}).get("mtu"),
            "switch_pfc_priorities": port_qos.get("pfc_priorities"), "switch_trust": port_qos.get("trust"),
            "findings": [finding.as_dict() for finding in mine if _nic_link(finding.subject, server, nic.name)],
        })
    return ServerHostView(server=server, fabric_intent=fabric_intent.name, config=config, files=render_host(config),
                          rows=rows, findings=mine, switch_source=source)


def _about(finding: Finding, server: str) -> bool:
    return finding.subject == server or finding.subject.startswith(f"{server}:")


def _nic_link(subject: str, server: str, nic: str) -> bool:
    """A finding about the link from the server's NIC to its switch port (validators.hosts)."""
    link = Subject.parse(subject)
    return link.is_link and link.ends[0] == SubjectEnd(server, nic)


def host_drift_report(*, fabric_intent: FabricIntent, directory: str | Path) -> dict:
    """Every host state under ``directory`` (compiler.parse.hosts.read_host_states) against the intent's host
    config of that server: per server ``state`` (in sync, drifted, not in the inventory), the field-level
    ``differences`` naming the NIC, the fields ``not_read`` and the ``running_errors`` (``hosts.*`` errors on the
    collected state against the switch ports). ParseError naming the file for a state no parser reads."""
    snapshot = adapters.fabric_snapshot(fabric_intent)
    states = read_host_states(Path(directory), dict(snapshot.inventory.servers_by_name))
    intended = build_host_configs(snapshot)
    known = {server: parsed.config for server, parsed in states.items() if server in intended}
    errors: list[Finding] = []
    switch_source = None
    if known:
        structured, switch_source = _switch_side(fabric_intent, snapshot)
        report = validate_fabric(ValidationInput(structured=structured, snapshot=snapshot, hosts=known),
                                 checks=["hosts"])
        errors = [finding for finding in report.findings if finding.severity == Severity.ERROR]
    servers = []
    for server in sorted(states, key=natural_key):
        parsed = states[server]
        if server not in intended:
            servers.append({"server": server, "state": "not in the inventory", "differences": [], "not_read": [],
                            "running_errors": [], "unmodelled": parsed.unmodelled})
            continue
        record = host_drift(intended[server], parsed.config).as_dict()
        record["running_errors"] = [finding.as_dict() for finding in errors if _about(finding, server)]
        record["unmodelled"] = parsed.unmodelled
        servers.append(record)
    return {"fabric_intent": fabric_intent.name, "directory": str(directory), "switch_source": switch_source,
            "servers": servers, "not_collected": sorted(set(intended) - set(states), key=natural_key)}
