"""5-stage Clos planner (compiler.pods): planes, pods, rails, growth, per-tier oversubscription, RFC 7938 ASNs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from compiler.allocate import allocate
from compiler.api import validate_intent
from compiler.clos import ClosParams
from compiler.errors import IntentValidationError
from compiler.model import Endpoint, FabricIntent, Role
from compiler.pods import PodsParams, plan_pods, tier_oversubscription
from compiler.scenario import snapshot_from_scenario
from compiler.topology import server_port_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SMALL = PodsParams(name="p5", pods=2, pod=ClosParams(spines=2, leaves=2, servers_per_leaf=2))


def _peers(inventory, device):
    peers = []
    for cable in inventory.cables:
        for near, far in ((cable.a, cable.b), (cable.b, cable.a)):
            if near.device == device:
                peers.append(far.device)
    return peers


def test_shape_and_planes():
    inventory = plan_pods(SMALL)
    roles = [s.role for s in inventory.switches]
    assert roles.count(Role.SUPER_SPINE) == 2 and roles.count(Role.SPINE) == 4 and roles.count(Role.LEAF) == 4
    # spine k of every pod reaches exactly the super-spines of plane k
    for spine in inventory.switches_with_role(Role.SPINE):
        supers = [p for p in _peers(inventory, spine.hostname) if inventory.role_of(p) == Role.SUPER_SPINE]
        assert supers == [f"superspine{spine.plane + 1}"], spine.hostname
    assert len({s.mgmt_ip for s in inventory.switches}) == len(inventory.switches)
    assert len({s.mgmt_ip for s in inventory.servers}) == len(inventory.servers)


def test_parallel_links_and_planes_of_several_super_spines():
    inventory = plan_pods(PodsParams(name="p5", pods=3, super_spines_per_plane=2, super_spine_links=2,
                                     pod=ClosParams(spines=4, leaves=4, servers_per_leaf=1)))
    spine = inventory.switches_by_name["pod3-spine4"]
    supers = [p for p in _peers(inventory, spine.hostname) if inventory.role_of(p) == Role.SUPER_SPINE]
    assert sorted(supers) == ["superspine7", "superspine7", "superspine8", "superspine8"]
    assert len(inventory.switches_with_role(Role.SUPER_SPINE)) == 8


def test_growth_by_pods_moves_nothing():
    small = plan_pods(SMALL)
    grown = plan_pods(PodsParams(name="p5", pods=3, pod=SMALL.pod))
    assert set(small.cables) <= set(grown.cables)
    grown_by_name = grown.switches_by_name
    for switch in small.switches:
        if switch.role == Role.SUPER_SPINE:
            # same object except the optics of the new pod's ports
            old = grown_by_name[switch.hostname]
            assert (old.mgmt_ip, old.plane, old.rack) == (switch.mgmt_ip, switch.plane, switch.rack)
        else:
            assert grown_by_name[switch.hostname] == switch


def test_rail_optimised_scalable_units():
    # SuperPOD-style SU: 8 rails, one leaf per rail, every server NIC i on the SU's rail-i leaf
    inventory = plan_pods(PodsParams(name="su", pods=2, pod=ClosParams(
        spines=2, leaves=8, rails_per_server=8, servers_per_leaf=4)))
    for server in inventory.servers:
        for nic in server.nics:
            leaf = server_port_of(inventory, Endpoint(server.name, nic.name)).device
            assert leaf.split("-")[0] == server.name.split("-")[0]  # same SU (pod)
            assert (int(leaf.rsplit("leaf", 1)[1]) - 1) % 8 == nic.rail, (server.name, nic.name, leaf)
    ratios = tier_oversubscription(inventory)
    assert set(ratios["rail"]) == {f"rail{r}" for r in range(8)}
    assert all(value == 2.0 for value in ratios["rail"].values())  # 4 servers down, 2 spines up per leaf


def test_oversubscription_per_tier():
    ratios = tier_oversubscription(plan_pods(SMALL))
    assert ratios["leaf"]["pod1-leaf1"] == 1.0
    assert ratios["spine"]["pod1-spine1"] == 2.0  # 2 leaves below, one super-spine link above
    assert ratios["plane"] == {"plane1": 2.0, "plane2": 2.0}
    two_links = tier_oversubscription(plan_pods(PodsParams(name="p5", pods=2, super_spine_links=2, pod=SMALL.pod)))
    assert two_links["plane"] == {"plane1": 1.0, "plane2": 1.0}


def test_rfc7938_asn_scheme():
    inventory = plan_pods(SMALL)
    asns = allocate(inventory, FabricIntent(name="p5", inventory_fabric="p5")).asns
    assert asns["superspine1"] == asns["superspine2"] == 64999
    assert asns["pod1-spine1"] == asns["pod1-spine2"] == 65000
    assert asns["pod2-spine1"] == asns["pod2-spine2"] == 65001
    leaf_asns = [asns[s.hostname] for s in inventory.switches_with_role(Role.LEAF)]
    assert len(set(leaf_asns)) == len(leaf_asns) and min(leaf_asns) >= 65100


@pytest.mark.parametrize("field,value", [("pods", 0), ("super_spines_per_plane", 0), ("super_spine_links", 0),
                                         ("super_spine_platform", "junos"), ("pods", 64),
                                         ("super_spine_model", "NOPE-1")])
def test_bad_parameters_name_the_field(field, value):
    with pytest.raises(IntentValidationError) as error:
        plan_pods(PodsParams(**{**SMALL.__dict__, field: value}))
    assert field in str(error.value) and str(value) in str(error.value)


@pytest.mark.parametrize("example,leaf_ratio,plane_ratio", [("superpod-5stage.yaml", 2.0, 1.0),
                                                             ("pods-5stage.yaml", 1.0, 8.0)])
def test_examples_plan_compile_and_have_their_stated_ratios(example, leaf_ratio, plane_ratio):
    data = yaml.safe_load((EXAMPLES / example).read_text())
    snapshot = snapshot_from_scenario(data)
    validate_intent(snapshot)
    ratios = tier_oversubscription(snapshot.inventory)
    assert set(ratios["leaf"].values()) == {leaf_ratio}
    assert set(ratios["plane"].values()) == {plane_ratio}


def test_name_prefix_names_every_switch_and_rack_super_spines_included():
    """Issue #30 point 4: super-spines and their core racks took no prefix, so a second 5-stage fabric in the same
    inventory was refused as a name clash; with the pod template's prefix no name of two fabrics collides."""
    first = plan_pods(SMALL)
    second = plan_pods(PodsParams(name="p6", pods=2, pod=ClosParams(spines=2, leaves=2, servers_per_leaf=2,
                                                                      name_prefix="b-")))
    assert {s.hostname for s in second.switches_with_role(Role.SUPER_SPINE)} == {"b-superspine1", "b-superspine2"}
    assert all(s.hostname.startswith("b-") or s.hostname.startswith("pod") for s in second.switches)
    assert not {s.hostname for s in first.switches} & {s.hostname for s in second.switches}
    assert not {r.name for r in first.racks} & {r.name for r in second.racks}
    assert not {s.name for s in first.servers} & {s.name for s in second.servers}
