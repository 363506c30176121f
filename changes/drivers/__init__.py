"""Driver factory: which DeviceDriver reaches a device for a given rollout target."""

from __future__ import annotations

from compiler.errors import DriverError

from ..choices import DriverChoices
from ..credentials import endpoint_key_file, endpoint_options, endpoint_password
from .base import ConfigFiles, DeviceDriver, Health, config_diff, config_hash
from .netmiko_sonic import NetmikoSonicDriver
from .twin import TwinDriver

__all__ = ("ConfigFiles", "DeviceDriver", "Health", "config_diff", "config_hash", "driver_for_endpoint",
           "driver_for_twin")


def driver_for_twin(prefix: str, hostname: str, state_dir: str | None = None) -> DeviceDriver:
    return TwinDriver(prefix, hostname, state_dir=state_dir)


def driver_for_endpoint(endpoint) -> DeviceDriver:
    """A production driver from a DeviceEndpoint row (the password is decrypted here, in memory only)."""
    password = endpoint_password(endpoint)
    options = endpoint_options(endpoint)  # secret optional_args decrypted here, in memory only
    if endpoint.driver in (DriverChoices.NAPALM_EOS, DriverChoices.NAPALM_MOCK):
        from .napalm_eos import NapalmEosDriver  # lazy: napalm is heavy (~1 s, pulls pyeapi) and EOS-only

        return NapalmEosDriver(endpoint.hostname, endpoint.address, endpoint.username, password,
                               napalm_driver="mock" if endpoint.driver == DriverChoices.NAPALM_MOCK else "eos",
                               optional_args=options)
    if endpoint.driver == DriverChoices.NETMIKO_SONIC:
        return NetmikoSonicDriver(endpoint.hostname, endpoint.address, endpoint.username, password,
                                  port=endpoint.port, key_file=endpoint_key_file(endpoint), optional_args=options)
    if endpoint.driver == DriverChoices.TWIN:
        if "twin_prefix" not in options:
            raise DriverError(f"{endpoint.hostname}: optional_args.twin_prefix is required for the twin driver")
        return driver_for_twin(options["twin_prefix"], endpoint.hostname, options.get("twin_state_dir"))
    raise DriverError(f"{endpoint.hostname}: driver={endpoint.driver!r} is not known")
