"""The pre-push guard: one pure function every driver calls before anything reaches a device.

``push_guard`` compares what the device runs now with what it would run after the push (the *effective* config:
the candidate for an EOS session replace, running + JSON Patch for SONiC, candidate + carried drain for the twin)
and refuses (``PushRefused``, naming the device and every line/key) when the push would remove or change:

- the management path: the management interface (address, VRF, shutdown state; an EOS candidate must carry one
  with an address, since the session replaces everything), the management VRF, its default route, the API/SSH
  access (EOS ``management ...`` blocks; SONiC MGMT_*, SSH_SERVER, RESTAPI, GNMI/TELEMETRY), the login users (EOS
  ``username``), AAA (EOS ``tacacs-server``/``radius-server``/``aaa ...``/``ip tacacs`` lines compared with keys
  masked, so a key rotation passes and no key is ever printed; SONiC AAA, TACPLUS*, RADIUS*, where a passkey may
  change but not disappear), and the platform identity SONiC boots from (DEVICE_METADATA
  hwsku/platform/mac: without them the switch does not come back, issue #13);
- this device's drain/maintenance state (EOS ``maintenance`` block; SONiC BGP_DEVICE_GLOBAL|STATE ``tsa_enabled``;
  FRR/twin ``route-map FT-DRAIN`` and the neighbours using it).

Adding a management element the device does not have yet is allowed (that is how the intent brings it in).
A pure function of two configs: no database, no device access.
"""

from __future__ import annotations

import json
import re

from common.redaction import is_secret_name

from .drivers.base import ConfigFiles
from .errors import PushRefused

EOS_FILE = "startup-config"
CONFIG_DB_FILE = "config_db.json"
FRR_FILE = "frr.conf"

# SONiC tables (sonic-mgmt_interface.yang, sonic-mgmt_port.yang, sonic-mgmt_vrf.yang, sonic-ssh-server.yang,
# sonic-restapi.yang, sonic-gnmi.yang, sonic-system-aaa.yang, sonic-bgp-device-global.yang): every field the
# device has must survive unchanged.
SONIC_PROTECTED_TABLES = ("MGMT_INTERFACE", "MGMT_PORT", "MGMT_VRF_CONFIG", "SSH_SERVER", "RESTAPI", "GNMI",
                          "TELEMETRY", "AAA", "TACPLUS", "TACPLUS_SERVER", "RADIUS", "RADIUS_SERVER",
                          "BGP_DEVICE_GLOBAL")
SONIC_PROTECTED_FIELDS = {("DEVICE_METADATA", "localhost"): ("hwsku", "platform", "mac")}
SONIC_MGMT_VRF = "mgmt"  # SONiC's management VRF name is fixed (sonic-mgmt_vrf.yang)

DRAIN_ROUTE_MAP = "FT-DRAIN"  # changes/drivers/twin.py: the twin's drain route-map


def push_guard(*, device: str, platform: str, running: ConfigFiles, effective: ConfigFiles) -> None:
    """Raise PushRefused if ``effective`` loses or changes management or drain state that ``running`` has.

    ``platform``: ``eos`` (startup-config text), ``sonic`` (config_db.json + frr.conf), ``frr`` (frr.conf: the
    twin and FRR/Linux leaves)."""
    if platform == "eos":
        problems = _eos_problems(running.get(EOS_FILE, ""), effective.get(EOS_FILE, ""))
    elif platform == "sonic":
        problems = _sonic_problems(running.get(CONFIG_DB_FILE, ""), effective.get(CONFIG_DB_FILE, ""))
        problems += _frr_problems(running.get(FRR_FILE, ""), effective.get(FRR_FILE, running.get(FRR_FILE, "")))
    elif platform == "frr":
        problems = _frr_problems(running.get(FRR_FILE, ""), effective.get(FRR_FILE, ""))
    else:
        raise PushRefused(device, [f"platform={platform!r} has no push guard (known: eos, sonic, frr)"])
    if problems:
        raise PushRefused(device, problems)


# --------------------------------------------------------------------------------------------- indented text


def config_blocks(text: str) -> dict[str, list[str]]:
    """Top-level line -> its indented lines in order, each with its parent modes ('vrf MGMT / no shutdown'), so
    the same line in two sub-modes stays distinct. Comments ('!') and blank lines are dropped; a top-level line
    seen twice keeps the lines of both (EOS prints each section once)."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    parents: list[tuple[int, str]] = []  # (indent, line) of the enclosing sub-modes
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("!"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            parents = []
            if stripped in ("end", "exit", "exit-vrf"):
                current = None
                continue
            current = blocks.setdefault(stripped, [])
        elif current is not None:
            while parents and parents[-1][0] >= indent:
                parents.pop()
            current.append(" / ".join([text for _, text in parents] + [stripped]))
            parents.append((indent, stripped))
    return blocks


def _compare_blocks(running: dict[str, list[str]], effective: dict[str, list[str]], headers: list[str],
                    what: str) -> list[str]:
    problems = []
    for header in headers:
        if header not in effective:
            problems.append(f"{what} '{header}' would be removed")
            continue
        before, after = running[header], effective[header]
        problems += [f"{what} '{header}': line '{line}' would be removed" for line in before if line not in after]
        problems += [f"{what} '{header}': line '{line}' would be added" for line in after if line not in before]
    return problems


# --------------------------------------------------------------------------------------------- EOS

_EOS_MGMT_INTERFACE = re.compile(r"^interface Management\S*$")
_EOS_VRF_MEMBER = re.compile(r"^vrf (?:forwarding )?(\S+)$")


def _eos_management_vrfs(blocks: dict[str, list[str]]) -> set[str]:
    vrfs = set()
    for header, lines in blocks.items():
        if _EOS_MGMT_INTERFACE.match(header):
            vrfs |= {match.group(1) for line in lines if (match := _EOS_VRF_MEMBER.match(line))}
    return vrfs


def _eos_problems(running_text: str, effective_text: str) -> list[str]:
    running, effective = config_blocks(running_text), config_blocks(effective_text)
    problems = []
    # The push is a replace inside a session: whatever the candidate lacks is removed, so it must itself carry a
    # management address even when the running config shows none we recognise.
    if not any(_EOS_MGMT_INTERFACE.match(header) and any(line.startswith(("ip address ", "ipv6 address "))
                                                         for line in lines) for header, lines in effective.items()):
        problems.append("the candidate has no 'interface Management*' with an 'ip address': the session replace "
                        "would leave the switch without a management address")
    vrfs = _eos_management_vrfs(running)
    protected = [header for header in running if _EOS_MGMT_INTERFACE.match(header)
                 or header.startswith("management ")
                 or any(header == f"vrf instance {vrf}" or header == f"vrf definition {vrf}" for vrf in vrfs)]
    problems += _compare_blocks(running, effective, protected, "management")
    # The management default route: in the management VRF, or in the default VRF when Management1 has no VRF.
    route_prefixes = [f"ip route vrf {vrf} " for vrf in sorted(vrfs)] + [f"ipv6 route vrf {vrf} " for vrf in sorted(vrfs)]
    if not vrfs:
        route_prefixes += ["ip route 0.0.0.0/0 ", "ipv6 route ::/0 "]
    for header in running:
        if any(header.startswith(prefix) for prefix in route_prefixes) and header not in effective:
            problems.append(f"management route '{header}' would be removed")
    problems += _eos_aaa_problems(running, effective)
    users = {header.split()[1] for header in running if header.startswith("username ")}
    kept = {header.split()[1] for header in effective if header.startswith("username ")}
    problems += [f"login 'username {user}' would be removed" for user in sorted(users - kept)]
    drain = [header for header in running if header == "maintenance"]
    problems += _compare_blocks(running, effective, drain, "drain state")
    if "maintenance" not in running and "maintenance" in effective:
        problems += [f"drain state 'maintenance': line '{line}' would be added" for line in effective["maintenance"]]
    return problems


# AAA: how a login is checked. Removing what the device has could lock the operator out (issue #13); a key may
# change (rotation), so lines are compared with their key masked and never printed with it.
_EOS_AAA_HEADER = re.compile(r"^(?:tacacs-server |radius-server |aaa |ip tacacs |ip radius )")
_EOS_KEY = re.compile(r"\bkey(?: \d+[a-z]?)? \S+")


def is_aaa_line(header: str) -> bool:
    """Is this top-level EOS line part of AAA (servers and keys, server groups, methods, source interfaces)?"""
    return bool(_EOS_AAA_HEADER.match(header))


def _key_masked(line: str) -> str:
    return _EOS_KEY.sub(lambda match: match.group(0).rsplit(" ", 1)[0] + " ***", line)


def _eos_aaa_lines(blocks: dict[str, list[str]]) -> list[str]:
    lines = []
    for header, body in blocks.items():
        if is_aaa_line(header):
            lines.append(_key_masked(header))
            lines += [f"{_key_masked(header)} / {_key_masked(line)}" for line in body]
    return lines


def _eos_aaa_problems(running: dict[str, list[str]], effective: dict[str, list[str]]) -> list[str]:
    kept = set(_eos_aaa_lines(effective))
    return [f"AAA '{line}' would be removed" for line in _eos_aaa_lines(running) if line not in kept]


# --------------------------------------------------------------------------------------------- SONiC


def _load(text: str) -> dict:
    try:
        document = json.loads(text) if text.strip() else {}
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}


def _sonic_problems(running_text: str, effective_text: str) -> list[str]:
    running, effective = _load(running_text), _load(effective_text)
    problems = []

    def compare(table: str, key: str, fields) -> None:
        before = running.get(table, {}).get(key)
        if not isinstance(before, dict):
            return
        after = effective.get(table, {}).get(key)
        if after is None:
            problems.append(f"{table}|{key} would be removed")
            return
        for field in fields or sorted(set(before) | set(after)):
            if field not in before and (fields or field not in after):
                continue
            secret = is_secret_name(field)  # a passkey: never printed; a new value (rotation) is not a loss
            if field not in after:
                was = "" if secret else f" (was {before[field]!r})"
                problems.append(f"{table}|{key} field '{field}' would be removed{was}")
            elif field not in before:
                problems.append(f"{table}|{key} field '{field}' would be added"
                                + ("" if secret else f" ({after[field]!r})"))
            elif before[field] != after[field] and not secret:
                problems.append(f"{table}|{key} field '{field}' would change {before[field]!r} -> {after[field]!r}")

    for table in SONIC_PROTECTED_TABLES:
        for key in sorted(running.get(table, {})):
            compare(table, key, ())
    for key in sorted(running.get("STATIC_ROUTE", {})):  # the management VRF's routes ("mgmt|0.0.0.0/0")
        if key.startswith(f"{SONIC_MGMT_VRF}|"):
            compare("STATIC_ROUTE", key, ())
    for (table, key), fields in SONIC_PROTECTED_FIELDS.items():
        compare(table, key, fields)
    tsa_before = running.get("BGP_DEVICE_GLOBAL", {}).get("STATE", {}).get("tsa_enabled", "false")
    tsa_after = effective.get("BGP_DEVICE_GLOBAL", {}).get("STATE", {}).get("tsa_enabled", "false")
    if "BGP_DEVICE_GLOBAL" not in running and tsa_after != tsa_before:
        problems.append(f"BGP_DEVICE_GLOBAL|STATE field 'tsa_enabled' would change {tsa_before!r} -> {tsa_after!r}")
    return problems


# --------------------------------------------------------------------------------------------- FRR


def _frr_drain_lines(text: str) -> list[str]:
    blocks = config_blocks(text)
    lines = [f"{header} / {line}" for header, body in blocks.items() if header.startswith(f"route-map {DRAIN_ROUTE_MAP} ")
             for line in [""] + body]
    lines += [f"{header} / {line}" for header, body in blocks.items() if header.startswith("router bgp ")
              for line in body if f"route-map {DRAIN_ROUTE_MAP} " in line]
    return [line.removesuffix(" / ") for line in lines]


def _frr_problems(running_text: str, effective_text: str) -> list[str]:
    running, effective = config_blocks(running_text), config_blocks(effective_text)
    mgmt = [header for header in running if header in (f"vrf {SONIC_MGMT_VRF}", "vrf MGMT", "vrf management")]
    problems = _compare_blocks(running, effective, mgmt, "management")
    before, after = _frr_drain_lines(running_text), _frr_drain_lines(effective_text)
    problems += [f"drain state '{line}' would be removed" for line in before if line not in after]
    problems += [f"drain state '{line}' would be added" for line in after if line not in before]
    return problems
