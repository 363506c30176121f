"""Reads of the validation app: a run's report as JSON, filtered by check (name or prefix) and severity."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from common.runs import RunStatus
from validators.findings import CheckStatus, describe_examined

from .models import ValidationFinding, ValidationRun


def validation_findings(*, run: ValidationRun, check: str | None = None,
                        severity: str | None = None) -> QuerySet[ValidationFinding]:
    findings = ValidationFinding.objects.filter(run=run)
    if check:
        findings = findings.filter(Q(check_name=check) | Q(check_name__startswith=f"{check}."))
    if severity:
        findings = findings.filter(severity=severity)
    return findings.order_by("id")


def validation_report(*, run: ValidationRun, check: str | None = None, severity: str | None = None) -> dict:
    """The stored report in the shape of ``validators.findings.Report.as_dict`` (checks with their findings)."""
    per_check: dict[str, list[dict]] = {}
    for finding in validation_findings(run=run, check=check, severity=severity):
        per_check.setdefault(finding.check_name, []).append(finding.as_dict())
    checks = []
    for name, info in (run.summary.get("checks") or {}).items():
        if check and name != check and not name.startswith(f"{check}."):
            continue
        checks.append({"name": name, "status": info["status"], "reason": info["reason"], "counts": info["counts"],
                       "examined": info.get("examined", {}),  # runs stored before examined counts: {}
                       "seconds": info.get("seconds"), "findings": per_check.get(name, [])})
    return {"run": run.pk, "fabric_intent": run.fabric_intent.name, "status": run.status, "ok": run.ok,
            "title": run.summary.get("title", ""), "error": run.error, "error_fields": run.error_fields,
            "counts": {"passed": run.checks_passed, "failed": run.checks_failed, "skipped": run.checks_skipped,
                       "incomplete": sum(1 for info in (run.summary.get("checks") or {}).values()
                                         if info["status"] == CheckStatus.INCOMPLETE),
                       "error": run.error_count, "warning": run.warning_count, "info": run.info_count},
            "whatif": run.summary.get("whatif"), "leaf_pairs": run.summary.get("leaf_pairs"), "checks": checks}


def validation_report_text(report: dict) -> str:
    counts = report["counts"]
    lines = [f"{report['title'] or 'validation'} (run {report['run']}): {counts['passed']} passed, "
             f"{counts['failed']} failed, {counts['skipped']} skipped; {counts['error']} errors, "
             f"{counts['warning']} warnings"]
    if report["status"] == RunStatus.FAILED:
        lines.append(f"  run failed: {report['error']}")
    for check in report["checks"]:
        detail = f" ({check['reason']})" if check["reason"] else ""
        examined = f": examined {describe_examined(check['examined'])}" if any(check["examined"].values()) else ""
        lines.append(f"  [{check['status'].upper():7}] {check['name']}{detail}{examined}")
        for finding in check["findings"]:
            lines.append(f"      {finding['severity']:7} {finding['subject']}: {finding['message']}")
    return "\n".join(lines)
