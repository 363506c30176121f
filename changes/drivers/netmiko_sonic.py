"""SONiC over SSH with Netmiko (device_type "linux"): the difference applied on top of the running config.

A push never writes /etc/sonic/config_db.json and never runs ``config reload`` (that throws away platform data and
the management address: the switch stays down). Instead:
1. read the running CONFIG_DB (``show runningconfiguration all``) and frr.conf;
2. compute the RFC 6902 JSON Patch from running to the candidate: owned tables replaced, every other table merged
   (``changes.drivers.config_db``), and the config the device would then run;
3. the pre-push guard (``changes.guard.push_guard``) refuses a patch that would remove or change MGMT_*, the mgmt
   VRF's routes, SSH/API/AAA, DEVICE_METADATA hwsku/platform/mac, or the drain state (BGP_DEVICE_GLOBAL);
4. write the patch to a file on the switch and apply it with the Generic Config Updater,
   ``config apply-patch <file>`` (sonic-utilities ``config/main.py``), then ``config save -y``. The QoS and buffer
   tables of a first push go by ``config load`` right after the patch (``changes.drivers.sonic_gcu``: GCU's
   field-operation rules refuse creating them), and a patch GCU would refuse on this switch's ASIC and release
   (read from /etc/sonic/sonic_version.yml) is refused before the switch is touched, saying what to do instead;
5. frr.conf with FRR's frr-reload.py (a replace: only the delta is applied; plain ``vtysh -f`` would only merge)
   run inside the ``bgp`` container, where FRR lives; a drained switch is drained again right after (TSA), since
   the reload would drop its traffic-shift route-maps.
How frr.conf reaches FRR depends on DEVICE_METADATA ``docker_routing_config_mode`` (read from the running CONFIG_DB;
sonic-net/sonic-buildimage at 086b03bd70f9: dockers/docker-fpm-frr/docker_init.sh, files/build_templates/
docker_image_ctl.j2, src/sonic-yang-models/yang-models/sonic-device_metadata.yang):
- ``split-unified``: FRR runs one frr.conf not generated from CONFIG_DB. It lives on the host in /etc/sonic/frr/,
  which docker_image_ctl.j2 mounts as /etc/frr in the ``bgp`` container (``-v /etc/sonic/frr/$DEV:/etc/frr:rw``);
  the driver writes the host file (through ``sudo cp``: the directory is frr:frr 0750) and runs
  ``docker exec bgp /usr/lib/frr/frr-reload.py --reload /etc/frr/frr.conf``
  (the host has no FRR of its own; its ``vtysh`` is a wrapper that runs ``docker exec -i bgp vtysh``).
  docker_init.sh appends ``no fpm use-next-hop-groups`` + ``fpm address 127.0.0.1`` to that file: a candidate
  frr.conf without an FPM line the running one has is refused (the reload would delete it from zebra, which then
  stops feeding fpmsyncd: no new route reaches the ASIC). The SONiC renderer writes both lines.
- ``split``: per-daemon files (zebra.conf, bgpd.conf, ...) and docker_init.sh deletes frr.conf at every start;
- ``separated`` (also an absent mode: docker_init.sh's ``-z $CONFIG_TYPE``) and ``unified``: bgpcfgd / frrcfgd
  generate FRR's config from CONFIG_DB (BGP_NEIGHBOR, BGP_GLOBALS, ...) and overwrite frr.conf at the next start.
  In these three modes a frr.conf push is refused before the switch is touched, naming the mode: our renderer writes
  one integrated frr.conf and no CONFIG_DB BGP tables. A push that would change the mode is refused too: it takes
  effect only when the ``bgp`` container restarts (docker_init.sh runs at its start), which is an outage to plan.
Rollback to a saved running config applies the full patch (every table, nothing merged) back to it, restores
frr.conf, and checks the result is byte-identical (after the JSON normalisation ``get_running_config`` applies).

Secret references in the candidate (the TACACS+ ``passkey`` is ``FT-SECRET[<reference>]`` as rendered) are resolved
from the encrypted credential store when the candidate is loaded (``changes.credentials.secret_refs_resolve``); an
unknown reference refuses the push before the switch is contacted, and the patch shown as the step's output hides
secret fields.

Reads use ``show runningconfiguration all``, ``base64`` of frr.conf and ``vtysh -c '... json'``. Drain/undrain use
SONiC's traffic-shift scripts TSA/TSB, TSC reports the mode. Every command is configurable through
``optional_args`` so the same driver runs against the twin (an sshd inside a twin node's namespace, vtysh with
``-N <pathspace>``), which is how it is tested for real.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
import time
import uuid
from collections.abc import Iterable

from common.redaction import config_secrets_shown, redact
from compiler.errors import DriverError

from ..credentials import secret_refs_resolve
from ..guard import push_guard
from ..rocegate import adapters
from ..rocegate.schema import Poll
from .base import ConfigFiles, DeviceDriver, Health, config_diff
from .config_db import apply_config_db_patch, config_db_patch, parse_config_db, pointer, unpointer
from .sonic_gcu import SonicPushPlan, SonicRelease, gcu_refusals, merge_loaded, plan_push

DEFAULTS = {
    "frr_conf_path": "/etc/sonic/frr/frr.conf",
    # /etc/sonic/frr is frr:frr 0750 with files 0640 (sonic-buildimage files/build_templates/
    # sonic_debian_extension.j2 at 086b03bd70f9): the admin user reads and writes frr.conf through sudo
    "frr_conf_sudo": "sudo",
    "running_config_command": "show runningconfiguration all",
    "apply_patch_command": "sudo config apply-patch {path}",
    # the QoS/buffer tables of a first push (changes.drivers.sonic_gcu): written as SONiC installs them
    "load_command": "sudo config load -y {path}",
    "qos_clear_command": "sudo config qos clear",
    "save_command": "sudo config save -y",
    "patch_dir": "/tmp",
    # {path}: the file the driver wrote; {container_path}: the same file as the bgp container sees it
    "frr_conf_container_path": "/etc/frr/frr.conf",
    "frr_reload_command": "sudo docker exec bgp /usr/lib/frr/frr-reload.py --reload {container_path}",
    # "" = DEVICE_METADATA|localhost docker_routing_config_mode of the running CONFIG_DB (a test bench without
    # DEVICE_METADATA names it here)
    "routing_config_mode": "",
    "vtysh": "sudo vtysh",
    "drain_command": "sudo TSA",
    "undrain_command": "sudo TSB",
    "drain_status_command": "sudo TSC",
    "install_command": "sudo sonic-installer install -y {image}",
    "reboot_command": "sudo reboot",
    "version_command": "cat /etc/sonic/sonic_version.yml",
    # the RoCE gate's poll: COUNTERS_DB as JSON (sonic-swss-common scripts/sonic-db-dump; what show techsupport
    # saves as dump/COUNTERS_DB.json); the name maps and the port/queue rows changes.rocegate.adapters reads
    "counters_command": "sonic-db-dump -n COUNTERS_DB -y",
}
FILES = ("config_db.json", "frr.conf")
FRR_CONF_MODE = "split-unified"  # the only mode that runs one frr.conf of ours (docstring above)
ABSENT_MODE = "separated"  # docker_init.sh: an empty docker_routing_config_mode is "separated"
WHY_NOT_FRR_CONF = {
    "split": "SONiC runs per-daemon files (zebra.conf, bgpd.conf, staticd.conf) and docker_init.sh deletes frr.conf "
             "at every bgp container start",
    "separated": "bgpcfgd generates FRR's per-daemon config from CONFIG_DB (BGP_NEIGHBOR, BGP_GLOBALS, ...) at every "
                 "bgp container start",
    "unified": "frrcfgd generates frr.conf from CONFIG_DB (BGP_NEIGHBOR, BGP_GLOBALS, ...) at every bgp container "
               "start",
}
FPM_LINE = re.compile(r"^(?:no )?fpm (?:address|use-next-hop-groups)\b.*$", re.MULTILINE)
CONFIG_DB = "config_db.json"
CHUNK = 4096  # base64 characters per shell line: well under ARG_MAX and the terminal's line editor limits


class NetmikoSonicDriver(DeviceDriver):
    def __init__(self, hostname: str, address: str, username: str, password: str = "", *, port: int = 22,
                 key_file: str = "", optional_args: dict | None = None, timeout: int = 60):
        self.hostname = hostname
        unknown = sorted(set(optional_args or {}) - set(DEFAULTS))
        if unknown:  # e.g. config_db_path / config_reload_command of the old replace + reload push
            raise DriverError(f"{hostname}: optional_args {unknown} are not SONiC driver options (known: "
                              f"{sorted(DEFAULTS)}); the push applies a JSON patch, it never writes config_db.json")
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
        # lazy: netmiko is heavy (~0.5 s, pulls paramiko and textfsm) and only a SONiC endpoint needs it
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

    def normalize(self, files: ConfigFiles) -> ConfigFiles:
        out = dict(files)
        if out.get(CONFIG_DB, "").strip():
            out[CONFIG_DB] = normalize_config_db(out[CONFIG_DB], what=f"{self.hostname}: {CONFIG_DB}")
        return out

    def get_running_config(self) -> ConfigFiles:
        running_db = self.run(self.options["running_config_command"])
        files = {CONFIG_DB: normalize_config_db(running_db, what=f"{self.hostname}: running CONFIG_DB")}
        path = shlex.quote(self.options["frr_conf_path"])
        # base64 keeps the bytes exact (the SSH channel would turn LF into CRLF and eat trailing blanks).
        sudo = f"{self.options['frr_conf_sudo']} " if self.options["frr_conf_sudo"] else ""
        encoded = self.run(f"{sudo}test -f {path} && {sudo}base64 -w0 {path} || true")
        files["frr.conf"] = base64.b64decode("".join(encoded.split())).decode() if encoded.strip() else ""
        return files

    def load_candidate(self, config: ConfigFiles) -> None:
        unknown = set(config) - set(FILES)
        if unknown or CONFIG_DB not in config:
            raise DriverError(f"{self.hostname}: SONiC takes {list(FILES)}, got {sorted(config)}")
        try:
            json.loads(config[CONFIG_DB])
        except ValueError as exc:
            raise DriverError(f"{self.hostname}: config_db.json is not valid JSON: {exc}") from exc
        # The TACACS+ passkey is FT-SECRET[<reference>] in the rendered config: resolved here, refused if unknown.
        self._candidate = secret_refs_resolve(dict(config), device=self.hostname, platform="sonic")

    def _plan(self, candidate: ConfigFiles, *, owned_only: bool = True
              ) -> tuple[ConfigFiles, SonicPushPlan, list[dict], ConfigFiles]:
        """(running files, the QoS steps before the patch, JSON Patch, files the device would run afterwards);
        guarded when ``owned_only``; refused here when GCU would refuse the patch (changes.drivers.sonic_gcu)."""
        running = self.get_running_config()
        running_db = parse_config_db(running[CONFIG_DB], what=f"{self.hostname}: running CONFIG_DB")
        candidate_db = parse_config_db(candidate[CONFIG_DB], what=f"{self.hostname}: candidate {CONFIG_DB}")
        plan = plan_push(running_db, candidate_db, rollback=not owned_only)
        patch = config_db_patch(plan.base, plan.patch_target, owned_only=owned_only)
        patched = apply_config_db_patch(plan.base, patch)
        effective = {CONFIG_DB: dump_config_db(merge_loaded(patched, plan.load)),
                     "frr.conf": candidate.get("frr.conf", running["frr.conf"])}
        if owned_only:
            push_guard(device=self.hostname, platform="sonic", running=running, effective=effective)
        self._frr_conf_refusal(running, effective)
        if patch:
            release = SonicRelease.read(self.run(self.options["version_command"], check=False), running_db)
            refusals = gcu_refusals(plan.base, patched, release)
            if refusals:
                raise DriverError(f"{self.hostname}: SONiC's config apply-patch (GCU) would refuse this change, so "
                                  f"nothing was sent: {'; '.join(refusals[:8])}"
                                  + (f"; and {len(refusals) - 8} more" if len(refusals) > 8 else ""))
        return running, plan, patch, effective

    def routing_config_mode(self, config_db_text: str) -> str:
        """``docker_routing_config_mode`` of a CONFIG_DB text (the ``routing_config_mode`` option wins)."""
        if self.options["routing_config_mode"]:
            return self.options["routing_config_mode"]
        document = parse_config_db(config_db_text, what=f"{self.hostname}: {CONFIG_DB}")
        localhost = (document.get("DEVICE_METADATA") or {}).get("localhost") or {}
        return localhost.get("docker_routing_config_mode") or ABSENT_MODE

    def _frr_conf_refusal(self, running: ConfigFiles, effective: ConfigFiles) -> None:
        """Refuse, before the switch is touched, a push SONiC's FRR would not run as pushed (module docstring)."""
        mode = self.routing_config_mode(running[CONFIG_DB])
        mode_after = self.routing_config_mode(effective[CONFIG_DB])
        if mode_after != mode:
            raise DriverError(f"{self.hostname}: the push changes DEVICE_METADATA|localhost docker_routing_config_mode "
                              f"from {mode!r} to {mode_after!r}; SONiC applies it only when the bgp container "
                              "restarts (docker_init.sh): change it out of band (config, then systemctl restart "
                              "bgp) in a maintenance window, then push again")
        if effective["frr.conf"] == running["frr.conf"]:
            return
        if mode != FRR_CONF_MODE:
            why = WHY_NOT_FRR_CONF.get(mode, "SONiC knows separated, unified, split and split-unified only")
            raise DriverError(f"{self.hostname}: docker_routing_config_mode={mode!r}: frr.conf is not pushed: {why}. "
                              f"Our frr.conf is one integrated file, which only {FRR_CONF_MODE!r} runs")
        dropped = sorted(set(FPM_LINE.findall(running["frr.conf"])) - set(FPM_LINE.findall(effective["frr.conf"])))
        if dropped:
            raise DriverError(f"{self.hostname}: the candidate frr.conf lacks {dropped}, which SONiC's docker_init.sh "
                              "wrote into the running one: frr-reload would delete them and zebra would stop "
                              "feeding fpmsyncd (no new route would reach the ASIC); render frr.conf for SONiC "
                              "(compiler.render.sonic) or add the lines")

    def effective_after_push(self, running: ConfigFiles, pushed: ConfigFiles) -> ConfigFiles:
        """The running CONFIG_DB with the push's patch applied (tables we merge keep what the device has, e.g. ports
        the intent does not use) and the pushed frr.conf: what ``_plan`` expects the switch to run."""
        running_db = parse_config_db(running.get(CONFIG_DB, ""), what=f"{self.hostname}: running {CONFIG_DB}")
        pushed_db = parse_config_db(pushed.get(CONFIG_DB, ""), what=f"{self.hostname}: pushed {CONFIG_DB}")
        return {CONFIG_DB: dump_config_db(apply_config_db_patch(running_db, config_db_patch(running_db, pushed_db))),
                "frr.conf": pushed.get("frr.conf", running.get("frr.conf", ""))}

    def compare(self) -> str:
        """The JSON Patch ``config apply-patch`` would get (one operation a line) and the frr.conf diff."""
        if self._candidate is None:
            raise DriverError(f"{self.hostname}: compare without a loaded candidate")
        running, plan, patch, effective = self._plan(self._candidate)
        return (plan_text(plan) + patch_text(patch)
                + config_diff({"frr.conf": running["frr.conf"]}, {"frr.conf": effective["frr.conf"]}))

    def planned_diff(self, running: ConfigFiles, intended: ConfigFiles) -> str:
        """Offline (change sets, drift): the same patch text + frr.conf diff as ``compare``, so tables we merge and
        do not render (MGMT_*, platform data) never show up as removals. Every secret is its keyed marker on both
        sides (common.redaction.config_secrets_shown): none is stored in a diff, a changed one shows."""
        running, intended = config_secrets_shown(running), config_secrets_shown(intended)
        running_db = parse_config_db(running.get(CONFIG_DB, ""), what=f"{self.hostname}: running {CONFIG_DB}")
        intended_db = parse_config_db(intended.get(CONFIG_DB, ""), what=f"{self.hostname}: intended {CONFIG_DB}")
        frr_after = intended.get("frr.conf", running.get("frr.conf", ""))
        plan = plan_push(running_db, intended_db)
        return plan_text(plan) + patch_text(config_db_patch(plan.base, plan.patch_target)) + config_diff(
            {"frr.conf": running.get("frr.conf", "")}, {"frr.conf": frr_after})

    def is_at(self, config: ConfigFiles) -> bool:
        """At the intent when the patch is empty and frr.conf is the same (tables we merge may hold more)."""
        self.load_candidate(config)
        try:
            running, plan, patch, effective = self._plan(self._candidate)
            return not patch and not plan.load and not plan.qos_clear and running["frr.conf"] == effective["frr.conf"]
        finally:
            self._candidate = None

    def runs_exactly(self, config: ConfigFiles) -> bool:
        return self.normalize(self.get_running_config()) == self.normalize(
            {name: text for name, text in config.items() if name in FILES})

    def _write_file(self, path: str, text: str) -> None:
        encoded = base64.b64encode(text.encode()).decode()
        temporary = shlex.quote(f"{path}.ft-{uuid.uuid4().hex[:8]}")
        self.run(f": > {temporary}")
        for start in range(0, len(encoded), CHUNK):
            self.run(f"printf %s {encoded[start:start + CHUNK]} >> {temporary}.b64")
        self.run(f"base64 -d {temporary}.b64 > {temporary} && rm -f {temporary}.b64 && mv {temporary} "
                 f"{shlex.quote(path)}")  # rename: a reader never sees half a file

    def _write_frr_conf(self, path: str, text: str) -> None:
        """frr.conf where only root may write: staged in ``patch_dir``, then ``sudo cp`` onto the existing file,
        which keeps its owner and mode (frr:frr 0640, readable by FRR in the bgp container; a rename would leave
        a root-owned file). Nothing reads it until the frr-reload that follows. Without sudo: written in place."""
        if not self.options["frr_conf_sudo"]:
            self._write_file(path, text)
            return
        staging = f"{self.options['patch_dir'].rstrip('/')}/ft-{uuid.uuid4().hex[:8]}.frr.conf"
        self._write_file(staging, text)
        try:
            self.run(f"{self.options['frr_conf_sudo']} cp {shlex.quote(staging)} {shlex.quote(path)}")
        finally:
            self.run(f"rm -f {shlex.quote(staging)}", check=False)

    def _apply(self, running: ConfigFiles, plan: SonicPushPlan, patch: list[dict], frr_conf: str) -> None:
        drained = self.is_drained()
        if plan.qos_clear:
            self.run(self.options["qos_clear_command"], timeout=300)
        if patch:
            path = f"{self.options['patch_dir'].rstrip('/')}/ft-{uuid.uuid4().hex[:8]}.json-patch"
            self._write_file(path, json.dumps(patch, indent=2) + "\n")
            try:
                self.run(self.options["apply_patch_command"].format(path=shlex.quote(path)), timeout=600)
            finally:
                self.run(f"rm -f {shlex.quote(path)}", check=False)
        if plan.load:
            path = f"{self.options['patch_dir'].rstrip('/')}/ft-{uuid.uuid4().hex[:8]}.qos.json"
            self._write_file(path, dump_config_db(plan.load))
            try:
                self.run(self.options["load_command"].format(path=shlex.quote(path)), timeout=600)
            finally:
                self.run(f"rm -f {shlex.quote(path)}", check=False)
        if (patch or plan.load or plan.qos_clear) and self.options["save_command"]:
            self.run(self.options["save_command"], timeout=300)
        if frr_conf != running["frr.conf"]:
            path = self.options["frr_conf_path"]
            self._write_frr_conf(path, frr_conf)
            command = self.options["frr_reload_command"].format(
                path=shlex.quote(path), container_path=shlex.quote(self.options["frr_conf_container_path"]))
            self.run(command, timeout=300)
            if drained:  # frr-reload removed the traffic-shift route-maps: a drained switch stays drained
                self.drain()

    def commit(self) -> None:
        if self._candidate is None:
            raise DriverError(f"{self.hostname}: commit without a loaded candidate")
        running, plan, patch, effective = self._plan(self._candidate)
        self._apply(running, plan, patch, effective["frr.conf"])
        self._candidate = None

    def discard(self) -> None:
        self._candidate = None

    def rollback(self, previous: ConfigFiles | None = None) -> None:
        """Back to ``previous`` exactly: the full JSON Patch (every table) and frr.conf, then a byte comparison."""
        if previous is None:
            raise DriverError(f"{self.hostname}: SONiC rollback needs the previous config")
        target = self.normalize({name: text for name, text in previous.items() if name in FILES})
        if CONFIG_DB not in target:
            raise DriverError(f"{self.hostname}: SONiC rollback needs the previous {CONFIG_DB}, got {sorted(previous)}")
        running, plan, patch, _ = self._plan(target, owned_only=False)
        self._apply(running, plan, patch, target.get("frr.conf", running["frr.conf"]))
        now = self.normalize(self.get_running_config())
        different = [name for name in sorted(target) if now.get(name) != target[name]]
        if different:
            raise DriverError(f"{self.hostname}: after the rollback {different} differ from the saved running config")

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

    def counters(self, *, lossless_queues: Iterable[int]) -> Poll:
        output = self.run(self.options["counters_command"], timeout=120)
        try:
            return adapters.sonic_counters_db(self.hostname, adapters.sonic_db_dump(output), time.time(),
                                              lossless_queues)
        except ValueError as exc:
            raise DriverError(f"{self.hostname}: RoCE counters: {exc}") from exc

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


def dump_config_db(document: dict) -> str:
    """One byte-stable text per CONFIG_DB content (sorted keys), so saved and re-read configs compare as bytes."""
    return json.dumps(document, indent=4, sort_keys=True) + "\n"


def normalize_config_db(text: str, *, what: str) -> str:
    return dump_config_db(parse_config_db(text, what=what))


def plan_text(plan: SonicPushPlan) -> str:
    """The QoS steps before the patch, one a line, for people: ``config qos clear``, then each ``config load`` table."""
    lines = ["config qos clear\n"] if plan.qos_clear else []
    lines += [f"config load {table}: {len(entries)} entries\n" for table, entries in plan.load.items()]
    return "".join(lines)


def patch_text(patch: list[dict]) -> str:
    """The patch one operation a line, for people (step output, change-set diffs): values of secret-looking fields
    (the TACACS+ ``passkey``) are shown as ``***``; the patch applied to the switch is written separately."""
    return "".join(json.dumps(patch_op_redacted(op), sort_keys=True) + "\n" for op in patch)


def patch_op_redacted(op: dict) -> dict:
    """The operation with its secrets as keyed markers, read as the CONFIG_DB part it touches (an SNMP community is
    an entry's key, so it can be in the path; an NTP key is a field named "value"), then by key name."""
    tokens = unpointer(op["path"])
    if not 1 <= len(tokens) <= 3:
        return op
    part: object = op.get("value", {})
    for token in reversed(tokens[1:]):
        part = {token: part}
    shown = json.loads(config_secrets_shown({"part.json": json.dumps({tokens[0]: part})})["part.json"])
    path, value = [tokens[0]], shown[tokens[0]]
    for _ in tokens[1:]:
        [(token, value)] = value.items()
        path.append(token)
    out = {**op, "path": pointer(*path)}
    if "value" in op:
        out["value"] = redact(value, key=path[-1])
    return out
