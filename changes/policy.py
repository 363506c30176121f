"""The rollout policy: one frozen dataclass with its defaults and, per field, the check it must pass.

``RolloutPolicy.from_json(raw, kind=...)`` merges the caller's JSON object over the defaults, checks every field
(all problems at once, each a ``FieldError`` naming ``policy.<field>`` and the value) and returns the policy.
``RolloutPolicy.merged_json(raw)`` is what a ``Rollout`` row stores and the API shows (the caller's object over
the defaults, exactly as given). The pipelines read that stored object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from types import MappingProxyType
from typing import Any

from compiler.errors import FieldError, InputError
from compiler.names import HOSTNAME, VERSION, name_problem

from .choices import RolloutKindChoices
from .rocegate.settings import settings_problems

KNOWN_CHECKS = frozenset({"static", "rehearsal", "bgp", "evpn", "ping", "mtu", "health"})
# Keys a policy no longer takes, and why (issue #28 point 3: the Twin row is the handle of a twin rollout).
RETIRED_KEYS = {
    "twin_prefix": "no longer taken: a twin is named by `twin` (the Twin id) or `fabric_intent`, not by a prefix",
    "twin_state_dir": "no longer taken: a twin is named by `twin` (the Twin id) or `fabric_intent`, not by a path",
}

# A field check: (field path, value) -> the problems found (empty when the value is fine).
Check = Callable[[str, Any], list[FieldError]]


def _string_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _integer_at_least(low: int) -> Check:
    def check(path: str, value: Any) -> list[FieldError]:
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            return [FieldError(path, value, f"must be an integer >= {low}")]
        return []
    return check


def _hostnames(path: str, value: Any) -> list[FieldError]:
    """A list of hostnames, each in the inventory's hostname grammar (compiler.names)."""
    if not _string_list(value):
        return [FieldError(path, value, "must be a list of hostnames")]
    return [FieldError(path, host, problem) for host in value if (problem := name_problem(HOSTNAME, host))]


def _canary(path: str, value: Any) -> list[FieldError]:
    if not isinstance(value, Mapping):
        return [FieldError(path, value, 'use {"devices": [...]} or {"rack": "<rack>"}')]
    errors = []
    devices = value.get("devices", [])
    if set(value) - {"devices", "rack"}:
        errors.append(FieldError(path, value, 'use {"devices": [...]} or {"rack": "<rack>"}'))
    elif not _string_list(devices) or not isinstance(value.get("rack", ""), str):
        errors.append(FieldError(path, value, "devices must be a list of hostnames, rack a name"))
    if _string_list(devices):  # the hostname grammar, as in the inventory
        errors += [FieldError(f"{path}.devices", host, problem)
                   for host in devices if (problem := name_problem(HOSTNAME, host))]
    return errors


def _checks(path: str, value: Any) -> list[FieldError]:
    if not isinstance(value, list) or any(not isinstance(check, str) or check not in KNOWN_CHECKS for check in value):
        return [FieldError(path, value, f"must be a list drawn from {sorted(KNOWN_CHECKS)}")]
    return []


def _pairs(path: str, value: Any) -> list[FieldError]:
    if not isinstance(value, list) or any(not _string_list(pair) or len(pair) != 2 for pair in value):
        return [FieldError(path, value, "must be a list of [device, device] pairs")]
    return []


def _fraction(path: str, value: Any) -> list[FieldError]:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1):
        return [FieldError(path, value, "must be a number in (0, 1]")]
    return []


def _string(path: str, value: Any) -> list[FieldError]:
    if value is not None and not isinstance(value, str):
        return [FieldError(path, value, "must be a string")]
    return []


def _version(path: str, value: Any) -> list[FieldError]:
    if not isinstance(value, str):
        return _string(path, value)
    problem = name_problem(VERSION, value, blank=True)
    # compiler.names: "4.1\nreload now" is not a version (it would reach a device's install command)
    return [FieldError(path, value, problem)] if problem else []


def _roce_gate(path: str, value: Any) -> list[FieldError]:
    """changes.rocegate.settings: every problem of the canary's RoCE gate, named policy.roce_gate.<field>."""
    return [FieldError(f"{path}.{name}" if name else path, bad, message)
            for name, bad, message in settings_problems(value)]


def _spec(default: Any, check: Check, *, doc: str = "") -> Any:
    """A dataclass field with its JSON default and its check (mutable defaults are copied per instance)."""
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: _frozen(default), metadata={"check": check, "doc": doc})
    return field(default=default, metadata={"check": check, "doc": doc})


def _frozen(value: Any) -> Any:
    """JSON lists -> tuples and objects -> read-only mappings, so a frozen policy is immutable all the way down."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, Mapping):
        return MappingProxyType({key: _frozen(item) for key, item in value.items()})
    return value


def _thawed(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thawed(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _thawed(item) for key, item in value.items()}
    return value


@dataclass(frozen=True, kw_only=True)
class RolloutPolicy:
    canary: Mapping[str, Any] = _spec({"devices": []}, _canary,
                                      doc='empty: the first leaf with a diff; or {"rack": "rack1"}')
    wave_size: int = _spec(4, _integer_at_least(1))
    max_spines_drained: int = _spec(1, _integer_at_least(1))
    max_spine_fraction: float | None = _spec(None, _fraction,
                                             doc="e.g. 0.25: never more than a quarter of the spines drained at once")
    soak_s: int = _spec(5, _integer_at_least(0))
    converge_timeout_s: int = _spec(60, _integer_at_least(1))
    checks: tuple[str, ...] = _spec(["static", "rehearsal", "bgp", "evpn", "ping", "mtu"], _checks)
    redundant_pairs: tuple[tuple[str, str], ...] = _spec([], _pairs)
    target_version: str = _spec("", _version)
    devices: tuple[str, ...] = _spec([], _hostnames, doc="rolling upgrade: which devices (empty: every spine)")
    roce_gate: dict[str, Any] = _spec({"enabled": False}, _roce_gate,
                                      doc='canary push: {"enabled": true, "pre_s": 60, "post_s": 20, "polls": 2} '
                                          "gates the canary on its RoCE counters (docs/changes.md)")

    @classmethod
    def defaults_json(cls) -> dict[str, Any]:
        """The defaults as JSON."""
        return {name: _thawed(value) for name, value in _defaults().items()}

    @classmethod
    def merged_json(cls, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The caller's policy over the defaults: the object a rollout stores."""
        return {**cls.defaults_json(), **raw}

    @classmethod
    def field_errors(cls, raw: Mapping[str, Any], *, kind: str) -> list[FieldError]:
        """Every problem of ``raw`` merged over the defaults, each naming ``policy.<field>`` and its value."""
        merged = cls.merged_json(raw)
        known = [spec.name for spec in fields(cls)]
        errors = [FieldError(f"policy.{key}", value, RETIRED_KEYS.get(
                      key, f"unknown policy key; known: {sorted(cls.defaults_json())}"))
                  for key, value in merged.items() if key not in known]
        for spec in fields(cls):
            if spec.name in merged:
                errors += spec.metadata["check"](f"policy.{spec.name}", merged[spec.name])
        if kind == RolloutKindChoices.ROLLING_UPGRADE and not merged.get("target_version"):
            errors.append(FieldError("policy.target_version", merged.get("target_version"),
                                     "a rolling upgrade needs the version to install"))
        gate = merged.get("roce_gate")
        if kind == RolloutKindChoices.ROLLING_UPGRADE and isinstance(gate, Mapping) and gate.get("enabled") is True:
            errors.append(FieldError("policy.roce_gate.enabled", True, "the RoCE gate judges the canary of a canary "
                                                                       "push; a rolling upgrade has none"))
        return errors

    @classmethod
    def from_json(cls, raw: Mapping[str, Any], *, kind: str) -> RolloutPolicy:
        """The checked policy; InputError with every field error otherwise."""
        errors = cls.field_errors(raw, kind=kind)
        if errors:
            raise InputError(errors)
        merged = cls.merged_json(raw)
        return cls(**{name: _frozen(value) for name, value in merged.items()})

    @property
    def canary_devices(self) -> tuple[str, ...]:
        return tuple(self.canary.get("devices", ()))

    @property
    def canary_rack(self) -> str:
        return self.canary.get("rack", "")


def _defaults() -> dict[str, Any]:
    defaults = {}
    for spec in fields(RolloutPolicy):
        defaults[spec.name] = spec.default_factory() if spec.default is MISSING else spec.default
    return defaults
