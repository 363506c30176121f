"""A twin switch's FRR files: the frr.conf it runs (the rendered one plus what the twin needs), its pathspace
directories ``/etc/frr/<ns>`` and ``/var/run/frr/<ns>``, and loading a config into the running daemons."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from compiler.errors import TwinError

from .. import frr_binaries
from ..frr_binaries import active_frr
from ..shell import run
from .sizing import SizePolicy, policy_frr_conf, recorded_policy
from .state import TwinState

ETC_FRR = Path(frr_binaries.ETC_FRR)
RUN_FRR = Path(frr_binaries.RUN_FRR)
LIB_FRR = Path(frr_binaries.LIB_FRR)  # FRR 10's per-pathspace state directory
# FRR 8.4 loses ECMP members after a link flap when zebra uses kernel nexthop objects (docs/twin-notes.md pitfalls;
# fixed upstream in FRR 9.x). The twin forces it off whatever the rendered config says.
ZEBRA_NHG_WORKAROUND = "no zebra nexthop kernel enable"
VRF_NETNS_LINE = re.compile(r"^\s+netns /run/netns/\S+\s*$")
VRF_STANZA = re.compile(r"^vrf (\S+)\s*$")
# SONiC's FPM lines (compiler.render.sonic.SONIC_FPM_LINES): zebra feeds fpmsyncd on a SONiC switch; the twin has
# no fpmsyncd and starts zebra without an FPM module, where these lines are "No such command". Left out of what the
# twin runs and of comparisons (static-only, like the RoCE QoS translation).
FPM_LINE = re.compile(r"^(?:no )?fpm (?:address|use-next-hop-groups)\b")
FIRST_BLOCK = re.compile(r"^(interface|router|vrf|route-map|ip prefix-list|bfd)\b")


def twin_frr_conf(frr_conf: str, netns_vrfs: Iterable[str] = (), policy: SizePolicy | None = None) -> str:
    """The frr.conf a twin switch runs: the rendered one plus what the twin itself needs, in one place (boot and
    ``reload_frr_config`` use it; ``strip_twin_lines`` takes it out again for comparisons).

    - ``no zebra nexthop kernel enable``: FRR 8.4 loses ECMP members after a link flap otherwise (docs/twin-notes.md).
    - ``netns /run/netns/<VRF>`` in the stanza of each VRF this switch has as a namespace (netns VRF backend).
      zebra adds that line to its running config by itself when it finds the namespace, so a config without
      it reads to ``frr-reload.py`` as "no netns": the reload would unbind the VRF from its namespace and zebra
      would stop following it (seen: ``vrf TENANT_A inactive``, EVPN flood entries never installed).
    - the twin's size policy (``labs.runtime.sizing``): BFD lines left out and BGP hold time raised on twins too
      big for this machine to run them as configured.
    - without SONiC's FPM lines (``FPM_LINE``): the twin's zebra has no FPM module and no fpmsyncd to feed."""
    frr_conf = policy_frr_conf(frr_conf, policy)
    if "fpm " in frr_conf:
        frr_conf = "".join(line for line in frr_conf.splitlines(keepends=True) if not FPM_LINE.match(line))
    if ZEBRA_NHG_WORKAROUND not in frr_conf:
        frr_conf = f"{ZEBRA_NHG_WORKAROUND}\n{frr_conf}"
    wanted = sorted(set(netns_vrfs))
    if not wanted and "netns /run/netns/" not in frr_conf:
        return frr_conf
    lines = frr_conf.splitlines()
    out: list[str] = []
    missing = set(wanted)
    for line in lines:
        if VRF_NETNS_LINE.match(line):
            continue  # written below for exactly the VRFs this switch has
        out.append(line)
        stanza = VRF_STANZA.match(line)
        if stanza and stanza.group(1) in missing:
            out.append(f" netns /run/netns/{stanza.group(1)}")
            missing.discard(stanza.group(1))
    if missing:
        # VRFs without a stanza of their own (e.g. only SVIs in them): before the first interface/router/vrf
        # block, like FRR writes them.
        at = next((index for index, line in enumerate(out) if FIRST_BLOCK.match(line)), len(out))
        added = [text for vrf in sorted(missing) for text in (f"vrf {vrf}", f" netns /run/netns/{vrf}", "exit-vrf", "!")]
        out[at:at] = added
    return "\n".join(out) + "\n"


def strip_twin_lines(frr_conf: str) -> str:
    """``frr_conf`` without what ``twin_frr_conf`` adds (and what zebra adds for netns VRFs by itself): a vrf
    stanza left with nothing but its netns line disappears with it."""
    lines = [line.rstrip() for line in frr_conf.splitlines()
             if line.strip() != ZEBRA_NHG_WORKAROUND and not VRF_NETNS_LINE.match(line) and not FPM_LINE.match(line)]
    out: list[str] = []
    index = 0
    while index < len(lines):
        if VRF_STANZA.match(lines[index]) and index + 1 < len(lines) and lines[index + 1].strip() == "exit-vrf":
            index += 2
            if index < len(lines) and lines[index].strip() == "!":
                index += 1
            continue
        out.append(lines[index])
        index += 1
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def write_frr_file(pathspace: str, name: str, text: str) -> Path:
    """Write ``/etc/frr/<pathspace>/<name>`` atomically (a crash never leaves half a config), owned by frr, 0640."""
    path = ETC_FRR / pathspace / name
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(text)
    with contextlib.suppress(LookupError, PermissionError):
        shutil.chown(temporary, "frr", "frr")
    temporary.chmod(0o640)
    temporary.replace(path)
    return path


def write_frr_files(pathspace: str, frr_conf: str, netns_vrfs: Iterable[str] = (), policy: SizePolicy | None = None
                    ) -> None:
    """Create the switch's FRR directories and write the frr.conf it boots with (``twin_frr_conf``)."""
    for base in active_frr().pathspace_dirs:
        directory = Path(base) / pathspace
        directory.mkdir(parents=True, exist_ok=True)
        shutil.chown(directory, "frr", "frr")
    write_frr_file(pathspace, "frr.conf", twin_frr_conf(frr_conf, netns_vrfs, policy))
    write_frr_file(pathspace, "vtysh.conf", "service integrated-vtysh-config\n")


def reload_frr_config(state: TwinState, node_name: str, frr_conf: str) -> None:
    """Make ``frr_conf`` the running config of a switch: FRR's ``frr-reload.py --reload`` (a replace that applies
    only the delta; ``vtysh -f`` would merge), then keep it as the switch's frr.conf. As at boot the text gets
    ``twin_frr_conf``'s lines (without the netns binding of its VRFs the reload would unbind them)."""
    pathspace = state.node_netns[node_name]
    frr_conf = twin_frr_conf(frr_conf, state.vrf_netns.get(node_name, {}), recorded_policy(state.size_policy))
    # frr-reload ends with "write memory" (FRR renders its own frr.conf: version line, defaults), so it reads
    # the candidate from a separate file and the intended text is written as frr.conf afterwards.
    candidate = write_frr_file(pathspace, "ft-candidate.conf", frr_conf)
    frr = active_frr()  # the FRR's own frr-reload.py, driving its own vtysh (--bindir)
    reload = run([frr.frr_reload, "--bindir", os.path.dirname(frr.vtysh), "--reload", "--pathspace", pathspace,
                  "--stdout", str(candidate)],
                 check=False, timeout=120)
    if reload.returncode != 0:
        raise TwinError(f"frr-reload failed (rc={reload.returncode}): {(reload.stderr or reload.stdout).strip()[-800:]}")
    write_frr_file(pathspace, "frr.conf", frr_conf)


def vtysh_load(pathspace: str, text: str) -> subprocess.CompletedProcess:
    """Load ``text`` into the running daemons of ``pathspace`` in one ``vtysh -f`` (a merge); the caller reads
    the return code."""
    with tempfile.NamedTemporaryFile("w", suffix=".conf", dir=RUN_FRR / pathspace, delete=False) as handle:
        handle.write(text)
    try:
        return run([active_frr().vtysh, "-N", pathspace, "-f", handle.name], check=False, timeout=120)
    finally:
        os.unlink(handle.name)
