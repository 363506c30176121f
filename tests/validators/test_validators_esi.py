"""overlay.esi: EVPN ethernet segments (all-active multihoming, RFC 7432) on Arista AVD's eBGP EVPN fabric
(tests/data/corpus/avd/evpn_underlay_ebgp_overlay_ebgp: three segments, each on two leaves), unchanged and with
one line of one PE changed; each broken case cites the faulted line."""

from __future__ import annotations

from pathlib import Path

import pytest

from validators.configs import validate_configs
from validators.findings import CheckStatus

FABRIC = Path(__file__).resolve().parents[1] / "data" / "corpus" / "avd" / "evpn_underlay_ebgp_overlay_ebgp"


def configs(**edits: tuple[str, str]) -> dict[str, dict[str, str]]:
    """The fabric's configs, with ``edits`` = {device: (old text, new text)} applied once each."""
    out = {}
    for path in sorted(FABRIC.glob("*.cfg")):
        text = path.read_text()
        if path.stem.replace("-", "_") in edits:
            old, new = edits[path.stem.replace("-", "_")]
            assert text.count(old) == 1, old
            text = text.replace(old, new)
        out[path.stem] = {path.name: text}
    return out


def esi(validation):
    return [(f.severity, f.subject, f.message, validation.where(f)) for f in validation.report.findings
            if f.check == "overlay.esi"]


def run(configs_):
    return validate_configs(configs_, checks=["overlay.esi"])


def test_avds_segments_agree_on_every_pe():
    validation = run(configs())
    assert esi(validation) == []
    result = validation.report.checks["overlay.esi"]
    assert result.examined == {"ethernet segments": 3, "PE attachments": 6}
    assert result.status != CheckStatus.FAILED


def test_a_different_es_import_route_target_is_an_error_citing_it():
    validation = run(configs(DC1_LEAF2B=("      route-target import 08:08:07:07:06:06",
                                         "      route-target import 08:08:07:07:06:99")))
    found = esi(validation)
    assert [(severity, subject) for severity, subject, _, _ in found] == [
        ("error", "DC1-LEAF2A:Port-Channel7"), ("error", "DC1-LEAF2B:Port-Channel7")]
    assert "import different ES-Import route targets (DC1-LEAF2A:Port-Channel7: import 08:08:07:07:06:06; " \
           "DC1-LEAF2B:Port-Channel7: import 08:08:07:07:06:99)" in found[1][2]
    assert found[1][3] == ["DC1-LEAF2B/DC1-LEAF2B.cfg:129"]  # the faulted route-target line


def test_a_different_lacp_system_id_is_an_error_citing_that_line():
    validation = run(configs(DC1_LEAF2B=("   lacp system-id 0606.0707.0808", "   lacp system-id 0606.0707.0809")))
    found = esi(validation)
    assert {(severity, subject) for severity, subject, _, _ in found} == {
        ("error", "DC1-LEAF2A:Port-Channel9"), ("error", "DC1-LEAF2B:Port-Channel9")}
    leaf2b = next(entry for entry in found if entry[1] == "DC1-LEAF2B:Port-Channel9")
    assert "present different LACP system IDs" in leaf2b[2] and leaf2b[3] == ["DC1-LEAF2B/DC1-LEAF2B.cfg:142"]


def test_a_pe_missing_the_lacp_system_id_is_an_error():
    found = esi(run(configs(DC1_LEAF2B=("   lacp system-id 0606.0707.0808\n", ""))))
    assert {(severity, subject) for severity, subject, _, _ in found} == {
        ("error", "DC1-LEAF2A:Port-Channel9"), ("error", "DC1-LEAF2B:Port-Channel9")}
    assert "DC1-LEAF2B:Port-Channel9: lacp system-id none" in found[0][2]


def test_a_pe_carrying_other_vlans_is_an_error():
    text = "   switchport trunk allowed vlan 110-111,120-124,130-131,160-162\n   switchport mode trunk\n" \
           "   switchport\n   !\n   evpn ethernet-segment\n      identifier 0000:1234:0808"
    found = esi(run(configs(DC1_LEAF2B=(text, text.replace("160-162", "160-161")))))
    assert {(severity, subject) for severity, subject, _, _ in found} == {
        ("error", "DC1-LEAF2A:Port-Channel7"), ("error", "DC1-LEAF2B:Port-Channel7")}
    assert "carry different VLANs" in found[0][2]


def test_an_esi_on_one_pe_only_is_a_warning():
    found = esi(run(configs(DC1_SVC3B=("      identifier 0000:1234:0303:0202:0101\n"
                                       "      route-target import 03:03:02:02:01:01\n"
                                       "   lacp system-id 0303.0202.0101\n", ""))))
    assert [(severity, subject) for severity, subject, _, _ in found] == [("warning", "DC1-SVC3A:Port-Channel10")]


def test_a_changed_esi_with_the_shared_lacp_system_id_is_an_error_citing_it():
    """One PE's ESI changed: two single-PE segments, one LACP system ID toward the host (it bundles both links)."""
    validation = run(configs(DC1_LEAF2B=("      identifier 0000:1234:0808:0707:0606",
                                         "      identifier 0000:1234:0808:0707:0607")))
    found = esi(validation)
    assert sorted((severity, subject) for severity, subject, _, _ in found) == [
        ("error", "DC1-LEAF2A:Port-Channel7"), ("error", "DC1-LEAF2B:Port-Channel7"),
        ("warning", "DC1-LEAF2A:Port-Channel7"), ("warning", "DC1-LEAF2B:Port-Channel7")]
    leaf2b = next(entry for entry in found if entry[0] == "error" and entry[1] == "DC1-LEAF2B:Port-Channel7")
    assert "LACP system ID 0808.0707.0606 is also presented with ESI 0000:1234:0808:0707:0606" in leaf2b[2]
    assert leaf2b[3] == ["DC1-LEAF2B/DC1-LEAF2B.cfg:128"]


def test_a_reserved_esi_is_an_error():
    found = esi(run(configs(DC1_SVC3A=("      identifier 0000:1234:0303:0202:0101",
                                       "      identifier 0000:0000:0000:0000:0000"))))
    assert ("error", "DC1-SVC3A:Port-Channel10") in {(severity, subject) for severity, subject, _, _ in found}
    assert any("ESI 0 (reserved for single-homed sites)" in message for _, _, message, _ in found)


def test_one_esi_on_two_bundles_of_one_pe_is_an_error():
    found = esi(run(configs(DC1_LEAF2B=("      identifier 0000:1234:0606:0707:0808",
                                        "      identifier 0000:1234:0808:0707:0606"))))
    assert ("error", "DC1-LEAF2B:Port-Channel9") in {(severity, subject) for severity, subject, _, _ in found}


@pytest.mark.parametrize("name", ["single-dc-l3ls"])
def test_no_segment_is_skipped_with_the_reason(name):
    directory = FABRIC.parent / name
    validation = run({path.stem: {path.name: path.read_text()} for path in sorted(directory.glob("*.cfg"))})
    result = validation.report.checks["overlay.esi"]
    assert result.status == CheckStatus.SKIPPED and "no EVPN ethernet segment" in str(result.reason)
