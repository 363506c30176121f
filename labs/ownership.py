"""Who owns a twin's namespaces on a shared host: installation ids and per-namespace ownership markers.

Several checkouts (clones, CI jobs, colleagues) run twins on one machine, and Linux namespaces and processes
are machine-wide. Every twin therefore belongs to one *installation* (6 lowercase hex characters: the Django
side keeps one per database in ``twins.Installation``; the standalone ``python -m labs`` uses
``FT_INSTALLATION_ID`` or a per-checkout file) and:

- its prefix carries the installation id when the Django side names it (``tw<installation><intent hash>``),
  so two installations never choose the same names for the same intent;
- its state file records the installation;
- each namespace gets an ownership marker, ``/run/fabric-twin/owners/<namespace>.json`` =
  ``{"installation", "prefix", "state_file"}``, written *before* the namespace is created and removed only
  after it is gone; once the namespace exists, ``bind`` adds its nsfs inode (``netns_inode``), so a namespace
  deleted behind our back and re-created under the same name by someone else is not ours any more. Teardown (``--force`` included) deletes a namespace, kills the processes inside it and the
  FRR daemons of its pathspace only when the marker names this installation. A name pattern alone never
  makes anything "ours": a namespace called ``<our prefix>-x`` without our marker is left alone.

/run is a tmpfs: markers disappear on reboot together with the namespaces they describe.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Iterable
from pathlib import Path

from compiler.errors import TwinError

SHARED_RUN_DIR = Path("/run/fabric-twin")
NETNS_DIR = Path("/run/netns")  # where ``ip netns`` bind-mounts each named namespace (its nsfs inode)
OWNERS_DIR = SHARED_RUN_DIR / "owners"
INSTALLATION_ID = re.compile(r"[0-9a-f]{6}")
REPO_ROOT = Path(__file__).resolve().parent.parent
# The standalone CLI's installation when FT_INSTALLATION_ID is not set: one per checkout (out/ is not in git).
CHECKOUT_INSTALLATION_FILE = REPO_ROOT / "out" / "installation-id"


def new_installation_id() -> str:
    """24 random bits: two clones on one host collide with probability 6e-8."""
    return secrets.token_hex(3)


def check_installation(value: object) -> str:
    if not isinstance(value, str) or not INSTALLATION_ID.fullmatch(value):
        raise TwinError(f"installation={value!r}: must be 6 lowercase hex characters (e.g. 'a3f09c')")
    return value


def default_installation() -> str:
    """``FT_INSTALLATION_ID`` if set, else this checkout's id (created on first use, never changed)."""
    configured = os.environ.get("FT_INSTALLATION_ID")
    if configured:
        try:
            return check_installation(configured)
        except TwinError as error:
            raise TwinError(f"FT_INSTALLATION_ID: {error}") from None
    path = CHECKOUT_INSTALLATION_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # O_EXCL: two processes creating it at once agree on the first one written.
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            pass
        else:
            with os.fdopen(descriptor, "w") as handle:
                handle.write(new_installation_id() + "\n")
    text = path.read_text().strip()
    try:
        return check_installation(text)
    except TwinError as error:
        raise TwinError(f"{path}: {error}") from None


def marker_path(namespace: str) -> Path:
    return OWNERS_DIR / f"{namespace}.json"


def owner(namespace: str) -> dict | None:
    """The namespace's marker (``installation``, ``prefix``, ``state_file``), or None when it has none."""
    try:
        return json.loads(marker_path(namespace).read_text())
    except (FileNotFoundError, ValueError):
        return None


def netns_inode(namespace: str) -> int | None:
    try:
        return os.stat(NETNS_DIR / namespace).st_ino
    except OSError:
        return None


def is_owned(namespace: str, installation: str) -> bool:
    """The marker names ``installation`` and, when it recorded the namespace's inode, the namespace under that
    name is still the one we created (or is gone)."""
    marker = owner(namespace)
    if marker is None or marker.get("installation") != installation:
        return False
    recorded = marker.get("netns_inode")
    current = netns_inode(namespace)
    return recorded is None or current is None or recorded == current


def owned(namespaces: Iterable[str], installation: str) -> set[str]:
    """The subset of ``namespaces`` whose marker names ``installation``."""
    return {namespace for namespace in namespaces if is_owned(namespace, installation)}


def describe_owner(namespace: str) -> str:
    """For error messages: who a namespace belongs to, as far as this host knows."""
    marker = owner(namespace)
    if marker is None:
        return f"{namespace} (no ownership marker: created by something else, or by a twin older than markers)"
    return f"{namespace} (installation {marker.get('installation')}, state file {marker.get('state_file')})"


def claim(namespaces: Iterable[str], *, installation: str, prefix: str, state_file: str) -> None:
    """Write the markers of namespaces this installation is about to create. Refuses (before anything exists)
    when one of them is already marked by another installation or exists without a marker."""
    names = sorted(set(namespaces))
    foreign = [name for name in names if owner(name) is not None and not is_owned(name, installation)]
    if foreign:
        raise TwinError(f"namespaces {[describe_owner(name) for name in foreign[:3]]} belong to another installation "
                        f"(this is installation {installation}); this twin will not use or touch them: choose "
                        "another name_prefix")
    OWNERS_DIR.mkdir(parents=True, exist_ok=True)
    for name in names:
        _write(name, {"installation": installation, "prefix": prefix, "state_file": state_file})


def bind(namespaces: Iterable[str], installation: str) -> None:
    """Record the inode of each namespace this installation marked and has just created."""
    for name in namespaces:
        marker = owner(name)
        inode = netns_inode(name)
        if marker is None or marker.get("installation") != installation or inode is None:
            continue
        if marker.get("netns_inode") not in (None, inode):
            continue  # not the namespace we created: never re-bind someone else's
        _write(name, {**marker, "netns_inode": inode})


def _write(namespace: str, record: dict) -> None:
    path = marker_path(namespace)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(record))
    temporary.replace(path)


def marked(prefix: str, installation: str) -> set[str]:
    """Every namespace this installation marked for twin ``prefix``: what ``down --force`` may remove when the
    state file is lost (the markers are the record, the names are not)."""
    if not OWNERS_DIR.is_dir():
        return set()
    found = set()
    for path in OWNERS_DIR.glob("*.json"):
        try:
            marker = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if marker.get("installation") == installation and marker.get("prefix") == prefix:
            found.add(path.name[: -len(".json")])
    return found


def release(namespaces: Iterable[str], installation: str) -> None:
    """Remove this installation's markers of namespaces that are gone (never another installation's)."""
    for name in namespaces:
        if is_owned(name, installation):
            marker_path(name).unlink(missing_ok=True)
