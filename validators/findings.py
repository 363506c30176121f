"""The one result shape of every check: ``Finding`` rows, aggregated per check by a ``Report``.

A check that ran and produced no error finding passed; one with any error finding failed; a check that
could not run is ``skipped`` with its reason (never reported as passed). Warnings and infos never fail a check.
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One row of a check's result, built by keyword (``Finding(check=..., severity=..., ...)``): six fields of
    which three are free objects are too easy to swap positionally, so positional construction is a TypeError."""

    check: str
    severity: str
    subject: str  # the most specific thing at fault: "leaf1:Ethernet1", "spine1:Ethernet3<->leaf3:Ethernet1"
    expected: object
    actual: object
    message: str

    def __post_init__(self) -> None:
        if self.severity not in Severity.ALL:
            raise ValueError(f"Finding.severity must be one of {Severity.ALL}, got {self.severity!r}")

    def as_dict(self) -> dict:
        return {"check": self.check, "severity": self.severity, "subject": self.subject,
                "expected": _jsonable(self.expected), "actual": _jsonable(self.actual), "message": self.message}


@dataclass(slots=True)
class CheckResult:
    name: str
    status: str
    findings: list[Finding] = field(default_factory=list)
    reason: str = ""  # why a skipped check did not run

    def counts(self) -> dict[str, int]:
        out = {severity: 0 for severity in Severity.ALL}
        for finding in self.findings:
            out[finding.severity] += 1
        return out


class Report:
    """Findings of many checks, grouped per check, in the order the checks were recorded."""

    def __init__(self, title: str = "") -> None:
        self.title = title
        self.checks: dict[str, CheckResult] = {}

    def add(self, check: str, findings: list[Finding] | tuple[Finding, ...] = ()) -> CheckResult:
        """Record that ``check`` ran and produced ``findings`` (an empty list means it passed)."""
        result = self.checks.setdefault(check, CheckResult(check, CheckStatus.PASSED))
        result.findings.extend(findings)
        failed = any(finding.severity == Severity.ERROR for finding in result.findings)
        result.status = CheckStatus.FAILED if failed else CheckStatus.PASSED
        return result

    def skip(self, check: str, reason: str) -> CheckResult:
        result = CheckResult(check, CheckStatus.SKIPPED, reason=reason)
        self.checks[check] = result
        return result

    @property
    def findings(self) -> list[Finding]:
        return [finding for result in self.checks.values() for finding in result.findings]

    @property
    def ok(self) -> bool:
        """True when no check failed (skipped checks do not make a report fail, nor pass: see ``counts``)."""
        return all(result.status != CheckStatus.FAILED for result in self.checks.values())

    def counts(self) -> dict[str, int]:
        out = {CheckStatus.PASSED: 0, CheckStatus.FAILED: 0, CheckStatus.SKIPPED: 0}
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
                 "counts": result.counts(), "findings": [finding.as_dict() for finding in result.findings]}
                for result in self.checks.values()
            ],
        }

    def as_text(self) -> str:
        counts = self.counts()
        lines = [f"{self.title or 'Report'}: {counts['passed']} passed, {counts['failed']} failed, "
                 f"{counts['skipped']} skipped"]
        for result in self.checks.values():
            detail = f" ({result.reason})" if result.reason else ""
            lines.append(f"  [{result.status.upper():7}] {result.name}{detail}")
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
