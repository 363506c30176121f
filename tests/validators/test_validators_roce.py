"""RoCE: the DSCP->TC->PG->queue->priority chain on every hop, PFC on both ends, ECN, CNP, watchdog, trust."""

import pytest
from validator_fabrics import compiled, context, interface

from validators import roce
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
    assert any(f.subject == f"leaf6:{leaf_port}" and "must be below max" in f.message for f in findings)
    assert any(f.subject == f"spine2:{spine_port}" and "every other spine port" in f.message for f in findings)


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
