"""The Netmiko SONiC driver for real: SSH (OpenSSH server inside a twin switch's namespace, reached over a
management veth) -> read/write config files, reload FRR with frr-reload.py, read BGP health with vtysh.

Needs root, FRR and /usr/sbin/sshd (apt-get install openssh-server); skipped with the reason otherwise. The twin
has no SONiC CLI, so ``show runningconfiguration all`` is ``cat`` of a config_db.json file and ``config apply-patch``
is a stand-in script applying the JSON Patch to that file with the project's own RFC 6902 code (stated in
docs/changes.md); everything else is the command the driver runs on a SONiC box, pointed at the twin's paths.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from changes_fabric import fabric

from changes.drivers.netmiko_sonic import NetmikoSonicDriver
from compiler.errors import DriverError
from labs import runtime
from labs.frr_binaries import active_frr
from labs.shell import run

pytestmark = [pytest.mark.twin, pytest.mark.slow]
SSHD = "/usr/sbin/sshd"
REPO = Path(__file__).resolve().parents[2]
# The stand-in loads config_db.py by path: the changes.drivers package imports Django models, which a plain
# script on the "switch" has no settings for (config_db.py itself is pure Python).
GCU_STAND_IN = f"""import importlib.util, json, sys
sys.path.insert(0, {str(REPO)!r})
spec = importlib.util.spec_from_file_location("config_db", {str(REPO / "changes" / "drivers" / "config_db.py")!r})
config_db = importlib.util.module_from_spec(spec)
spec.loader.exec_module(config_db)
apply_config_db_patch = config_db.apply_config_db_patch
patch_path, db_path = sys.argv[1:]
with open(db_path) as db, open(patch_path) as patch:
    result = apply_config_db_patch(json.load(db), json.load(patch))
with open(db_path, "w") as db:
    db.write(json.dumps(result, indent=4) + "\\n")
"""
CONFIG_DB = {"DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "bgp_asn": "65101", "type": "LeafRouter"}},
             "VLAN": {"Vlan10": {"vlanid": "10"}}}


@pytest.fixture
def sonic_over_ssh(twin_required, tmp_path):
    if not os.access(SSHD, os.X_OK) or shutil.which("ssh-keygen") is None:
        pytest.skip("OpenSSH server not installed (apt-get install -y openssh-server)")
    prefix = "ftn" + uuid.uuid4().hex[:6]
    topology, _, _ = fabric(prefix, spines=1, leaves=1)
    runtime.up(topology, state_dir=tmp_path / "twins")
    netns = f"{prefix}-leaf1"
    octet = int(uuid.uuid4().hex[:2], 16) % 250 + 1
    root_if, node_if = f"{prefix}m0", "mgmt0"
    mgmt_ip, root_ip = f"198.18.{octet}.2", f"198.18.{octet}.1"  # RFC 2544 benchmarking range: never routed
    sshd = None
    try:
        run(["ip", "link", "add", root_if, "type", "veth", "peer", "name", node_if, "netns", netns])
        run(["ip", "addr", "add", f"{root_ip}/30", "dev", root_if])
        run(["ip", "link", "set", root_if, "up"])
        run(["ip", "-n", netns, "addr", "add", f"{mgmt_ip}/30", "dev", node_if])
        run(["ip", "-n", netns, "link", "set", node_if, "up"])
        keys = tmp_path / "ssh"
        keys.mkdir()
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / "host_key")])
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / "client_key")])
        (keys / "authorized_keys").write_text((keys / "client_key.pub").read_text())
        config = keys / "sshd_config"
        config.write_text(f"Port 22\nListenAddress {mgmt_ip}\nHostKey {keys / 'host_key'}\n"
                          f"AuthorizedKeysFile {keys / 'authorized_keys'}\nPidFile {keys / 'sshd.pid'}\n"
                          "PermitRootLogin prohibit-password\nPasswordAuthentication no\nUsePAM no\nStrictModes no\n")
        Path("/run/sshd").mkdir(exist_ok=True)
        sshd = subprocess.Popen(["ip", "netns", "exec", netns, SSHD, "-D", "-e", "-f", str(config)],
                                stdout=subprocess.DEVNULL, stderr=(tmp_path / "sshd.log").open("w"))
        deadline = time.monotonic() + 10
        while run(["ip", "netns", "exec", netns, "ss", "-ltn", f"src {mgmt_ip}:22"], check=False).stdout.count(
                "LISTEN") == 0:
            assert sshd.poll() is None and time.monotonic() < deadline, (tmp_path / "sshd.log").read_text()
            time.sleep(0.1)
        sonic_dir = tmp_path / "sonic"
        (sonic_dir / "frr").mkdir(parents=True)
        (sonic_dir / "config_db.json").write_text(json.dumps(CONFIG_DB, indent=4) + "\n")
        (sonic_dir / "frr" / "frr.conf").write_text(topology.nodes_by_name["leaf1"].frr_conf)
        (sonic_dir / "gcu_stand_in.py").write_text(GCU_STAND_IN)
        options = {  # the twin has no SONiC CLI: CONFIG_DB is a file, apply-patch a stand-in, nothing to save
            "running_config_command": f"cat {sonic_dir / 'config_db.json'}",
            "apply_patch_command": f"{sys.executable} {sonic_dir / 'gcu_stand_in.py'} {{path}} "
                                   f"{sonic_dir / 'config_db.json'}",
            "save_command": "",
            "patch_dir": str(sonic_dir),
            "drain_status_command": "echo 'System Mode: Normal'",
            "frr_conf_path": str(sonic_dir / "frr" / "frr.conf"),
            "frr_conf_sudo": "",  # the test's sshd logs in as root: the file is written in place
            # the FRR the twin runs (labs.frr_binaries): its own frr-reload.py and vtysh
            "frr_reload_command": f"{active_frr().frr_reload} --bindir {Path(active_frr().vtysh).parent} --reload "
                                  f"--pathspace {netns} {{path}}",
            "vtysh": f"{active_frr().vtysh} -N {netns}",
            # CONFIG_DB above has no docker_routing_config_mode (SONiC would read "separated"); the node runs one
            # frr.conf, as a split-unified switch does
            "routing_config_mode": "split-unified",
            "version_command": "echo twin",
        }
        driver = NetmikoSonicDriver("leaf1", mgmt_ip, "root", key_file=str(keys / "client_key"), optional_args=options)
        yield {"driver": driver, "netns": netns, "frr_conf": topology.nodes_by_name["leaf1"].frr_conf,
               "config_db": sonic_dir / "config_db.json"}
    finally:
        if sshd is not None:
            sshd.send_signal(signal.SIGTERM)
            sshd.wait(timeout=10)
        run(["ip", "link", "del", root_if], check=False)
        runtime.down(prefix, state_dir=tmp_path / "twins", force=True)


def test_netmiko_reads_writes_reloads_and_reads_health_over_ssh(sonic_over_ssh):
    driver, netns = sonic_over_ssh["driver"], sonic_over_ssh["netns"]
    with driver:
        running = driver.get_running_config()
        assert json.loads(running["config_db.json"]) == CONFIG_DB
        assert running["frr.conf"] == sonic_over_ssh["frr_conf"]  # byte-exact through the SSH channel
        new_db = {**CONFIG_DB, "VLAN": {"Vlan10": {"vlanid": "10"}, "Vlan30": {"vlanid": "30"}}}
        intended = {"config_db.json": json.dumps(new_db, indent=4) + "\n",
                    "frr.conf": sonic_over_ssh["frr_conf"].replace(" neighbor FABRIC timers 3 9\n",
                                                                   " neighbor FABRIC timers 3 9\n"
                                                                   " neighbor FABRIC description pushed-by-netmiko\n")}
        diff = driver.push(intended)
        assert '"path": "/VLAN/Vlan30"' in diff and "pushed-by-netmiko" in diff
        assert json.loads((sonic_over_ssh["config_db"]).read_text())["VLAN"]["Vlan30"] == {"vlanid": "30"}
        assert driver.is_at(intended)
        live = run([active_frr().vtysh, "-N", netns, "-c", "show running-config"]).stdout
        assert "neighbor FABRIC description pushed-by-netmiko" in live  # FRR really applied it
        deadline = time.monotonic() + 30
        while not (health := driver.health()).all_established:
            assert time.monotonic() < deadline, health
            time.sleep(1)
        assert health.bgp_total == 1 and health.routes > 0
        driver.rollback(running)
        assert driver.get_running_config() == running  # byte-identical after the rollback
        assert driver.is_at(running)
        assert "pushed-by-netmiko" not in run([active_frr().vtysh, "-N", netns, "-c", "show running-config"]).stdout
        with pytest.raises(DriverError, match="not valid JSON"):
            driver.load_candidate({"config_db.json": "{broken", "frr.conf": ""})
