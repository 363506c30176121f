"""validate_fabric: every check in one report, subsets by name or prefix, skipped checks with reasons."""

import pytest
from validator_fabrics import compiled, context, interface

from compiler.errors import InputError
from validators.findings import CheckStatus
from validators.run import check_names, validate_fabric


def test_correct_fabric_passes_everything_that_runs():
    report = validate_fabric(compiled())
    failed = {name: result.findings for name, result in report.checks.items() if result.status == CheckStatus.FAILED}
    assert failed == {}
    assert report.checks["batfish"].status == CheckStatus.SKIPPED or report.checks["batfish"].status == "passed"
    assert set(report.checks) == set(check_names())
    assert any(name.startswith("physical.") for name in report.checks)  # the inventory checks are folded in
    assert set(report.timings) == set(report.checks)
    assert report.as_dict()["ok"] is True


def test_one_fault_fails_the_right_checks_only():
    def lower(structured):
        interface(structured, "spine2", peer="leaf1")["mtu"] = 9000

    report = validate_fabric(context(compiled(), lower))
    failed = sorted(name for name, result in report.checks.items() if result.status == CheckStatus.FAILED)
    assert failed == ["mtu.links", "mtu.overlay_budget"]
    assert "spine2" in report.as_text()


def test_subset_by_prefix_and_exact_name():
    report = validate_fabric(compiled(), checks=["bgp", "mtu.links"])
    assert list(report.checks) == ["bgp.sessions", "bgp.timers_bfd", "bgp.router_ids", "bgp.asns", "mtu.links"]


def test_unknown_check_is_a_field_error():
    with pytest.raises(InputError) as raised:
        validate_fabric(compiled(), checks=["bgp", "nonsense"])
    assert raised.value.errors[0].field == "checks" and raised.value.errors[0].value == "nonsense"


def test_structured_configs_alone_skip_the_inventory_checks():
    report = validate_fabric(dict(compiled().structured))
    physical = [result for name, result in report.checks.items() if name.startswith("physical.")]
    assert physical and all(result.status == CheckStatus.SKIPPED for result in physical)
    assert report.checks["routing.vtep_reachability"].status == CheckStatus.PASSED


def test_checks_with_nothing_to_compare_are_skipped_not_passed():
    from validator_fabrics import three_tier

    report = validate_fabric(three_tier())
    assert report.checks["routing.ecmp"].status == CheckStatus.SKIPPED
    assert "two-tier leaf-spine" in report.checks["routing.ecmp"].reason
    assert report.checks["routing.vtep_reachability"].status == CheckStatus.PASSED
    assert all(report.checks[name].status == CheckStatus.SKIPPED for name in report.checks
               if name.startswith("overlay."))
