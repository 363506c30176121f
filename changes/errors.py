"""Errors of the change pipelines (part of the project's hierarchy: the API maps them to HTTP 400)."""

from compiler.errors import DriverError, FabricTwinError


class RolloutStateError(FabricTwinError):
    """The requested action is not allowed in the rollout's current state (names both states)."""


class RolloutStopped(Exception):  # noqa: N818 - control flow, not an error
    """Raised at a step boundary when the rollout was paused or cancelled, or another runner took it over."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


class CheckFailed(FabricTwinError):
    """A pre/post check failed; carries the report as a dict."""

    def __init__(self, message: str, report: dict | None = None):
        self.report = report or {}
        super().__init__(message)


class PushRefused(DriverError):  # noqa: N818 - named for what the operator sees
    """The pre-push guard refused a candidate: it would cut the device's management path or change its drain state.

    ``problems`` lists each offending line/key; the message names the device and every problem."""

    def __init__(self, device: str, problems: list[str]):
        self.device = device
        self.problems = list(problems)
        super().__init__(f"{device}: push refused, the candidate would cut the management path or change the drain "
                         f"state: " + "; ".join(self.problems))
