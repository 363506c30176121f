"""Errors of the change pipelines (part of the project's hierarchy: the API maps them to HTTP 400)."""

from compiler.errors import DriverError, FabricTwinError


class RolloutStateError(FabricTwinError):
    """The requested action is not allowed in the rollout's current state (names both states)."""


class RolloutStopped(Exception):  # control flow, not an error
    """Raised at a step boundary when the rollout was paused or cancelled, or another runner took it over."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


class CheckFailed(FabricTwinError):
    """A pre/post check failed; carries the report as a dict."""

    def __init__(self, message: str, report: dict | None = None):
        self.report = report or {}
        super().__init__(message)


class PushRefused(DriverError):  # named for what the operator sees
    """The pre-push guard refused a candidate: it would cut the device's management path or change its drain state.

    ``problems`` lists each offending line/key; the message names the device and every problem."""

    def __init__(self, device: str, problems: list[str]):
        self.device = device
        self.problems = list(problems)
        super().__init__(f"{device}: push refused, the candidate would cut the management path or change the drain "
                         f"state: " + "; ".join(self.problems))


class SecretReferenceUnknown(DriverError):  # named for what the operator sees
    """A config names a secret reference (compiler.secret_refs) the credential store does not hold: the push is
    refused before anything reaches the device. Names the device and every unknown reference (never a value)."""

    def __init__(self, device: str, references: list[str]):
        self.device = device
        self.references = list(references)
        listed = ", ".join(repr(reference) for reference in self.references)
        super().__init__(f"{device}: push refused, secret reference {listed} is not in the credential store "
                         f"(register it with: manage.py config_secret set {self.references[0]})")


class SecretValueRefused(DriverError):
    """A stored secret cannot be written where its reference stands (e.g. a blank in a SONiC TACACS+ passkey).
    Names the device, the reference and the rule, never the value."""


class PushVerifyFailed(FabricTwinError):  # named for what the operator sees
    """After a push, the device's running config, parsed, differs from the files pushed (changes.drift.push_verify):
    the device does not run what was pushed (a rejected line, a platform that rewrote a value). ``differences``
    lists each field-level difference; the message names the device and every difference."""

    def __init__(self, device: str, differences: list[str]):
        self.device = device
        self.differences = list(differences)
        super().__init__(f"{device}: the running config after the push differs from the pushed one: "
                         + "; ".join(self.differences))
