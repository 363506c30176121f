"""Hostile inputs to the YAML and NetBox importers: every one is refused with ``file: field: value: reason`` lines,
a non-zero exit (CommandError) and nothing saved; never a traceback.

The YAML cases mutate one field of a valid export (names with line breaks / path parts, out-of-range or wrongly
typed numbers, unknown choices) plus structural junk; the NetBox cases do the same to the fixture dump.
"""

from __future__ import annotations

import copy
import io
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from compiler.clos import ClosParams, plan_clos
from inventory.io_yaml import inventory_to_dict
from inventory.models import Cable, Fabric, Interface, Rack, Server, Site, Switch, SwitchModel

NETBOX_FIXTURE = Path(__file__).parent / "fixtures" / "netbox"

LINE_BREAKING = ["a\nb", "leaf9\n", "a\r\nb", "x\x00y", "a\u2028b", "a\x85b", "e\n ip address 198.51.100.1/32"]
PATHS = ["../x", "/etc/passwd", "a/b", "..", "\u202eevil", "x" * 300]
# YAML itself reads U+0085 (NEL) as a line break and folds it to a space, so in a text field it arrives harmless.
YAML_TEXT_BREAKING = [value for value in LINE_BREAKING if value != "a\x85b"]
NUMBERS_INT = [-1, 2**63, float("nan"), float("inf"), "12", True, [1], {"a": 1}]
NUMBERS_FLOAT = [-1.0, float("nan"), float("inf"), "12", True, [1]]


def _base_document() -> dict:
    inventory = plan_clos(ClosParams(name="hostile", spines=2, leaves=2, servers_per_leaf=1))
    return inventory_to_dict(inventory, site="dc1", description="")


BASE = _base_document()

# (field path in the document, values that must be refused)
NAME_FIELDS = [
    (("switches", 0, "hostname"), LINE_BREAKING + PATHS),
    (("switches", 0, "interfaces", 0, "name"), LINE_BREAKING + ["../x", "/etc", "..", "\u202eevil", "x" * 300]),
    (("switches", 0, "interfaces", 0, "description"), YAML_TEXT_BREAKING + ["x" * 300]),
    (("switches", 0, "os_version"), YAML_TEXT_BREAKING + PATHS),
    (("switches", 0, "serial"), YAML_TEXT_BREAKING),
    (("servers", 0, "name"), LINE_BREAKING + PATHS),
    (("servers", 0, "nics", 0, "name"), LINE_BREAKING + PATHS),
    (("racks", 0, "name"), LINE_BREAKING + PATHS),
    (("switch_models", 0, "name"), LINE_BREAKING + PATHS),
    (("cables", 0, "label"), YAML_TEXT_BREAKING + ["x" * 300]),
    (("fabric", "name"), LINE_BREAKING + PATHS),
    (("fabric", "description"), YAML_TEXT_BREAKING),
    (("fabric", "site"), LINE_BREAKING + PATHS),
]
NUMBER_FIELDS = [
    (("switches", 0, "interfaces", 0, "speed_gbps"), NUMBERS_INT),
    (("switches", 0, "interfaces", 0, "mtu"), NUMBERS_INT),
    (("switches", 0, "u_position"), NUMBERS_INT),
    (("servers", 0, "gpu_count"), NUMBERS_INT),
    (("servers", 0, "nics", 0, "rail"), NUMBERS_INT),
    (("racks", 0, "height_u"), NUMBERS_INT),
    (("switch_models", 0, "port_count"), NUMBERS_INT),
    (("cables", 0, "length_m"), NUMBERS_FLOAT),
    (("servers", 0, "power_w"), NUMBERS_FLOAT),
]
CHOICE_FIELDS = [
    (("switches", 0, "role"), ["boss", "leaf\n", ""]),
    (("switches", 0, "platform"), ["ios", "eos\n"]),
    (("switches", 0, "model"), ["nope", "x\x00y", "../m"]),
    (("switches", 0, "rack"), ["nowhere", "x\x00y"]),
    (("switches", 0, "status"), ["on fire", "planned\n"]),
    (("cables", 0, "cable_type"), ["cat5", "dac\n"]),
    (("switches", 0, "mgmt_ip"), ["999.1.1.1", "10.0.0.1\n", "x"]),
    (("switch_models", 0, "breakout_modes"), [[1], [None], "4x100G"]),
]
YAML_CASES = [(path, value) for path, values in NAME_FIELDS + NUMBER_FIELDS + CHOICE_FIELDS for value in values]

STRUCTURAL_YAML = {
    "not a mapping": "- a\n- b\n",
    "scalar": "42\n",
    "invalid yaml": "switches: [\n",
    "tabs": "a:\n\tb: 1\n",
    "python tag": "!!python/object/apply:os.system ['true']\n",
    "wrong format": yaml.safe_dump({**BASE, "format": "other"}),
    "switches not a list": yaml.safe_dump({**BASE, "switches": {"a": 1}}),
    "switch not a mapping": yaml.safe_dump({**BASE, "switches": ["leaf1"]}),
    "interface not a mapping": yaml.safe_dump({**BASE, "switches": [{**BASE["switches"][0], "interfaces": [7]}]}),
    "missing hostname": yaml.safe_dump({**BASE, "switches": [{k: v for k, v in BASE["switches"][0].items()
                                                              if k != "hostname"}] + BASE["switches"][1:]}),
    "duplicate hostname": yaml.safe_dump({**BASE, "switches": BASE["switches"] + BASE["switches"][:1]}),
    "duplicate interface": yaml.safe_dump({**BASE, "switches": [
        {**BASE["switches"][0], "interfaces": BASE["switches"][0]["interfaces"] * 2}] + BASE["switches"][1:]}),
    "duplicate cable": yaml.safe_dump({**BASE, "cables": BASE["cables"] + BASE["cables"][:1]}),
    "cable to nowhere": yaml.safe_dump({**BASE, "cables": [{**BASE["cables"][0], "a": {"device": "ghost",
                                                                                      "interface": "x"}}]}),
    "deep nesting": "a: " + "[" * 5000 + "]" * 5000 + "\n",
    "unknown rack": yaml.safe_dump({**BASE, "switches": [{**BASE["switches"][0], "rack": "nowhere"}]
                                    + BASE["switches"][1:]}),
}


def _set(document: dict, path: tuple, value) -> dict:
    changed = copy.deepcopy(document)
    target = changed
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return changed


def _row_counts() -> dict:
    return {model.__name__: model.objects.count()
            for model in (Site, Fabric, Rack, SwitchModel, Switch, Interface, Server, Cable)}


def _assert_refused(command: str, args: list[str], source: str) -> str:
    before = _row_counts()
    with pytest.raises(CommandError) as caught:
        call_command(command, *args, stdout=io.StringIO(), stderr=io.StringIO())
    message = str(caught.value)
    assert message, "an error without a message"
    assert all(line.startswith(source) for line in message.splitlines()), message[:500]
    assert _row_counts() == before, "something was saved"
    return message


@pytest.mark.django_db
@pytest.mark.parametrize("path, value", YAML_CASES,
                         ids=[f"{'.'.join(map(str, p))}={v!r}"[:80] for p, v in YAML_CASES])
def test_yaml_import_refuses_hostile_field(tmp_path, path, value):
    file = tmp_path / "inventory.yaml"
    file.write_text(yaml.safe_dump(_set(BASE, path, value), allow_unicode=True), encoding="utf-8")
    message = _assert_refused("fabric_import", [str(file)], str(file))
    line = message.splitlines()[0]
    assert re.match(rf"{re.escape(str(file))}: .+: .+: .+", line), line  # file: field: value: reason
    assert any(part in message for part in path if isinstance(part, str)), message[:300]


@pytest.mark.django_db
@pytest.mark.parametrize("case", list(STRUCTURAL_YAML))
def test_yaml_import_refuses_structural_junk(tmp_path, case):
    file = tmp_path / "inventory.yaml"
    file.write_text(STRUCTURAL_YAML[case], encoding="utf-8")
    _assert_refused("fabric_import", [str(file)], str(file))


@pytest.mark.django_db
@pytest.mark.parametrize("content", [b"\xff\xfe\x00bad", b"fabric: \xc3\x28\n"], ids=["utf16-bom", "bad-utf8"])
def test_yaml_import_refuses_unreadable_bytes(tmp_path, content):
    file = tmp_path / "inventory.yaml"
    file.write_bytes(content)
    _assert_refused("fabric_import", [str(file)], str(file))


@pytest.mark.django_db
def test_yaml_import_of_a_missing_file_is_an_error(tmp_path):
    _assert_refused("fabric_import", [str(tmp_path / "nope.yaml")], str(tmp_path / "nope.yaml"))


@pytest.mark.django_db
def test_yaml_import_accepts_the_valid_document(tmp_path):
    """The base document imports: the refusals above come from the mutation, not from the document."""
    file = tmp_path / "inventory.yaml"
    file.write_text(yaml.safe_dump(BASE), encoding="utf-8")
    call_command("fabric_import", str(file), stdout=io.StringIO())
    assert Switch.objects.count() == 4


@pytest.mark.django_db
def test_deliberately_broken_check_would_save_a_newline(tmp_path, monkeypatch):
    """Without the grammar in inventory_persist the audit's hostname is saved: the cases above can fail."""
    import inventory.services as inventory_services

    monkeypatch.setattr(inventory_services, "inventory_name_errors", lambda inventory: [])
    monkeypatch.setattr(inventory_services, "inventory_field_errors", lambda inventory: [])
    file = tmp_path / "inventory.yaml"
    hostname = "leaf1\nhostname evil"
    document = _set(BASE, ("switches", 0, "hostname"), hostname)
    for cable in document["cables"]:
        for end in (cable["a"], cable["b"]):
            if end["device"] == BASE["switches"][0]["hostname"]:
                end["device"] = hostname
    file.write_text(yaml.safe_dump(document), encoding="utf-8")
    call_command("fabric_import", str(file), stdout=io.StringIO())
    assert Switch.objects.filter(hostname=hostname).exists()


# --------------------------------------------------------------------------------------------- NetBox


def _netbox_cases() -> list[tuple[str, int, tuple, object]]:
    """(file, record index, key path, value): one hostile value in one record of the fixture dump."""
    cases = []
    for value in LINE_BREAKING + PATHS:
        cases += [("devices", 0, ("name",), value), ("racks", 0, ("name",), value)]
        if value != "a/b":  # "Ethernet1/1": a "/" is valid in an interface name
            cases.append(("interfaces", 0, ("name",), value))
    for value in LINE_BREAKING + ["x" * 300]:
        cases += [("cables", 0, ("label",), value), ("devices", 0, ("serial",), value),
                  ("interfaces", 0, ("description",), value)]
    for value in [-1, 2**40, float("nan"), float("inf"), "abc", True, [1], {"a": 1}]:
        cases += [("devices", 0, ("position",), value), ("racks", 0, ("u_height",), value),
                  ("interfaces", 0, ("mtu",), value), ("cables", 0, ("length",), value),
                  ("racks", 0, ("custom_fields", "power_budget_kw"), value)]
    for value in ["spine", [1], None, 1.5]:
        cases += [("devices", 0, ("id",), value), ("interfaces", 0, ("id",), value)]
    for value in ["x", 7, [1]]:
        cases += [("devices", 0, ("role",), value), ("interfaces", 0, ("device",), value),
                  ("devices", 0, ("custom_fields",), value), ("cables", 0, ("a_terminations",), value)]
    cases += [("devices", 0, ("custom_fields", "os_version"), v) for v in LINE_BREAKING]
    cases += [("inventory-items", 0, ("custom_fields", "media"), v) for v in [[1], {"a": 1}]]
    return cases


NETBOX_CASES = _netbox_cases()


def _dump(tmp_path) -> Path:
    directory = tmp_path / "nb"
    shutil.copytree(NETBOX_FIXTURE, directory)
    return directory


def _records(directory: Path, endpoint: str) -> tuple[object, list]:
    document = json.loads((directory / f"{endpoint}.json").read_text())
    return document, document["results"] if isinstance(document, dict) else document


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint, index, key, value", NETBOX_CASES,
                         ids=[f"{e}[{i}].{'.'.join(k)}={v!r}"[:80] for e, i, k, v in NETBOX_CASES])
def test_netbox_import_refuses_hostile_field(tmp_path, endpoint, index, key, value):
    directory = _dump(tmp_path)
    document, records = _records(directory, endpoint)
    target = records[index]
    for part in key[:-1]:
        if not isinstance(target.get(part), dict):
            target[part] = {}
        target = target[part]
    target[key[-1]] = value
    (directory / f"{endpoint}.json").write_text(json.dumps(document), encoding="utf-8")
    message = _assert_refused("netbox_import", [str(directory), "--fabric", "nb"], str(directory))
    assert re.match(rf"{re.escape(str(directory))}\S*: .+: .+: .+", message.splitlines()[0]), message[:300]


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint, content", [
    ("devices", "{not json"), ("devices", "[" * 100000), ("racks", '{"results": 5}'), ("cables", "7"),
    ("interfaces", '[1, 2]'), ("inventory-items", '[["x"]]'),
])
def test_netbox_import_refuses_broken_files(tmp_path, endpoint, content):
    directory = _dump(tmp_path)
    (directory / f"{endpoint}.json").write_text(content)
    _assert_refused("netbox_import", [str(directory), "--fabric", "nb"], str(directory))


@pytest.mark.django_db
def test_netbox_import_refuses_non_utf8(tmp_path):
    directory = _dump(tmp_path)
    (directory / "devices.json").write_bytes(b"[\xff]")
    _assert_refused("netbox_import", [str(directory), "--fabric", "nb"], str(directory))


@pytest.mark.django_db
@pytest.mark.parametrize("fabric", ["../x", "a\nb", "/abs", ""], ids=repr)
def test_netbox_import_refuses_hostile_fabric_name(tmp_path, fabric):
    directory = _dump(tmp_path)
    _assert_refused("netbox_import", [str(directory), "--fabric", fabric], str(directory))


@pytest.mark.django_db
def test_netbox_decimal_position_as_string_is_read(tmp_path):
    """NetBox serialises decimal positions as strings ("10.0"): read, not a crash."""
    directory = _dump(tmp_path)
    document, records = _records(directory, "devices")
    for record in records:
        if record.get("position") is not None:
            record["position"] = f"{float(record['position']):.1f}"
    (directory / "devices.json").write_text(json.dumps(document))
    call_command("netbox_import", str(directory), "--fabric", "nb", stdout=io.StringIO())
    assert Switch.objects.count() == 4


def _leaf_paths(value, path=()) -> list[tuple]:
    """Every leaf of the document, the first item of each list standing for all of them."""
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _leaf_paths(item, path + (key,))]
    if isinstance(value, list) and value and isinstance(value[0], (dict, list)):
        return _leaf_paths(value[0], path + (0,))
    return [path]


ANY_TYPE = [None, "x\x00y", -1, 2**64, [], {"k": "v"}]  # line breaks, NaN, bools: the targeted cases above


@pytest.mark.slow  # ~1 minute on the shared 2-core machine: 426 imports, one test per value so xdist spreads them
@pytest.mark.django_db
@pytest.mark.parametrize("value", ANY_TYPE, ids=repr)
def test_yaml_import_every_field_with_every_type(tmp_path, value):
    """Each leaf of the document replaced by one of 6 values of the wrong kind: either imported (the value is
    valid there) or refused as ``file: ...`` lines with nothing saved; never another exception."""
    from django.db import transaction

    file = tmp_path / "inventory.yaml"
    unexpected, refused, imported = [], 0, 0
    for path in _leaf_paths(BASE):
        file.write_text(yaml.safe_dump(_set(BASE, path, value), allow_unicode=True), encoding="utf-8")
        with transaction.atomic():
            before = _row_counts()
            try:
                call_command("fabric_import", str(file), stdout=io.StringIO(), stderr=io.StringIO())
                imported += 1
            except CommandError as error:
                refused += 1
                if not all(line.startswith(str(file)) for line in str(error).splitlines()) \
                        or _row_counts() != before:
                    unexpected.append((path, value, str(error)[:200]))
            except Exception as error:  # the point of the test
                unexpected.append((path, value, f"{type(error).__name__}: {error}"[:200]))
            transaction.set_rollback(True)
    assert unexpected == [], unexpected[:10]
    assert refused > 0 and refused + imported == len(_leaf_paths(BASE))  # a wrong kind is refused somewhere


@pytest.mark.slow  # ~30 s: one import per (field, value); one test per value so xdist spreads them
@pytest.mark.django_db
@pytest.mark.parametrize("value", ANY_TYPE, ids=repr)
def test_netbox_import_every_field_with_every_type(tmp_path, value):
    """Each leaf of the first record of each dump file replaced by each wrong-kind value: imported, skipped or
    refused as ``file: ...`` lines with nothing saved; never another exception."""
    from django.db import transaction

    directory = _dump(tmp_path)
    unexpected, runs = [], 0
    for endpoint in ("racks", "devices", "interfaces", "cables", "inventory-items"):
        original = (directory / f"{endpoint}.json").read_text()
        document, records = _records(directory, endpoint)
        for path in _leaf_paths(records[0]):
            changed = copy.deepcopy(document)
            target = changed["results"][0] if isinstance(changed, dict) else changed[0]
            for part in path[:-1]:
                target = target[part]
            target[path[-1]] = value
            (directory / f"{endpoint}.json").write_text(json.dumps(changed))
            runs += 1
            with transaction.atomic():
                before = _row_counts()
                try:
                    call_command("netbox_import", str(directory), "--fabric", "nb",
                                 stdout=io.StringIO(), stderr=io.StringIO())
                except CommandError as error:
                    if not all(line.startswith(str(directory)) for line in str(error).splitlines()) \
                            or _row_counts() != before:
                        unexpected.append((endpoint, path, value, str(error)[:200]))
                except Exception as error:  # the point of the test
                    unexpected.append((endpoint, path, value, f"{type(error).__name__}: {error}"[:200]))
                transaction.set_rollback(True)
        (directory / f"{endpoint}.json").write_text(original)
    assert unexpected == [], unexpected[:10]
    assert runs > 20
