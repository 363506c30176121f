"""Driver factory: which DeviceDriver reaches a device for a given rollout target."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from compiler.errors import DriverError
from twins.models import Twin
from twins.switch import TwinSwitch

from ..choices import DriverChoices
from ..credentials import endpoint_key_file, endpoint_options, endpoint_password
from .base import ConfigFiles, DeviceDriver, Health, config_diff, config_hash
from .netmiko_sonic import NetmikoSonicDriver
from .twin import TwinDriver

__all__ = ("ConfigFiles", "DeviceDriver", "Health", "config_diff", "config_hash", "driver_for_endpoint",
           "driver_for_twin", "endpoint_driver_factories", "endpoint_twin")


def driver_for_twin(twin: Twin | None, hostname: str) -> DeviceDriver:
    """The driver of switch ``hostname`` of ``twin``, built from the handle (its prefix and state directory)."""
    if twin is None:
        raise DriverError(f"{hostname}: no twin to push to (the rollout's or change set's twin was deleted)")
    return TwinDriver.of(TwinSwitch.of(twin, hostname))


def driver_for_endpoint(endpoint, *, twin: Twin | None = None) -> DeviceDriver:
    """A production driver from a DeviceEndpoint row (the password is decrypted here, in memory only). A
    twin-driven endpoint's Twin is read here unless given (``twin``, see ``endpoint_driver_factories``)."""
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
        return driver_for_twin(twin or endpoint_twin(endpoint.hostname, options), endpoint.hostname)
    raise DriverError(f"{endpoint.hostname}: driver={endpoint.driver!r} is not known")


def endpoint_driver_factories(endpoints: Iterable) -> dict[str, Callable[[], DeviceDriver]]:
    """Per endpoint hostname, what builds its driver in a reading thread: the twins of twin-driven endpoints are
    read now, in the caller's thread, so no ORM query runs in the threads (a bad twin option is the device's own
    DriverError when its driver is built, as before)."""
    factories: dict[str, Callable[[], DeviceDriver]] = {}
    for endpoint in endpoints:
        twin: Twin | DriverError | None = None
        if endpoint.driver == DriverChoices.TWIN:
            try:
                twin = endpoint_twin(endpoint.hostname, endpoint_options(endpoint))
            except DriverError as exc:
                twin = exc

        def factory(endpoint=endpoint, twin=twin) -> DeviceDriver:
            if isinstance(twin, DriverError):
                raise twin
            return driver_for_endpoint(endpoint, twin=twin)

        factories[endpoint.hostname] = factory
    return factories


def endpoint_twin(hostname: str, options) -> Twin:
    """The twin of a twin-driven endpoint: ``optional_args.twin``, a Twin id (the handle; a prefix or path is no
    longer taken, issue #28 point 3)."""
    for retired in ("twin_prefix", "twin_state_dir"):
        if retired in options:
            raise DriverError(f"{hostname}: optional_args.{retired} is no longer taken: name the twin by "
                              f"optional_args.twin (the Twin id)")
    twin_id = options.get("twin")
    if not isinstance(twin_id, int) or isinstance(twin_id, bool):
        raise DriverError(f"{hostname}: optional_args.twin (the Twin id, an integer) is required for the twin "
                          f"driver, got {twin_id!r}")
    twin = Twin.objects.filter(pk=twin_id).first()
    if twin is None:
        raise DriverError(f"{hostname}: optional_args.twin {twin_id}: no twin with this id")
    return twin
