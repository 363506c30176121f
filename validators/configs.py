"""Validate device configs as text: parse them (compiler.parse), run every static check that can run on configs
alone, and cite each finding's file:line.

:func:`validation_input` is the ONE adapter from parsed configs to what the validators read (today: a
:class:`~validators.context.FabricContext` over ``{hostname: structured config}``, plus the snapshot when the
inventory describes these devices). Checks that need the inventory (physical checks, headroom from cable length,
server MTUs) use it when every parsed hostname is a switch of it; otherwise they are skipped with the reason.
Pure Python; never imports Django.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass, field
from typing import cast

from compiler.errors import FabricTwinError
from compiler.parse import ParsedDevice, ParseError, parse_device
from compiler.parse.carried import carried, differences
from compiler.parse.common import Unmodelled
from compiler.parse.drift import describe_path
from compiler.parse.fabric import complete_fabric
from compiler.structured.contract import StructuredConfig
from validators.context import FabricContext
from validators.findings import CheckStatus, Finding, Report, Severity
from validators.run import validate_fabric

NO_INVENTORY = "no inventory (structured configs only)"  # validators.run's reason for inventory checks


@dataclass
class ConfigValidation:
    """A report on parsed configs: findings with the file:line they come from, and every unmodelled line."""

    report: Report
    devices: dict[str, ParsedDevice]
    inventory_reason: str  # "" when the inventory was used, else why not
    locations: dict[int, list[str]] = field(default_factory=dict)  # id(finding) -> ["leaf1/startup-config:63"]

    @property
    def ok(self) -> bool:
        return self.report.ok

    def where(self, finding: Finding) -> list[str]:
        return self.locations.get(id(finding), [])

    def unmodelled(self) -> list[tuple[str, Unmodelled]]:
        return [(host, item) for host, device in self.devices.items() for item in device.unmodelled]

    def as_dict(self) -> dict:
        data = self.report.as_dict()
        for check, result in zip(data["checks"], self.report.checks.values(), strict=True):
            for entry, finding in zip(check["findings"], result.findings, strict=True):
                entry["locations"] = self.where(finding)
        data["devices"] = {host: {"platform": device.platform, "files": device.files, "source": device.source,
                                  "detected_by": device.detected_by} for host, device in self.devices.items()}
        data["inventory"] = self.inventory_reason or "used"
        data["unmodelled"] = [{"device": host, **item.as_dict()} for host, item in self.unmodelled()]
        return data

    def as_text(self) -> str:
        counts = self.report.counts()
        lines = [f"{self.report.title}: {counts['passed']} passed, {counts['failed']} failed, "
                 f"{counts['skipped']} skipped"]
        platforms: dict[str, int] = {}
        for device in self.devices.values():
            platforms[device.platform] = platforms.get(device.platform, 0) + 1
        lines.append("  devices: " + ", ".join(f"{count} {platform}" for platform, count in sorted(platforms.items())))
        for host, device in sorted(self.devices.items()):
            if len(device.files) > 1:  # per-daemon FRR files merged, config_db.json + frr.conf ...
                lines.append(f"  {host} ({device.platform}) from {len(device.files)} files: {', '.join(device.files)}")
        lines.append(f"  inventory: {self.inventory_reason or 'used (hostnames match)'}")
        for result in self.report.checks.values():
            detail = f" (skipped: {result.reason})" if result.status == CheckStatus.SKIPPED else ""
            lines.append(f"  [{result.status.upper():7}] {result.name}{detail}")
            for finding in result.findings:
                where = ", ".join(self.where(finding))
                lines.append(f"      {finding.severity:7} {finding.subject}: {finding.message}"
                             + (f"  [{where}]" if where else ""))
        unmodelled = self.unmodelled()
        lines.append(f"  unmodelled lines/keys: {len(unmodelled)}")
        for host, item in unmodelled:
            lines.append(f"      {host}/{item}")
        return "\n".join(lines)


def parse_configs(device_files: dict[str, dict[str, str]]) -> dict[str, ParsedDevice]:
    """{device key (directory or file name): {file name: text}} -> {hostname: ParsedDevice}, fabric completed.

    ParseError naming the device's directory or file when its files are no config (compiler.parse names the file,
    line and command), and naming both when two of them claim one hostname: a set holds each device once."""
    devices: dict[str, ParsedDevice] = {}
    # Millions of small dicts and lists: the cyclic GC would rescan them over and over for nothing (as in
    # validators.run.validate_fabric); parsing creates no reference cycles.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for key, files in sorted(device_files.items()):
            try:
                parsed = parse_device(files, hostname_hint=key)
            except ParseError as error:
                raise ParseError(f"device {key!r}: {error}") from error
            hostname = parsed.hostname or key
            if hostname in devices:
                first = devices[hostname]
                hint = ("; FRR per-daemon files of one device go in one directory: <device>/zebra.conf, "
                        "<device>/bgpd.conf" if first.platform == parsed.platform == "frr" else "")
                raise ParseError(f"hostname {hostname!r} is claimed twice: by {_where(first.source, first.files)} "
                                 f"and by {_where(key, parsed.files)} (one device, one config{hint})")
            parsed.structured["hostname"] = hostname
            parsed.source = key
            devices[hostname] = parsed
        complete_fabric(devices)
    finally:
        if gc_was_enabled:
            gc.enable()
    return devices


def _where(key: str, files: list[str]) -> str:
    """How a report names a device's files: a top-level file by its name, a directory with its files."""
    if len(files) == 1 and files[0].rsplit(".", 1)[0] == key:
        return files[0]
    return f"{key}/{files[0]}" if len(files) == 1 else f"{key}/ ({', '.join(files)})"


def validation_input(devices: dict[str, ParsedDevice], snapshot=None) -> tuple[FabricContext, str]:
    """The one adapter: parsed configs (+ the inventory's snapshot when it describes them) -> validator input,
    and why the inventory was not used ("" when it was)."""
    # The parsers build the contract's shape in plain dicts (every key present, compiler.parse.common.empty_structured).
    structured = {host: cast(StructuredConfig, device.structured) for host, device in devices.items()}
    if snapshot is None:
        return FabricContext(structured), NO_INVENTORY
    switches = {switch.hostname for switch in snapshot.inventory.switches}
    unknown = sorted(set(structured) - switches)
    if unknown:
        return FabricContext(structured), (f"hostnames not in the inventory: {', '.join(unknown[:5])}"
                                           + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""))
    _name_unnamed_networks(devices, snapshot.intent)
    return FabricContext(structured, snapshot), ""


def _name_unnamed_networks(devices: dict[str, ParsedDevice], intent) -> None:
    """A VLAN whose text states no name (FRR/Linux bridges: compiler.parse.fabric labels it ``vni<N>``) takes the
    name of the intent's network with its VLAN ID, so the checks that compare with the intent's networks judge
    what the text states (the VLAN), not a label it cannot state."""
    by_vlan = {network.vlan_id: network.name for network in intent.networks}
    for device in devices.values():
        for vlan in device.structured["vlans"]:
            if not vlan["name"] and vlan["id"] in by_vlan:
                vlan["network"] = by_vlan[vlan["id"]]


def validate_configs(device_files: dict[str, dict[str, str]], snapshot=None, checks=None,
                     title: str | None = None) -> ConfigValidation:
    devices = parse_configs(device_files)
    return validate_parsed(devices, snapshot=snapshot, checks=checks, title=title)


def validate_parsed(devices: dict[str, ParsedDevice], snapshot=None, checks=None,
                    title: str | None = None) -> ConfigValidation:
    ctx, inventory_reason = validation_input(devices, snapshot)
    report = validate_fabric(ctx, checks=checks, title=title or f"validation of {len(devices)} device configs")
    if inventory_reason and inventory_reason != NO_INVENTORY:
        for result in report.checks.values():
            if result.status == CheckStatus.SKIPPED and result.reason == NO_INVENTORY:
                result.reason = inventory_reason
    validation = ConfigValidation(report, devices, inventory_reason)
    for finding in report.findings:
        validation.locations[id(finding)] = _locate(finding, devices)
    return validation


def _locate(finding: Finding, devices: dict[str, ParsedDevice]) -> list[str]:
    """file:line of the config lines a finding is about: each end of a link, the port's QoS for RoCE checks."""
    out = []
    for end in finding.subject.split("<->"):
        host, _, part = end.partition(":")
        device = devices.get(host.strip())
        if device is None:
            continue
        keys = []
        if part.startswith("VNI") or part.startswith("vni"):
            keys = ["vxlan", "bgp"]
        elif finding.check.startswith("mlag."):
            keys = [part, part.rsplit(" ", 1)[0]]  # the line itself ("mlag domain-id"), else its block
        elif part:
            keys = ([f"interface {part} qos"] if finding.check.startswith("roce") else []) + [f"interface {part}"]
        keys += {"bgp": ["bgp"], "overlay": ["vxlan", "bgp"], "roce": ["qos"], "mtu": ["vxlan"]}.get(
            finding.check.split(".")[0], []) + ["device"]
        where = device.locate(*keys)
        if where:
            out.append(f"{device.source or host}/{where[0]}:{where[1]}")
    return out


def running_state_errors(intended: dict[str, ParsedDevice], running: dict[str, ParsedDevice]) -> dict[str, list[dict]]:
    """The checks on the fabric as it runs (each device's running config where it was read, its intended one
    elsewhere) against the fabric as intended: hostname -> the error findings that exist only in the running
    state, so drift that breaks losslessness raises the check's error (issue #15 item 5)."""
    fabric = {**intended, **running}
    complete_fabric(fabric)
    complete_fabric(intended)
    before = {(f.check, f.subject, f.message) for f in validate_parsed(intended).report.findings
              if f.severity == "error"}
    out: dict[str, list[dict]] = {}
    for finding in validate_parsed(fabric).report.findings:
        if finding.severity != "error" or (finding.check, finding.subject, finding.message) in before:
            continue
        # Subjects name devices in several shapes ("a:x<->b:y", "leaf1->leaf2,leaf3", a tier): every running
        # device the subject or the message names gets the error; one that names none of them was still caused
        # by the running state, so every running device gets it (issue #30 point 3: an ECMP break on one leaf
        # showed no error on the drift page).
        text = f"{finding.subject} {finding.message}"
        named = [host for host in running if re.search(rf"(?<![\w.-]){re.escape(host)}(?![\w.-])", text)]
        for host in named or running:
            out.setdefault(host, []).append(finding.as_dict())
    return out


TEXT_CHECK = "text.render"


def text_faithfulness(structured: dict[str, dict], files: dict[str, dict[str, str]],
                      platforms: dict[str, str], *, without_qos: frozenset[str] = frozenset()) -> list[Finding]:
    """The rollout gate on the text (issue #15 item 6): parse the exact files that will be pushed and compare
    them with the structured config they were rendered from, on what each platform carries. A renderer bug (a
    port's PFC dropped, a lane count wrong) or a hand edit of the files is an error naming the field and the line;
    files that do not parse are an error naming the file. ``without_qos``: hosts whose files carry no QoS by
    design (a twin node run from an EOS/SONiC switch's own config, labs.node_configs), compared without it and
    said so in an info finding."""
    findings: list[Finding] = []
    for host in sorted(files):
        platform = platforms[host]
        try:
            parsed = parse_device(files[host], platform=platform, hostname_hint=host)
        except FabricTwinError as error:
            findings.append(Finding(check=TEXT_CHECK, severity=Severity.ERROR, subject=host, expected="parseable config", actual=None,
                                    message=f"{host}: the files to push do not parse: {error}"))
            continue
        if host not in structured:
            continue
        want_model, have_model = carried(structured[host], platform), carried(parsed.structured, platform)
        for model in (want_model, have_model):  # EVPN builds flood lists; no file of one device states them
            (model.get("vxlan") or {}).pop("flood_lists", None)
            if host in without_qos:
                model.pop("qos", None)
                for interface in model.get("interfaces") or []:
                    interface.pop("qos", None)
        if host in without_qos:
            findings.append(Finding(check=TEXT_CHECK, severity=Severity.INFO, subject=host, expected=None, actual=None,
                                    message=f"{host}: QoS not compared: the twin runs no QoS (static-only; the "
                                    f"switch's own {structured[host].get('platform')} text carries it)"))
        for path, want, have in differences(want_model, have_model):
            subject, where = _subject_and_line(host, path, parsed)
            findings.append(Finding(check=TEXT_CHECK, severity=Severity.ERROR, subject=subject, expected=want, actual=have,
                                    message=f"{host} {describe_path(path)}: {want!r} in the structured config, {have!r} in "
                                    f"the {platform} text{f' ({where})' if where else ''}: the files do not say "
                                    "what was compiled"))
    return findings


def _subject_and_line(host: str, path: str, parsed: ParsedDevice) -> tuple[str, str]:
    if path.startswith("interfaces["):
        name = path[len("interfaces["):path.index("]")]
        where = parsed.locate(f"interface {name} qos", f"interface {name}")
        return f"{host}:{name}", f"{where[0]}:{where[1]}" if where else ""
    where = parsed.locate(path.split(".")[0].split("[")[0], "device")
    return host, f"{where[0]}:{where[1]}" if where else ""
