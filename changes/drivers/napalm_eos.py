"""Arista EOS through NAPALM (eAPI): full-config replace with NAPALM's candidate/compare/commit/rollback.

Only NAPALM's own "mock" driver (napalm.base.mock.MockDriver, recorded responses in a directory given as
``optional_args={"path": ...}``) can be exercised on this machine: the driver logic is tested against it, not
against a real EOS device (see docs/changes.md).

Drain uses EOS maintenance mode (``maintenance / unit System / quiesce``): EOS then advertises its BGP routes
with a lowered preference (AS-path prepend / max-med per the maintenance profile) so peers move traffic away
before the box is touched; ``show maintenance`` reports the unit as "Under Maintenance".
"""

from __future__ import annotations

import napalm
from napalm.base.exceptions import NapalmException

from compiler.errors import DriverError

from .base import ConfigFiles, DeviceDriver, Health

CONFIG_FILE = "startup-config"
DRAIN_CONFIG = "maintenance\n   unit System\n      quiesce\n"
UNDRAIN_CONFIG = "maintenance\n   unit System\n      no quiesce\n"


class NapalmEosDriver(DeviceDriver):
    def __init__(self, hostname: str, address: str, username: str, password: str, *, napalm_driver: str = "eos",
                 optional_args: dict | None = None, timeout: int = 60):
        self.hostname = hostname
        self._napalm_driver = napalm_driver
        self._connection_args = {"hostname": address, "username": username, "password": password,
                                 "timeout": timeout, "optional_args": dict(optional_args or {})}
        self._device = None
        self._candidate: ConfigFiles | None = None

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
        except (NapalmException, OSError, NotImplementedError, KeyError, ValueError) as exc:
            raise DriverError(f"{self.hostname}: {what} failed: {exc}") from exc

    # --------------------------------------------------------------------------------------------- config

    def get_running_config(self) -> ConfigFiles:
        configs = self._call("get_config", self.device.get_config, retrieve="running")
        return {CONFIG_FILE: configs["running"]}

    def load_candidate(self, config: ConfigFiles) -> None:
        if CONFIG_FILE not in config:
            raise DriverError(f"{self.hostname}: EOS needs a {CONFIG_FILE!r} file, got {sorted(config)}")
        self._call("load_replace_candidate", self.device.load_replace_candidate, config=config[CONFIG_FILE])
        self._candidate = config

    def compare(self) -> str:
        if self._candidate is None:
            raise DriverError(f"{self.hostname}: compare without a loaded candidate")
        return self._call("compare_config", self.device.compare_config) or ""

    def commit(self) -> None:
        if self._candidate is None:
            raise DriverError(f"{self.hostname}: commit without a loaded candidate")
        self._call("commit_config", self.device.commit_config)
        self._candidate = None

    def discard(self) -> None:
        self._call("discard_config", self.device.discard_config)
        self._candidate = None

    def is_at(self, config: ConfigFiles) -> bool:
        """EOS normalises the running config (defaults, comments), so "already applied?" is asked the device's way:
        a replace candidate with an empty diff."""
        self.load_candidate(config)
        try:
            return not self.compare().strip()
        finally:
            self.discard()

    def rollback(self, previous: ConfigFiles | None = None) -> None:
        """NAPALM EOS rolls back to the checkpoint it saved at commit; ``previous`` is the fallback."""
        try:
            self.device.rollback()
        except (NapalmException, OSError) as exc:
            if previous is None:
                raise DriverError(f"{self.hostname}: rollback failed and no previous config is known: {exc}") from exc
            self.push(previous)

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
