"""PFC headroom per lossless port (compiler.qos_math formula) against the configured buffer profile."""

import dataclasses

from validator_fabrics import compiled, context, intent_for, interface, with_cable_length

from compiler.api import compile_fabric
from compiler.clos import ClosParams, plan_clos
from compiler.model import Snapshot
from compiler.qos_math import pfc_headroom
from validators import headroom
from validators.context import FabricContext


def test_correct_dynamic_profiles_pass():
    assert headroom.check_headroom(context(compiled())) == []


def long_run_fabric(policy: str, headroom_bytes: int = 0):
    inventory = plan_clos(ClosParams(name="longrun", spines=2, leaves=2, servers_per_leaf=1))
    inventory, cable = with_cable_length(inventory, "leaf1:", 100.0)
    intent = intent_for(inventory)
    roce = dataclasses.replace(intent.roce_classes[0], headroom_policy=policy, headroom_bytes=headroom_bytes)
    intent = dataclasses.replace(intent, roce_classes=(roce, *intent.roce_classes[1:]))
    return compile_fabric(Snapshot(inventory, intent)), cable


def test_100m_cable_at_400g_with_too_small_static_headroom_fails():
    result, cable = long_run_fabric("static", headroom_bytes=120_000)
    findings = headroom.check_headroom(FabricContext(result.structured, result.snapshot))
    need = pfc_headroom(400, 100.0, 9214)
    ends = {str(cable.a), str(cable.b)}
    flagged = {f.subject for f in findings}
    assert ends <= flagged, (ends, flagged)
    finding = next(f for f in findings if f.subject in ends)
    assert finding.expected["xoff_bytes"] >= need.xoff_bytes - 2 * 1024 and finding.actual["size_bytes"] == 120_000
    assert "100 m cable" in finding.message
    # the same 120 KB static profile is enough for the ~15 m in-row runs
    short = interface(result.structured, "leaf2", peer="spine1")
    assert f"leaf2:{short['name']}" not in flagged


def test_100m_cable_with_dynamic_headroom_passes():
    result, _cable = long_run_fabric("dynamic")
    assert headroom.check_headroom(FabricContext(result.structured, result.snapshot)) == []


def test_profile_computed_for_the_wrong_cable_length_is_caught():
    """The config says 3 m, the inventory says 100 m: the check trusts the inventory."""
    result, cable = long_run_fabric("dynamic")
    short = compiled(spines=2, leaves=2)
    structured = {host: dict(config) for host, config in result.structured.items()}
    end = cable.a if cable.a.device.startswith("leaf") else cable.b
    port = interface(structured, end.device, name=end.interface)
    short_port = interface(short.structured, "leaf2", peer="spine1")
    port["qos"] = dict(port["qos"], headroom=short_port["qos"]["headroom"])
    findings = headroom.check_headroom(FabricContext(structured, result.snapshot))
    assert [f.subject for f in findings] == [str(end)]


def test_missing_headroom_entry():
    def drop(structured):
        interface(structured, "leaf2", peer="spine2")["qos"]["headroom"] = {}

    findings = headroom.check_headroom(context(compiled(), drop))
    assert len(findings) == 1 and "no headroom reserved" in findings[0].message
