"""PFC headroom per lossless port: required (from link speed, the inventory's cable length, port MTU and the
peer's PFC response time) versus the buffer profile in the config.

The formula is :func:`compiler.qos_math.pfc_headroom` -- the same code the compiler uses, documented there with
its sources (IEEE 802.1Qbb delay model, IEEE 802.3 Annex 31B.3.7 response quanta, SONiC's dynamic headroom
calculation): ``xoff = 2*MTU + 1.25 B/(m*Gb/s) * length * speed + response_quanta * 64 B``, rounded up to
1024-byte cells. If the configured XOFF is smaller, frames already in flight when the port sends PAUSE overflow
the headroom and are dropped: a lossless class that loses packets. A static profile sized for 3 m cables fails
on a 100 m run at 400G.

The cable length comes from the inventory (the physical truth), not from the config, so a profile computed
for the wrong cable is caught. The sum of all reservations must also fit the switch buffer (warning).

A config states what its platform carries: FRR/Linux text states no port speed (taken from the inventory's port,
else the port is not judged) and only the `dcb buffer` size (judged on size alone); EOS on StrataDNX states no
headroom at all, the chip sizes it (compiler.hardware.configures_port_headroom), so nothing is expected there.
"""

from __future__ import annotations

from functools import lru_cache

from compiler.hardware import configures_port_headroom
from compiler.model import Endpoint
from compiler.qos_math import pfc_headroom
from compiler.structured.contract import Interface
from validators.common import asic_family_of, short_list
from validators.context import as_context
from validators.findings import Finding, Severity

CHECK = "roce.headroom"
QOS_KINDS = frozenset({"fabric", "server", "peer_link"})


@lru_cache(maxsize=4096)
def required_headroom(speed_gbps: int, cable_length_m: float, mtu: int):
    return pfc_headroom(speed_gbps, cable_length_m, mtu)


def _cable_lengths(ctx) -> dict[str, float]:
    """Cable label -> length from the inventory (the physical truth)."""
    if ctx.inventory is None:
        return {}
    return {cable.label: cable.length_m for cable in ctx.inventory.cables}


def _cable_length(ctx, lengths: dict[str, float], host: str, interface: Interface) -> float | None:
    length = lengths.get(interface.get("cable") or "")
    if length is None and ctx.inventory is not None:
        cable = ctx.inventory.cable_at.get(Endpoint(host, interface["name"]))
        length = cable.length_m if cable is not None else None
    return length if length is not None else interface.get("cable_length_m")


def _speed(ctx, host: str, interface: Interface) -> int | None:
    """The port's speed: the config's, else the inventory's port (FRR/Linux text states none)."""
    if interface.get("speed_gbps"):
        return interface["speed_gbps"]
    switch = ctx.inventory.switches_by_name.get(host) if ctx.inventory is not None else None
    port = switch.interfaces_by_name.get(interface["name"]) if switch is not None else None
    return port.speed_gbps if port is not None else None


def check_headroom(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    buffers = {}
    if ctx.inventory is not None:
        models = ctx.inventory.models_by_name
        buffers = {s.hostname: models[s.model].buffer_mb * 1_000_000 for s in ctx.inventory.switches
                   if s.model in models and models[s.model].buffer_mb}
    lengths = _cable_lengths(ctx)
    sufficient: dict[tuple, int] = {}
    judged = 0
    unjudged: list[str] = []  # lossless ports whose config states no MTU or speed: the formula needs both
    at_runtime: list[str] = []  # SONiC lossless groups the buffer manager sizes when the port comes up
    for host, config in ctx.structured.items():
        lossless = (config.get("qos") or {}).get("lossless_priorities") or []
        if not lossless or not configures_port_headroom(config.get("platform"), asic_family_of(ctx, host, config)):
            continue  # no lossless class, or the chip sizes the headroom (no config states it)
        reserved = 0
        for interface in config["interfaces"]:
            qos = interface.get("qos") or {}
            if interface["kind"] not in QOS_KINDS or not interface["enabled"] or not qos:
                continue
            length = _cable_length(ctx, lengths, host, interface)
            speed = _speed(ctx, host, interface)
            if length is None:
                continue
            if speed is None or not interface.get("mtu"):
                unjudged.append(f"{host}:{interface['name']}")  # nothing to size the requirement from
                continue
            judged += 1
            need = required_headroom(speed, float(length), interface["mtu"])
            headroom = qos.get("headroom") or {}
            memo_key = (id(headroom), need)
            if memo_key in sufficient:  # ports sharing one profile dict and one requirement: judged once
                reserved += sufficient[memo_key]
                continue
            problems_before = len(findings)
            reserved_before = reserved
            for priority in lossless:
                profile = headroom.get(str(priority))
                subject = f"{host}:{interface['name']}"
                if not profile and priority in (qos.get("headroom_at_runtime") or ()):
                    at_runtime.append(f"{subject} priority {priority}")
                    continue
                if not profile:
                    findings.append(Finding(
                        check=CHECK, severity=Severity.ERROR, subject=subject, expected=need.size_bytes, actual=None,
                        message=f"no headroom reserved for lossless priority {priority} on {subject}"))
                    continue
                reserved += profile.get("size_bytes") or profile.get("xoff_bytes") or 0
                xoff, size = profile.get("xoff_bytes"), profile.get("size_bytes")
                # size_bytes None: the platform configures the XOFF reservation only and sizes XON itself (EOS
                # `ingress headroom bytes`, read back by compiler.parse.eos); then only XOFF can be judged.
                # xoff_bytes None: the platform states the buffer size only (Linux `dcb buffer buffer-size`,
                # compiler.parse.frr); then only the size can be judged.
                need_xoff = need.xoff_bytes if xoff is not None else 0
                if size is None:
                    size, need_size = xoff or 0, need.xoff_bytes
                else:
                    need_size = need.size_bytes
                xoff = xoff or 0
                if xoff < need_xoff or size < need_size:
                    findings.append(Finding(
                        check=CHECK, severity=Severity.ERROR, subject=subject,
                        expected={"xoff_bytes": need.xoff_bytes, "size_bytes": need.size_bytes},
                        actual={"xoff_bytes": xoff, "size_bytes": size},
                        message=f"priority {priority} headroom on {subject} ({interface['speed_gbps']}G, {length:g} m cable, "
                        f"MTU {interface['mtu']}) is {size} bytes (xoff {xoff}, {profile.get('policy')}); it needs "
                        f"{need.size_bytes} (xoff {need.xoff_bytes}): in-flight frames overflow after PAUSE"))
            if len(findings) == problems_before:
                sufficient[memo_key] = reserved - reserved_before
        buffer = buffers.get(host)
        if buffer and reserved > buffer:
            findings.append(Finding(
                check=CHECK, severity=Severity.WARNING, subject=host, expected=int(buffer), actual=reserved,
                message=f"{host} reserves {reserved} bytes of PFC headroom, more than its {int(buffer)} "
                "byte buffer: nothing is left for shared and lossy traffic"))
    ctx.record_examined(CHECK, {"lossless ports": judged})
    if at_runtime:
        findings.append(Finding(
            check=CHECK, severity=Severity.INFO, subject=f"{len(at_runtime)} lossless priorities",
            expected="a BUFFER_PG row", actual=None,
            message=f"headroom of {len(at_runtime)} lossless port priority(ies) not judged: no BUFFER_PG row, so "
            f"SONiC's buffer manager sizes it at runtime from the port speed and cable length "
            f"({short_list(at_runtime)})"))
    if unjudged:
        findings.append(Finding(
            check=CHECK, severity=Severity.INFO, subject=f"{len(unjudged)} lossless ports", expected="an MTU and a speed",
            actual=None, message=f"headroom of {len(unjudged)} lossless port(s) not judged: the config states no "
            f"MTU or speed for {short_list(unjudged)}"))
    return findings


CHECKS = {CHECK: check_headroom}
