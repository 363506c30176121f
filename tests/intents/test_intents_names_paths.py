"""Names at the Django boundary: model validation and the API refuse hostile names (400 naming the field), compile
output and archives never leave their root whatever a stored row holds, and a rollout's target_version is a
version, not a command."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient
from twin_rows import twin_row

from changes import services as change_services
from common.tokens import token_issue
from compiler import names
from compiler.errors import InputError, IntentValidationError, UnsafePathError
from intents import services
from intents.models import DeviceConfig, FabricIntent, Tenant
from inventory.models import Switch

HOSTILE_NAMES = ["leaf1\n", "a\nb", "e\n ip address 198.51.100.1/32", "x\x00y", "a\u2028b", "a\x85b", "../x",
                 "/etc/passwd", "a/b", "..", "x" * 300]


@pytest.fixture
def admin_api(db, django_user_model):
    user = django_user_model.objects.create_user(username="names-admin", password="x")
    user.groups.add(Group.objects.get_or_create(name="admin")[0])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user)[0]}")
    return client


@pytest.mark.parametrize("value", HOSTILE_NAMES, ids=repr)
def test_api_refuses_hostile_hostname_with_400_naming_the_field(admin_api, fabric, value):
    switch = Switch.objects.filter(fabric=fabric).first()
    response = admin_api.patch(f"/api/switches/{switch.pk}/", {"hostname": value}, format="json")
    switch.refresh_from_db()
    if response.status_code == 200:  # DRF trims surrounding white space: "leaf1\n" is stored as "leaf1"
        assert switch.hostname == value.strip() and names.name_problem(names.HOSTNAME, switch.hostname) is None
        return
    assert response.status_code == 400, (response.status_code, response.content[:300])
    assert "hostname" in response.json()
    assert switch.hostname != value


@pytest.mark.parametrize("value", HOSTILE_NAMES, ids=repr)
def test_api_refuses_hostile_vrf_and_intent_names(admin_api, fabric_intent, value):
    tenant = Tenant.objects.get(fabric_intent=fabric_intent, name="A")
    for url, field in ((f"/api/tenants/{tenant.pk}/", "vrf"), (f"/api/fabric-intents/{fabric_intent.pk}/", "name")):
        response = admin_api.patch(url, {field: value}, format="json")
        if response.status_code == 200:  # trimmed by DRF to a valid name, never stored as sent
            assert response.json()[field] == value.strip() != value
            continue
        assert response.status_code == 400 and field in response.json(), response.content[:300]
    # (compared in Python: PostgreSQL refuses even to compare with a NUL)
    assert value not in set(FabricIntent.objects.values_list("name", flat=True))
    assert value not in set(Tenant.objects.values_list("vrf", flat=True))


def test_api_accepts_a_valid_rename(admin_api, fabric):
    switch = Switch.objects.filter(fabric=fabric, hostname="leaf1").get()
    response = admin_api.patch(f"/api/switches/{switch.pk}/", {"hostname": "leaf1.dc1"}, format="json")
    assert response.status_code == 200, response.content[:300]


def test_reserved_vrf_is_refused_by_the_model(fabric_intent):
    with pytest.raises((IntentValidationError, ValidationError), match="reserved"):
        services.tenant_create(fabric_intent=fabric_intent, name="B", vrf="default")


# --------------------------------------------------------------------------------------------- compile output


@pytest.fixture
def run(fabric_intent):
    run = services.compile_run_create(fabric_intent=fabric_intent, platforms=["eos"])
    assert run.status == "succeeded", run.error
    return run


def test_compile_output_and_archives_stay_inside(run, tmp_path):
    written = services.compile_run_write(run=run, out_dir=tmp_path)
    assert written and all(path.is_relative_to(tmp_path.resolve()) for path in written)
    for kind in ("tar.gz", "zip"):
        buffer, _ = services.compile_run_archive(run=run, kind=kind)
        if kind == "zip":
            members = zipfile.ZipFile(buffer).namelist()
        else:
            members = tarfile.open(fileobj=buffer, mode="r:gz").getnames()
        assert members and all(not m.startswith("/") and ".." not in m.split("/") for m in members)


# (what a stored row holds, how to plant it)
ESCAPES = [
    ("intent ../../x", lambda run: FabricIntent.objects.filter(pk=run.fabric_intent_id).update(name="../../x")),
    ("intent /abs", lambda run: FabricIntent.objects.filter(pk=run.fabric_intent_id).update(name="/tmp/abs")),
    ("hostname /etc", lambda run: DeviceConfig.objects.filter(run=run, hostname="leaf1").update(hostname="/etc")),
    ("hostname ..", lambda run: DeviceConfig.objects.filter(run=run, hostname="leaf1").update(hostname="..")),
    ("hostname a/../../b", lambda run: DeviceConfig.objects.filter(run=run, hostname="leaf1")
     .update(hostname="a/../../b")),
    ("hostname newline", lambda run: DeviceConfig.objects.filter(run=run, hostname="leaf1").update(hostname="x\ny")),
    ("file ../../x", lambda run: DeviceConfig.objects.filter(run=run, hostname="leaf1")
     .update(files={"../../x": "owned"})),
    ("file /abs", lambda run: DeviceConfig.objects.filter(run=run, hostname="leaf1").update(files={"/tmp/x": "x"})),
    ("unicode separator", lambda run: DeviceConfig.objects.filter(run=run, hostname="leaf1")
     .update(hostname="leaf\u2028x")),
]


@pytest.mark.parametrize("plant", [e[1] for e in ESCAPES], ids=[e[0] for e in ESCAPES])
def test_stored_rows_cannot_escape_the_output_root(run, tmp_path, plant):
    plant(run)
    run.refresh_from_db()
    root = tmp_path / "out"
    root.mkdir()
    with pytest.raises(UnsafePathError):
        services.compile_run_write(run=run, out_dir=root)
    outside = {p for p in tmp_path.rglob("*") if not p.is_relative_to(root)}
    assert outside == set(), outside
    for kind in ("tar.gz", "zip"):
        with pytest.raises(UnsafePathError):
            services.compile_run_archive(run=run, kind=kind)


def test_archive_api_answers_400_not_500_for_an_escaping_row(admin_api, run):
    DeviceConfig.objects.filter(run=run, hostname="leaf1").update(hostname="../../evil")
    response = admin_api.get(f"/api/compile-runs/{run.pk}/archive/")
    assert response.status_code == 400, response.status_code
    assert "hostname" in response.json()


def test_symlink_under_the_output_root_is_refused(run, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "out"
    root.mkdir()
    (root / "ref-intent").symlink_to(outside)
    with pytest.raises(UnsafePathError, match="outside"):
        services.compile_run_write(run=run, out_dir=root)
    assert list(outside.iterdir()) == []


def test_deliberately_broken_writer_would_escape(run, tmp_path):
    """Without compiler.paths the stored name alone decides the path: the cases above can fail."""
    FabricIntent.objects.filter(pk=run.fabric_intent_id).update(name="../escaped")
    run.refresh_from_db()
    naive = tmp_path / "out" / run.fabric_intent.name / "leaf1"
    assert not naive.resolve().is_relative_to((tmp_path / "out").resolve())


# --------------------------------------------------------------------------------------------- rollouts

TOPOLOGY = {"roles": {"spine1": "spine", "leaf1": "leaf"}, "links": [["leaf1", "spine1"]]}


@pytest.mark.parametrize("version", ["4.1\nreload now", "4.1\r\nreload", "4.1\x00", "4.1;reload", "$(reboot)",
                                     "4.1 \n", "\u20284.1"], ids=repr)
def test_target_version_must_be_a_version(db, version):
    with pytest.raises(InputError) as caught:
        change_services.rollout_create(name="up", kind="rolling_upgrade", target="production",
                                       policy={"target_version": version}, topology=TOPOLOGY)
    assert any(e.field == "policy.target_version" and e.value == version for e in caught.value.errors)


def test_target_version_valid_is_accepted(db):
    rollout = change_services.rollout_create(name="up", kind="rolling_upgrade", target="twin", twin=twin_row(),
                                             policy={"target_version": "4.33.2F"}, topology=TOPOLOGY)
    assert rollout.policy["target_version"] == "4.33.2F"


def test_rollout_policy_hostnames_obey_the_grammar(db):
    with pytest.raises(InputError) as caught:
        change_services.rollout_create(name="x", kind="canary_push", target="twin", twin=twin_row(),
                                       policy={"devices": ["leaf1\nhostname x"]}, topology=TOPOLOGY)
    assert any(e.field == "policy.devices" for e in caught.value.errors)


def test_archive_stream_is_readable(run):
    buffer, name = services.compile_run_archive(run=run, kind="tar.gz")
    assert name == f"ref-intent-run{run.pk}.tar.gz"
    assert tarfile.open(fileobj=io.BytesIO(buffer.read()), mode="r:gz").getnames()


# --------------------------------------------------------------------------------------------- intent YAML import

INTENT_YAML = {
    "intent": {
        "name": "lab", "inventory_fabric": "ref",
        "tenants": [{"name": "A", "vrf": "TENANT_A"}],
        "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/24",
                      "gateway": "10.10.0.1"}],
        "roce_classes": [{"name": "roce", "dscp": [26], "priority": 3, "traffic_class": 3, "lossless": True}],
    },
}
INTENT_CASES = [(path, value) for path in (("name",), ("tenants", 0, "name"), ("tenants", 0, "vrf"),
                                           ("networks", 0, "name"), ("roce_classes", 0, "name"))
                for value in ["a\nb", "x\n", "x\x00y", "a\u2028b", "../x", "/abs", "a/b", "x" * 300]]
INTENT_CASES += [(("tenants", 0, "vrf"), "default"), (("tenants", 0, "vrf"), "mgmt")]


@pytest.mark.parametrize("path, value", INTENT_CASES, ids=[f"{'.'.join(map(str, p))}={v!r}"[:60]
                                                          for p, v in INTENT_CASES])
def test_intent_yaml_import_refuses_hostile_names(fabric, tmp_path, path, value):
    import copy

    import yaml
    from django.core.management import call_command
    from django.core.management.base import CommandError

    data = copy.deepcopy(INTENT_YAML)
    target = data["intent"]
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    source = tmp_path / "intent.yaml"
    source.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command("intent_apply", str(source), stdout=io.StringIO(), stderr=io.StringIO())
    message = str(caught.value)
    assert path[-1] in message, message
    assert not FabricIntent.objects.exists() and not Tenant.objects.exists()


def test_intent_yaml_import_accepts_the_valid_document(fabric, tmp_path):
    import yaml
    from django.core.management import call_command

    source = tmp_path / "intent.yaml"
    source.write_text(yaml.safe_dump(INTENT_YAML), encoding="utf-8")
    call_command("intent_apply", str(source), stdout=io.StringIO())
    assert FabricIntent.objects.filter(name="lab").exists()


@pytest.mark.parametrize("name", ["%K", "100%", "%(value)s", "%%"])
def test_a_percent_sign_in_a_refused_name_is_a_400_not_a_500(admin_api, fabric_intent, name):
    """Found by schemathesis: Django formats a ValidationError's message with ``%``, so a value placed in the
    format string made the error itself fail (common/names.py passes it as a parameter)."""
    response = admin_api.post("/api/tenants/", {"fabric_intent": fabric_intent.pk, "name": name, "vrf": "V1"},
                              format="json")
    assert response.status_code == 400 and name in response.json()["name"][0], response.json()


def test_broken_a_value_in_the_format_string_is_a_server_error(monkeypatch):
    """Deliberately broken: the old message (value inside the format string) cannot even be rendered."""
    from django.core.exceptions import ValidationError
    from rest_framework.fields import get_error_detail

    error = ValidationError("'%K' must be letters", code="invalid_name", params={"value": "%K"})
    with pytest.raises(ValueError):
        get_error_detail(error)
