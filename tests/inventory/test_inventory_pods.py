"""5-stage Clos through the database: build (command and service), snapshot round trip with pods, growth by pods,
the RFC 7938 ASNs from the stored inventory, and a refused size naming the field."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from compiler.allocate import allocate
from compiler.clos import ClosParams
from compiler.model import FabricIntent
from compiler.pods import PodsParams, plan_pods
from inventory.adapters import inventory_snapshot
from inventory.builder import fabric_build_pods
from inventory.models import Cable, Switch

pytestmark = pytest.mark.django_db

PODS = PodsParams(name="p5", pods=2, pod=ClosParams(name="p5", spines=2, leaves=2, servers_per_leaf=1))


def test_build_persists_pods_and_the_snapshot_equals_the_plan():
    result = fabric_build_pods(params=PODS)
    assert result.persisted.created["Switch"] == 2 + 2 * 4
    assert sorted(set(Switch.objects.values_list("pod", flat=True))) == [0, 1, 2]
    snapshot = inventory_snapshot("p5")
    assert snapshot == plan_pods(PODS)
    asns = allocate(snapshot, FabricIntent(name="p5", inventory_fabric="p5")).asns
    assert asns["pod1-spine1"] == asns["pod1-spine2"] != asns["pod2-spine1"] == asns["pod2-spine2"]


def test_growing_by_a_pod_only_adds():
    fabric_build_pods(params=PODS)
    cables = set(Cable.objects.values_list("label", flat=True))
    grown = fabric_build_pods(params=PodsParams(name="p5", pods=3, pod=PODS.pod))
    assert grown.persisted.created["Switch"] == 4
    assert cables <= set(Cable.objects.values_list("label", flat=True))
    assert fabric_build_pods(params=PodsParams(name="p5", pods=3, pod=PODS.pod)).persisted.changed is False


def test_command_builds_pods_and_reports_planes():
    out = io.StringIO()
    call_command("fabric_build", "--name", "c5", "--spines", "2", "--leaves", "2", "--servers-per-leaf", "1",
                 "--pods", "2", "--super-spine-links", "2", "--no-progress", stdout=out)
    text = out.getvalue()
    assert "fabric c5: 10 switches" in text
    assert "oversubscription per plane: plane1 1.00:1, plane2 1.00:1" in text


def test_command_refuses_too_many_pods_naming_the_field():
    with pytest.raises(CommandError, match="pods.*64"):
        call_command("fabric_build", "--name", "c5", "--spines", "2", "--leaves", "2", "--pods", "64",
                     "--no-progress", stdout=io.StringIO())
