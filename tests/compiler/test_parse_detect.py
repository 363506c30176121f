"""Detection that explains itself (issue #25 item 3): the platform of each file is decided by EOS-only and FRR-only
lines, a file no reader accepts is refused naming the file and the deciding line, FRR's per-daemon files are merged
into one device (every file used or refused by name), two files claiming one hostname are an error naming both,
and a line a parser cannot read is refused naming file, line and command.

The FRR texts below are written here in the shapes FRR's own tools print them: FRR 7-style ``show running-config``
(``hostname``/``end``, no ``exit`` lines) and per-daemon files as FRR's topotests keep them (``zebra.conf`` with the
interface addresses, ``bgpd.conf`` with BGP; FRR user guide, "Basic Setup" / "Integrated configuration mode")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import compiler.parse as compiler_parse
from compiler.parse import ParseError, detect_platform, parse_device, text_evidence
from compiler.parse.common import cli_tree
from compiler.parse.files import configs_from_directory
from validators.configs import parse_configs, validate_configs

GOLDEN = Path(__file__).parents[1] / "golden"

# FRR 7.x `show running-config` / `write terminal`: no `exit` block ends, `end` last (the shape read as EOS before).
FRR_NO_EXIT = """frr version 7.5.1
frr defaults traditional
hostname leaf11
log syslog informational
service integrated-vtysh-config
!
interface swp51
 description to spine01
!
router bgp 65011
 bgp router-id 10.0.0.11
 neighbor 10.1.1.0 remote-as 65020
 neighbor 10.1.1.0 description spine01:swp1
 !
 address-family l2vpn evpn
  neighbor 10.1.1.0 activate
  advertise-all-vni
 exit-address-family
!
line vty
!
end
"""
# The same without FRR's banner lines: still FRR by its one-space blocks and `address-family l2vpn evpn`.
FRR_BARE = "\n".join(line for line in FRR_NO_EXIT.splitlines()
                     if not line.startswith(("frr ", "log ", "service ", "line vty"))) + "\n"

ZEBRA_CONF = """hostname r1
log file zebra.log
!
interface r1-eth0
 ip address 10.0.1.1/24
!
interface lo
 ip address 10.255.0.1/32
!
"""
BGPD_CONF = """hostname r1
!
router bgp 65001
 bgp router-id 10.255.0.1
 neighbor 10.0.1.2 remote-as 65002
 neighbor 10.0.1.2 description r2:r2-eth0
!
"""
DAEMONS = ("zebra=yes\nbgpd=yes\nospfd=no\nvtysh_enable=yes\nzebra_options=\"  -A 127.0.0.1 -s 90000000\"\n"
           "frr_profile=\"datacenter\"\n")


def _eos_text() -> str:
    return (GOLDEN / "single_tenant_2x4" / "expected" / "rendered" / "leaf1" / "eos" / "startup-config").read_text()


def test_frr_without_exit_lines_is_frr_not_eos():
    for text in (FRR_NO_EXIT, FRR_BARE):
        device = parse_device({"frr.conf": text})
        assert device.platform == "frr" and device.hostname == "leaf11"
        assert device.structured["bgp"]["asn"] == 65011
        assert [n["address"] for n in device.structured["bgp"]["neighbors"]] == ["10.1.1.0"]
        assert device.detected_by.startswith("frr.conf:")
    # Named anything: the content decides.
    assert detect_platform({"leaf11.cfg": FRR_BARE}) == "frr"


def test_eos_is_detected_by_eos_only_lines_and_indentation():
    evidence = text_evidence("leaf1.cfg", _eos_text())
    assert len(evidence.eos) > 10 and len(evidence.eos_indent) > 20 and not evidence.frr and not evidence.frr_indent
    assert evidence.dialect() == "eos"
    # Hand-written EOS (a test fixture, a RANCID dump) indented by one space: its commands decide, not the indent.
    rancid = "!RANCID-CONTENT-TYPE: arista\nhostname c1\ninterface Ethernet1\n no switchport\n ip address 1.1.1.1/31\n"
    assert detect_platform({"c1": rancid}) == "eos"
    # EOS text without hostname/end (a snippet): three-space blocks still say EOS.
    snippet = "interface Ethernet1\n   no switchport\n   ip address 10.0.0.1/31\n"
    assert detect_platform({"snippet.cfg": snippet}) == "eos"


def test_a_file_with_no_evidence_is_refused_naming_file_and_first_line():
    with pytest.raises(ParseError, match=r"x\.conf: neither an EOS nor an FRR.*line 1 `hostname r1`"):
        detect_platform({"x.conf": "hostname r1\nend\n"})


def test_a_file_mixing_both_dialects_is_refused_naming_the_deciding_lines():
    mixed = "hostname r1\ninterface Ethernet1\n   switchport\n   mtu 9214\nrouter bgp 1\n neighbor 1.1.1.1 " \
            "remote-as 2\n bgp router-id 1.1.1.2\nexit\n"
    with pytest.raises(ParseError, match=r"mixed\.cfg: both EOS and FRR commands \(1 EOS-only, first mixed\.cfg:3 "
                                         r"`   switchport`; 2 FRR-only, first mixed\.cfg:7 ` bgp router-id 1\.1\.1\.2`"):
        detect_platform({"mixed.cfg": mixed})
    # No command of either dialect, indented both ways: the indentation cannot decide either.
    with pytest.raises(ParseError, match=r"both EOS and FRR indented lines \(1 EOS-only, first i\.cfg:2 `   mtu 1`"):
        detect_platform({"i.cfg": "interface a\n   mtu 1\ninterface b\n mtu 1\n"})


def test_frr_per_daemon_files_are_merged_into_one_device_citing_each_file():
    device = parse_device({"zebra.conf": ZEBRA_CONF, "bgpd.conf": BGPD_CONF, "daemons": DAEMONS})
    assert device.platform == "frr" and device.hostname == "r1"
    assert device.files == ["bgpd.conf", "daemons", "zebra.conf"]
    assert device.structured["bgp"]["asn"] == 65001
    assert [n["address"] for n in device.structured["bgp"]["neighbors"]] == ["10.0.1.2"]
    # Findings cite the file each fact came from, at its own line numbers.
    assert device.locations["bgp"] == ("bgpd.conf", 3)
    assert device.locations["interface r1-eth0"] == ("zebra.conf", 4)
    cited = {(item.file, item.line) for item in device.unmodelled}
    assert ("zebra.conf", 2) in cited  # `log file zebra.log`
    # frr_profile changes FRR's defaults: listed; daemon switches and start options are read.
    assert [(item.line, item.text) for item in device.unmodelled if item.file == "daemons"] == [
        (6, 'frr_profile="datacenter"')]


def test_per_daemon_files_that_disagree_are_refused_naming_both():
    with pytest.raises(ParseError, match=r"zebra\.conf says `hostname r2`, bgpd\.conf says `hostname r1`"):
        parse_device({"zebra.conf": ZEBRA_CONF.replace("hostname r1", "hostname r2"), "bgpd.conf": BGPD_CONF})
    with pytest.raises(ParseError, match=r"bgpd\.conf: configures bgpd, but daemons says bgpd=no"):
        parse_device({"bgpd.conf": BGPD_CONF, "daemons": "zebra=yes\nbgpd=no\n"})
    with pytest.raises(ParseError, match=r"daemons file alone"):
        parse_device({"daemons": DAEMONS})
    # FRR reads an integrated frr.conf when it exists: per-daemon files beside it would not run; two integrated
    # configs (frr.conf and a backup) leave unknown which one runs.
    with pytest.raises(ParseError, match=r"frr\.conf is an integrated FRR config and bgpd\.conf per-daemon file"):
        parse_device({"frr.conf": FRR_NO_EXIT, "bgpd.conf": BGPD_CONF})
    with pytest.raises(ParseError, match=r"frr\.conf, frr\.conf\.bak: 2 integrated FRR configs"):
        parse_device({"frr.conf": FRR_NO_EXIT, "frr.conf.bak": FRR_NO_EXIT})
    assert parse_device({"frr.conf": FRR_NO_EXIT, "vtysh.conf": "service integrated-vtysh-config\n"}).files == [
        "frr.conf", "vtysh.conf"]


def test_no_file_of_a_device_is_dropped():
    # Two EOS configs, or EOS next to FRR: which one runs is unknown, so both are named, neither kept silently.
    text = _eos_text()
    with pytest.raises(ParseError, match=r"running-config, startup-config: 2 eos files"):
        parse_device({"startup-config": text, "running-config": text})
    with pytest.raises(ParseError, match=r"bgpd\.conf is frr .* startup-config is eos"):
        parse_device({"startup-config": text, "bgpd.conf": BGPD_CONF})
    with pytest.raises(ParseError, match=r"notes\.json: JSON that is neither"):
        parse_device({"notes.json": json.dumps({"a": 1})})
    with pytest.raises(ParseError, match=r"dump\.json: CONFIG_DB as Redis dumps it \(flat `TABLE\|key` rows, e\.g\. "
                                         r"'DEVICE_METADATA\|localhost'\)"):
        parse_device({"dump.json": json.dumps({"DEVICE_METADATA|localhost": {"hostname": "s1"}})})


def test_sonic_split_frr_files_merge_with_config_db():
    rendered = GOLDEN / "multi_tenant_l3vni" / "expected" / "rendered" / "leaf1" / "sonic"
    db, frr_conf = (rendered / "config_db.json").read_text(), (rendered / "frr.conf").read_text()
    whole = parse_device({"config_db.json": db, "frr.conf": frr_conf})
    # SONiC's "separated" FRR mode: the same text split at `router bgp` into zebra.conf and bgpd.conf.
    cut = frr_conf.index("router bgp")
    split = parse_device({"config_db.json": db, "zebra.conf": frr_conf[:cut], "bgpd.conf": frr_conf[cut:]})
    assert split.platform == "sonic" and split.structured == whole.structured
    assert split.locations["bgp"] == ("bgpd.conf", 1)


def test_parse_errors_name_file_line_and_command():
    text = _eos_text()
    asn = next(line for line in text.splitlines() if line.startswith("router bgp "))
    broken = text.replace(asn, "router bgp 65x01", 1)
    line = broken.splitlines().index("router bgp 65x01") + 1
    with pytest.raises(ParseError, match=rf"startup-config:{line} `router bgp 65x01`: not a eos configuration"):
        parse_device({"startup-config": broken})
    # Inside merged FRR files: the file and its own line number.
    with pytest.raises(ParseError, match=r"bgpd\.conf:3 `router bgp 650x1`"):
        parse_device({"zebra.conf": ZEBRA_CONF, "bgpd.conf": BGPD_CONF.replace("65001", "650x1")})


def test_parse_errors_point_at_the_line_holding_the_value(monkeypatch):
    """A parser that reads a block whole and fails on a value another line holds: the error names that line (the
    frame's Node when it holds the value, else the first line quoting it), in CLI and in config_db.json."""

    def fails_in_block(files, hostname_hint=""):
        for node in cli_tree(next(iter(files.values()))):
            if node.text.startswith("router bgp"):
                raise ValueError("not an IPv4 address: 'dhcp'")  # the value an interface stated
        return None

    monkeypatch.setitem(compiler_parse.PARSERS, "eos", fails_in_block)
    text = "hostname x\nservice routing protocols model multi-agent\ninterface Ethernet1\n   ip address dhcp\n" \
           "router bgp 65001\n   neighbor 10.0.0.1 remote-as 65002\n"
    with pytest.raises(ParseError, match=r"^leaf\.cfg:4 `ip address dhcp`: not a eos configuration"):
        parse_device({"leaf.cfg": text})
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "s1"}}, "PORT": {"Ethernet0": {"mtu": "jumbo"}}}
    with pytest.raises(ParseError, match=r"^config_db\.json:\d+ `PORT\|Ethernet0`|^config_db\.json:\d+ `\"mtu\": "):
        parse_device({"config_db.json": json.dumps(db, indent=4)})


def _write(root: Path, layout: dict[str, str]) -> Path:
    for name, text in layout.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_two_files_claiming_one_hostname_are_an_error_naming_both(tmp_path):
    text = _eos_text()
    _write(tmp_path, {"leaf1.cfg": text, "leaf1-backup.cfg": text})
    with pytest.raises(ParseError, match=r"hostname 'leaf1' is claimed twice: by leaf1\.cfg and by "
                                         r"leaf1-backup\.cfg"):
        parse_configs(configs_from_directory(tmp_path))
    # Per-daemon files side by side at the top: two devices of one host, and the way to give them.
    flat = tmp_path / "flat"
    _write(flat, {"zebra.conf": ZEBRA_CONF, "bgpd.conf": BGPD_CONF})
    with pytest.raises(ParseError, match=r"claimed twice: by bgpd\.conf and by zebra\.conf \(one device, one config; "
                                         r"FRR per-daemon files of one device go in one directory"):
        parse_configs(configs_from_directory(flat))


def test_a_device_directory_of_per_daemon_files_validates_and_lists_its_files(tmp_path):
    _write(tmp_path, {"r1/zebra.conf": ZEBRA_CONF, "r1/bgpd.conf": BGPD_CONF, "r1/daemons": DAEMONS,
                      "leaf11/frr.conf": FRR_NO_EXIT})
    result = validate_configs(configs_from_directory(tmp_path))
    data = result.as_dict()
    assert data["devices"]["r1"]["files"] == ["bgpd.conf", "daemons", "zebra.conf"]
    assert data["devices"]["leaf11"]["platform"] == "frr"
    assert "r1 (frr) from 3 files: bgpd.conf, daemons, zebra.conf" in result.as_text()
    # A device directory with a file no reader accepts: the error names the device and the file.
    (tmp_path / "r1" / "notes.txt").write_text("remember to upgrade\n")
    with pytest.raises(ParseError, match=r"device 'r1': notes\.txt: neither an EOS nor an FRR"):
        parse_configs(configs_from_directory(tmp_path))


def test_a_given_platform_that_no_file_is_of_is_a_refusal_not_a_crash():
    """parse_device(platform="eos") on a JSON file: a ParseError naming the file, not StopIteration."""
    from compiler.parse import ParseError, parse_device

    with pytest.raises(ParseError, match=r"startup-config is .*not a eos configuration"):
        parse_device({"startup-config": "{}"}, platform="eos", hostname_hint="leaf1")
