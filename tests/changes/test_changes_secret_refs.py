"""Secrets by reference (issue #13 point 2): rendered configs carry ``FT-SECRET[<reference>]`` only; the one
resolver (changes.credentials.secret_refs_resolve) puts the registered secret in at push time for each driver,
refuses an unknown reference, and every resolved value is redacted. The EOS session keeps the operator's AAA when
the intent has none, and the guard refuses a candidate that drops AAA the device has. Against the recorded EOS and
SONiC devices (eos_recorded_device.py, sonic_recorded_device.py)."""

from __future__ import annotations

import copy
import io
import json

import pyeapi
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from eos_recorded_device import RECORDED as EOS_RECORDED
from eos_recorded_device import RecordedEosNode
from sonic_recorded_device import RECORDED as SONIC_RECORDED
from sonic_recorded_device import RecordedSonicConnection

from changes.credentials import config_secret_set, config_secrets_compared, eos_type7, secret_refs_resolve
from changes.drivers.napalm_eos import NapalmEosDriver, carry_aaa
from changes.drivers.netmiko_sonic import NetmikoSonicDriver
from changes.errors import PushRefused, SecretReferenceUnknown, SecretValueRefused
from changes.models import ConfigSecret
from common.redaction import REDACTED, redact_text
from compiler.errors import InputError
from compiler.secret_refs import placeholder

pytestmark = pytest.mark.django_db

REFERENCE = "vault:secret/fabric/tacacs"
SECRET = "Tacacs-Key-42"
TYPE7 = "133116110A0F17670021317E6170"  # SECRET in type 7 with this reference's salt, as the recording holds it
MARKER = placeholder(REFERENCE)

EOS_BEFORE = (EOS_RECORDED / "running-aaa-before.cfg").read_text()
EOS_AFTER = (EOS_RECORDED / "running-aaa-after.cfg").read_text()
MAINTENANCE = "maintenance\n   unit System\n      quiesce\n!\n"
# What the compiler renders for the new VLAN without AAA in the intent (no maintenance: that is device state).
INTENDED_NO_AAA = {"startup-config": (EOS_RECORDED / "running-after.cfg").read_text().replace(MAINTENANCE, "")}
RENDERED_AAA = (f"tacacs-server host 192.0.2.5 vrf MGMT key 7 {MARKER}\n!\n"
                "aaa group server tacacs+ FT_TACACS\n   server 192.0.2.5 vrf MGMT\n!\n"
                "aaa authentication login default group FT_TACACS local\n"
                "aaa authorization exec default group FT_TACACS local\n"
                "ip tacacs vrf MGMT source-interface Management1\n!\n")
INTENDED_AAA = {"startup-config": INTENDED_NO_AAA["startup-config"].replace("end\n", RENDERED_AAA + "end\n")}


@pytest.fixture
def eos_device(monkeypatch):
    node = RecordedEosNode("running-aaa-before.cfg")
    monkeypatch.setattr(pyeapi.client, "Node", lambda connection, **kwargs: node)
    return node


def _eos() -> NapalmEosDriver:
    return NapalmEosDriver("leaf1", "192.0.2.11", "admin", "s3cret-Pa55")


# ------------------------------------------------------------------------------------------ the resolver


def test_type7_is_arista_avds_own():
    pytest.importorskip("pyavd_utils", reason="pyavd is a pinned test dependency (requirements.txt)")
    from pyavd_utils.passwords import simple_7_decrypt, simple_7_encrypt

    for salt in (0, 7, 13, 15):
        assert eos_type7(SECRET, salt=salt) == simple_7_encrypt(SECRET, salt)
        assert simple_7_decrypt(eos_type7(SECRET, salt=salt)) == SECRET
    assert eos_type7(SECRET, salt=13) == TYPE7
    assert simple_7_decrypt(eos_type7("another-key", salt=13)) != SECRET  # broken: a different key decodes apart


def test_eos_gets_the_type7_key_and_sonic_the_passkey_both_redacted():
    config_secret_set(reference=REFERENCE, clear=SECRET)
    eos = secret_refs_resolve({"startup-config": f"tacacs-server host 192.0.2.5 key 7 {MARKER}\n"}, device="leaf1",
                              platform="eos")
    assert eos == {"startup-config": f"tacacs-server host 192.0.2.5 key 7 {TYPE7}\n"}
    sonic = secret_refs_resolve({"config_db.json": json.dumps({"TACPLUS": {"global": {"passkey": MARKER}}})},
                                device="leaf2", platform="sonic")
    assert json.loads(sonic["config_db.json"])["TACPLUS"]["global"]["passkey"] == SECRET
    assert redact_text(f"key 7 {TYPE7} passkey {SECRET}") == f"key 7 {REDACTED} passkey {REDACTED}"


def test_an_unknown_reference_is_refused_naming_every_reference():
    config_secret_set(reference=REFERENCE, clear=SECRET)
    text = f"{MARKER} {placeholder('vault:secret/missing')} {placeholder('env:GONE')}"
    with pytest.raises(SecretReferenceUnknown) as refused:
        secret_refs_resolve({"startup-config": text}, device="leaf1", platform="eos")
    assert refused.value.references == ["vault:secret/missing", "env:GONE"]
    assert str(refused.value).startswith("leaf1: push refused, secret reference 'vault:secret/missing', 'env:GONE' "
                                         "is not in the credential store")


def test_files_without_a_reference_are_untouched_without_a_query(django_assert_num_queries):
    files = {"frr.conf": "router bgp 65001\n", "linux-plan.json": "{}\n"}
    with django_assert_num_queries(0):
        assert secret_refs_resolve(files, device="leaf1", platform="frr") is files


def test_a_secret_sonic_cannot_carry_is_refused_without_showing_it():
    config_secret_set(reference=REFERENCE, clear="has blank#hash")
    with pytest.raises(SecretValueRefused) as refused:
        secret_refs_resolve({"config_db.json": MARKER}, device="leaf2", platform="sonic")
    assert REFERENCE in str(refused.value) and "has blank" not in str(refused.value)


def test_config_secret_command_reads_stdin_lists_references_only_and_deletes(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO(SECRET + "\n"))
    call_command("config_secret", "set", REFERENCE, stdout=out)
    stored = ConfigSecret.objects.get(reference=REFERENCE)
    assert SECRET not in stored.value_encrypted and SECRET not in out.getvalue()
    monkeypatch.setenv("FT_TEST_TACACS", "rotated-Key-43")
    call_command("config_secret", "set", REFERENCE, "--from-env", "FT_TEST_TACACS", stdout=out)
    listing = io.StringIO()
    call_command("config_secret", "list", stdout=listing)
    assert listing.getvalue().startswith(REFERENCE) and "rotated" not in listing.getvalue()
    resolved = secret_refs_resolve({"config_db.json": MARKER}, device="leaf2", platform="sonic")
    assert resolved == {"config_db.json": "rotated-Key-43"}
    call_command("config_secret", "delete", REFERENCE, stdout=out)
    with pytest.raises(SecretReferenceUnknown):
        secret_refs_resolve({"config_db.json": MARKER}, device="leaf2", platform="sonic")


@pytest.mark.parametrize(("args", "message"), [
    (["set", "hunter2"], "reference"), (["set", REFERENCE, "--from-env", "FT_TEST_UNSET_VAR"], "FT_TEST_UNSET_VAR"),
    (["delete", "vault:never/registered"], "not registered"),
])
def test_config_secret_command_refusals(monkeypatch, args, message):
    monkeypatch.setattr("sys.stdin", io.StringIO("value-1234\n"))
    with pytest.raises(CommandError, match=message):
        call_command("config_secret", *args, stdout=io.StringIO())


def test_an_empty_secret_is_not_registered():
    with pytest.raises(InputError, match="empty secret"):
        config_secret_set(reference=REFERENCE, clear="")


# ------------------------------------------------------------------------------------------ EOS (recorded)


def test_eos_intent_without_aaa_keeps_the_operators_aaa_and_key(eos_device):
    with _eos() as driver:
        diff = driver.push(INTENDED_NO_AAA)
    assert "+vlan 30" in diff and "tacacs" not in diff  # nothing about AAA changes
    assert eos_device.running == EOS_AFTER and f"key 7 {TYPE7}" in eos_device.running


def test_eos_intent_with_aaa_pushes_the_resolved_key_never_the_marker(eos_device):
    config_secret_set(reference=REFERENCE, clear=SECRET)
    with _eos() as driver:
        driver.push(INTENDED_AAA)
    sent = [command for command in eos_device.commands if "tacacs-server" in command]
    assert sent == [f"tacacs-server host 192.0.2.5 vrf MGMT key 7 {TYPE7}"]
    assert not any("FT-SECRET" in command for command in eos_device.commands)
    assert eos_device.running == EOS_AFTER


def test_eos_unknown_reference_refuses_before_the_device_is_contacted(eos_device):
    with _eos() as driver:
        eos_device.calls.clear()
        with pytest.raises(SecretReferenceUnknown, match=r"leaf1: push refused, secret reference "
                                                         r"'vault:secret/fabric/tacacs'"):
            driver.push(INTENDED_AAA)
    assert eos_device.commands == [] and eos_device.running == EOS_BEFORE


def test_eos_guard_refuses_dropping_the_devices_aaa_without_printing_the_key(eos_device):
    config_secret_set(reference=REFERENCE, clear=SECRET)
    other_server = {"startup-config": INTENDED_AAA["startup-config"].replace("192.0.2.5", "192.0.2.9")}
    with _eos() as driver, pytest.raises(PushRefused) as refused:
        driver.push(other_server)
    message = str(refused.value)
    assert "AAA 'tacacs-server host 192.0.2.5 vrf MGMT key 7 ***' would be removed" in message
    assert "AAA 'aaa group server tacacs+ FT_TACACS / server 192.0.2.5 vrf MGMT' would be removed" in message
    assert TYPE7 not in message and SECRET not in message
    assert not any(command.startswith("configure session") for command in eos_device.commands)


def test_carry_aaa_leaves_a_candidate_with_its_own_aaa_alone():
    assert carry_aaa(EOS_BEFORE, INTENDED_AAA["startup-config"]) == INTENDED_AAA["startup-config"]
    carried = carry_aaa(EOS_BEFORE, INTENDED_NO_AAA["startup-config"])
    assert f"tacacs-server host 192.0.2.5 vrf MGMT key 7 {TYPE7}\n" in carried and carried.endswith("!\nend\n")


# ------------------------------------------------------------------------------------------ SONiC (recorded)


SONIC_RUNNING = json.loads((SONIC_RECORDED / "show_runningconfiguration_all.json").read_text())
SONIC_FRR = (SONIC_RECORDED / "frr.conf").read_text()
SONIC_AAA = {"TACPLUS": {"global": {"passkey": MARKER, "src_intf": "eth0"}},
             "TACPLUS_SERVER": {"192.0.2.5": {"priority": "1", "tcp_port": "49", "vrf": "mgmt"}},
             "AAA": {"authentication": {"login": "tacacs+,local", "failthrough": "True"}}}


def _sonic(switch: RecordedSonicConnection) -> NetmikoSonicDriver:
    driver = NetmikoSonicDriver("leaf2", "192.0.2.12", "admin", "s3cret-Pa55")
    driver._connection = switch
    return driver


def _sonic_files(database: dict) -> dict:
    return {"config_db.json": json.dumps(database, indent=4) + "\n", "frr.conf": SONIC_FRR}


def test_sonic_patch_carries_the_resolved_passkey_and_the_output_hides_it():
    config_secret_set(reference=REFERENCE, clear=SECRET)
    switch = RecordedSonicConnection()
    diff = _sonic(switch).push(_sonic_files({**copy.deepcopy(SONIC_RUNNING), **SONIC_AAA}))
    [patch] = switch.patches
    assert {"op": "add", "path": "/TACPLUS", "value": {"global": {"passkey": SECRET, "src_intf": "eth0"}}} in patch
    assert switch.config_db["TACPLUS"]["global"]["passkey"] == SECRET and "AAA" in switch.config_db
    assert SECRET not in diff and "FT-SECRET" not in diff and '"passkey": "***"' in diff


def test_sonic_unknown_reference_refuses_before_the_switch_is_contacted():
    switch = RecordedSonicConnection()
    with pytest.raises(SecretReferenceUnknown):
        _sonic(switch).push(_sonic_files({**copy.deepcopy(SONIC_RUNNING), **SONIC_AAA}))
    assert switch.commands == [] and "TACPLUS" not in switch.config_db


def test_sonic_guard_refuses_dropping_a_tacacs_server_but_allows_a_key_rotation():
    config_secret_set(reference=REFERENCE, clear=SECRET)
    switch = RecordedSonicConnection()
    _sonic(switch).push(_sonic_files({**copy.deepcopy(SONIC_RUNNING), **SONIC_AAA}))
    config_secret_set(reference=REFERENCE, clear="rotated-Key-43")  # rotation: a new passkey is not a loss
    _sonic(switch).push(_sonic_files({**copy.deepcopy(SONIC_RUNNING), **SONIC_AAA}))
    assert switch.config_db["TACPLUS"]["global"]["passkey"] == "rotated-Key-43"
    # A rollback-style full replace would drop the server: the guard (which a push runs) refuses that.
    from changes.guard import push_guard

    running = {"config_db.json": json.dumps(switch.config_db)}
    dropped = copy.deepcopy(switch.config_db)
    del dropped["TACPLUS_SERVER"]["192.0.2.5"]
    dropped["TACPLUS"]["global"].pop("passkey")
    with pytest.raises(PushRefused) as refused:
        push_guard(device="leaf2", platform="sonic", running=running, effective={"config_db.json": json.dumps(dropped)})
    message = str(refused.value)
    assert "TACPLUS_SERVER|192.0.2.5 would be removed" in message
    assert "TACPLUS|global field 'passkey' would be removed" in message and "rotated-Key-43" not in message


# ------------------------------------------------------------------------------------------ offline diffs


def _compared_diff(driver, running: dict, intended: dict) -> str:
    """The diff as change sets and drift compute it: references resolved, every secret its keyed marker."""
    return driver.planned_diff(config_secrets_compared(running, device=driver.hostname),
                               config_secrets_compared(intended, device=driver.hostname))


@pytest.mark.django_db
def test_eos_planned_diff_sees_no_difference_between_the_devices_key_and_the_marker():
    config_secret_set(reference=REFERENCE, clear=SECRET)
    driver = _eos()
    intended = {"startup-config": INTENDED_AAA["startup-config"].replace("end\n", MAINTENANCE + "end\n")}
    running = {"startup-config": EOS_AFTER}
    assert _compared_diff(driver, running, intended) == ""  # same AAA, key by reference: nothing to do
    other = {"startup-config": intended["startup-config"].replace("host 192.0.2.5", "host 192.0.2.9")}
    diff = _compared_diff(driver, running, other)  # broken: another server is a difference, shown without a key
    assert "-tacacs-server host 192.0.2.5 vrf MGMT key 7 FT-SECRET[sha256-hmac:" in diff
    assert TYPE7 not in diff and SECRET not in diff
    config_secret_set(reference=REFERENCE, clear="rotated-Key-43")  # broken: the device runs the old key
    diff = _compared_diff(driver, running, intended)
    assert "key 7 FT-SECRET[sha256-hmac:" in diff and TYPE7 not in diff and "rotated-Key-43" not in diff


@pytest.mark.django_db
def test_sonic_planned_diff_sees_no_difference_between_the_devices_passkey_and_the_marker():
    config_secret_set(reference=REFERENCE, clear=SECRET)
    driver = NetmikoSonicDriver("leaf2", "192.0.2.12", "admin", "s3cret-Pa55")
    resolved = copy.deepcopy(SONIC_AAA)
    resolved["TACPLUS"]["global"]["passkey"] = SECRET
    running = _sonic_files({**copy.deepcopy(SONIC_RUNNING), **resolved})
    assert _compared_diff(driver, running, _sonic_files({**copy.deepcopy(SONIC_RUNNING), **SONIC_AAA})) == ""
    without = _sonic_files(copy.deepcopy(SONIC_RUNNING))  # broken: the device lacks AAA: the diff adds it, masked
    diff = _compared_diff(driver, without, _sonic_files({**copy.deepcopy(SONIC_RUNNING), **SONIC_AAA}))
    assert '"path": "/TACPLUS"' in diff and SECRET not in diff


def test_key_rotation_reencrypts_config_secrets(monkeypatch):
    from cryptography.fernet import Fernet, InvalidToken

    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    monkeypatch.setenv("FT_CREDENTIAL_KEY", old)
    config_secret_set(reference=REFERENCE, clear=SECRET)
    monkeypatch.setenv("FT_CREDENTIAL_KEY", new)  # broken order: the new key alone cannot open it
    with pytest.raises(CommandError, match="config secret 'vault:secret/fabric/tacacs' cannot be decrypted"):
        call_command("credential_key_rotate", stdout=io.StringIO())
    monkeypatch.setenv("FT_CREDENTIAL_KEY", f"{new},{old}")
    call_command("credential_key_rotate", stdout=io.StringIO())
    token = ConfigSecret.objects.get(reference=REFERENCE).value_encrypted.encode()
    with pytest.raises(InvalidToken):
        Fernet(old.encode()).decrypt(token)
    monkeypatch.setenv("FT_CREDENTIAL_KEY", new)
    resolved = secret_refs_resolve({"config_db.json": MARKER}, device="leaf2", platform="sonic")
    assert resolved == {"config_db.json": SECRET}
