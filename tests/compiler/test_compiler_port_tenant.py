"""compiler.validate: a server NIC port is an access port of one tenant (issue #16: a tenant-B network took
tenant A's GPU port and the leaf port silently became a trunk without a native VLAN)."""

from pathlib import Path

import pytest
import yaml

from compiler.errors import IntentValidationError
from compiler.scenario import snapshot_from_scenario
from compiler.validate import validate_intent

REFERENCE = Path(__file__).resolve().parents[2] / "examples" / "reference-fabric.yaml"


def _scenario_with(network: str, port: str) -> dict:
    data = yaml.safe_load(REFERENCE.read_text())
    next(item for item in data["intent"]["networks"] if item["name"] == network)["attachments"].append(port)
    return data


def test_a_port_of_tenant_a_in_a_tenant_b_network_is_refused_naming_the_field():
    with pytest.raises(IntentValidationError) as error:
        validate_intent(snapshot_from_scenario(_scenario_with("b-train", "gpu0001:eth0")))
    assert error.value.as_dict()["networks[b-train].attachments"] == [
        "already an access port of network a-train of tenant A: detach it there first "
        "(a NIC port belongs to one tenant) (got 'gpu0001:eth0')"]


def test_a_port_in_two_networks_of_one_tenant_is_not_refused_here():
    validate_intent(snapshot_from_scenario(_scenario_with("a-storage", "gpu0001:eth0")))
