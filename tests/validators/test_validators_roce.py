"""RoCE: the DSCP->TC->PG->queue->priority chain on every hop, PFC on both ends, ECN, CNP, watchdog, trust."""

import dataclasses

import pytest
from validator_fabrics import BULK, ROCE, compile_snapshot, compiled, context, intent_for, interface

from compiler.api import build_facts, structured_configs
from compiler.clos import ClosParams, plan_clos
from compiler.errors import IntentValidationError
from compiler.model import RoceClass, Snapshot
from validators import roce
from validators.context import FabricContext
from validators.run import validate_fabric


def test_correct_fabric_passes_every_roce_check():
    ctx = context(compiled())
    for name, check in roce.CHECKS.items():
        assert check(ctx) == [], name


def test_dscp_remapped_on_one_spine_names_the_hop():
    def remap(structured):
        structured["spine2"]["qos"]["dscp_to_tc"]["26"] = 0

    findings = roce.check_chain(context(compiled(), remap))
    assert [f.subject for f in findings] == ["spine2"]
    assert "hop 3 (spine)" in findings[0].message and "TC 0 instead of 3" in findings[0].message
    assert findings[0].expected == "DSCP 26 -> TC 3 -> PG 3 -> queue 3 -> priority 3"


def test_queue_differs_on_one_leaf():
    def queue(structured):
        structured["leaf4"]["qos"]["tc_to_queue"]["3"] = 4

    findings = roce.check_chain(context(compiled(), queue))
    assert [f.subject for f in findings] == ["leaf4"] and "hop 2/4" in findings[0].message


def test_lossless_class_sharing_a_priority_group_with_lossy_traffic():
    def share(structured):
        structured["leaf1"]["qos"]["tc_to_priority_group"]["3"] = 0

    findings = roce.check_chain(context(compiled(), share))
    assert any(f.subject == "leaf1" and "shares priority group 0" in f.message for f in findings)


def test_pfc_off_on_one_fabric_port_names_the_port_and_the_link():
    def off(structured):
        interface(structured, "spine3", peer="leaf2")["qos"]["pfc_priorities"] = []

    ctx = context(compiled(), off)
    port = interface(ctx.structured, "spine3", peer="leaf2")
    findings = roce.check_pfc(ctx)
    subjects = {f.subject for f in findings}
    assert f"spine3:{port['name']}" in subjects
    assert f"spine3:{port['name']}<->leaf2:{port['peer_interface']}" in subjects
    assert all(f.severity == "error" for f in findings)


def test_pfc_on_a_lossy_priority():
    def lossy(structured):
        interface(structured, "leaf5", kind="server")["qos"]["pfc_priorities"] = [1, 3]

    findings = roce.check_pfc(context(compiled(), lossy))
    assert len(findings) == 1 and "lossy priority [1]" in findings[0].message


def test_ecn_min_above_max_and_tier_mismatch():
    def ecn(structured):
        port = interface(structured, "leaf6", peer="spine1")
        port["qos"]["ecn"]["3"] = {"min_bytes": 2_000_000, "max_bytes": 1_000_000, "probability": 10}
        other = interface(structured, "spine2", peer="leaf1")
        other["qos"]["ecn"]["3"] = dict(other["qos"]["ecn"]["3"], max_bytes=3_000_000)

    ctx = context(compiled(), ecn)
    findings = roce.check_ecn(ctx)
    leaf_port = interface(ctx.structured, "leaf6", peer="spine1")["name"]
    spine_port = interface(ctx.structured, "spine2", peer="leaf1")["name"]
    assert any(f.subject == f"leaf6:{leaf_port}" and "not above max 1000000" in f.message for f in findings)
    assert any(f.subject == f"spine2:{spine_port}" and "every other spine port" in f.message for f in findings)


def test_ecn_min_equal_to_max_is_step_marking_and_accepted():
    """min == max (step marking) is what intent validation, SONiC's WRED YANG and Linux `tc red` accept
    (issue #27): no finding, on every port alike; min above max on one port is still an error."""
    def step(structured):
        for config in structured.values():
            for port in config["interfaces"]:
                if (port.get("qos") or {}).get("ecn", {}).get("3"):
                    port["qos"]["ecn"]["3"] = {"min_bytes": 1_536_000, "max_bytes": 1_536_000, "probability": 100}

    assert roce.check_ecn(context(compiled(), step)) == []

    def one_inverted(structured):
        step(structured)
        interface(structured, "leaf2", kind="server")["qos"]["ecn"]["3"]["min_bytes"] = 1_536_001

    findings = roce.check_ecn(context(compiled(), one_inverted))
    assert [f.severity for f in findings if "not above max" in f.message] == ["error"]


def test_ecn_missing_on_a_port():
    def missing(structured):
        interface(structured, "leaf2", kind="server")["qos"]["ecn"] = {}

    findings = roce.check_ecn(context(compiled(), missing))
    assert len(findings) == 1 and "no ECN marking on queue 3" in findings[0].message


def test_cnp_in_best_effort():
    def cnp(structured):
        structured["spine1"]["qos"]["dscp_to_tc"]["48"] = 0

    findings = roce.check_cnp(context(compiled(), cnp))
    assert [f.subject for f in findings] == ["spine1"] and "best-effort" in findings[0].message


def test_watchdog_off():
    def off(structured):
        structured["leaf3"]["qos"]["pfc_watchdog"]["enabled"] = False
        interface(structured, "leaf3", peer="spine4")["qos"]["pfc_watchdog"] = False

    findings = roce.check_watchdog(context(compiled(), off))
    assert {f.subject.split(":")[0] for f in findings} == {"leaf3"} and len(findings) == 2


def test_trust_cos_on_a_port():
    def cos(structured):
        interface(structured, "leaf1", kind="server")["qos"]["trust"] = "cos"

    findings = roce.check_trust(context(compiled(), cos))
    assert len(findings) == 1 and findings[0].actual == "cos" and findings[0].subject.startswith("leaf1:")


def test_roce_checks_are_skipped_without_roce_classes():
    report = validate_fabric(compiled(roce=False), checks=["roce"])
    assert {result.status for result in report.checks.values()} == {"skipped"}
    assert all(result.reason == "no RoCE classes in the intent" for result in report.checks.values())


@pytest.mark.parametrize("check", sorted(roce.CHECKS))
def test_every_roce_check_runs_on_structured_configs_alone(check):
    """Without a snapshot the classes come from the devices themselves; a correct fabric still passes."""
    from validators.context import FabricContext

    result = compiled()
    assert roce.CHECKS[check](FabricContext(dict(result.structured))) == []


def _structured_without_intent_checks(snapshot):
    """Structured configs of an intent validate_intent refuses: what the static validator sees if a device's
    configuration was built elsewhere (or before the intent check existed)."""
    return structured_configs(snapshot, build_facts(snapshot))


def test_lossy_class_on_the_roce_priority_is_an_isolation_error():
    """Issue 13's example: storage DSCP 10, priority 3, TC 5 beside RoCE (lossless) on priority 3."""
    base = compiled()
    storage = RoceClass(name="storage", dscp=(10,), priority=3, traffic_class=5, lossless=False)
    intent = dataclasses.replace(base.snapshot.intent, roce_classes=(ROCE, storage))
    snapshot = Snapshot(base.snapshot.inventory, intent)
    with pytest.raises(IntentValidationError, match=r"roce_classes\[storage\]\.priority"):
        compile_snapshot(snapshot)
    findings = roce.check_isolation(FabricContext(_structured_without_intent_checks(snapshot), snapshot))
    assert findings and {f.subject for f in findings} == set(base.structured)
    assert all(f.actual == 3 and "lossy TC 5 (class storage)" in f.message and "priority 3" in f.message
               for f in findings)


def test_lossy_class_in_the_roce_queue_is_an_isolation_error():
    def share_queue(structured):
        for config in structured.values():
            config["qos"]["tc_to_queue"]["1"] = 3  # bulk (lossy TC 1) into the RoCE queue

    findings = roce.check_isolation(context(compiled(), share_queue))
    assert findings and all("egress queue 3 of lossless TC 3" in f.message for f in findings)
    assert len(findings) == len(compiled().structured)


def _frr_fabric(model: str, **roce_changes):
    inventory = plan_clos(ClosParams(name="frr", spines=2, leaves=2, servers_per_leaf=1, platform="frr",
                                     leaf_model=model, spine_model=model))
    intent = intent_for(inventory, roce_classes=(dataclasses.replace(ROCE, **roce_changes), BULK))
    return compile_snapshot(Snapshot(inventory, intent))


def test_frr_on_broadcom_implements_no_roce_property():
    findings = roce.check_platform(_frr_fabric("Z9664F-ON"))
    by_host: dict[str, set] = {}
    for finding in findings:
        by_host.setdefault(finding.subject, set()).add(finding.expected)
    assert by_host == {host: {"pfc_priority", "ecn_thresholds", "dscp_trust", "cnp_strict_priority", "pfc_watchdog",
                              "headroom"} for host in ("leaf1", "leaf2", "spine1", "spine2")}
    assert "frr on strata" in {f.actual for f in findings}


def test_frr_on_spectrum_lacks_only_the_pfc_watchdog():
    findings = roce.check_platform(_frr_fabric("SN5600"))
    assert {f.expected for f in findings} == {"pfc_watchdog"} and len(findings) == 4
    assert "class(es) ['roce']" in findings[0].message
    assert roce.check_platform(_frr_fabric("SN5600", pfc_watchdog=False)) == []


def test_platform_check_passes_on_eos_and_sonic():
    assert roce.check_platform(compiled()) == []  # EOS on Tomahawk 4
    sonic = _frr_fabric("SN5600")
    sonic_ctx = context(sonic, lambda structured: [config.update(platform="sonic") for config in structured.values()])
    assert roce.check_platform(sonic_ctx) == []


def test_frr_capability_gaps_are_warnings_naming_what_linux_lacks():
    """An FRR/Linux fabric the project builds (roce_lossless) is not an error fabric: each gap is a warning that
    says why the platform lacks it; the watchdog check leaves those devices to roce.platform (issue #27)."""
    findings = roce.check_platform(_frr_fabric("SN5600"))
    assert {f.severity for f in findings} == {"warning"}
    assert all("Linux has no PFC watchdog interface" in f.message for f in findings)
    broadcom = roce.check_platform(_frr_fabric("Z9664F-ON"))
    assert {f.severity for f in broadcom} == {"warning"}
    assert any("no upstream switchdev driver for ASIC family strata" in f.message for f in broadcom)
    assert roce.check_watchdog(_frr_fabric("SN5600")) == []


def test_a_gap_on_eos_or_sonic_is_still_an_error():
    def spectrum(structured):
        structured["leaf1"]["hardware"] = dict(structured["leaf1"]["hardware"], asic_family="spectrum")

    findings = roce.check_platform(context(compiled(), spectrum))
    assert findings and {(f.subject, f.severity) for f in findings} == {("leaf1", "error")}
    assert "eos does not implement it on ASIC family spectrum" in findings[0].message
    # and the watchdog check still judges a device whose platform has one
    def off(structured):
        structured["leaf3"]["qos"]["pfc_watchdog"]["enabled"] = False

    assert [f.subject for f in roce.check_watchdog(context(compiled(), off))] == ["leaf3"]


def test_a_lossless_class_without_ecn_is_an_error():
    """Issue #30 point 8: a lossless class with ECN off passed although this check says it is flagged: DCQCN then
    has no congestion signal and PFC is the only brake. A lossy class without ECN (BULK) is fine."""
    inventory = plan_clos(ClosParams(name="noecn", spines=2, leaves=2, servers_per_leaf=1))
    no_ecn = dataclasses.replace(ROCE, ecn_min_kb=0, ecn_max_kb=0, ecn_mark_probability=0)
    from validator_fabrics import intent_for as base_intent

    intent = dataclasses.replace(base_intent(inventory), roce_classes=(no_ecn, BULK))
    findings = roce.check_ecn(context(compile_snapshot(Snapshot(inventory, intent))))
    assert [(f.severity, f.subject) for f in findings] == [("error", "class roce")]
    assert "marks no ECN" in findings[0].message
    assert roce.check_ecn(context(compiled(spines=2, leaves=2))) == []  # the same fabric with ECN: nothing
