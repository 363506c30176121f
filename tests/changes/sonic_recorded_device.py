"""A recorded SONiC switch behind the Netmiko driver: replaces the Netmiko connection (``send_command``).

It records every shell command the driver runs and answers from sonic_recorded/: the running CONFIG_DB as
``show runningconfiguration all`` prints it, frr.conf, TSC's mode line, the Generic Config Updater's output. It
keeps the files the driver writes (the base64 chunks, the atomic rename) and applies a ``config apply-patch`` to its
CONFIG_DB (add/replace/remove, RFC 6902) so what the driver reads back is what the patch produced; ``config load -y``
merges its file field by field and ``config qos clear`` deletes the QoS tables, as SONiC does. Any command it does
not know (``config reload``, ...) fails with "command not found" and stays in the log.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import shlex
from pathlib import Path

from changes.drivers.config_db import apply_config_db_patch
from changes.drivers.sonic_gcu import QOS_CLEAR_TABLES

RECORDED = Path(__file__).parent / "sonic_recorded"
ROCE_DATA = Path(__file__).parent / "data" / "rocegate"
FRR_CONF = "/etc/sonic/frr/frr.conf"
FRR_CONF_IN_CONTAINER = "/etc/frr/frr.conf"  # docker_image_ctl.j2 mounts /etc/sonic/frr as /etc/frr in bgp
# What SONiC's docker_init.sh (sonic-net/sonic-buildimage dockers/docker-fpm-frr/docker_init.sh at 086b03bd70f9,
# write_default_zebra_config) appends to /etc/frr/frr.conf in split-unified mode when no line starts with it.
SONIC_FPM_APPEND = "no fpm use-next-hop-groups\nfpm address 127.0.0.1\n"
_WRAPPED = re.compile(r"^echo (__ft_out_\w+__); (.*); echo (__ft_rc_\w+__)\$\?$", re.DOTALL)


def with_sonic_fpm(frr_conf: str) -> str:
    """``frr_conf`` as docker_init.sh leaves it in split-unified mode (its grep, then its two appended lines)."""
    if re.search(r"^no fpm use-next-hop-groups", frr_conf, re.MULTILINE):
        return frr_conf
    return frr_conf + SONIC_FPM_APPEND


class RecordedSonicConnection:
    """``routing_config_mode`` replaces the recorded DEVICE_METADATA mode ("split", in which SONiC would delete the
    recorded frr.conf at the bgp container's start); in split-unified the frr.conf gets SONiC's FPM lines, as
    docker_init.sh writes them. ``None`` keeps the recording as it is."""

    def __init__(self, routing_config_mode: str | None = None):
        self.config_db = json.loads((RECORDED / "show_runningconfiguration_all.json").read_text())
        frr_conf = (RECORDED / "frr.conf").read_text()
        if routing_config_mode is not None:
            self.config_db["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] = routing_config_mode
            if routing_config_mode == "split-unified":
                frr_conf = with_sonic_fpm(frr_conf)
        self.files = {FRR_CONF: frr_conf}
        self.frr_running = self.files[FRR_CONF]
        self.saved: dict | None = None
        self.patches: list[list[dict]] = []
        self.loads: list[str] = []
        self.fail_patch = False
        self.commands: list[str] = []

    def disconnect(self) -> None:
        pass

    @property
    def tsa(self) -> bool:
        return self.config_db.get("BGP_DEVICE_GLOBAL", {}).get("STATE", {}).get("tsa_enabled") == "true"

    def send_command(self, wrapped: str, **kwargs) -> str:
        match = _WRAPPED.match(wrapped)
        assert match, wrapped
        start, command, end = match.groups()
        self.commands.append(command)
        output, rc = self._run(command)
        body = output if not output or output.endswith("\n") else output + "\n"
        return f"{wrapped}\r\n{start}\r\n{body.replace(chr(10), chr(13) + chr(10))}{end}{rc}\r\n"

    def _run(self, command: str) -> tuple[str, int]:
        words = shlex.split(command.split(" && ")[0]) if command else []
        if command == "show runningconfiguration all":
            return json.dumps(self.config_db, indent=4), 0
        if match := re.fullmatch(r"(?:sudo )?test -f (\S+) && (?:sudo )?base64 -w0 \S+ \|\| true", command):
            text = self.files.get(match.group(1))
            return ("" if text is None else base64.b64encode(text.encode()).decode()), 0
        if match := re.fullmatch(r": > (\S+)", command):
            self.files[match.group(1)] = ""
            return "", 0
        if match := re.fullmatch(r"printf %s (\S+) >> (\S+)", command):
            self.files[match.group(2)] = self.files.get(match.group(2), "") + match.group(1)
            return "", 0
        if match := re.fullmatch(r"base64 -d (\S+)\.b64 > \1 && rm -f \1\.b64 && mv \1 (\S+)", command):
            temporary, path = match.groups()
            self.files[path] = base64.b64decode(self.files.pop(temporary + ".b64")).decode()
            self.files.pop(temporary, None)
            return "", 0
        if words[:3] == ["sudo", "config", "apply-patch"] and len(words) == 4:
            if self.fail_patch:
                return (RECORDED / "apply-patch.failed").read_text(), 1
            patch = json.loads(self.files[words[3]])
            self.config_db = apply_config_db_patch(self.config_db, patch)
            self.patches.append(patch)
            return (RECORDED / "apply-patch.ok").read_text(), 0
        if words[:4] == ["sudo", "config", "load", "-y"] and len(words) == 5:
            # sonic-cfggen -j <file> --write-to-db: ConfigDBConnector.mod_config, field by field (nothing removed)
            for table, entries in json.loads(self.files[words[4]]).items():
                for key, fields in entries.items():
                    self.config_db.setdefault(table, {}).setdefault(key, {}).update(fields)
            self.loads.append(words[4])
            return f"Running command: /usr/local/bin/sonic-cfggen -j {words[4]} --write-to-db\n", 0
        if command == "sudo config qos clear":  # config/main.py _clear_qos: delete_table for each QoS table
            for table in QOS_CLEAR_TABLES:
                self.config_db.pop(table, None)
            return "", 0
        if words[:2] == ["sudo", "cp"] and len(words) == 4:  # onto the existing file: its owner and mode stay
            self.files[words[3]] = self.files[words[2]]
            return "", 0
        if words[:2] == ["rm", "-f"]:
            self.files.pop(words[2], None)
            return "", 0
        if command == "sudo config save -y":
            self.saved = copy.deepcopy(self.config_db)
            return "Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json\n", 0
        if words[:6] == ["sudo", "docker", "exec", "bgp", "/usr/lib/frr/frr-reload.py", "--reload"]:
            assert words[6:] == [FRR_CONF_IN_CONTAINER], words  # the bgp container sees the host file there
            self.frr_running = self.files[FRR_CONF]
            return "", 0
        if command == "sudo TSC":
            return (RECORDED / ("TSC.maintenance" if self.tsa else "TSC.normal")).read_text(), 0
        if command == "sudo vtysh -c 'show bgp summary json'":
            # The peer on Ethernet8 (10.1.0.6) is up only while Ethernet8 has its routed address.
            up = "Ethernet8|10.1.0.7/31" in self.config_db.get("INTERFACE", {})
            return (RECORDED / f"bgp_summary.{'established' if up else 'one_down'}.json").read_text(), 0
        if command == "sonic-db-dump -n COUNTERS_DB -y":
            # sonic-swss-common scripts/sonic-db-dump: every key -> {"expireat", "ttl", "type", "value"}; the keys
            # are sonic-utilities' mock COUNTERS_DB (data/rocegate/sonic_counters_db.json)
            table = json.loads((ROCE_DATA / "sonic_counters_db.json").read_text())
            return json.dumps({key: {"expireat": 0, "ttl": -0.001, "type": "hash", "value": value}
                               for key, value in table.items()}, indent=4), 0
        if command == "cat /etc/sonic/sonic_version.yml":
            return (RECORDED / "sonic_version.yml").read_text(), 0
        if command == "sudo TSA":
            self.config_db.setdefault("BGP_DEVICE_GLOBAL", {}).setdefault("STATE", {})["tsa_enabled"] = "true"
            return "System Mode: Normal -> Maintenance\n", 0
        return f"bash: {words[0] if words else command}: command not found\n", 127
