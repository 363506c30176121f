"""manage.py compile, config_diff, intent_apply and intent_export: files where promised, clear errors."""

from io import StringIO

import pytest
import yaml
from django.core.management import CommandError, call_command

from intents import services
from intents.models import FabricIntent, Network, RoceClass

pytestmark = pytest.mark.django_db

INTENT_YAML = """
clos: {name: ref, spines: 2, leaves: 4, servers_per_leaf: 2, platform: eos}
intent:
  name: lab
  pools: {p2p: 10.1.0.0/16}
  bgp: {maximum_paths: 32}
  tenants: [{name: A, vrf: TENANT_A}]
  networks:
    - {name: net10, tenant: A, vlan_id: 10, subnet: 10.10.0.0/24, gateway: 10.10.0.1, leaves: [leaf1, leaf2],
       attachments: all}
  roce_classes:
    - {name: roce, dscp: [26], priority: 3, traffic_class: 3, lossless: true, ecn_min_kb: 150, ecn_max_kb: 1500,
       ecn_mark_probability: 10, cnp_dscp: 48, cnp_priority: 6}
"""


def _run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_intent_apply_export_round_trip(fabric, tmp_path):
    source = tmp_path / "lab.yaml"
    source.write_text(INTENT_YAML)
    assert "fabric intent lab on ref: 1 tenants, 1 networks, 1 RoCE classes" in _run("intent_apply", str(source))
    network = Network.objects.get(name="net10")
    assert sorted(network.leaves.values_list("hostname", flat=True)) == ["leaf1", "leaf2"]
    # "all": every NIC cabled to leaf1 or leaf2
    assert sorted(str(port) for port in network.attachments.all()) == [
        "gpu0001:eth0", "gpu0002:eth0", "gpu0003:eth0", "gpu0004:eth0"]
    assert FabricIntent.objects.get(name="lab").bgp_maximum_paths == 32

    exported = tmp_path / "export.yaml"
    _run("intent_export", "--fabric", "lab", "--out", str(exported))
    data = yaml.safe_load(exported.read_text())
    assert data["intent"]["networks"][0]["attachments"][0] == "gpu0001:eth0"
    assert data["intent"]["roce_classes"][0]["cnp_dscp"] == 48
    # re-applying the export changes nothing, and is declarative: a class removed from the file goes away
    _run("intent_apply", str(exported))
    assert yaml.safe_load(_run("intent_export", "--fabric", "lab")) == data
    data["intent"]["roce_classes"] = []
    exported.write_text(yaml.safe_dump(data))
    _run("intent_apply", str(exported))
    assert not RoceClass.objects.exists()


def test_intent_apply_can_build_the_inventory(db, tmp_path):
    source = tmp_path / "lab.yaml"
    source.write_text(INTENT_YAML)
    _run("intent_apply", str(source), "--build-inventory")
    assert FabricIntent.objects.get(name="lab").fabric.name == "ref"


NET10_END = "attachments: all}"
ROCE_END = "cnp_dscp: 48, cnp_priority: 6}"
# (text in INTENT_YAML, replacement, the field the error must name) - every bad intent of the issue.
BAD_YAML = [
    ("vlan_id: 10", "vlan_id: 0", "vlan_id"),
    ("vlan_id: 10", "vlan_id: 4095", "vlan_id"),
    ("vlan_id: 10,", "vlan_id: 10, l2vni: 16777216,", "l2vni"),
    ("dscp: [26]", "dscp: [64]", "dscp"),
    ("priority: 3,", "priority: 9,", "priority"),
    ("ecn_min_kb: 150", "ecn_min_kb: 2000", "ecn_min_kb"),
    (ROCE_END, ROCE_END + "\n    - {name: bulk, dscp: [24], priority: 3, traffic_class: 3, lossless: true, "
                          "ecn_min_kb: 150, ecn_max_kb: 1500, ecn_mark_probability: 10}", "].priority"),
    ("p2p: 10.1.0.0/16", "p2p: 10.1.0.0/29", "pools.p2p"),
    ("p2p: 10.1.0.0/16", "p2p: 10.1.0.0/16, asn_first: 65100, asn_last: 65101", "pools.asn_first"),
    ("p2p: 10.1.0.0/16", "p2p: 10.1.0.0/16, spine_asn: 4294967296", "spine_asn"),
    (NET10_END, NET10_END + "\n    - {name: net20, tenant: A, vlan_id: 20, subnet: 10.10.0.128/25}",
     "networks[net20].subnet"),
    (NET10_END, NET10_END + "\n    - {name: net20, tenant: A, vlan_id: 10, l2vni: 20010, subnet: 10.20.0.0/24}",
     "vlan_id"),
    (NET10_END, NET10_END + "\n    - {name: net20, tenant: A, vlan_id: 20, l2vni: 10010, subnet: 10.20.0.0/24}",
     "networks[net20].l2vni"),
    ("bgp: {maximum_paths: 32}", "bgp: {maximum_paths: 32}\n  management: {ntp_servers: [ntp..example]}",
     "intent.ntp_servers"),
    ("bgp: {maximum_paths: 32}", "bgp: {maximum_paths: 32}\n  management: {gateway: 10.9.9.1}",
     "intent.management_gateway"),
]


@pytest.mark.parametrize(("text", "replacement", "field"), BAD_YAML,
                         ids=[f"{field}:{replacement[-40:]}" for _, replacement, field in BAD_YAML])
def test_intent_apply_bad_yaml_is_a_clear_error_and_saves_nothing(fabric, tmp_path, text, replacement, field):
    assert text in INTENT_YAML
    source = tmp_path / "bad.yaml"
    source.write_text(INTENT_YAML.replace(text, replacement, 1))
    with pytest.raises(CommandError) as error:
        _run("intent_apply", str(source))
    assert field in str(error.value) and "intent_apply" in str(error.value), str(error.value)
    assert not FabricIntent.objects.exists()


def test_intent_apply_good_yaml_with_two_networks(fabric, tmp_path):
    """The passing twin of the cases above: a second, distinct network is accepted."""
    source = tmp_path / "good.yaml"
    source.write_text(INTENT_YAML.replace(NET10_END, NET10_END + "\n    - {name: net20, tenant: A, vlan_id: 20, "
                                                                 "subnet: 10.20.0.0/24}", 1))
    _run("intent_apply", str(source))
    assert Network.objects.count() == 2


def test_intent_apply_unknown_field_and_missing_fabric(db, tmp_path):
    source = tmp_path / "bad.yaml"
    source.write_text(INTENT_YAML.replace("maximum_paths: 32", "max_paths: 32"))
    with pytest.raises(CommandError, match="intent.inventory_fabric"):
        _run("intent_apply", str(source))  # no inventory yet
    with pytest.raises(CommandError, match=r"bgp\.max_paths"):
        _run("intent_apply", str(source), "--build-inventory")


def test_compile_command_writes_every_file(fabric_intent, tmp_path):
    output = _run("compile", "--fabric", "ref-intent", "--out", str(tmp_path))
    files = sorted(path.relative_to(tmp_path).as_posix() for path in tmp_path.rglob("*") if path.is_file())
    assert "ref-intent/leaf1/eos/startup-config" in files and "ref-intent/spine2/frr/frr.conf" in files
    assert len({path.split("/")[1] for path in files}) == 6
    assert f"6 devices, {len(files)} files in {tmp_path / 'ref-intent'}" in output
    assert "hostname leaf1" in (tmp_path / "ref-intent/leaf1/eos/startup-config").read_text()


def test_compile_command_one_device_one_platform(fabric_intent, tmp_path):
    _run("compile", "--fabric", "ref", "--device", "leaf2", "--platform", "eos", "--out", str(tmp_path))
    files = sorted(path.relative_to(tmp_path).as_posix() for path in tmp_path.rglob("*") if path.is_file())
    assert files == ["ref-intent/leaf2/eos/startup-config"]


def test_compile_command_errors(fabric_intent, tmp_path):
    with pytest.raises(CommandError, match="fabric.*nope"):
        _run("compile", "--fabric", "nope", "--out", str(tmp_path))
    with pytest.raises(CommandError, match="devices: no switch leaf99"):
        _run("compile", "--device", "leaf99", "--out", str(tmp_path))


def test_config_diff_command(fabric_intent, tmp_path):
    _run("compile", "--out", str(tmp_path), "--platform", "eos")
    assert _run("config_diff", "--platform", "eos").strip().endswith(
        "0 of 6 device configs change (compared with last compile: 6)")
    services.fabric_intent_update(fabric_intent=fabric_intent, bgp_maximum_paths=16)
    output = _run("config_diff", "--device", "leaf1", "--platform", "eos", "--structured")
    run = fabric_intent.compile_runs.latest("created")
    assert f"== leaf1 eos: diff vs last compile (#{run.pk})" in output
    assert "\n-   maximum-paths 64 ecmp 64\n+   maximum-paths 16 ecmp 16\n" in output
    assert "bgp.maximum_paths: 64 -> 16" in output
    assert output.strip().endswith("1 of 1 device configs change (compared with last compile: 1)")
    with pytest.raises(CommandError, match="no running twin"):
        _run("config_diff", "--target", "twin")


def test_intent_apply_and_export_carry_the_management_plane(fabric, tmp_path):
    source = tmp_path / "mgmt.yaml"
    source.write_text(INTENT_YAML.replace("bgp: {maximum_paths: 32}", "bgp: {maximum_paths: 32}\n  management: "
                                          "{ntp_servers: [192.0.2.10], dns_servers: [192.0.2.53], "
                                          "aaa_servers: [192.0.2.5], aaa_secret_ref: 'vault:secret/tacacs'}", 1))
    _run("intent_apply", str(source))
    stored = FabricIntent.objects.get(name="lab")
    assert stored.ntp_servers == ["192.0.2.10"] and stored.aaa_secret_ref == "vault:secret/tacacs"
    exported = yaml.safe_load(_run("intent_export", "--fabric", "lab"))
    assert exported["intent"]["management"]["dns_servers"] == ["192.0.2.53"]
    assert exported["intent"]["management"]["gateway"] is None  # the default: the network's first host
