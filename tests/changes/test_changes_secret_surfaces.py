"""Every secret shape of every platform, read back from a device, reaches no surface (issue 29): drift records,
/api/drift/ and /drift/, ``manage.py drift``, change-set diffs and /api/change-sets/, post-push verification (the
rollout verify step's output), rollout push steps (the device's diff) with /api/rollouts/ and the rollout page, and
config validation uploads, seen as viewer, operator and admin. A changed secret
is still drift (keyed hashes), an unchanged one is not."""

from __future__ import annotations

import importlib
import json
import logging
from io import StringIO
from pathlib import Path

import pytest
from changes_memory_fabric import MemoryDevice, MemoryFabric
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from changes import drift
from changes.credentials import config_secret_set, credentials_reencrypt, eos_type7, running_files_open
from changes.drivers.base import DeviceDriver, config_diff
from changes.drivers.netmiko_sonic import patch_text
from changes.models import ChangeSet, ChangeSetDevice, DriftRecord, Rollout, Step
from changes.pipelines.runner import rollout_execute
from changes.services import changeset_create, rollout_approve, rollout_create, rollout_start
from common.redaction import RedactSecretsFilter
from common.roles import ADMIN, OPERATOR, VIEWER, roles_ensure
from compiler.secret_redaction import files_secrets_redacted, type7_decoded

pytestmark = pytest.mark.django_db

RENDERED = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected" / "rendered"
# type 7 of "Ntp-Key-0007" (salt 2) and of "Bgp-Pass-77" (salt 9): EOS shows these, they decode to the clear value
NTP_TYPE7 = "02" + "".join(f"{ord(c) ^ ord('dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87'[(2 + i) % 53]):02X}"
                           for i, c in enumerate("Ntp-Key-0007"))
BGP_TYPE7 = "09" + "".join(f"{ord(c) ^ ord('dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87'[(9 + i) % 53]):02X}"
                           for i, c in enumerate("Bgp-Pass-77"))
EOS_SECRETS = {
    "username admin privilege 15 role network-admin secret sha512 $6$Adm1nHash$Qx9": "$6$Adm1nHash$Qx9",
    "enable password sha512 $6$En4bleHash$Zz1": "$6$En4bleHash$Zz1",
    "tacacs-server host 192.0.2.5 vrf MGMT key 7 0822455D0A16544541": "0822455D0A16544541",
    "radius-server host 192.0.2.6 key 0 Radius-Clear-9": "Radius-Clear-9",
    "snmp-server community Snmp-Comm-RO ro": "Snmp-Comm-RO",
    "snmp-server host 192.0.2.9 vrf MGMT version 2c Snmp-Trap-Comm": "Snmp-Trap-Comm",
    "aaa root secret sha512 $6$RootHash$Rr7": "$6$RootHash$Rr7",
    "snmp-server user ops ops-group v3 auth sha Auth-Pass-3 priv aes Priv-Pass-4": "Auth-Pass-3",
    f"ntp authentication-key 1 md5 7 {NTP_TYPE7}": NTP_TYPE7,
}
EOS_INDENTED = {  # lines inside router bgp / interface / router isis blocks
    f"   neighbor 10.0.0.1 password 7 {BGP_TYPE7}": BGP_TYPE7,
    "   isis authentication key 0 Isis-Key-5": "Isis-Key-5",
    "   ip ospf message-digest-key 1 md5 0 Ospf-Md5-6": "Ospf-Md5-6",
}
FRR_SECRETS = {
    " neighbor 10.0.0.3 password Frr-Bgp-Pass": "Frr-Bgp-Pass",
    " ip ospf message-digest-key 1 md5 Frr-Ospf-Key": "Frr-Ospf-Key",
    " isis password md5 Frr-Isis-Pass": "Frr-Isis-Pass",
    "password Vtysh-Pass-1": "Vtysh-Pass-1",
}
SONIC_SECRETS = {
    ("TACPLUS", "global", "passkey"): "Sonic-Tac-Key",
    ("RADIUS", "global", "passkey"): "Sonic-Rad-Key",
    ("BGP_NEIGHBOR", "10.0.0.5", "password"): "Sonic-Bgp-Pass",
    ("DEVICE_METADATA", "localhost", "admin_password"): "Sonic-Admin-Pw",
}
SONIC_COMMUNITY = "Sonic-Snmp-Comm"
CLEAR = ["Ntp-Key-0007", "Bgp-Pass-77", "Tacacs-Key-42"]  # what the type-7 values decode to


def forbidden() -> list[str]:
    values = [*EOS_SECRETS.values(), *EOS_INDENTED.values(), *FRR_SECRETS.values(), *SONIC_SECRETS.values(),
              SONIC_COMMUNITY, "Priv-Pass-4", *CLEAR]
    return [value for value in values if len(value) >= 6]


def eos_running(intended: str, *, bgp_type7: str = BGP_TYPE7) -> str:
    extra = "\n".join(EOS_SECRETS) + "\n"
    block = "router bgp 65000\n" + "\n".join(line.replace(BGP_TYPE7, bgp_type7) for line in EOS_INDENTED) + "\n"
    return intended.replace("end\n", extra + block + "end\n")


def sonic_running(config_db: str, frr: str) -> dict[str, str]:
    document = json.loads(config_db)
    for (table, key, field), value in SONIC_SECRETS.items():
        document.setdefault(table, {}).setdefault(key, {})[field] = value
    document["SNMP_COMMUNITY"] = {SONIC_COMMUNITY: {"TYPE": "RO"}}
    return {"config_db.json": json.dumps(document, indent=4, sort_keys=True) + "\n",
            "frr.conf": frr + "\n".join(FRR_SECRETS) + "\n"}


class FixedDriver(DeviceDriver):
    """A device that runs a fixed config (no connection): the base driver's offline logic on it."""

    def __init__(self, hostname: str, running: dict[str, str]):
        self.hostname, self.running = hostname, running

    def get_running_config(self):
        return dict(self.running)

    def _unused(self, *args, **kwargs):
        raise AssertionError("not part of reading a device")

    load_candidate = compare = commit = discard = rollback = drain = undrain = is_drained = _unused
    install_image = reboot = health = _unused


FixedDriver.__abstractmethods__ = frozenset()


@pytest.fixture
def fabric():
    intended = {"leaf1": {path.name: path.read_text() for path in (RENDERED / "leaf1" / "eos").iterdir()},
                "leaf2": {path.name: path.read_text() for path in (RENDERED / "leaf2" / "sonic").iterdir()}}
    running = {"leaf1": {"startup-config": eos_running(intended["leaf1"]["startup-config"])},
               "leaf2": sonic_running(intended["leaf2"]["config_db.json"], intended["leaf2"]["frr.conf"])}
    return intended, running


def clients() -> dict[str, Client]:
    roles_ensure()
    out = {}
    for role in (VIEWER, OPERATOR, ADMIN):
        user = User.objects.create_user(f"{role}-user")
        user.groups.set([Group.objects.get(name=role)])
        client = Client()
        client.force_login(user)
        out[role] = client
    return out


def leaks(text: str) -> list[str]:
    return [value for value in forbidden() if value in text]


def test_the_redaction_knows_every_shape():
    """Each shape alone is replaced by a marker; the deliberately broken case: an unknown keyword is left alone."""
    key = b"k" * 32
    for line, value in {**EOS_SECRETS, **EOS_INDENTED, **FRR_SECRETS}.items():
        shown = files_secrets_redacted({"c": line + "\n"}, key=key)["c"]
        assert value not in shown and "FT-SECRET[sha256-hmac:" in shown, line
    assert files_secrets_redacted({"c": "description Not-A-Secret\n"}, key=key)["c"] == "description Not-A-Secret\n"
    assert type7_decoded(BGP_TYPE7) == "Bgp-Pass-77" and type7_decoded(NTP_TYPE7) == "Ntp-Key-0007"


def test_no_secret_reaches_drift_change_sets_verification_or_uploads(fabric, api_client):
    intended, running = fabric
    drivers = {host: (lambda host=host: FixedDriver(host, running[host])) for host in intended}
    records = drift.drift_check(hostnames_drivers=drivers, intended=intended)
    assert all(record.drifted for record in records)  # the device carries lines the intent does not
    stored = json.dumps([{"diff": r.diff, "differences": r.differences, "remediation": r.remediation,
                          "error": r.error} for r in records])
    assert "FT-SECRET[sha256-hmac:" in stored and leaks(stored) == []

    out = StringIO()
    call_command("drift", stdout=out)
    assert "leaf1" in out.getvalue() and leaks(out.getvalue()) == []

    change_set = changeset_create(name="cs", intended={host: {"files": files, "platform": "eos" if host == "leaf1"
                                                               else "sonic"} for host, files in intended.items()},
                                  driver_for=lambda host: FixedDriver(host, running[host]))
    diffs = "".join(change_set.devices.values_list("diff", flat=True))
    assert "FT-SECRET[sha256-hmac:" in diffs and leaks(diffs) == []
    # the rollback copy: sealed at rest, the device's own config (secrets included) for the driver only
    row = change_set.devices.get(hostname="leaf1")
    assert leaks(json.dumps(row.running_files)) == [] and set(row.running_files) == {"$fernet"}
    assert running_files_open(row.running_files) == running["leaf1"]
    assert credentials_reencrypt() >= 2 and running_files_open(ChangeSetDevice.objects.get(pk=row.pk)
                                                               .running_files) == running["leaf1"]

    for host in intended:
        differences, _ = drift.push_verify(hostname=host, driver=FixedDriver(host, running[host]),
                                           pushed=intended[host])
        text = "\n".join(str(item.as_dict()) for item in differences)  # the verify step's output
        assert leaks(text) == [], host

    for role, client in clients().items():
        for url in ("/api/drift/", "/drift/", "/drift/?host=leaf1", "/drift/?host=leaf2", "/api/change-sets/",
                    f"/api/change-sets/{change_set.pk}/"):
            response = client.get(url)
            assert response.status_code == 200, (role, url)
            assert leaks(response.content.decode()) == [], (role, url)
            if url != "/api/change-sets/":  # the list is brief; the others show the diff: markers, not values
                assert "FT-SECRET[sha256-hmac:" in response.content.decode(), (role, url)
        if role != VIEWER:
            files = [SimpleUploadedFile("leaf1.cfg", running["leaf1"]["startup-config"].encode()),
                     SimpleUploadedFile("frr.conf", running["leaf2"]["frr.conf"].encode())]
            response = client.post("/api/validation-runs/configs/", {"files": files})
            assert response.status_code == 200, (role, response.content[:300])
            assert leaks(response.content.decode()) == [], role
            assert "FT-SECRET[sha256-hmac:" in response.content.decode(), role  # unmodelled lines quote markers


def test_a_changed_secret_is_drift_an_unchanged_one_is_not(fabric):
    intended, running = fabric
    intended = {"leaf1": {"startup-config": eos_running(intended["leaf1"]["startup-config"])}}
    same = FixedDriver("leaf1", {"startup-config": eos_running(RENDERED.joinpath("leaf1/eos/startup-config")
                                                               .read_text())})
    # the same BGP password under another type-7 salt: equal after decoding, no drift
    other_salt = "0" + str(int(BGP_TYPE7[:2]) - 1) + "".join(
        f"{ord(c) ^ ord('dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87'[(8 + i) % 53]):02X}"
        for i, c in enumerate("Bgp-Pass-77"))
    resalted = FixedDriver("leaf1", {"startup-config": eos_running(
        RENDERED.joinpath("leaf1/eos/startup-config").read_text(), bgp_type7=other_salt)})
    changed_value = "09" + "".join(f"{ord(c) ^ ord('dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87'[(9 + i) % 53]):02X}"
                                   for i, c in enumerate("Bgp-Pass-78"))
    changed = FixedDriver("leaf1", {"startup-config": eos_running(
        RENDERED.joinpath("leaf1/eos/startup-config").read_text(), bgp_type7=changed_value)})
    results = {}
    for name, driver in (("same", same), ("resalted", resalted), ("changed", changed)):
        [record] = drift.drift_check(hostnames_drivers={"leaf1": lambda driver=driver: driver}, intended=intended)
        results[name] = record
    assert not results["same"].drifted and not results["resalted"].drifted
    assert results["changed"].drifted and "neighbor 10.0.0.1 password 7 FT-SECRET[sha256-hmac:" in results["changed"].diff
    assert "Bgp-Pass-78" not in results["changed"].diff and changed_value not in results["changed"].diff


class DiffingDevice(MemoryDevice):
    """The in-memory device whose compare() answers as EOS does: the unified diff of the session, device lines
    (and their secrets) included."""

    def compare(self) -> str:
        return config_diff(self.fabric.configs[self.hostname], self._candidate or {})


def test_no_device_secret_reaches_rollout_steps_or_pages(db):
    fabric = MemoryFabric(["leaf1", "leaf2", "spine1"])
    device_lines = "\n".join([*EOS_SECRETS, *(line.strip() for line in EOS_INDENTED), *FRR_SECRETS]) + "\n"
    fabric.configs["leaf1"] = {"config": "hostname leaf1\n" + device_lines}  # the push removes these lines
    intended = {host: {"files": {"config": f"hostname {host}\n" + ("vlan 30\n" if host == "leaf1" else "")},
                       "role": "spine" if host.startswith("spine") else "leaf", "driver": "twin"}
                for host in fabric.configs}
    change_set = changeset_create(name="push", intended=intended, driver_for=lambda host: DiffingDevice(fabric, host))
    admin = User.objects.create_user("approver")
    admin.groups.add(Group.objects.get_or_create(name="admin")[0])
    submitter = User.objects.create_user("submitter")
    rollout = rollout_create(name="r", kind="canary_push", target="production", change_set=change_set,
                             policy={"checks": ["health"], "soak_s": 0, "wave_size": 2, "converge_timeout_s": 1},
                             user=submitter)
    rollout_approve(rollout=rollout, user=admin)
    rollout = rollout_start(rollout=rollout, user=admin, enqueue=False)
    rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=lambda host: DiffingDevice(fabric, host))
    outputs = "\n".join(Step.objects.filter(rollout=rollout).values_list("output", flat=True))
    assert "-snmp-server community FT-SECRET[sha256-hmac:" in outputs  # the push's diff, secrets as markers
    assert leaks(outputs) == []
    for role, client in clients().items():
        for url in (f"/api/rollouts/{rollout.pk}/", f"/rollouts/{rollout.pk}/", f"/api/change-sets/{change_set.pk}/"):
            response = client.get(url)
            assert response.status_code == 200, (role, url)
            assert leaks(response.content.decode()) == [], (role, url)


def test_a_logged_device_error_quoting_a_config_line_shows_a_marker(caplog):
    record = logging.LogRecord("changes", logging.ERROR, __file__, 1, "leaf1: commit failed at line: %s",
                               (" neighbor 10.0.0.1 password 7 " + BGP_TYPE7,), None)
    RedactSecretsFilter().filter(record)
    assert BGP_TYPE7 not in record.getMessage() and "FT-SECRET[sha256-hmac:" in record.getMessage()


def test_sonic_patch_text_shows_no_community_key_or_password():
    """The JSON Patch shown as a SONiC push step's output and change-set diff: a community is an entry's key (in the
    path or in an added table), an NTP key a field named "value"."""
    patch = [{"op": "add", "path": "/SNMP_COMMUNITY", "value": {SONIC_COMMUNITY: {"TYPE": "RO"}}},
             {"op": "remove", "path": f"/SNMP_COMMUNITY/{SONIC_COMMUNITY}"},
             {"op": "add", "path": "/NTP_KEY/1", "value": {"type": "md5", "value": "Ntp-Value-9"}},
             {"op": "replace", "path": "/BGP_NEIGHBOR/10.0.0.5/password", "value": "Sonic-Bgp-Pass"},
             {"op": "add", "path": "/TACPLUS/global", "value": {"passkey": "Sonic-Tac-Key", "timeout": "5"}}]
    text = patch_text(patch)
    assert leaks(text) == [] and "Ntp-Value-9" not in text
    assert '"timeout": "5"' in text and '"path": "/SNMP_COMMUNITY/FT-SECRET[sha256-hmac:' in text


def test_records_written_before_are_redacted_by_the_migration(fabric):
    """Migration 0007 rewrites what earlier versions stored: drift, change-set diffs, step output, the rollback
    copy (sealed); records already redacted stay as they are."""
    from django.apps import apps

    migration = importlib.import_module("changes.migrations.0007_device_secrets_redacted")
    intended, running = fabric
    eos = running["leaf1"]["startup-config"]
    old_diff = "".join(f"-{line}\n" for line in [*EOS_SECRETS, *EOS_INDENTED])
    record = DriftRecord.objects.create(hostname="leaf1", drifted=True, diff=old_diff,
                                        differences=[{"path": "unmodelled", "running": [*EOS_SECRETS]}],
                                        remediation={"platform": "sonic", "cli": [*FRR_SECRETS], "notes": [],
                                                     "config_db_patch": [{"op": "add", "path": "/SNMP_COMMUNITY",
                                                                          "value": {SONIC_COMMUNITY: {}}}]})
    change_set = ChangeSet.objects.create(name="old")
    row = ChangeSetDevice.objects.create(change_set=change_set, hostname="leaf1", diff=old_diff,
                                         running_files={"startup-config": eos}, has_diff=True)
    rollout = Rollout.objects.create(name="old", change_set=change_set)
    step = Step.objects.create(rollout=rollout, device="leaf1", phase="push", output=old_diff,
                               detail={"differences": [{"running": " ".join(FRR_SECRETS)}]})
    stored = lambda: json.dumps([list(DriftRecord.objects.filter(pk=record.pk).values())[0],  # noqa: E731
                                 list(ChangeSetDevice.objects.filter(pk=row.pk).values())[0],
                                 list(Step.objects.filter(pk=step.pk).values())[0]], default=str)
    assert leaks(stored())  # the deliberately broken state: what an earlier version wrote
    migration.redact_records(apps, None)
    assert leaks(stored()) == [] and "FT-SECRET[sha256-hmac:" in stored()
    assert running_files_open(ChangeSetDevice.objects.get(pk=row.pk).running_files) == {"startup-config": eos}
    once = stored()
    migration.redact_records(apps, None)
    assert stored() == once


def test_a_rotated_reference_is_drift_and_neither_key_is_shown():
    """Intended configs name the TACACS+ key by reference: resolved from the credential store and compared by keyed
    hash with the device's type-7 key. Same key: no drift; the store rotated (the device still runs the old key):
    drift, shown as two markers."""
    reference, marker = "vault:secret/golden/tacacs", "FT-SECRET[vault:secret/golden/tacacs]"
    intended = {"leaf1": {"startup-config": RENDERED.joinpath("leaf1/eos/startup-config").read_text()}}
    assert marker in intended["leaf1"]["startup-config"]
    device = FixedDriver("leaf1", {"startup-config": intended["leaf1"]["startup-config"].replace(
        marker, eos_type7("Golden-Tac-1", salt=5))})
    config_secret_set(reference=reference, clear="Golden-Tac-1")
    [same] = drift.drift_check(hostnames_drivers={"leaf1": lambda: device}, intended=intended)
    config_secret_set(reference=reference, clear="Golden-Tac-2")
    [rotated] = drift.drift_check(hostnames_drivers={"leaf1": lambda: device}, intended=intended)
    assert not same.drifted and rotated.drifted
    assert "tacacs-server" in rotated.diff and rotated.diff.count("FT-SECRET[sha256-hmac:") >= 2
    shown = json.dumps([rotated.diff, rotated.differences, rotated.remediation])
    assert "Golden-Tac" not in shown and eos_type7("Golden-Tac-1", salt=5) not in shown
