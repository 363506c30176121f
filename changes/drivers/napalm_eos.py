"""Arista EOS through NAPALM (eAPI): a configuration session with commit-confirm that never cuts the switch off.

Push (NAPALM's eos driver does the session work, napalm/eos/eos.py):
0. resolve the candidate's secret references (``FT-SECRET[...]``: the TACACS+ key, written as ``key 7 <type-7>``)
   from the encrypted credential store (``changes.credentials.secret_refs_resolve``); an unknown reference refuses
   the push before the device is contacted;
1. read the running config; carry its ``maintenance`` stanza into the candidate (a drained switch stays drained)
   and, when the candidate has no AAA, its AAA stanzas (the operator's TACACS+ servers and key survive);
2. the pre-push guard (``changes.guard.push_guard``) refuses a candidate that would remove or change the
   management interface, VRF, default route, ``management api``/``ssh``, logins or AAA, or the drain state;
3. ``load_replace_candidate``: ``configure session napalm_<n>`` + ``rollback clean-config`` + the candidate
   (a replace inside the session; nothing is live yet), ``compare_config`` = ``show session-config ... diffs``;
4. ``commit_config(revert_in=N)``: ``configure session <s> commit timer hh:mm:ss`` - EOS applies it and rolls it
   back by itself unless confirmed within N seconds (``commit_confirm_s``, default 300);
5. verify the switch still answers on its management address (``get_facts`` over eAPI);
6. ``confirm_commit``: ``configure session <s> commit`` + ``write memory``. If the verification failed, the pending
   session is aborted at once (``rollback`` = ``configure session <s> abort``) instead of waiting for the timer.

Rollback to a saved running config (``rollback(previous)``) pushes exactly that text through the same session +
commit-confirm path and then checks the device's running config is byte-identical to it. NAPALM's own
``rollback()`` (``configure replace flash:rollback-0``) restores the *startup* config copied at commit time,
which is not the previous running config when the two differed: it is only used when no previous config is known.

Only NAPALM's own "mock" driver (napalm.base.mock.MockDriver, recorded responses in a directory given as
``optional_args={"path": ...}``) can be exercised on this machine: the driver logic is tested against it, not
against a real EOS device (see docs/changes.md).

Drain uses EOS maintenance mode (``maintenance / unit System / quiesce``): EOS then advertises its BGP routes
with a lowered preference (AS-path prepend / max-med per the maintenance profile) so peers move traffic away
before the box is touched; ``show maintenance`` reports the unit as "Under Maintenance".
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import napalm
from napalm.base.exceptions import NapalmException
from pyeapi.eapilib import EapiError

from common.redaction import config_secrets_shown
from compiler.errors import DriverError

from ..credentials import secret_refs_resolve
from ..guard import config_blocks, is_aaa_line, push_guard
from ..rocegate import adapters
from ..rocegate.schema import Poll
from .base import ConfigFiles, DeviceDriver, Health, config_diff

CONFIG_FILE = "startup-config"
DRAIN_CONFIG = "maintenance\n   unit System\n      quiesce\n"
UNDRAIN_CONFIG = "maintenance\n   unit System\n      no quiesce\n"
COMMIT_CONFIRM_S = 300  # EOS rolls the session back by itself unless it is confirmed within this time


def _stanzas(text: str, wanted) -> str:
    """The top-level lines of ``text`` for which ``wanted(line)`` holds, each with its indented lines, as config text
    (each stanza followed by '!')."""
    out, keep = [], False
    for line in text.splitlines():
        if line and not line.startswith((" ", "!")):
            keep = line != "end" and wanted(line)
            if keep:
                out.append(line)
        elif keep and line.startswith(" "):
            out.append(line)
    return "".join(f"{line}\n" for line in out) + "!\n" if out else ""


def _insert_before_end(candidate_text: str, stanza: str) -> str:
    lines = candidate_text.splitlines(keepends=True)
    if lines and lines[-1].strip() == "end":  # keep 'end' last
        return "".join(lines[:-1]) + stanza + lines[-1]
    return candidate_text + ("" if candidate_text.endswith("\n") or not candidate_text else "\n") + stanza


def carry_aaa(running_text: str, candidate_text: str) -> str:
    """The candidate with the running config's AAA (TACACS+/RADIUS servers and keys, server groups, ``aaa``
    methods, source interfaces) when the candidate has none: an intent without AAA leaves the operator's AAA and
    its key in place instead of the session replace deleting them. A candidate with AAA of its own (the intent's,
    keys already resolved) is left alone; the guard then refuses it if it drops AAA the device has."""
    if any(is_aaa_line(header) for header in config_blocks(candidate_text)):
        return candidate_text
    stanza = _stanzas(running_text, is_aaa_line)
    return _insert_before_end(candidate_text, stanza) if stanza else candidate_text


def carry_maintenance(running_text: str, candidate_text: str) -> str:
    """The candidate with the running config's ``maintenance`` stanza (the drain state is the device's, not the
    intent's). A candidate that already has a ``maintenance`` block is left alone: the guard then compares them."""
    if "maintenance" in config_blocks(candidate_text) or "maintenance" not in running_text.splitlines():
        return candidate_text
    return _insert_before_end(candidate_text, _stanzas(running_text, lambda line: line == "maintenance"))


def carry_device_state(running_text: str, candidate_text: str) -> str:
    """What the device keeps whatever the intent says: its AAA when the intent has none, its drain state."""
    return carry_maintenance(running_text, carry_aaa(running_text, candidate_text))


class NapalmEosDriver(DeviceDriver):
    def __init__(self, hostname: str, address: str, username: str, password: str, *, napalm_driver: str = "eos",
                 optional_args: dict | None = None, timeout: int = 60):
        self.hostname = hostname
        self._napalm_driver = napalm_driver
        self._connection_args = {"hostname": address, "username": username, "password": password,
                                 "timeout": timeout, "optional_args": dict(optional_args or {})}
        self._device = None
        self._candidate: ConfigFiles | None = None
        confirm = self._connection_args["optional_args"].pop("commit_confirm_s", COMMIT_CONFIRM_S)
        # EOS takes the timer as hh:mm:ss (NAPALM formats it with time.gmtime: 24 h and more would wrap around).
        if isinstance(confirm, bool) or not isinstance(confirm, int) or not 30 <= confirm < 86400:
            raise DriverError(f"{hostname}: optional_args.commit_confirm_s={confirm!r} must be whole seconds in "
                              "30..86399 (EOS 'commit timer hh:mm:ss')")
        self.commit_confirm_s = confirm

    def __repr__(self) -> str:  # never show the password
        return f"NapalmEosDriver({self.hostname!r}, address={self._connection_args['hostname']!r})"

    # --------------------------------------------------------------------------------------------- connection

    def open(self) -> None:
        if self._device is not None:
            return
        try:
            self._device = napalm.get_network_driver(self._napalm_driver)(**self._connection_args)
            self._device.open()
        except (NapalmException, OSError) as exc:
            self._device = None
            raise DriverError(f"{self.hostname}: cannot connect with NAPALM {self._napalm_driver}: {exc}") from exc

    def close(self) -> None:
        if self._device is not None:
            try:
                self._device.close()
            finally:
                self._device = None

    @property
    def device(self):
        if self._device is None:
            self.open()
        return self._device

    def _call(self, what: str, function, *args, **kwargs):
        try:
            return function(*args, **kwargs)
        except (NapalmException, EapiError, OSError, NotImplementedError, KeyError, ValueError) as exc:
            raise DriverError(f"{self.hostname}: {what} failed: {exc}") from exc

    # --------------------------------------------------------------------------------------------- config

    def get_running_config(self) -> ConfigFiles:
        configs = self._call("get_config", self.device.get_config, retrieve="running")
        return {CONFIG_FILE: configs["running"]}

    def load_candidate(self, config: ConfigFiles) -> None:
        """Guarded: the drain stanza is carried over, then ``push_guard`` must pass before the session is opened."""
        if CONFIG_FILE not in config:
            raise DriverError(f"{self.hostname}: EOS needs a {CONFIG_FILE!r} file, got {sorted(config)}")
        resolved = secret_refs_resolve(config, device=self.hostname, platform="eos")  # refused if unknown
        running = self.get_running_config()
        candidate = {CONFIG_FILE: carry_device_state(running[CONFIG_FILE], resolved[CONFIG_FILE])}
        push_guard(device=self.hostname, platform="eos", running=running, effective=candidate)
        self._load_session(candidate)

    def effective_after_push(self, running: ConfigFiles, pushed: ConfigFiles) -> ConfigFiles:
        """The pushed config with the device state a push carries over (its AAA when the intent has none, its
        drain state), as ``load_candidate`` builds it."""
        return {**pushed, CONFIG_FILE: carry_device_state(running.get(CONFIG_FILE, ""), pushed.get(CONFIG_FILE, ""))}

    def _load_session(self, config: ConfigFiles) -> None:
        self._call("load_replace_candidate", self.device.load_replace_candidate, config=config[CONFIG_FILE])
        self._candidate = config

    def compare(self) -> str:
        if self._candidate is None:
            raise DriverError(f"{self.hostname}: compare without a loaded candidate")
        return self._call("compare_config", self.device.compare_config) or ""

    def commit(self) -> None:
        """Commit-confirm: commit with a timer, check the switch still answers, then confirm (else abort now)."""
        if self._candidate is None:
            raise DriverError(f"{self.hostname}: commit without a loaded candidate")
        self._call("commit_config (commit timer)", self.device.commit_config, revert_in=self.commit_confirm_s)
        self._candidate = None
        try:
            self._call("reachability check after commit (get_facts)", self.device.get_facts)
        except DriverError as exc:
            try:
                self._call("abort of the unconfirmed session", self.device.rollback)
            except DriverError as abort_exc:
                raise DriverError(f"{exc}; the session is NOT confirmed, EOS rolls it back by itself within "
                                  f"{self.commit_confirm_s} s ({abort_exc})") from exc
            raise DriverError(f"{exc}; the session was not confirmed and has been aborted (previous config "
                              "restored by EOS)") from exc
        self._call("confirm_commit", self.device.confirm_commit)

    def discard(self) -> None:
        self._call("discard_config", self.device.discard_config)
        self._candidate = None

    def planned_diff(self, running: ConfigFiles, intended: ConfigFiles) -> str:
        """Offline (change sets, drift): the unified diff with every secret as its keyed marker on both sides
        (common.redaction.config_secrets_shown; callers pass files with our references resolved,
        changes.credentials.config_secrets_compared), so no secret lands in a stored diff and a changed one shows."""
        return config_diff(config_secrets_shown(running), config_secrets_shown(intended))

    def is_at(self, config: ConfigFiles) -> bool:
        """EOS normalises the running config (defaults, comments), so "already applied?" is asked the device's way:
        a replace candidate with an empty diff. Not guarded: nothing is committed."""
        if CONFIG_FILE not in config:
            raise DriverError(f"{self.hostname}: EOS needs a {CONFIG_FILE!r} file, got {sorted(config)}")
        resolved = secret_refs_resolve(config, device=self.hostname, platform="eos")
        running = self.get_running_config()
        self._load_session({CONFIG_FILE: carry_device_state(running[CONFIG_FILE], resolved[CONFIG_FILE])})
        try:
            return not self.compare().strip()
        finally:
            self.discard()

    def rollback(self, previous: ConfigFiles | None = None) -> None:
        """Back to ``previous`` exactly (session replace + commit-confirm, then a byte comparison of the running
        config). Not guarded: ``previous`` is what the device ran, management included. Without ``previous``:
        NAPALM's rollback (pending session aborted, or ``configure replace flash:rollback-0``)."""
        if previous is None:
            self._call("rollback", self.device.rollback)
            return
        if CONFIG_FILE not in previous:
            raise DriverError(f"{self.hostname}: EOS rollback needs a {CONFIG_FILE!r} file, got {sorted(previous)}")
        self._load_session(previous)
        if self.compare().strip():
            self.commit()
        else:
            self.discard()
        now = self.get_running_config()[CONFIG_FILE]
        if now != previous[CONFIG_FILE]:
            raise DriverError(f"{self.hostname}: after the rollback the running config differs from the saved one "
                              f"({len(now)} vs {len(previous[CONFIG_FILE])} characters)")

    # --------------------------------------------------------------------------------------------- drain/upgrade

    def _merge(self, what: str, text: str) -> None:
        self._call(f"{what} (load_merge_candidate)", self.device.load_merge_candidate, config=text)
        self._call(f"{what} (commit_config)", self.device.commit_config)

    def drain(self) -> None:
        self._merge("drain", DRAIN_CONFIG)

    def undrain(self) -> None:
        self._merge("undrain", UNDRAIN_CONFIG)

    def is_drained(self) -> bool:
        output = self._call("show maintenance", self.device.cli, ["show maintenance"])["show maintenance"]
        return "Under Maintenance" in output or "Entering Maintenance" in output

    def install_image(self, version: str) -> None:
        image = f"EOS-{version}.swi"
        source = self._connection_args["optional_args"].get("image_url", "")
        commands = ([f"copy {source.rstrip('/')}/{image} flash:"] if source else []) + [f"boot system flash:{image}"]
        self._call("install image", self.device.cli, commands)

    def reboot(self) -> None:
        self._call("reload", self.device.cli, ["reload now"])

    def counters(self, *, lossless_queues: Iterable[int]) -> Poll:
        """The four PFC/ECN/queue-drop commands over eAPI, JSON encoding (NAPALM's ``cli(..., encoding="json")``),
        read by changes.rocegate.adapters.eos_eapi."""
        answers = self._call("RoCE counters (eAPI)", self.device.cli, list(adapters.EOS_COMMANDS), encoding="json")
        try:
            return adapters.eos_eapi(self.hostname, answers, time.time(), lossless_queues)
        except (ValueError, TypeError, AttributeError) as exc:  # an answer not in the shape the adapter reads
            raise DriverError(f"{self.hostname}: RoCE counters: unexpected eAPI answer: {exc}") from exc

    def health(self) -> Health:
        neighbors = self._call("get_bgp_neighbors", self.device.get_bgp_neighbors)
        facts = self._call("get_facts", self.device.get_facts)
        established, total, routes, down = 0, 0, 0, []
        for vrf in neighbors.values():
            for address, peer in vrf.get("peers", {}).items():
                total += 1
                if peer.get("is_up"):
                    established += 1
                else:
                    down.append(address)
                for family in peer.get("address_family", {}).values():
                    routes += max(0, int(family.get("received_prefixes", 0) or 0))
        return Health(bgp_established=established, bgp_total=total, routes=routes, down_peers=tuple(sorted(down)),
                      version=str(facts.get("os_version", "")))
