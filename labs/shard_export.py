"""The shard map for users who run other engines (issue 35): a netlab topology using the multiserver plugin, and
clabernetes Topology resources. Pure: dicts ready for YAML; nothing here runs netlab, containerlab or Kubernetes.

Formats followed (neither engine runs on this machine; the output is golden-tested for shape, not deployed):

- netlab's ``multiserver`` plugin as documented in ipspace/netlab ``docs/plugins/multiserver.md`` (commit
  30f21adc, 2026): ``plugin: [multiserver]``, ``multiserver.assignment: explicit``, ``multiserver.servers.<worker>``
  with ``host``, ``groups``, ``weight``; ``multiserver.vxlan`` with ``vni_base``, ``dstport`` and the required
  ``dev``. One netlab group per shard. netlab numbers its cross-worker VNIs from ``vni_base`` itself, so its VNIs
  are not the twin's (``labs.stitch``: base + cable index); the port is the twin's stitching port.
- clabernetes (srl-labs/clabernetes v0.6.0, ``apis/v1alpha1``): ``apiVersion: clabernetes.containerlab.dev/v1alpha1``,
  ``kind: Topology``, ``spec.definition.containerlab`` (a containerlab topology as text). Its only placement control
  is ``spec.deployment.scheduling.nodeSelector`` for all launcher pods of a Topology, so the shard map becomes one
  Topology per shard pinned to its host (``kubernetes.io/hostname``); a cross-shard cable becomes a containerlab
  VXLAN link (``type: vxlan``, ``endpoint``, ``remote``, ``vni``, ``dst-port``) to the peer host's underlay address
  with the twin's VNI. Whether a launcher pod reaches that address depends on the cluster's networking: untested.
"""

from __future__ import annotations

from collections.abc import Mapping

import yaml

from .shards import ShardPlan
from .stitch import EMULATED_UNDERLAY, STITCH_UDP_PORT, STITCH_VNI_BASE
from .subset import natural_key

NETLAB_DEVICE = "frr"  # the twin runs FRR for every switch
CLAB_KIND = "linux"
CLAB_IMAGE = "quay.io/frrouting/frr:8.4.4"  # the FRR release the twin's measurements used (labs.containerlab)
CLABERNETES_API = "clabernetes.containerlab.dev/v1alpha1"


def default_addresses(plan: ShardPlan) -> dict[str, str]:
    """Underlay address per host when none are given: the emulated underlay's, in host order."""
    addresses = list(EMULATED_UNDERLAY.hosts())
    return {host.name: str(addresses[index]) for index, host in enumerate(plan.hosts)}


def _group(host: str) -> str:
    return f"shard_{host}".replace("-", "_").replace(".", "_")  # netlab group names are identifiers


def netlab_multiserver_plan(plan: ShardPlan, *, addresses: Mapping[str, str] | None = None,
                            vxlan_dev: str = "eth0", name: str = "fabric") -> dict:
    """A netlab topology placing every switch on its shard's worker (explicit assignment)."""
    addresses = dict(addresses or default_addresses(plan))
    return {
        "name": name,
        "provider": "clab",
        "plugin": ["multiserver"],
        "groups": {_group(host.name): {"members": plan.switches_of(host.name)} for host in plan.hosts},
        "nodes": {node: {"device": NETLAB_DEVICE} for node in sorted(plan.assignment, key=natural_key)},
        "links": [{cable.a_node: {"ifname": cable.a_ifname}, cable.b_node: {"ifname": cable.b_ifname}}
                  for cable in plan.cables],
        "multiserver": {
            "assignment": "explicit",
            "servers": {host.name: {"host": addresses[host.name], "groups": [_group(host.name)],
                                    "weight": _weight(host.weight)} for host in plan.hosts},
            "vxlan": {"vni_base": STITCH_VNI_BASE, "dstport": STITCH_UDP_PORT, "dev": vxlan_dev},
        },
    }


def clabernetes_topology(plan: ShardPlan, *, name: str = "fabric", addresses: Mapping[str, str] | None = None,
                         image: str = CLAB_IMAGE) -> dict:
    """A Kubernetes List of clabernetes Topology resources, one per shard, pinned to its host."""
    addresses = dict(addresses or default_addresses(plan))
    vni = {cable.cable_id: STITCH_VNI_BASE + index for index, cable in enumerate(plan.cables)}
    items = []
    for host in plan.hosts:
        nodes = plan.switches_of(host.name)
        if not nodes:
            continue
        members = set(nodes)
        links: list[dict] = []
        for cable in plan.cables:
            if cable.a_node in members and cable.b_node in members:
                links.append({"endpoints": [f"{cable.a_node}:{cable.a_ifname}", f"{cable.b_node}:{cable.b_ifname}"]})
            elif cable.a_node in members or cable.b_node in members:
                here_a = cable.a_node in members
                node, ifname = (cable.a_node, cable.a_ifname) if here_a else (cable.b_node, cable.b_ifname)
                peer = plan.assignment[cable.b_node if here_a else cable.a_node]
                links.append({"type": "vxlan", "endpoint": {"node": node, "interface": ifname},
                              "remote": addresses[peer], "vni": vni[cable.cable_id], "dst-port": STITCH_UDP_PORT})
        lab = f"{name}-{host.name}".lower()
        definition = {"name": lab, "topology": {
            "nodes": {node: {"kind": CLAB_KIND, "image": image, "labels": {"shard": host.name}} for node in nodes},
            "links": links}}
        items.append({
            "apiVersion": CLABERNETES_API,
            "kind": "Topology",
            "metadata": {"name": lab, "labels": {"fabric-twin/shard": host.name}},
            "spec": {
                "definition": {"containerlab": yaml.safe_dump(definition, sort_keys=False)},
                "deployment": {"scheduling": {"nodeSelector": {"kubernetes.io/hostname": host.name}}},
            },
        })
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _weight(weight: float) -> int | float:
    return int(weight) if float(weight).is_integer() else weight
