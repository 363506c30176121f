"""The twin runs a parsed foreign fabric's OSPF underlay (issue 25: "where the live twin can run a feature, it
does"): containerlab's FRR OSPF triangle (tests/data/corpus/containerlab/frr01) parsed, rendered by our FRR writer
(compiler.render.igp) and booted with ospfd. Each router's three OSPF ports: two links to the others and one
passive stub (eth3, 192.168.1N.0/24, a host namespace on it). Passing: every adjacency FULL, every router routes
to the others' stubs over OSPF and reaches their hosts. Broken case, live on the same twin: an area changed on one
end of a link (OSPF drops the hello, RFC 2328 10.5): that adjacency goes down, the stub is reached the other way. (The routers' `lo` addresses are in no `network` statement of the source configs, so OSPF
does not carry them: the stubs are what the configs advertise.) Skipped with the reason where the twin cannot run.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from compiler.parse import parse_device
from compiler.parse.files import configs_from_directory
from labs import runtime
from labs.collectors import vtysh_json
from labs.from_configs import topology_from_configs
from labs.frr_binaries import active_frr
from labs.runtime.daemons import daemons_for
from labs.shell import ns_exec
from labs.topology import new_prefix

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus" / "containerlab" / "frr01"
STUBS = {"router1": "192.168.11.1", "router2": "192.168.12.1", "router3": "192.168.13.1"}


def _structured(edit: tuple[str, str, str] | None = None) -> dict[str, dict]:
    out = {}
    for key, files in sorted(configs_from_directory(CORPUS).items()):
        files = dict(files)
        if edit and edit[0] == key:
            assert edit[1] in files["frr.conf"]
            files["frr.conf"] = files["frr.conf"].replace(edit[1], edit[2], 1)
        device = parse_device(files, hostname_hint=key)
        out[device.structured["hostname"]] = device.structured
    return out


def test_the_ospf_triangle_becomes_three_routers_three_links_and_ospfd():
    topology = topology_from_configs(_structured(), name_prefix="ftospf0")
    assert sorted(node.name for node in topology.nodes) == ["router1", "router2", "router3"]
    assert sorted((link.a_node, link.a_ifname, link.b_node, link.b_ifname) for link in topology.links) == [
        ("router1", "eth1", "router2", "eth1"), ("router1", "eth2", "router3", "eth1"),
        ("router2", "eth2", "router3", "eth2")]
    router1 = topology.nodes_by_name["router1"]
    assert "router ospf" in router1.frr_conf and " ip ospf passive" in router1.frr_conf
    assert "ospfd" in [daemon for daemon, _ in daemons_for(router1.frr_conf, False)]
    assert "ospfd" not in [daemon for daemon, _ in daemons_for("router bgp 65000\n", False)]


def _full_neighbors(pathspace: str) -> int:
    data = vtysh_json(pathspace, "show ip ospf neighbor json")
    return sum(1 for entries in (data.get("neighbors") or {}).values() for entry in entries
               if str(entry.get("nbrState", entry.get("converged", ""))).startswith("Full"))


def _wait_full(state, wanted: dict[str, int], seconds: float) -> dict[str, int]:
    deadline = time.monotonic() + seconds
    while True:
        full = {name: _full_neighbors(state.node_netns[name]) for name in wanted}
        if full == wanted or time.monotonic() > deadline:
            return full
        time.sleep(1)


@pytest.mark.twin
@pytest.mark.usefixtures("twin_required")
def test_the_twin_runs_the_parsed_ospf_underlay(tmp_path):
    topology = topology_from_configs(_structured(), name_prefix=new_prefix())
    assert sorted(host.name for host in topology.hosts) == ["router1-eth3", "router2-eth3", "router3-eth3"]
    state = runtime.up(topology, tmp_path)
    try:
        assert state.config_errors == {}
        # Broadcast links (the source's /24s): each waits RouterDeadInterval (40 s) before electing a DR
        # (RFC 2328 9.4), so FULL comes after about 41 s.
        assert _wait_full(state, {name: 2 for name in STUBS}, 55) == {name: 2 for name in STUBS}
        wanted = {name: sorted(address.rsplit(".", 1)[0] + ".0/24" for other, address in STUBS.items()
                               if other != name) for name in STUBS}
        deadline = time.monotonic() + 15  # the LSAs flood and SPF runs once the adjacencies are FULL
        while True:
            learned = {name: sorted(stub for stub in wanted[name] if stub in vtysh_json(
                state.node_netns[name], "show ip route ospf json")) for name in STUBS}
            if learned == wanted or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert learned == wanted
        for name in STUBS:
            for other, address in STUBS.items():
                if other == name:
                    continue
                # the other router's stub host, over OSPF routes both ways
                host = address.rsplit(".", 1)[0] + ".2"
                ping = ns_exec(topology.netns(name), ["ping", "-c", "1", "-W", "2", host], check=False)
                assert ping.returncode == 0, (name, host, ping.stdout)
        # Broken case, live: router2's end of the router1 link moved to area 0.0.0.1. OSPF drops a hello whose
        # area differs (RFC 2328 10.5), so router2 loses that adjacency at once and keeps the one to router3.
        changed = runtime.run([active_frr().vtysh, "-N", state.node_netns["router2"], "-c", "configure terminal",
                               "-c", "interface eth1", "-c", "no ip ospf area", "-c", "ip ospf area 0.0.0.1"], check=False)
        assert changed.returncode == 0, changed.stdout + changed.stderr
        assert _wait_full(state, {"router2": 1}, 10) == {"router2": 1}
        deadline = time.monotonic() + 20  # SPF reruns after the adjacency drops (FRR's spf throttle), then installs
        while "192.168.11.0/24" not in (routes := vtysh_json(state.node_netns["router2"], "show ip route ospf json")):
            if time.monotonic() > deadline:
                break
            time.sleep(1)
        assert "192.168.11.0/24" in routes, sorted(routes)  # router1's stub, now via router3
    finally:
        runtime.down(state.prefix, tmp_path, force=True)
