"""Finding subjects (validators/subjects.py): built and read back through one type, printing today's strings."""

import pytest

from validators.prediction import link_key
from validators.subjects import Subject, SubjectEnd


@pytest.mark.parametrize("text", [
    "leaf1", "network a", "leaf1:Ethernet1", "leaf1:mlag peer-address", "leaf1:Ethernet1<->spine1:Ethernet3",
    "srv1:ens1f0<->leaf1:Ethernet1/1", "leaf1:Vlan10<->leaf2:Vlan10", "a:Ethernet1<->b:Ethernet2<->c:Ethernet3",
])
def test_parse_prints_back_the_same_text(text):
    assert str(Subject.parse(text)) == text


def test_link_ends_and_order():
    link = Subject.parse("leaf1:Ethernet1<->spine1:Ethernet3")
    assert link.is_link
    assert link.ends == (SubjectEnd("leaf1", "Ethernet1"), SubjectEnd("spine1", "Ethernet3"))
    assert str(Subject.link("leaf1", "Ethernet1", "spine1", "Ethernet3")) == "leaf1:Ethernet1<->spine1:Ethernet3"


def test_a_port_or_device_is_not_a_link():
    assert not Subject.parse("leaf1:Ethernet1").is_link
    assert Subject.parse("leaf1").ends == (SubjectEnd("leaf1", ""),)


def test_interface_keeps_later_colons():
    assert SubjectEnd.parse("leaf1:mlag peer-address:x") == SubjectEnd("leaf1", "mlag peer-address:x")


def test_cable_sorts_its_ends_whatever_side_it_is_seen_from():
    assert link_key("spine1", "eth1", "leaf1", "eth3") == "leaf1:eth3<->spine1:eth1"
    assert link_key("leaf1", "eth3", "spine1", "eth1") == "leaf1:eth3<->spine1:eth1"
    assert str(Subject.link("spine1", "eth1", "leaf1", "eth3")) != link_key("spine1", "eth1", "leaf1", "eth3")
