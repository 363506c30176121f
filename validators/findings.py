"""The one result shape of every check: ``Finding`` rows, aggregated per check by a ``Report``.

A check that ran and produced no error finding passed; one with any error finding failed; a check that
could not run is ``skipped`` with its reason (never reported as passed). Warnings and infos never fail a check.
Every result says what the check examined (``examined``: kind -> count, "BGP neighbors": 12); a check that
examined nothing is skipped, never passed (validators.run enforces it). A check whose input the config parser
did not fully understand is ``incomplete`` with the reason naming device, feature and file:line
(validators.configs): neither passed nor failed, and it does not fail the report.
Pure Python; never imports Django.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class Severity:
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    ALL = (ERROR, WARNING, INFO)


class CheckStatus:
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    INCOMPLETE = "incomplete"  # ran on a model missing lines it depends on: not a pass (validators.configs)
    ALL = (PASSED, FAILED, SKIPPED, INCOMPLETE)


CHECK_STATUS_CHOICES = [(status, status) for status in CheckStatus.ALL]  # the API schema's CheckStatusEnum


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One row of a check's result, built by keyword (``Finding(check=..., severity=..., ...)``): six fields of
    which three are free objects are too easy to swap positionally, so positional construction is a TypeError."""

    check: str
    severity: str
    subject: str  # the most specific thing at fault: "leaf1:Ethernet1", "spine1:Ethernet3<->leaf3:Ethernet1"
    # (the grammar is validators.subjects.Subject: build with it, read back with Subject.parse)
    expected: object
    actual: object
    message: str

    def __post_init__(self) -> None:
        if self.severity not in Severity.ALL:
            raise ValueError(f"Finding.severity must be one of {Severity.ALL}, got {self.severity!r}")

    def as_dict(self) -> dict:
        return {"check": self.check, "severity": self.severity, "subject": self.subject,
                "expected": _jsonable(self.expected), "actual": _jsonable(self.actual), "message": self.message}


@dataclass(frozen=True, slots=True, kw_only=True)
class InternalFailure(Finding):
    """The finding of a check that raised instead of answering (a bug, or input of a shape it did not expect):
    its own kind so reports, tests and the corpus bench can count them apart from what a config got wrong."""

    @classmethod
    def of(cls, check: str, subject: str, error: BaseException) -> InternalFailure:
        return cls(check=check, severity=Severity.ERROR, subject=subject, expected="the check to complete",
                   actual=type(error).__name__,
                   message=f"check {check} failed internally: {type(error).__name__}: {error}")

    def as_dict(self) -> dict:
        # Finding.as_dict explicitly: a slots dataclass is a new class, so zero-argument super() cannot find it.
        return {**Finding.as_dict(self), "internal_failure": True}


@dataclass(slots=True)
class CheckResult:
    name: str
    status: str
    findings: list[Finding] = field(default_factory=list)
    reason: str = ""  # why a skipped check did not run, or what an incomplete check could not read
    examined: dict[str, int] = field(default_factory=dict)  # what the check looked at: {"BGP neighbors": 12}

    def counts(self) -> dict[str, int]:
        out = {severity: 0 for severity in Severity.ALL}
        for finding in self.findings:
            out[finding.severity] += 1
        return out

    def headline(self) -> str:
        """'[PASSED ] bgp.sessions: examined 12 BGP neighbors', '[SKIPPED] roce.pfc (no RoCE classes ...)'."""
        line = f"[{self.status.upper():7}] {self.name}" + (f" ({self.reason})" if self.reason else "")
        return line + (f": examined {describe_examined(self.examined)}" if any(self.examined.values()) else "")


def describe_examined(examined: dict[str, int]) -> str:
    """{"BGP neighbors": 12, "devices": 4} -> '12 BGP neighbors, 4 devices'."""
    return ", ".join(f"{count} {kind}" for kind, count in examined.items())


def summary(counts: dict[str, int]) -> str:
    """'30 passed, 1 failed, 6 skipped, 2 incomplete' (incomplete only when there is one)."""
    text = f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
    return text + (f", {counts['incomplete']} incomplete" if counts.get("incomplete") else "")


class Report:
    """Findings of many checks, grouped per check, in the order the checks were recorded."""

    def __init__(self, title: str = "") -> None:
        self.title = title
        self.checks: dict[str, CheckResult] = {}

    def add(self, check: str, findings: list[Finding] | tuple[Finding, ...] = (),
            examined: dict[str, int] | None = None) -> CheckResult:
        """Record that ``check`` ran over ``examined`` and produced ``findings`` (none: it passed)."""
        result = self.checks.setdefault(check, CheckResult(check, CheckStatus.PASSED))
        result.findings.extend(findings)
        for kind, count in (examined or {}).items():
            result.examined[kind] = result.examined.get(kind, 0) + count
        failed = any(finding.severity == Severity.ERROR for finding in result.findings)
        result.status = CheckStatus.FAILED if failed else CheckStatus.PASSED
        return result

    def skip(self, check: str, reason: str, examined: dict[str, int] | None = None) -> CheckResult:
        result = CheckResult(check, CheckStatus.SKIPPED, reason=reason, examined=dict(examined or {}))
        self.checks[check] = result
        return result

    @property
    def findings(self) -> list[Finding]:
        return [finding for result in self.checks.values() for finding in result.findings]

    @property
    def ok(self) -> bool:
        """True when no check failed (skipped and incomplete checks do not make a report fail, nor pass: see
        ``counts``)."""
        return all(result.status != CheckStatus.FAILED for result in self.checks.values())

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(CheckStatus.ALL, 0)
        for result in self.checks.values():
            out[result.status] += 1
        return out

    def as_dict(self) -> dict:
        return {
            "title": self.title,
            "ok": self.ok,
            "counts": self.counts(),
            "checks": [
                {"name": result.name, "status": result.status, "reason": result.reason,
                 "examined": dict(result.examined), "counts": result.counts(),
                 "findings": [finding.as_dict() for finding in result.findings]}
                for result in self.checks.values()
            ],
        }

    def as_text(self) -> str:
        counts = self.counts()
        lines = [f"{self.title or 'Report'}: {summary(counts)}"]
        for result in self.checks.values():
            lines.append(f"  {result.headline()}")
            for finding in result.findings:
                lines.append(f"      {finding.severity:7} {finding.subject}: {finding.message}")
        return "\n".join(lines)


def _jsonable(value: object) -> object:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    return str(value)
