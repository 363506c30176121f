"""SONiC over SSH with Netmiko (device_type "linux"): config_db.json + frr.conf as files on the box.

Push = write both files, ``config reload -y`` (SONiC rebuilds its Redis CONFIG_DB from config_db.json), then apply
frr.conf with FRR's frr-reload.py (a replace: only the delta is applied; plain ``vtysh -f`` would only merge).
Reads use ``cat`` and ``vtysh -c '... json'``. Drain/undrain use SONiC's traffic-shift scripts TSA/TSB
(route-maps that make the box unattractive), TSC reports the mode. Every command is configurable through
``optional_args`` so the same driver runs against the twin (an sshd inside a twin node's namespace, vtysh with
``-N <pathspace>``), which is how it is tested for real.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
import uuid

from compiler.errors import DriverError

from .base import ConfigFiles, DeviceDriver, Health, config_diff

DEFAULTS = {
    "config_db_path": "/etc/sonic/config_db.json",
    "frr_conf_path": "/etc/sonic/frr/frr.conf",
    "config_reload_command": "sudo config reload -y",
    "frr_reload_command": "sudo /usr/lib/frr/frr-reload.py --reload {path}",
    "vtysh": "sudo vtysh",
    "drain_command": "sudo TSA",
    "undrain_command": "sudo TSB",
    "drain_status_command": "sudo TSC",
    "install_command": "sudo sonic-installer install -y {image}",
    "reboot_command": "sudo reboot",
    "version_command": "cat /etc/sonic/sonic_version.yml",
}
FILES = ("config_db.json", "frr.conf")
CHUNK = 4096  # base64 characters per shell line: well under ARG_MAX and the terminal's line editor limits


class NetmikoSonicDriver(DeviceDriver):
    def __init__(self, hostname: str, address: str, username: str, password: str = "", *, port: int = 22,
                 key_file: str = "", optional_args: dict | None = None, timeout: int = 60):
        self.hostname = hostname
        self.options = {**DEFAULTS, **(optional_args or {})}
        self._connection_args = {"device_type": "linux", "host": address, "port": port, "username": username,
                                 "timeout": timeout, "conn_timeout": timeout, "fast_cli": False}
        if password:
            self._connection_args["password"] = password
        if key_file:
            self._connection_args.update(use_keys=True, key_file=key_file, allow_agent=False)
        self._connection = None
        self._candidate: ConfigFiles | None = None

    def __repr__(self) -> str:
        return f"NetmikoSonicDriver({self.hostname!r}, host={self._connection_args['host']!r})"

    # --------------------------------------------------------------------------------------------- connection

    def open(self) -> None:
        if self._connection is not None:
            return
        from netmiko import ConnectHandler
        from netmiko.exceptions import NetmikoAuthenticationException, NetmikoTimeoutException

        try:
            self._connection = ConnectHandler(**self._connection_args)
        except (NetmikoAuthenticationException, NetmikoTimeoutException, OSError, ValueError) as exc:
            # The exception text never contains the password (Netmiko reports host/port/user only).
            raise DriverError(f"{self.hostname}: SSH to {self._connection_args['host']}:"
                              f"{self._connection_args['port']} failed: {exc}") from exc

    def close(self) -> None:
        if self._connection is not None:
            try:
                self._connection.disconnect()
            finally:
                self._connection = None

    def run(self, command: str, *, check: bool = True, timeout: float = 120) -> str:
        """Run one shell command; with ``check`` a non-zero exit status raises DriverError with the output.

        The output is cut out between two markers the command prints itself, so terminal echo and line wrapping
        of long commands (the echo is wrapped with carriage returns at 80 columns) never leak into it."""
        self.open()
        token = uuid.uuid4().hex[:8]
        start, end = f"__ft_out_{token}__", f"__ft_rc_{token}__"
        output = self._connection.send_command(f"echo {start}; {command}; echo {end}$?", read_timeout=timeout,
                                               strip_prompt=True, strip_command=False, cmd_verify=False)
        output = output.replace("\r\n", "\n")
        match = re.search(re.escape(start) + r"\n(.*)" + re.escape(end) + r"(\d+)", output, re.DOTALL)
        if match is None:
            raise DriverError(f"{self.hostname}: could not read the result of {command[:80]!r}: {output[-300:]!r}")
        body, rc = match.group(1), int(match.group(2))
        if check and rc != 0:
            raise DriverError(f"{self.hostname}: {command[:200]!r} failed (rc={rc}): {body.strip()[-800:]}")
        return body.rstrip("\n")

    # --------------------------------------------------------------------------------------------- config

    def _path(self, name: str) -> str:
        return self.options["config_db_path"] if name == "config_db.json" else self.options["frr_conf_path"]

    def get_running_config(self) -> ConfigFiles:
        files = {}
        for name in FILES:
            path = shlex.quote(self._path(name))
            # base64 keeps the bytes exact (the SSH channel would turn LF into CRLF and eat trailing blanks).
            encoded = self.run(f"test -f {path} && base64 -w0 {path} || true")
            files[name] = base64.b64decode("".join(encoded.split())).decode() if encoded.strip() else ""
        return files

    def load_candidate(self, config: ConfigFiles) -> None:
        unknown = set(config) - set(FILES)
        if unknown or "config_db.json" not in config:
            raise DriverError(f"{self.hostname}: SONiC takes {list(FILES)}, got {sorted(config)}")
        try:
            json.loads(config["config_db.json"])
        except ValueError as exc:
            raise DriverError(f"{self.hostname}: config_db.json is not valid JSON: {exc}") from exc
        self._candidate = dict(config)

    def compare(self) -> str:
        if self._candidate is None:
            raise DriverError(f"{self.hostname}: compare without a loaded candidate")
        running = self.get_running_config()
        return config_diff({k: v for k, v in running.items() if k in self._candidate}, self._candidate)

    def _write_file(self, path: str, text: str) -> None:
        encoded = base64.b64encode(text.encode()).decode()
        temporary = shlex.quote(f"{path}.ft-{uuid.uuid4().hex[:8]}")
        self.run(f": > {temporary}")
        for start in range(0, len(encoded), CHUNK):
            self.run(f"printf %s {encoded[start:start + CHUNK]} >> {temporary}.b64")
        self.run(f"base64 -d {temporary}.b64 > {temporary} && rm -f {temporary}.b64 && mv {temporary} "
                 f"{shlex.quote(path)}")  # rename: a reader never sees half a file

    def commit(self) -> None:
        if self._candidate is None:
            raise DriverError(f"{self.hostname}: commit without a loaded candidate")
        self._write_file(self.options["config_db_path"], self._candidate["config_db.json"])
        if self.options["config_reload_command"]:
            command = self.options["config_reload_command"].format(path=shlex.quote(self.options["config_db_path"]))
            self.run(command, timeout=600)
        if "frr.conf" in self._candidate:
            path = self.options["frr_conf_path"]
            self._write_file(path, self._candidate["frr.conf"])
            self.run(self.options["frr_reload_command"].format(path=shlex.quote(path)), timeout=300)
        self._candidate = None

    def discard(self) -> None:
        self._candidate = None

    def rollback(self, previous: ConfigFiles | None = None) -> None:
        """SONiC has no commit checkpoints: roll back by pushing the previous files again."""
        if previous is None:
            raise DriverError(f"{self.hostname}: SONiC rollback needs the previous config")
        self.load_candidate({name: text for name, text in previous.items() if name in FILES})
        self.commit()

    # --------------------------------------------------------------------------------------------- drain/upgrade

    def vtysh(self, *commands: str) -> str:
        return self.run(" ".join([self.options["vtysh"], *(f"-c {shlex.quote(c)}" for c in commands)]))

    def drain(self) -> None:
        self.run(self.options["drain_command"])

    def undrain(self) -> None:
        self.run(self.options["undrain_command"])

    def is_drained(self) -> bool:
        output = self.run(self.options["drain_status_command"], check=False)
        return "maintenance" in output.lower()

    def install_image(self, version: str) -> None:
        self.run(self.options["install_command"].format(image=shlex.quote(version)), timeout=1800)

    def reboot(self) -> None:
        self.run(self.options["reboot_command"], check=False)

    def health(self) -> Health:
        summary = json.loads(self.vtysh("show bgp summary json") or "{}")
        peers = summary.get("ipv4Unicast", {}).get("peers", {})
        down = tuple(sorted(peer for peer, data in peers.items() if data.get("state") != "Established"))
        routes = sum(int(data.get("pfxRcd", 0) or 0) for data in peers.values())
        evpn = summary.get("l2VpnEvpn", {}).get("peers", {})
        evpn_routes = sum(int(data.get("pfxRcd", 0) or 0) for data in evpn.values())
        version = self.run(self.options["version_command"], check=False).strip()[:200]
        return Health(bgp_established=len(peers) - len(down), bgp_total=len(peers), routes=routes,
                      evpn_routes=evpn_routes, down_peers=down, version=version)
