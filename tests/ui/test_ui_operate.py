"""Twin and rollout pages without booting anything: permissions on the state machine, polling, missing twin."""

import pytest

from changes.models import Rollout, Step
from twins.models import Twin, TwinOperation
from twins.selectors import twin_ping_matrix

FABRIC, INTENT = "uifab", "uifab-intent"  # as built by tests/ui/conftest.py

pytestmark = pytest.mark.django_db


def _rollout(target: str, state: str, created_by=None) -> Rollout:
    return Rollout.objects.create(name=f"{target} test", kind="canary_push", target=target, state=state,
                                  plan={"waves": [["leaf1"], ["leaf2", "leaf3"]], "unchanged": ["spine1"]},
                                  policy={}, started_by=created_by)


def test_operator_cannot_create_or_approve_production_rollouts(operator, admin, fabric_intent):
    assert operator.post("/rollouts/new/", {"intent": INTENT, "target": "production"}).status_code == 403
    rollout = _rollout("production", "awaiting_approval", created_by=operator.user)
    assert operator.post(f"/rollouts/{rollout.pk}/approve/").status_code == 403
    assert operator.post(f"/rollouts/{rollout.pk}/start/").status_code == 403
    rollout.refresh_from_db()
    assert rollout.state == "awaiting_approval"
    admin.post(f"/rollouts/{rollout.pk}/approve/")
    rollout.refresh_from_db()
    assert rollout.state == "pending" and rollout.approved_by == admin.user
    assert operator.post(f"/rollouts/{rollout.pk}/start/").status_code == 403  # approved, still an admin's job
    assert operator.post(f"/rollouts/{rollout.pk}/cancel/").status_code == 302  # anyone operating may stop it


def test_the_creator_of_a_production_rollout_cannot_approve_it(admin, django_user_model, fabric_intent):
    rollout = _rollout("production", "awaiting_approval", created_by=admin.user)
    response = admin.post(f"/rollouts/{rollout.pk}/approve/", follow=True)
    assert any("second person must approve" in str(message) for message in response.context["messages"])
    rollout.refresh_from_db()
    assert rollout.state == "awaiting_approval" and rollout.approved_by is None
    assert admin.post(f"/rollouts/{rollout.pk}/start/", follow=True).status_code == 200
    rollout.refresh_from_db()
    assert rollout.state == "awaiting_approval"  # never started before approval


def test_buttons_follow_the_policy(operator, admin, fabric_intent):
    own = _rollout("production", "awaiting_approval", created_by=admin.user)
    assert ">Approve<" not in admin.get(f"/rollouts/{own.pk}/progress/").content.decode()  # not for the creator
    other = _rollout("production", "awaiting_approval", created_by=operator.user)
    assert ">Approve<" in admin.get(f"/rollouts/{other.pk}/progress/").content.decode()
    assert ">Approve<" not in operator.get(f"/rollouts/{other.pk}/progress/").content.decode()
    paused = _rollout("production", "paused", created_by=operator.user)
    assert ">Resume<" not in operator.get(f"/rollouts/{paused.pk}/progress/").content.decode()
    assert ">Cancel<" in operator.get(f"/rollouts/{paused.pk}/progress/").content.decode()
    assert ">Resume<" in admin.get(f"/rollouts/{paused.pk}/progress/").content.decode()


def test_operator_runs_twin_rollouts(operator, fabric_intent):
    rollout = _rollout("twin", "pending", created_by=operator.user)
    operator.post(f"/rollouts/{rollout.pk}/start/")
    rollout.refresh_from_db()
    assert rollout.state == "running"


def test_viewer_cannot_touch_a_rollout(viewer, fabric_intent):
    rollout = _rollout("twin", "pending")
    for action in ("start", "pause", "cancel"):
        assert viewer.post(f"/rollouts/{rollout.pk}/{action}/").status_code == 403
    rollout.refresh_from_db()
    assert rollout.state == "pending"


def test_illegal_transition_is_shown_not_raised(operator, fabric_intent):
    rollout = _rollout("twin", "succeeded")
    response = operator.post(f"/rollouts/{rollout.pk}/pause/", follow=True)
    assert response.status_code == 200
    assert any("Cannot pause" in str(message) and "state='succeeded'" in str(message)
               for message in response.context["messages"])


def test_progress_polls_while_running_and_stops_when_final(viewer, fabric_intent):
    rollout = _rollout("twin", "running")
    Step.objects.create(rollout=rollout, device="leaf1", wave=0, phase="push", result="ok", output="+ vni 10020")
    page = viewer.get(f"/rollouts/{rollout.pk}/progress/").content.decode()
    assert 'hx-get="/rollouts/' in page and 'hx-trigger="every 2s"' in page
    assert "Canary" in page and "leaf1" in page and "leaf3" in page
    assert '<span class="add">+ vni 10020</span>' in page  # the pushed diff, highlighted
    rollout.state = "succeeded"
    rollout.save()
    page = viewer.get(f"/rollouts/{rollout.pk}/progress/").content.decode()
    assert "hx-get" not in page and 'data-state="succeeded"' in page


def test_the_rollout_page_names_its_twin(viewer, fabric_intent):
    """Issue #28 point 3: a twin rollout holds its Twin row; the page names it, or says it is gone."""
    rollout = _rollout("twin", "succeeded")
    assert "its twin is gone" in viewer.get(f"/rollouts/{rollout.pk}/progress/").content.decode()
    rollout.twin = Twin.objects.create(fabric_intent=fabric_intent, prefix="twuipage", status="up")
    rollout.save()
    page = viewer.get(f"/rollouts/{rollout.pk}/progress/").content.decode()
    assert f"twin twuipage of {INTENT}" in page and "its twin is gone" not in page


def test_twin_rollout_needs_a_compiled_intent_and_a_running_twin(operator, fabric_intent):
    response = operator.post("/rollouts/new/", {"intent": INTENT, "target": "twin"}, follow=True)
    assert any("never compiled" in str(message) for message in response.context["messages"])
    operator.post(f"/intents/{INTENT}/compile/")
    response = operator.post("/rollouts/new/", {"intent": INTENT, "target": "twin"}, follow=True)
    assert not Rollout.objects.exists()
    assert response.context["messages"]  # the changes app explains why (no twin to read the running configs from)


def test_twin_page_without_prerequisites(operator, fabric_intent, monkeypatch):
    missing = lambda: ["needs root (network namespaces, veth, FRR daemons)"]  # noqa: E731
    monkeypatch.setattr("twins.services.twin_prerequisites", missing)  # what the page and twin_up check
    page = operator.get(f"/twin/{FABRIC}/").content.decode()
    assert "needs root" in page and 'pill down' in page
    assert "Start twin</button>" in page and "disabled" in page
    response = operator.post(f"/twin/{FABRIC}/up/", follow=True)
    operation = TwinOperation.objects.get(kind="up")
    assert operation.status == "failed" and "needs root" in operation.error
    assert any("failed" in str(message) for message in response.context["messages"])


def test_twin_operations_are_refused_while_one_runs(operator, fabric_intent):
    TwinOperation.objects.create(fabric=FABRIC, prefix="", kind="up", status="running")
    response = operator.post(f"/twin/{FABRIC}/ping/", follow=True)
    assert any("still running" in str(message) for message in response.context["messages"])
    page = operator.get(f"/twin/{FABRIC}/status/").content.decode()
    assert 'hx-trigger="every 3s"' in page  # polls while busy


def test_ping_heat_map_from_the_stored_live_check_report(fabric_intent, tmp_path):
    """Cells come from the stored per-pair outcomes: a failed ping is red, a reply green, and a pair the matrix
    did not ping is '–' (not measured), never green."""
    from intents import services as intent_services
    from inventory.models import NicPort
    from labs.from_compile import topology_from_compile
    from labs.runtime import TwinState
    from twins.services import compile_result_for_run

    network = fabric_intent.networks.get(name="net10")
    network.attachments.set(NicPort.objects.filter(server__name__in=["gpu0001", "gpu0002", "gpu0003"]))
    run = intent_services.compile_run_create(fabric_intent=fabric_intent)
    topology = topology_from_compile(compile_result_for_run(run=run), name_prefix="twuitest")
    TwinState(prefix="twuitest", label="t", digest="", state_dir=str(tmp_path), status="up", created_at=0.0,
              node_netns={}, host_netns={}, frr_dirs=[], kernel={"vrf": True}, topology=topology.to_dict()).save()
    failed = {"check": "twin.ping_bridged", "severity": "error", "subject": "gpu0001->gpu0003", "expected": "3/3",
              "actual": "0/3", "message": "lost"}
    hosts = ["gpu0001", "gpu0002", "gpu0003"]
    outcomes = {f"{a}->{b}": {"kind": "bridged", "replied": f"{a}->{b}" != "gpu0001->gpu0003"}
                for a in hosts for b in hosts if a != b and f"{a}->{b}" != "gpu0002->gpu0001"}  # one pair not pinged
    twin = Twin.objects.create(fabric_intent=fabric_intent, prefix="twuitest", state_dir=str(tmp_path), status="up",
                               last_report={"ok": False, "checks": [
                                   {"name": "twin.ping_bridged", "status": "failed", "findings": [failed]}]},
                               last_measured={"ping": {"outcomes": outcomes}})
    matrix = twin_ping_matrix(twin=twin)
    assert matrix["hosts"] == hosts
    assert matrix["cells"]["gpu0001"]["gpu0003"]["css"] == "bad"
    assert matrix["cells"]["gpu0003"]["gpu0001"]["css"] == "ok"
    assert matrix["cells"]["gpu0002"]["gpu0001"] == {"css": "na", "text": "–", "title": "gpu0002->gpu0001: not measured"}
    assert matrix["counts"] == {"ok": 4, "bad": 1, "na": 1}


def test_twin_status_survives_a_runtime_error(viewer, fabric_intent, monkeypatch):
    from compiler.errors import TwinError
    from twins.services import twin_get_or_create

    twin_get_or_create(fabric_intent=fabric_intent)

    def broken(**kwargs):
        raise TwinError("ip netns list failed (rc=1): busy")

    monkeypatch.setattr("twins.services.twin_status", broken)
    assert viewer.get("/").status_code == 200
    assert "could not read the runtime state" in viewer.get(f"/twin/{FABRIC}/").content.decode()


def test_the_approver_reads_every_changed_device_s_diff_before_approving(admin, operator, fabric_intent):
    """Issue #30 point 2: a production approval shows the config diff of each changed device (natural order),
    not only devices and waves; unchanged devices are not listed as changes."""
    from changes.models import ChangeSet, ChangeSetDevice

    change_set = ChangeSet.objects.create(name="mtu change", fabric_name=FABRIC)
    for hostname, diff in (("leaf10", "-   mtu 9214\n+   mtu 9100\n"), ("leaf2", "+router bgp 65002\n"),
                           ("spine1", "")):
        ChangeSetDevice.objects.create(change_set=change_set, hostname=hostname, platform="eos", driver="twin",
                                       intended_hash="x", diff=diff, has_diff=bool(diff))
    rollout = _rollout("production", "awaiting_approval", created_by=operator.user)
    rollout.change_set = change_set
    rollout.save()
    page = admin.get(f"/rollouts/{rollout.pk}/").content.decode()
    panel = page[page.index('id="rollout-changes"'):]
    assert "to review before approving" in panel and "2 devices change" in panel
    assert panel.index("leaf2") < panel.index("leaf10") and "spine1" not in panel
    assert "mtu 9100" in panel and "router bgp 65002" in panel
    assert ">Approve<" in page


def test_a_start_that_rolled_back_is_not_announced_as_done(admin, operator, fabric_intent, monkeypatch):
    """Issue #30 point 2: after a failed push the banner said 'start done' (green) above 'rolled back'."""
    from changes import services as change_services

    rollout = _rollout("twin", "pending", created_by=operator.user)

    def start_and_roll_back(*, rollout, user=None):
        Rollout.objects.filter(pk=rollout.pk).update(state="rolled_back", error="leaf1: BGP down after push")
        return rollout  # the stale in-memory object the service returned before the in-process run finished

    monkeypatch.setattr(change_services, "rollout_start", start_and_roll_back)
    response = operator.post(f"/rollouts/{rollout.pk}/start/", follow=True)
    shown = [(message.level_tag, str(message)) for message in response.context["messages"]]
    assert shown == [("error", f"Rollout #{rollout.pk} started, then was rolled back: leaf1: BGP down after push")]
    assert "done" not in response.content.decode().split('id="rollout-progress"')[0]


def test_waves_have_one_name_on_the_page_the_command_and_the_pipeline(viewer, fabric_intent):
    """Issue #30 point 7: the page said "Canary, Wave 1" where the pipeline and `manage.py rollout` say "wave 1,
    wave 2"; every surface now numbers waves from 1 and marks the canary."""
    from changes.choices import wave_label

    rollout = _rollout("twin", "pending")
    page = viewer.get(f"/rollouts/{rollout.pk}/progress/").content.decode()
    assert "<strong>Wave 1 (canary)</strong>" in page and "<strong>Wave 2</strong>" in page
    assert "<strong>Canary</strong>" not in page
    assert wave_label(1, "canary_push") == "wave 1 (canary)" and wave_label(1, "rolling_upgrade") == "wave 1"
