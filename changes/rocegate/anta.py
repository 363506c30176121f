"""The RoCE gate's post-push checks as an ANTA catalogue (issue 34, item 5), so Arista users run them with the tool
they already have.

ANTA (aristanetworks/anta, Apache-2.0) has three tests on the counters the gate reads, all in
``anta.tests.interfaces`` (names and inputs as defined in ``anta/tests/interfaces.py`` at commit 68667e0ed, 2026-08;
a test catalogue is ``{module: [{TestName: inputs}]}``, docs/usage-inventory-catalog.md):

* ``VerifyInterfacesEgressQueueDrops`` (``show interfaces counters queue detail``): drops per traffic class above
  ``packet_drop_threshold`` fail. Ours: the lossless traffic classes, unicast queues, threshold 0: the gate's hard
  rule that any drop on a lossless queue fails.
* ``VerifyInterfacesPFCCounters`` (``show priority-flow-control counters``): PFC frames sent or received above
  ``counters_threshold`` fail. Ours: on the ports with PFC, the gate's quiet-port limit over its post-push window
  (``quiet_pfc_per_s`` x ``post_s``, rounded up); on Ethernet ports the intent gives no PFC, 0.
* ``VerifyInterfacesECNCounters`` (``show qos interfaces ecn counters queue``): ECN-marked packets above
  ``counters_threshold`` on any queue with ECN configured fail. Ours: threshold 0 on the Ethernet ports the intent
  gives no ECN (the gate's hard rule: marks where the intent has no ECN). It cannot express "marks on a queue
  other than the RoCE queue" (no queue input) nor the gate's relative rules, so ports with ECN get no ECN test.

What ANTA cannot do (said in the catalogue's header): its thresholds are absolute counts since the counters were
last cleared, on one device, with no pre-push window and no control peers; the three tests are skipped on cEOSLab
and vEOS-lab. So the catalogue is meant to be run right after the push, on counters cleared at the push.

Each test is pinned to its device with ``filters: {tags: [hostname]}`` (ANTA adds every device's name to its tags,
docs/cli/tag-management.md) and says where it comes from in ``result_overwrite.custom_field``. Pure; no Django.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import yaml

from .settings import GateSettings

MODULE = "anta.tests.interfaces"
# anta.custom_types.REGEXP_ETHERNET_INTERFACE: the only interfaces these tests accept besides Management ones.
ETHERNET = re.compile(r"^Ethernet\d+(?:/\d+){0,2}(?:\.\d+)?$")


@dataclass(frozen=True)
class AntaDevice:
    """A device the catalogue covers: its hostname and its structured config (compiler.structured)."""

    hostname: str
    structured: Mapping


def _ethernet_ports(structured: Mapping) -> list[Mapping]:
    """The Ethernet ports the intent uses (an ``unused`` port carries nothing the gate judges)."""
    return [interface for interface in structured.get("interfaces") or ()
            if ETHERNET.match(interface.get("name", "")) and interface.get("kind") != "unused"]


def _lossless_traffic_classes(qos: Mapping, lossless_queues: tuple[int, ...] | None) -> list[str]:
    """EOS names (TC<n>) of the lossless traffic classes: those mapped to a lossless priority
    (compiler.structured.roce_qos), or, when the gate's policy names its lossless queues, those mapped to them."""
    if lossless_queues is not None:
        return sorted(f"TC{tc}" for tc, queue in (qos.get("tc_to_queue") or {}).items()
                      if int(queue) in lossless_queues)
    lossless = set(qos.get("lossless_priorities") or ())
    return sorted(f"TC{tc}" for tc, priority in (qos.get("tc_to_priority") or {}).items() if priority in lossless)


def device_tests(device: AntaDevice, settings: GateSettings, origin: str) -> list[dict]:
    """The ANTA tests of one device (empty when its structured config has no RoCE QoS: nothing to gate)."""
    qos = device.structured.get("qos") or {}
    classes = _lossless_traffic_classes(qos, settings.lossless_queues)
    if not classes:
        return []
    ports = _ethernet_ports(device.structured)
    pfc = [port["name"] for port in ports if ((port.get("qos") or {}).get("pfc_priorities"))]
    no_pfc = [port["name"] for port in ports if port["name"] not in pfc]
    no_ecn = [port["name"] for port in ports if not (port.get("qos") or {}).get("ecn")]
    quiet_limit = math.ceil(settings.gate.quiet_pfc_per_s * settings.post_s)

    def test(name: str, rule: str, **inputs) -> dict:
        return {name: {**inputs, "filters": {"tags": [device.hostname]},
                       "result_overwrite": {"custom_field": f"{origin}: {rule}"}}}

    tests = []
    if pfc:
        tests.append(test("VerifyInterfacesEgressQueueDrops", "hard gate lossless_drops (any drop fails)",
                          interfaces=pfc, traffic_classes=classes, queue_types=["unicast"],
                          packet_drop_threshold=0))
        tests.append(test("VerifyInterfacesPFCCounters",
                          f"quiet_pfc_per_s {settings.gate.quiet_pfc_per_s:g} x post_s {settings.post_s:g}",
                          interfaces=pfc, counters_threshold=quiet_limit))
    if no_pfc:
        tests.append(test("VerifyInterfacesPFCCounters", "no PFC in the intent: no PFC frames",
                          interfaces=no_pfc, counters_threshold=0))
    if no_ecn:
        tests.append(test("VerifyInterfacesECNCounters", "hard gate ecn_on_queue_without_ecn",
                          interfaces=no_ecn, counters_threshold=0))
    return tests


def anta_catalog(devices: Iterable[AntaDevice], settings: GateSettings, *, origin: str) -> dict:
    """The ANTA catalogue of ``devices`` (their order kept): ``{"anta.tests.interfaces": [{TestName: inputs}]}``.
    ``origin`` names the rollout the thresholds come from."""
    tests = [item for device in devices for item in device_tests(device, settings, origin)]
    return {MODULE: tests} if tests else {}


def catalog_yaml(catalog: Mapping, *, header: str) -> str:
    """The catalogue as the YAML file ``anta nrfu --catalog`` reads, after a comment ``header``."""
    comment = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines())
    body = yaml.safe_dump(dict(catalog), sort_keys=False, default_flow_style=False) if catalog else "{}\n"
    return comment + "---\n" + body
