"""Model rules: database constraints (the last line of defence) and clean() validation (the friendly one)."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from inventory.models import Cable, Fabric, Interface, NicPort, Optic, Platform, Rack, Server, Site, Switch, SwitchModel

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    site = Site.objects.create(name="dc1")
    fabric = Fabric.objects.create(name="f", site=site)
    rack = Rack.objects.create(site=site, fabric=fabric, name="r1", height_u=42, power_budget_kw=20)
    model = SwitchModel.objects.create(name="T4", vendor="T", port_count=64, max_speed_gbps=400,
                                       form_factor="QSFP-DD", breakout_modes=["4x100G"])
    platform = Platform.objects.create(slug="eos", name="EOS")
    leaf = Switch.objects.create(fabric=fabric, hostname="leaf1", role="leaf", model=model, platform=platform,
                                 rack=rack, u_position=40)
    spine = Switch.objects.create(fabric=fabric, hostname="spine1", role="spine", model=model, platform=platform)
    server = Server.objects.create(fabric=fabric, name="gpu1", rack=rack, u_position=1)
    return {"site": site, "fabric": fabric, "rack": rack, "model": model, "platform": platform, "leaf": leaf,
            "spine": spine, "server": server}


def _violates(make):
    with pytest.raises(IntegrityError), transaction.atomic():
        make()


def test_interface_names_are_unique_per_switch(world):
    Interface.objects.create(switch=world["leaf"], name="Ethernet1", speed_gbps=400)
    Interface.objects.create(switch=world["spine"], name="Ethernet1", speed_gbps=400)  # other switch: fine
    _violates(lambda: Interface.objects.create(switch=world["leaf"], name="Ethernet1", speed_gbps=100))


def test_a_cable_end_holds_one_port(world):
    cable = Cable.objects.create(label="C1", cable_type="dac", length_m=1)
    Interface.objects.create(switch=world["leaf"], name="Ethernet1", speed_gbps=400, cable=cable, cable_end="A")
    _violates(lambda: Interface.objects.create(switch=world["spine"], name="Ethernet1", speed_gbps=400, cable=cable,
                                               cable_end="A"))
    _violates(lambda: NicPort.objects.create(server=world["server"], name="eth0", rail=0, speed_gbps=400,
                                             cable=Cable.objects.create(label="C2", cable_type="dac", length_m=1)))


def test_cable_labels_are_unique(world):
    Cable.objects.create(label="C1", cable_type="dac", length_m=1)
    _violates(lambda: Cable.objects.create(label="C1", cable_type="smf", length_m=10))
    _violates(lambda: Cable.objects.create(label="C3", cable_type="smf", length_m=-1))


def test_optic_sits_in_at_most_one_port(world):
    interface = Interface.objects.create(switch=world["leaf"], name="Ethernet1", speed_gbps=400)
    nic = NicPort.objects.create(server=world["server"], name="eth0", rail=0, speed_gbps=400)
    fields = {"form_factor": "QSFP-DD", "media": "400G-DR4", "speed_gbps": 400, "reach_m": 500}
    Optic.objects.create(interface=interface, **fields)
    _violates(lambda: Optic.objects.create(interface=interface, **fields))  # one optic per cage
    other = Interface.objects.create(switch=world["leaf"], name="Ethernet2", speed_gbps=400)
    _violates(lambda: Optic.objects.create(interface=other, nic_port=nic, **fields))
    Optic.objects.create(**fields)  # a spare on the shelf
    Optic.objects.create(serial="", **fields)  # empty serials do not collide
    Optic.objects.create(serial="X1", **fields)
    _violates(lambda: Optic.objects.create(serial="X1", **fields))


def test_breakout_lane_needs_a_parent(world):
    Interface.objects.create(switch=world["leaf"], name="Ethernet5/1", speed_gbps=100, breakout_parent="Ethernet5",
                             lane=1)
    _violates(lambda: Interface.objects.create(switch=world["leaf"], name="Ethernet6", speed_gbps=100, lane=1))
    _violates(lambda: Interface.objects.create(switch=world["leaf"], name="Ethernet7/1", speed_gbps=100,
                                               breakout_parent="Ethernet7"))


def test_identities_are_unique(world):
    Switch.objects.filter(pk=world["leaf"].pk).update(mgmt_ip="10.0.0.1", serial="S1")
    base = {"fabric": world["fabric"], "role": "leaf", "model": world["model"], "platform": world["platform"]}
    _violates(lambda: Switch.objects.create(hostname="leaf1", **base))
    _violates(lambda: Switch.objects.create(hostname="leaf2", mgmt_ip="10.0.0.1", **base))
    _violates(lambda: Switch.objects.create(hostname="leaf3", serial="S1", **base))
    Switch.objects.create(hostname="leaf4", **base)  # empty serial and no IP: fine twice
    Switch.objects.create(hostname="leaf5", **base)


def test_rack_checks(world):
    _violates(lambda: Rack.objects.create(site=world["site"], name="r1"))
    _violates(lambda: Rack.objects.create(site=world["site"], name="r0", height_u=0))
    _violates(lambda: Rack.objects.create(site=world["site"], name="r9", power_budget_kw=-1))


def test_clean_rejects_a_u_position_outside_the_rack(world):
    leaf = world["leaf"]
    leaf.u_position = 43
    with pytest.raises(ValidationError) as error:
        leaf.full_clean()
    assert "U43 is outside rack r1 (1..42)" in str(error.value.message_dict["u_position"])


def test_clean_rejects_a_rack_from_another_site(world):
    other = Site.objects.create(name="dc2")
    rack = Rack(site=other, fabric=world["fabric"], name="x")
    with pytest.raises(ValidationError, match="is at site 'dc1'"):
        rack.full_clean()


def test_clean_rejects_malformed_breakout_modes_and_fast_ports(world):
    model = world["model"]
    model.breakout_modes = ["four by 100"]
    with pytest.raises(ValidationError, match="breakout_modes"):
        model.full_clean()
    interface = Interface(switch=world["leaf"], name="Ethernet9", speed_gbps=800)
    with pytest.raises(ValidationError, match="exceeds the T4 maximum of 400G"):
        interface.full_clean()


def test_deleting_a_cable_unplugs_both_ends(world):
    cable = Cable.objects.create(label="C1", cable_type="dac", length_m=1)
    Interface.objects.create(switch=world["leaf"], name="Ethernet1", speed_gbps=400, cable=cable, cable_end="A")
    NicPort.objects.create(server=world["server"], name="eth0", rail=0, speed_gbps=400, cable=cable, cable_end="B")
    cable.delete()
    assert Interface.objects.get(name="Ethernet1").cable_end == ""
    assert NicPort.objects.get(name="eth0").cable is None
