"""The Netmiko SONiC push against a recorded SONiC switch (sonic_recorded_device.py): a Generic Config Updater
JSON Patch on top of the running CONFIG_DB, never config_db.json + ``config reload``; management, platform data and
unknown tables survive; the guard refuses before anything is written; a rollback is byte-identical."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from sonic_recorded_device import FRR_CONF, RECORDED, RecordedSonicConnection, with_sonic_fpm

from changes.drivers.config_db import (
    OWNED_TABLES,
    RENDERED_MERGED_TABLES,
    apply_config_db_patch,
    config_db_patch,
    pointer,
)
from changes.drivers.netmiko_sonic import NetmikoSonicDriver
from changes.errors import PushRefused
from compiler.errors import DriverError

SPLIT_UNIFIED = "split-unified"
WRITES = ("printf", "sudo config", "sudo cp", "sudo docker", "sudo TSA")  # reads run with sudo too (sudo test -f)
RUNNING_DB = RecordedSonicConnection(SPLIT_UNIFIED).config_db  # the recording, in split-unified mode
FRR = with_sonic_fpm((RECORDED / "frr.conf").read_text())  # as the split-unified switch runs it
# What the SONiC renderer emits: no platform data, no management tables (those are the device's).
CANDIDATE_DB = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf2", "bgp_asn": "65102", "type": "LeafRouter",
                                      "docker_routing_config_mode": "split-unified"}},
    "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.1.0.3/31": {}},  # Ethernet8 no longer routed: removed (owned)
    "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.0.0.102/32": {}},
    "PORT": {"Ethernet0": {"admin_status": "up", "mtu": "9100", "speed": "400000", "fec": "rs"}},
    "VLAN": {"Vlan10": {"vlanid": "10"}, "Vlan30": {"vlanid": "30"}},
}
INTENDED = {"config_db.json": json.dumps(CANDIDATE_DB, indent=4) + "\n",
            "frr.conf": FRR.replace(" neighbor FABRIC remote-as external\n",
                                    " neighbor FABRIC remote-as external\n neighbor FABRIC timers 3 9\n")}


@pytest.fixture
def switch() -> RecordedSonicConnection:
    return RecordedSonicConnection(SPLIT_UNIFIED)


def _driver(switch: RecordedSonicConnection) -> NetmikoSonicDriver:
    driver = NetmikoSonicDriver("leaf2", "192.0.2.12", "admin", "s3cret-Pa55")
    driver._connection = switch  # the recorded switch instead of an SSH session
    return driver


def test_push_applies_a_json_patch_of_owned_tables_and_never_reloads(switch):
    driver = _driver(switch)
    diff = driver.push(INTENDED)
    assert '"path": "/VLAN/Vlan30"' in diff and "+ neighbor FABRIC timers 3 9" in diff
    writes = [command for command in switch.commands if command.startswith("base64 -d")]
    assert len(writes) == 2 and writes[0].endswith(".json-patch") and writes[1].endswith(".frr.conf")
    staged = writes[1].rsplit(" ", 1)[1]  # /etc/sonic/frr is frr:frr 0750: staged, then sudo cp onto the file
    assert f"sudo cp {staged} {FRR_CONF}" in switch.commands and f"rm -f {staged}" in switch.commands
    applied = [command for command in switch.commands if "config" in command.split()[:3]]
    assert [command.split()[:3] for command in applied] == [["sudo", "config", "apply-patch"],
                                                            ["sudo", "config", "save"]]
    assert applied[0].startswith("sudo config apply-patch /tmp/ft-") and applied[0].endswith(".json-patch")
    assert not any("reload -y" in command or "config load" in command or "/etc/sonic/config_db.json" in command
                   for command in switch.commands)
    assert not any("command not found" in command for command in switch.commands)
    [patch] = switch.patches
    paths = {op["path"] for op in patch}
    assert {"/VLAN/Vlan30", pointer("INTERFACE", "Ethernet8|10.1.0.7/31"), "/INTERFACE/Ethernet8",
            "/PORT/Ethernet0/fec"} == paths
    assert {op["op"] for op in patch if op["path"].startswith("/INTERFACE")} == {"remove"}
    db = switch.config_db
    for table in ("MGMT_INTERFACE", "MGMT_PORT", "SNMP_COMMUNITY", "FEATURE", "BGP_DEVICE_GLOBAL"):
        assert db[table] == RUNNING_DB[table], table  # not ours: untouched
    assert db["DEVICE_METADATA"]["localhost"]["hwsku"] == "Mellanox-SN5600-C256"  # merged, never removed
    assert db["PORT"]["Ethernet16"] == RUNNING_DB["PORT"]["Ethernet16"] and db["PORT"]["Ethernet0"]["lanes"]
    assert switch.saved == db and "Ethernet8" not in db["INTERFACE"]
    assert switch.frr_running == INTENDED["frr.conf"] and FRR_CONF in switch.files
    assert driver.is_at(INTENDED) and not driver.runs_exactly({"config_db.json": json.dumps(RUNNING_DB)})


def test_nothing_to_do_sends_no_patch(switch):
    driver = _driver(switch)
    owned = {table: rows for table, rows in RUNNING_DB.items() if table in OWNED_TABLES}
    same = {"config_db.json": json.dumps(owned), "frr.conf": FRR}
    assert driver.is_at(same) and driver.push(same) == ""
    assert not any(command.startswith("sudo config") for command in switch.commands)


def test_guard_refuses_before_anything_is_written(switch):
    broken = {**CANDIDATE_DB, "MGMT_INTERFACE": {"eth0|192.0.2.12/24": {"gwaddr": "192.0.2.254"}}}
    with pytest.raises(PushRefused) as refused:
        _driver(switch).push({"config_db.json": json.dumps(broken), "frr.conf": FRR})
    assert "leaf2: push refused" in str(refused.value)
    assert "MGMT_INTERFACE|eth0|192.0.2.12/24 field 'gwaddr' would change '192.0.2.1' -> '192.0.2.254'" in str(refused.value)
    assert not any(command.startswith(WRITES) for command in switch.commands)
    assert switch.config_db == RUNNING_DB


def test_a_drained_switch_is_drained_again_after_the_frr_reload(switch):
    switch.config_db["BGP_DEVICE_GLOBAL"]["STATE"]["tsa_enabled"] = "true"
    driver = _driver(switch)
    driver.push(INTENDED)
    reload_at = next(i for i, command in enumerate(switch.commands) if "frr-reload.py" in command)
    assert "sudo TSA" in switch.commands[reload_at:] and driver.is_drained()


def test_failed_patch_names_the_device_and_saves_nothing(switch):
    switch.fail_patch = True
    with pytest.raises(DriverError, match=r"(?s)leaf2: 'sudo config apply-patch /tmp/ft-\w+\.json-patch' failed \(rc=1\).*"
                                          r"leafref"):
        _driver(switch).push(INTENDED)
    assert switch.saved is None and switch.config_db == RUNNING_DB
    assert not any(path.endswith(".json-patch") for path in switch.files)  # the patch file is removed


def test_rollback_after_a_failed_canary_is_byte_identical(switch):
    driver = _driver(switch)
    saved = driver.get_running_config()
    driver.push(INTENDED)
    assert driver.get_running_config() != saved and not driver.runs_exactly(saved)
    driver.rollback(saved)  # what the canary does when its post-checks fail
    assert driver.get_running_config() == saved  # byte-identical texts
    assert switch.config_db == RUNNING_DB and switch.frr_running == FRR and driver.runs_exactly(saved)
    rollback_patch = switch.patches[-1]
    assert {"op": "remove", "path": "/PORT/Ethernet0/fec"} in rollback_patch  # merged fields go too


def test_rollback_not_reaching_the_saved_config_fails(switch):
    driver = _driver(switch)
    saved = driver.get_running_config()
    driver.push(INTENDED)
    original = switch._run

    def lossy(command):  # a device that drops one field while applying the patch
        output, rc = original(command)
        if command.startswith("sudo config apply-patch"):
            switch.config_db["VLAN"]["Vlan10"]["description"] = "kept by the device"
        return output, rc

    switch._run = lossy
    with pytest.raises(DriverError, match=r"leaf2: after the rollback \['config_db.json'\] differ"):
        driver.rollback(saved)


def test_config_db_patch_owned_replaced_others_merged_and_full_mode_exact():
    running = copy.deepcopy(RUNNING_DB)
    patch = config_db_patch(running, CANDIDATE_DB)
    result = apply_config_db_patch(running, patch)
    assert set(result["INTERFACE"]) == set(CANDIDATE_DB["INTERFACE"])  # owned: equal to the candidate
    assert result["MGMT_INTERFACE"] == RUNNING_DB["MGMT_INTERFACE"] and "SNMP_COMMUNITY" in result
    assert result["DEVICE_METADATA"]["localhost"]["mac"] == "1c:34:da:00:00:02"
    assert config_db_patch(result, CANDIDATE_DB) == []  # idempotent
    assert apply_config_db_patch(result, config_db_patch(result, running, owned_only=False)) == running
    assert "INTERFACE" in OWNED_TABLES and "PORT" not in OWNED_TABLES and "MGMT_INTERFACE" not in OWNED_TABLES
    assert pointer("INTERFACE", "Ethernet0|10.0.0.0/31") == "/INTERFACE/Ethernet0|10.0.0.0~131"


def test_bad_candidate_and_bad_patch_name_what_is_wrong(switch):
    with pytest.raises(DriverError, match="not valid JSON"):
        _driver(switch).load_candidate({"config_db.json": "{broken", "frr.conf": ""})
    with pytest.raises(DriverError, match="not a CONFIG_DB document"):
        _driver(switch).push({"config_db.json": json.dumps({"VLAN": ["Vlan10"]})})
    with pytest.raises(DriverError, match=r"JSON Patch remove '/VLAN/Vlan99': 'Vlan99' does not exist"):
        apply_config_db_patch(RUNNING_DB, [{"op": "remove", "path": "/VLAN/Vlan99"}])


def test_planned_diff_for_change_sets_shows_the_patch_not_the_merged_tables(switch):
    driver = _driver(switch)
    running = driver.get_running_config()
    planned = driver.planned_diff(running, driver.normalize(INTENDED))
    assert planned == driver.push(INTENDED)  # offline plan == what compare() reported on the device
    assert "MGMT" not in planned and "hwsku" not in planned and "SNMP_COMMUNITY" not in planned
    assert driver.planned_diff(driver.get_running_config(), driver.normalize(INTENDED)) == ""  # no drift after it


def test_options_of_the_old_reload_push_are_refused_by_name():
    with pytest.raises(DriverError, match=r"leaf2: optional_args \['config_reload_command'\] are not SONiC driver"):
        NetmikoSonicDriver("leaf2", "192.0.2.12", "admin", optional_args={"config_reload_command": "sudo config reload -y"})
    assert NetmikoSonicDriver("leaf2", "192.0.2.12", "admin", optional_args={"patch_dir": "/var/tmp"}).options[
        "patch_dir"] == "/var/tmp"


def test_every_table_the_sonic_renderer_writes_is_declared_owned_or_merged():
    """A new renderer table must be a decision: owned (stale entries removed) or merged (never removed)."""
    golden = Path(__file__).parents[1] / "golden"
    tables = {table for path in golden.glob("*/expected/rendered/*/sonic/config_db.json")
              for table in json.loads(path.read_text())}
    assert tables, "no SONiC goldens found"
    undeclared = sorted(tables - OWNED_TABLES - RENDERED_MERGED_TABLES)
    assert not undeclared, f"declare {undeclared} in changes/drivers/config_db.py (OWNED_TABLES or RENDERED_MERGED_TABLES)"
    assert not OWNED_TABLES & RENDERED_MERGED_TABLES


# --------------------------------------------------------------------------------------------- through the runner


def _sonic_rollout(switch, files, user):
    from changes import services

    def driver_for(hostname):  # a fresh driver each time, as the runner does; the recorded switch stays
        return _driver(switch)

    change_set = services.changeset_create(name="sonic", driver_for=driver_for, intended={
        "leaf2": {"files": files, "role": "leaf", "driver": "netmiko_sonic", "platform": "sonic"}})
    rollout = services.rollout_create(name="r", kind="canary_push", target="production", change_set=change_set,
                                      policy={"checks": ["health"], "soak_s": 0, "converge_timeout_s": 1}, user=user)
    services.rollout_approve(rollout=rollout, user=_second_admin())
    return services.rollout_start(rollout=rollout, user=user, enqueue=False), driver_for


@pytest.fixture
def admin(db):
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user("alice", password="x")
    user.groups.add(Group.objects.get_or_create(name="admin")[0])
    return user


def test_runner_failed_canary_rolls_the_switch_back_byte_identical(switch, admin):
    from changes.choices import RolloutStateChoices as State
    from changes.pipelines.runner import rollout_execute

    saved = _driver(switch).get_running_config()
    rollout, driver_for = _sonic_rollout(switch, INTENDED, admin)  # unroutes Ethernet8: its BGP peer goes down
    assert "MGMT" not in rollout.change_set.devices.get().diff  # the change set shows the patch, not removals
    state = rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=driver_for)
    rollout.refresh_from_db()
    assert state == State.ROLLED_BACK and rollout.report["outcome"]["leaf2"]["outcome"] == "rolled_back"
    assert rollout.report["green_after_rollback"] is True
    assert len(switch.patches) == 2 and _driver(switch).get_running_config() == saved  # pushed, then restored
    assert switch.config_db == RUNNING_DB and switch.frr_running == FRR


def test_runner_guard_refusal_fails_the_push_step_and_touches_nothing(switch, admin):
    from changes.choices import StepPhaseChoices as Phase
    from changes.choices import StepResultChoices as Result
    from changes.models import Step
    from changes.pipelines.runner import rollout_execute

    broken = {**CANDIDATE_DB, "MGMT_PORT": {"eth0": {"admin_status": "down"}}}
    rollout, driver_for = _sonic_rollout(switch, {"config_db.json": json.dumps(broken), "frr.conf": FRR}, admin)
    rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=driver_for)
    push = Step.objects.get(rollout=rollout, phase=Phase.PUSH, device="leaf2")
    assert push.result == Result.FAILED
    assert "leaf2: push refused" in push.output and "MGMT_PORT|eth0 field 'admin_status'" in push.output
    assert switch.patches == [] and switch.config_db == RUNNING_DB


@pytest.mark.django_db
@pytest.mark.parametrize(("driver", "options", "named"), [
    ("netmiko_sonic", {"config_reload_command": "sudo config reload -y"}, "are not SONiC driver options"),
    ("napalm_eos", {"commit_confirm_s": 5}, "commit_confirm_s=5 must be whole seconds"),
    ("netmiko_sonic", ["patch_dir"], "must be a JSON object"),
])
def test_endpoint_with_bad_driver_options_is_refused_by_field_and_nothing_saved(driver, options, named):
    from changes import services
    from changes.models import DeviceEndpoint
    from compiler.errors import InputError

    with pytest.raises(InputError) as error:
        services.endpoint_create(hostname="leaf2", driver=driver, address="192.0.2.12", optional_args=options)
    assert error.value.errors[0].field == "optional_args" and named in str(error.value)
    assert not DeviceEndpoint.objects.exists()
    services.endpoint_create(hostname="leaf2", driver=driver, address="192.0.2.12", optional_args={})


def _second_admin():
    """Production rollouts need a second person to approve them (changes.services.rollout_approve)."""
    from django.contrib.auth.models import Group, User

    user, _ = User.objects.get_or_create(username="bob-approver")
    user.groups.add(Group.objects.get_or_create(name="admin")[0])
    return user


# ------------------------------------------------------------------ frr.conf the way SONiC runs it (issue 27 item 4)


def test_frr_conf_is_reloaded_inside_the_bgp_container(switch):
    _driver(switch).push(INTENDED)
    reloads = [command for command in switch.commands if "frr-reload.py" in command]
    # The host file /etc/sonic/frr/frr.conf is /etc/frr/frr.conf in the bgp container (docker_image_ctl.j2).
    assert reloads == ["sudo docker exec bgp /usr/lib/frr/frr-reload.py --reload /etc/frr/frr.conf"]
    assert switch.frr_running == INTENDED["frr.conf"] and "fpm address 127.0.0.1\n" in switch.frr_running


@pytest.mark.parametrize(("mode", "why"), [
    ("split", "docker_init.sh deletes frr.conf"),
    ("separated", "bgpcfgd generates"),
    (None, "bgpcfgd generates"),  # no mode: docker_init.sh runs the separated branch
    ("unified", "frrcfgd generates frr.conf"),
])
def test_frr_conf_push_is_refused_where_sonic_does_not_run_our_frr_conf(mode, why):
    switch = RecordedSonicConnection(mode or SPLIT_UNIFIED)
    if mode is None:
        del switch.config_db["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"]
    candidate = copy.deepcopy(CANDIDATE_DB)
    if mode is None:
        del candidate["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"]
    else:
        candidate["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] = mode
    running_frr = switch.files[FRR_CONF]
    with pytest.raises(DriverError, match=rf"leaf2: docker_routing_config_mode='{mode or 'separated'}': frr.conf is "
                                          rf"not pushed: .*{why}"):
        _driver(switch).push({"config_db.json": json.dumps(candidate), "frr.conf": INTENDED["frr.conf"]})
    assert not any(command.startswith(WRITES) for command in switch.commands)
    assert switch.files[FRR_CONF] == running_frr and switch.patches == []


def test_a_push_changing_the_routing_config_mode_is_refused(switch):
    candidate = copy.deepcopy(CANDIDATE_DB)
    candidate["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] = "unified"
    with pytest.raises(DriverError, match="from 'split-unified' to 'unified'; SONiC applies it only when the bgp "
                                          "container restarts"):
        _driver(switch).push({"config_db.json": json.dumps(candidate), "frr.conf": FRR})
    assert switch.patches == []


def test_a_frr_conf_without_sonic_fpm_lines_is_refused_before_the_reload(switch):
    """The broken render: without the FPM lines docker_init.sh wrote, frr-reload would delete them from zebra."""
    broken = INTENDED["frr.conf"].replace("no fpm use-next-hop-groups\nfpm address 127.0.0.1\n", "")
    with pytest.raises(DriverError, match=r"lacks \['fpm address 127.0.0.1', 'no fpm use-next-hop-groups'\].*"
                                          "zebra would stop feeding fpmsyncd"):
        _driver(switch).push({**INTENDED, "frr.conf": broken})
    assert switch.patches == [] and not any("frr-reload" in command for command in switch.commands)


def test_routing_config_mode_option_names_the_mode_of_a_bench_without_device_metadata():
    switch = RecordedSonicConnection(SPLIT_UNIFIED)
    del switch.config_db["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"]
    candidate = copy.deepcopy(CANDIDATE_DB)
    del candidate["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"]
    driver = NetmikoSonicDriver("leaf2", "192.0.2.12", "admin", "s3cret-Pa55",
                                optional_args={"routing_config_mode": SPLIT_UNIFIED})
    driver._connection = switch
    driver.push({"config_db.json": json.dumps(candidate), "frr.conf": INTENDED["frr.conf"]})
    assert switch.frr_running == INTENDED["frr.conf"]


def test_without_sudo_frr_conf_is_written_in_place_by_rename(switch):
    """A bench whose login may write frr.conf (the twin's sshd runs as root): ``frr_conf_sudo`` empty."""
    driver = NetmikoSonicDriver("leaf2", "192.0.2.12", "admin", "s3cret-Pa55", optional_args={"frr_conf_sudo": ""})
    driver._connection = switch
    driver.push(INTENDED)
    assert not any(command.startswith(("sudo cp", "sudo test")) for command in switch.commands)
    assert any(command.endswith(f" {FRR_CONF}") and command.startswith("base64 -d") for command in switch.commands)
    assert switch.files[FRR_CONF] == switch.frr_running == INTENDED["frr.conf"]


def test_first_push_to_a_factory_switch_names_the_one_time_mode_change():
    """sonic-cfggen --preset writes no docker_routing_config_mode (docker_init.sh then runs "separated"); our
    render says split-unified: the push is refused before anything is written, naming the out-of-band step."""
    switch = RecordedSonicConnection(SPLIT_UNIFIED)
    del switch.config_db["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"]
    with pytest.raises(DriverError, match="from 'separated' to 'split-unified'; SONiC applies it only when the bgp "
                                          r"container restarts .*systemctl restart bgp"):
        _driver(switch).push(INTENDED)
    assert switch.patches == [] and not any(command.startswith(WRITES) for command in switch.commands)
