"""The checks a rollout runs before and after touching devices, as one ``validators.findings.Report``.

- ``static``: the project's static validators over the change set's structured configs (when it came from a
  compile run and ``validators.validate_fabric`` exists; otherwise skipped with the reason).
- Twin target: the twin's live checks (``twins.checks``, over labs.checks) (BGP sessions, EVPN flood lists, ping matrix, link + host MTU DF probes),
  with expectations from the
  configs the nodes run NOW (read through the drivers), so a network added by the change is expected too.
- Production target: ``rehearsal`` before anything is pushed — a scratch twin booted from the change set's compile
  run (every switch on FRR with the NEW configs), every live check run on it, then torn down; and ``health`` per
  device through its driver (BGP established/total, routes). EVPN and ping on the devices themselves are
  twin-only and reported as skipped.
"""

from __future__ import annotations

import time

from compiler.errors import DriverError
from compiler.parse import PARSERS
from intents.adapters import fabric_snapshot
from intents.models import CompileRun
from twins.checks import TWIN_CHECKS, twin_live_checks
from twins.checks import twin_rehearsal as twin_rehearsal_run
from validators.configs import TEXT_CHECK, text_faithfulness
from validators.context import ValidationInput
from validators.findings import CheckStatus, Finding, Report, Severity
from validators.run import validate_fabric

from ..choices import RolloutTargetChoices


def static_checks(change_set, report: Report) -> None:
    """The project's static validators over the NEW compile (the change set's structured configs), with the
    intent's snapshot when the change set came from a compile run (physical and RoCE checks need it)."""
    structured = {row.hostname: row.structured for row in change_set.devices.all() if row.structured}
    if not structured:
        report.skip("static", "the change set has no structured configs (not built from a compile run)")
        return
    snapshot = None
    if change_set.compile_run_id:
        run = CompileRun.objects.select_related("fabric_intent").filter(pk=change_set.compile_run_id).first()
        snapshot = fabric_snapshot(run.fabric_intent) if run is not None else None
    static = validate_fabric(ValidationInput(structured=structured, snapshot=snapshot),
                             title=f"static checks of change set {change_set.pk}")
    for result in static.checks.values():
        if result.status == CheckStatus.SKIPPED:
            report.skip(f"static.{result.name}", result.reason, result.examined)
        else:
            report.add(f"static.{result.name}", result.findings, result.examined)
    text_checks(change_set, report)


def text_checks(change_set, report: Report) -> None:
    """The gate on the text: the exact files the rollout will push, parsed and compared with the structured
    configs they came from (validators.configs.text_faithfulness): a renderer bug or an edited file stops the
    rollout before any device is touched."""
    rows = [row for row in change_set.devices.all() if row.intended_files and row.platform in PARSERS]
    if not rows:
        report.skip(f"static.{TEXT_CHECK}", f"the change set has no files of a platform with a parser "
                                            f"({', '.join(PARSERS)}) to push")
        return
    # A twin node run from a switch's own EOS/SONiC config carries no QoS translation (twins.checks).
    twin_nodes = frozenset(row.hostname for row in rows if row.platform == "frr" and row.structured
                           and row.structured.get("platform", "frr") != "frr")
    findings = text_faithfulness({row.hostname: row.structured for row in rows if row.structured},
                                 {row.hostname: dict(row.intended_files) for row in rows},
                                 {row.hostname: row.platform for row in rows}, without_qos=twin_nodes)
    report.add(f"static.{TEXT_CHECK}", findings)


def twin_rehearsal(change_set, report: Report, timeout_s: float) -> None:
    """Boot a scratch twin with the change set's NEW configs (its compile run), run every live check on it and
    tear it down: a change that breaks sessions, reachability or MTU on the twin is stopped before production.
    Findings are named ``rehearsal.<live check>``; skipped with the reason where the twin cannot run. The
    rehearsal is a recorded twin operation (``twins.checks.twin_rehearsal``)."""
    if not change_set.compile_run_id:
        report.skip("rehearsal", "the change set did not come from a compile run: no configs to boot a twin from")
        return
    rehearsal = twin_rehearsal_run(compile_run_id=change_set.compile_run_id, timeout_s=timeout_s,
                                   change_set_id=change_set.pk)
    if isinstance(rehearsal, str):
        report.skip("rehearsal", rehearsal)
        return
    for result in rehearsal.checks.values():
        if result.status == CheckStatus.SKIPPED:
            report.skip(f"rehearsal.{result.name}", result.reason)
        else:
            report.add(f"rehearsal.{result.name}", result.findings)


def twin_checks(context, names: list[str], report: Report, timeout_s: float) -> None:
    """The live checks on the rollout's twin, expecting what each node runs now (read through its driver)."""
    twin_live_checks(twin=context.rollout.twin,
                     running=lambda hostname: context.driver(hostname).get_running_config(), names=names,
                     report=report, timeout_s=timeout_s)


def health_checks(context, devices: list[str], report: Report, timeout_s: float) -> dict:
    """Every device's BGP sessions Established (polled until the timeout: sessions take seconds to come up)."""
    deadline = time.monotonic() + timeout_s
    while True:
        findings, measured = [], {}
        for device in devices:
            try:
                health = context.driver(device).health()
            except DriverError as exc:
                findings.append(Finding(
                    check="health", severity=Severity.ERROR, subject=device, expected="reachable", actual="error",
                    message=str(exc)))
                continue
            measured[device] = health.as_dict()
            if not health.all_established:
                findings.append(Finding(
                    check="health", severity=Severity.ERROR, subject=device,
                    expected=f"{health.bgp_total}/{health.bgp_total}",
                    actual=f"{health.bgp_established}/{health.bgp_total}",
                    message=f"{device}: BGP sessions down: {', '.join(health.down_peers) or 'none configured'}"))
        if not findings or time.monotonic() > deadline:
            report.add("health", findings)
            return measured
        context.checkpoint()
        time.sleep(1.0)


def fabric_checks(context, *, title: str, include_static: bool = False, devices: list[str] | None = None) -> Report:
    policy = context.rollout.policy
    names = list(policy.get("checks", []))
    timeout_s = float(policy.get("converge_timeout_s", 60))
    report = Report(title)
    if include_static and "static" in names and context.rollout.change_set is not None:
        static_checks(context.rollout.change_set, report)
    if include_static and "rehearsal" in names and context.rollout.change_set is not None:
        if context.rollout.target == RolloutTargetChoices.TWIN:
            report.skip("rehearsal", "the rollout's target is the twin itself: its post-checks are the rehearsal")
        else:
            twin_rehearsal(context.rollout.change_set, report, timeout_s)
    if context.rollout.target == RolloutTargetChoices.TWIN:
        twin_checks(context, [name for name in names if name in TWIN_CHECKS], report, timeout_s)
        if "health" in names and devices:
            health_checks(context, devices, report, timeout_s)
    else:
        health_checks(context, devices or [], report, timeout_s)
        for name in names:
            if name in TWIN_CHECKS:
                report.skip(name, "measured in the twin only; production devices report health (BGP, routes)")
    return report
