"""Optional second opinion from Batfish (used only when ``BATFISH_HOST`` is set).

The rendered configs are written as a Batfish snapshot (``configs/<host>.cfg`` for EOS, ``sonic_configs/<host>/
{config_db.json,frr.conf}`` for SONiC; Batfish has no parser for plain FRR + Linux, so FRR-platform devices are
left out and reported), uploaded with pybatfish, and three questions are folded into findings:

* ``bgpSessionCompatibility`` -- every configured peering whose ``Configured_Status`` is not ``UNIQUE_MATCH``
  or ``DYNAMIC_MATCH`` (statuses from Batfish's ``ConfiguredSessionStatus``: HALF_OPEN, UNKNOWN_REMOTE,
  NO_LOCAL_IP, INVALID_LOCAL_IP, NO_REMOTE_AS, MULTIPLE_REMOTES, ...);
* ``undefinedReferences`` -- a config line referring to a structure that is not defined;
* ``multipathConsistency`` -- flows whose ECMP paths do not all have the same disposition.

Column names follow Batfish's answerers (Node, VRF, Local_Interface, Local_IP, Remote_Node, Remote_IP,
Configured_Status; File_Name, Struct_Type, Ref_Name, Context, Lines; Flow, Traces, TraceCount). Without
``BATFISH_HOST`` the check is skipped with the reason -- never reported as passed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from compiler.names import HOSTNAME, path_component
from compiler.paths import safe_join
from validators.common import CheckSkipped
from validators.context import FabricContext
from validators.findings import Finding, Severity

CHECK = "batfish"
GOOD_SESSION_STATUSES = frozenset({"UNIQUE_MATCH", "DYNAMIC_MATCH"})


def batfish_host() -> str | None:
    return os.environ.get("BATFISH_HOST") or None


def _cell(row, column, default=None):
    value = row.get(column, default) if hasattr(row, "get") else default
    if value is None:
        return default
    try:
        import pandas  # lazy: optional heavy dependency (pybatfish's answer frames), ~0.5 s to import

        if pandas.isna(value) is True:
            return default
    except (TypeError, ValueError, ImportError):
        pass
    return value


def findings_from_session_compatibility(frame) -> list[Finding]:
    findings = []
    for _index, row in frame.iterrows():
        status = str(_cell(row, "Configured_Status", ""))
        if status in GOOD_SESSION_STATUSES:
            continue
        node = _cell(row, "Node", "?")
        local = _cell(row, "Local_Interface") or _cell(row, "Local_IP") or ""
        remote = _cell(row, "Remote_Node") or _cell(row, "Remote_IP") or _cell(row, "Remote_Interface") or "?"
        subject = f"{node}:{local}" if local else str(node)
        findings.append(Finding(
            check=CHECK, severity=Severity.ERROR, subject=subject, expected="UNIQUE_MATCH", actual=status,
            message=f"Batfish bgpSessionCompatibility: {node} ({_cell(row, 'VRF', 'default')}) peering "
            f"with {remote} (AS {_cell(row, 'Remote_AS', '?')}) is {status}"))
    return findings


def findings_from_undefined_references(frame) -> list[Finding]:
    findings = []
    for _index, row in frame.iterrows():
        file_name = _cell(row, "File_Name", "?")
        host = Path(str(file_name)).stem if file_name != "?" else "?"
        if Path(str(file_name)).name in ("config_db.json", "frr.conf"):
            host = Path(str(file_name)).parent.name
        findings.append(Finding(
            check=CHECK, severity=Severity.ERROR, subject=host, expected="a defined structure",
            actual=_cell(row, "Ref_Name"),
            message=f"Batfish undefinedReferences: {file_name} uses {_cell(row, 'Struct_Type', '?')} "
            f"{_cell(row, 'Ref_Name', '?')} ({_cell(row, 'Context', '')}, lines "
            f"{_cell(row, 'Lines', '?')}) that is never defined"))
    return findings


def findings_from_multipath(frame) -> list[Finding]:
    findings = []
    for _index, row in frame.iterrows():
        flow = _cell(row, "Flow", "?")
        ingress = getattr(flow, "ingressNode", None) or (flow.get("ingressNode") if isinstance(flow, dict) else None)
        findings.append(Finding(
            check=CHECK, severity=Severity.ERROR, subject=str(ingress or flow),
            expected="one disposition on every path", actual=_cell(row, "TraceCount"),
            message=f"Batfish multipathConsistency: flow {flow} has ECMP paths with different outcomes "
            f"({_cell(row, 'TraceCount', '?')} traces)"))
    return findings


def write_snapshot(compile_result, directory: Path) -> list[str]:
    """Write the Batfish snapshot layout; returns the hosts left out (no Batfish parser for their platform)."""
    left_out = []
    (directory / "configs").mkdir(parents=True, exist_ok=True)
    for host, config in compile_result.structured.items():
        platform = config.get("platform")
        files = (compile_result.rendered.get(host) or {}).get(platform) or {}
        if platform == "eos" and "startup-config" in files:
            path_component(HOSTNAME, host, "hostname")
            safe_join(directory, "configs", f"{host}.cfg", fields=("configs", "hostname")).write_text(
                files["startup-config"])
        elif platform == "sonic" and "config_db.json" in files:
            path_component(HOSTNAME, host, "hostname")
            target = safe_join(directory, "sonic_configs", host, fields=("sonic_configs", "hostname"))
            target.mkdir(parents=True, exist_ok=True)
            for name in ("config_db.json", "frr.conf"):
                if name in files:
                    (target / name).write_text(files[name])
        else:
            left_out.append(host)
    return left_out


def check_batfish(fabric, host: str | None = None) -> list[Finding]:
    host = host or batfish_host()
    if not host:
        raise CheckSkipped("no Batfish service (set BATFISH_HOST to run it)")
    if getattr(fabric, "rendered", None) is None:
        raise CheckSkipped("Batfish needs rendered configs (pass a ValidationInput with rendered files)")
    from pybatfish.client.session import Session  # lazy: optional heavy dependency, only with a Batfish service

    session = Session(host=host)
    snapshot = getattr(fabric, "snapshot", None)
    session.set_network(f"fabric-twin-{snapshot.inventory.fabric if snapshot else 'fabric'}")
    findings: list[Finding] = []
    with tempfile.TemporaryDirectory(prefix="ft-batfish-") as directory:
        left_out = write_snapshot(fabric, Path(directory))
    examined = {"devices": len(fabric.structured) - len(left_out)}
    if isinstance(fabric, FabricContext):  # from validators.run; a CompileResult passed directly records nothing
        fabric.record_examined(CHECK, examined)
        session.init_snapshot(directory, name="validate", overwrite=True)
    questions: Any = session.q  # pybatfish builds its question methods at run time (no static attributes)
    findings += findings_from_session_compatibility(questions.bgpSessionCompatibility().answer().frame())
    findings += findings_from_undefined_references(questions.undefinedReferences().answer().frame())
    findings += findings_from_multipath(questions.multipathConsistency().answer().frame())
    if left_out:
        findings.append(Finding(
            check=CHECK, severity=Severity.INFO, subject="fabric", expected="every device analysed",
            actual=len(left_out), message=f"Batfish cannot parse FRR/Linux configs; {len(left_out)} device(s) left out"))
    return findings


CHECKS = {CHECK: check_batfish}
