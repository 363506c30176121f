"""The twin as a product feature, for real (root + FRR + ip netns; otherwise skipped with the reason printed).

1. A healthy 2x4 fabric with two tenants: boot through the service, every live check, `up` twice is safe, one
   failure injection, fidelity with zero disagreements, clean teardown (no namespace, FRR directory or process).
2. A deliberately broken compile (one spine port at MTU 9000 instead of 9214, VNI of a-train missing on leaf3):
   caught by the static validators AND the twin, and fidelity reports agreement on both faults.
"""

from __future__ import annotations

import copy
import json
import re

import pytest
from django.core.management import call_command

from compiler.errors import TwinError
from compiler.render.frr import linux_ifname
from intents.services import compile_run_create
from twins import services
from twins.models import Twin
from validators.findings import CheckStatus
from validators.run import validate_fabric

pytestmark = [pytest.mark.twin, pytest.mark.django_db]

LIVE_CHECKS = ("twin.frr_config_load", "twin.bgp_sessions", "twin.bfd_sessions", "twin.evpn_flood_lists",
               "twin.ecmp_width", "twin.ping_bridged", "twin.ping_routed", "twin.host_mtu", "twin.link_mtu")


def statuses(report: dict) -> dict[str, str]:
    return {check["name"]: check["status"] for check in report["checks"]}


@pytest.mark.usefixtures("twin_required")
def test_healthy_fabric_boots_checks_injects_agrees_and_tears_down(twin_intent, twin_place, twin_leftovers, capsys):
    twin = services.twin_up(fabric_intent=twin_intent, **twin_place)
    try:
        twin.refresh_from_db()
        checks = statuses(twin.last_report)
        print(f"\nboot {twin.boot_s}s, converged {twin.converge_s}s, RSS {twin.rss_mb} MiB, checks {checks}")
        assert twin.status == "up", json.dumps(twin.last_report, indent=1)[:4000]
        for name in LIVE_CHECKS:
            assert checks[name] == CheckStatus.PASSED, name
        assert checks["twin.pfc_ecn"] == CheckStatus.SKIPPED  # never reported as passed
        assert (twin.switches, twin.hosts) == (6, 8)
        assert twin.compile_run is not None and twin.compile_run.status == "succeeded"
        assert twin.converge_s is not None and twin.converge_s < 30
        assert twin.rss_mb and 10 < twin.rss_mb / twin.switches < 60
        assert any(item.startswith("twin.pfc_ecn") for item in twin.limitations)
        tenant_vrfs = twin.last_measured.get("vrf_backend") in ("kernel", "netns")
        if tenant_vrfs:  # the default: kernel VRF devices, or FRR's netns VRF backend on this kernel
            for name in ("twin.l3vni_vrfs", "twin.tenant_isolation"):
                assert checks[name] == CheckStatus.PASSED, name
        else:  # FT_TWIN_VRF_BACKEND=none: never passed, always "static only"
            assert any("twin.tenant_isolation" in item and "static only" in item for item in twin.limitations)

        again = services.twin_up(fabric_intent=twin_intent, **twin_place)  # running up twice is safe
        assert again.pk == twin.pk and again.started == twin.started and Twin.objects.count() == 1
        other = compile_run_create(fabric_intent=twin_intent)  # another compile, one line different
        row = other.device_configs.get(hostname="leaf2", platform="sonic")  # its frr.conf runs as is
        row.files = {**row.files, "frr.conf": row.files["frr.conf"] + "! changed\n"}
        row.save()
        with pytest.raises(TwinError, match="is a different fabric: run `twin down` first"):
            services.twin_up(fabric_intent=twin_intent, compile_run=other, **twin_place)
        assert Twin.objects.get(pk=twin.pk).status == "up"  # the running twin is left alone

        injection = services.twin_inject(twin=twin, kind="link")
        measured = injection["measured"]
        print(f"link failure: {measured}")
        assert injection["report"]["ok"], injection["report"]
        assert measured["local_converged_s"] is not None and measured["remote_converged_s"] is not None
        assert measured["restored_local_s"] is not None

        fidelity = services.twin_fidelity(twin=twin)
        print(json.dumps({k: v for k, v in fidelity.items() if k != "report"}, indent=1))
        assert fidelity["disagreements"] == 0, json.dumps(fidelity["report"], indent=1)[:6000]
        compared = fidelity["compared"]
        assert compared["bgp_sessions"]["agree"] == 12  # 6 switches x (ipv4 unicast, l2vpn evpn)
        assert compared["ecmp"]["agree"] == 12  # 4 x 3 ordered VTEP pairs
        assert compared["evpn_flood"]["agree"] == 12  # 4 leaves x 3 L2VNIs
        assert compared["link_mtu"]["agree"] == 8 and compared["host_mtu"]["agree"] > 0
        assert compared["n_minus_1"]["agree"] == 4  # one spine + one link scenario, 2 metrics each
        if tenant_vrfs:  # every cell of the host matrix is measured, cross-tenant ones included
            assert compared["reachability"]["agree"] == 9 and compared["reachability"]["static_only"] == 0
        else:
            assert compared["reachability"]["agree"] >= 5
            assert compared["reachability"]["static_only"] >= 4  # cross-tenant cells: not measured, not agreement
        assert fidelity["agreed_failures"] == 0

        call_command("twin", "status", "--fabric", twin_intent.name)
        out = capsys.readouterr().out  # one status word, its reason and the compile the switches run
        assert f": up (every live check passed); runs compile #{twin.compile_run_id}; 6 switches" in out, out
        assert f"; FRR {twin.last_measured['frr']['version']}" in out, out  # which FRR ran, read from the binary
        # each switch ran its own config: EOS parsed, SONiC's frr.conf as is; the static-only rest is said
        assert "leaf2 (sonic): frr.conf as is + Linux plan from config_db.json; live: frr.conf: run as is" in out
        assert "leaf1 (eos): startup-config parsed" in out
        configs = twin.last_measured["device_configs"]
        assert {host: config["platform"] for host, config in configs.items()} == {
            "spine1": "eos", "spine2": "eos", "leaf1": "eos", "leaf2": "sonic", "leaf3": "eos", "leaf4": "sonic"}
        assert checks["twin.static_only_config"] == CheckStatus.SKIPPED  # never reported as passed
        call_command("twin", "status", "--fabric", twin_intent.name, "--format", "json")
        status = json.loads(capsys.readouterr().out)
        assert (status["status"], status["healthy"], status["processes_alive"]) == ("up", True, True)
    finally:
        summary = services.twin_down(twin=Twin.objects.get(pk=twin.pk))
        print(f"down: {summary}")
    assert Twin.objects.get(pk=twin.pk).status == "down"
    assert twin_leftovers(twin.prefix) == {"namespaces": [], "frr_dirs": [], "processes": []}
    assert services.twin_down(twin=Twin.objects.get(pk=twin.pk)) == {"prefix": twin.prefix, "already_down": True}


def _eos_port_mtu(text: str, port: str, mtu: int) -> str:
    """The EOS startup-config with ``mtu`` on ``port`` (the twin runs each EOS switch's own text)."""
    broken, count = re.subn(rf"(\ninterface {re.escape(port)}\n(?:   .*\n)*?)   mtu \d+\n", rf"\g<1>   mtu {mtu}\n",
                            text, count=1)
    assert count == 1, port
    return broken


def _break_compile(run):
    """Mutate the stored compile: spine1's port toward leaf1 at MTU 9000 (structured config, its EOS text and the
    FRR Linux plan), and leaf3's VXLAN without the VNI of a-train (VLAN 10; structured config and its EOS text).
    The twin runs spine1's and leaf3's own EOS texts (labs.node_configs); the validators read the structured."""
    rows = {(row.hostname, row.platform): row for row in run.device_configs.all()}
    for platform in ("eos", "frr"):
        row = rows[("spine1", platform)]
        structured = copy.deepcopy(row.structured)
        port = next(i for i in structured["interfaces"] if i["peer_device"] == "leaf1")
        port["mtu"] = 9000
        row.structured = structured
        if platform == "frr":
            plan = json.loads(row.files["linux-plan.json"])
            next(link for link in plan["links"] if link["name"] == linux_ifname(port["name"]))["mtu"] = 9000
            row.files = {**row.files, "linux-plan.json": json.dumps(plan, indent=1)}
        else:
            row.files = {**row.files, "startup-config": _eos_port_mtu(row.files["startup-config"], port["name"], 9000)}
        row.save()
        bad_port = f"spine1:{linux_ifname(port['name'])}"
    for (hostname, platform), row in rows.items():
        if hostname != "leaf3":
            continue
        structured = copy.deepcopy(row.structured)
        vni = structured["vxlan"]["vlan_vnis"].pop("10")
        row.structured = structured
        if platform == "frr":
            plan = json.loads(row.files["linux-plan.json"])
            next(bridge for bridge in plan["bridges"] if bridge["vlan"] == 10).pop("vxlan")
            row.files = {**row.files, "linux-plan.json": json.dumps(plan, indent=1)}
        elif platform == "eos":
            line = f"   vxlan vlan 10 vni {vni}\n"
            assert line in row.files["startup-config"]
            row.files = {**row.files, "startup-config": row.files["startup-config"].replace(line, "")}
        row.save()
    return bad_port


@pytest.mark.usefixtures("twin_required")
def test_misconfiguration_is_caught_by_validators_and_twin_and_they_agree(twin_intent, twin_place, twin_leftovers):
    run = compile_run_create(fabric_intent=twin_intent)
    bad_port = _break_compile(run)

    static = validate_fabric(services.compile_result_for_run(run=run))
    static_failed = {name for name, check in static.checks.items() if check.status == CheckStatus.FAILED}
    assert {"mtu.links", "mtu.overlay_budget", "overlay.vlan_vni", "overlay.host_reachability"} <= static_failed

    twin = services.twin_up(fabric_intent=twin_intent, compile_run=run, **twin_place)
    try:
        twin.refresh_from_db()
        assert twin.status == "degraded"
        checks = statuses(twin.last_report)
        for name in ("twin.link_mtu", "twin.ping_bridged", "twin.host_mtu"):
            assert checks[name] == CheckStatus.FAILED, name
        subjects = {finding["subject"] for check in twin.last_report["checks"] if check["name"] == "twin.link_mtu"
                    for finding in check["findings"]}
        assert any(bad_port in subject for subject in subjects), subjects
        assert checks["twin.bgp_sessions"] == CheckStatus.PASSED  # MTU does not stop BGP: both sides agree

        fidelity = services.twin_fidelity(twin=twin, n_minus_1="none")
        print(json.dumps({k: v for k, v in fidelity.items() if k != "report"}, indent=1))
        assert fidelity["disagreements"] == 0, json.dumps(fidelity["report"], indent=1)[:6000]
        compared = fidelity["compared"]
        assert compared["link_mtu"]["agreed_failures"] == 1  # the 9000-byte link, seen by both
        assert compared["reachability"]["agreed_failures"] >= 1  # a-train split at leaf3, seen by both
        assert compared["host_mtu"]["agreed_failures"] >= 1
        assert compared["evpn_flood"]["agreed_failures"] == 3  # leaves 1, 2, 4 do not flood VNI 10010 to leaf3
        agreed = [finding for check in fidelity["report"]["checks"] for finding in check["findings"]
                  if "agree on a fault" in finding["message"]]
        assert any(bad_port in finding["subject"] and finding["actual"] == 9000 for finding in agreed), agreed
        assert any(finding["subject"] == "a-train->a-train" for finding in agreed), agreed
    finally:
        services.twin_down(twin=Twin.objects.get(pk=twin.pk), force=True)
    assert twin_leftovers(twin.prefix) == {"namespaces": [], "frr_dirs": [], "processes": []}


@pytest.mark.usefixtures("twin_required")
def test_fidelity_reports_a_disagreement_when_the_twin_runs_something_else(twin_intent, twin_place, twin_leftovers):
    """Only spine1's EOS text says 9000 (as if the EOS renderer mis-rendered the MTU): the validators, reading the
    structured config, predict 9214; the twin, running that EOS text, measures 9000. That divergence must be a
    fidelity error."""
    run = compile_run_create(fabric_intent=twin_intent)
    row = run.device_configs.get(hostname="spine1", platform="eos")
    port = next(i for i in row.structured["interfaces"] if i["peer_device"] == "leaf1")
    row.files = {**row.files, "startup-config": _eos_port_mtu(row.files["startup-config"], port["name"], 9000)}
    row.save()

    twin = services.twin_up(fabric_intent=twin_intent, compile_run=run, checks=False, **twin_place)
    try:
        fidelity = services.twin_fidelity(twin=twin, n_minus_1="none")
        errors = [finding for check in fidelity["report"]["checks"] for finding in check["findings"]
                  if finding["severity"] == "error"]
        link_errors = [f for f in errors if f["check"] == "fidelity.link_mtu"]
        assert len(link_errors) == 1 and f"spine1:{linux_ifname(port['name'])}" in link_errors[0]["subject"]
        assert (link_errors[0]["expected"], link_errors[0]["actual"]) == (9214, 9000)
        assert fidelity["compared"]["host_mtu"]["disagree"] >= 1  # paths through the small link: 8950, not 9000
        assert fidelity["disagreements"] == len(errors)
        assert fidelity["static"]["ok"] or "mtu.links" not in fidelity["static"]["failed"]  # static saw nothing
    finally:
        services.twin_down(twin=Twin.objects.get(pk=twin.pk), force=True)
    assert twin_leftovers(twin.prefix) == {"namespaces": [], "frr_dirs": [], "processes": []}
