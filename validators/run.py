"""One entry point: ``validate_fabric(ValidationInput, checks=None) -> ValidationResult``.

Runs every static check (or a subset: exact names like ``mtu.links`` or prefixes like ``roce``) over one shared
:class:`~validators.context.FabricContext`, so sessions, the routing model and the leaf-pair matrix are built
once. Checks that cannot run are recorded as skipped with the reason (no RoCE classes, no inventory, no Batfish
service), never as passed. Each check records what it examined on the context (``ctx.record_examined``); a
check that examined nothing is skipped here, centrally, whatever it returned. A check that raises is that
check's result with an :class:`~validators.findings.InternalFailure` finding, the traceback logged, and the run
goes on. The :class:`ValidationResult` is a ``Report`` that also carries wall and CPU seconds
per check (the benchmark prints them) and the context the checks shared (reports read its what-if result and
leaf-pair matrix).
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Iterable, Mapping

from compiler.api import CompileResult
from compiler.errors import FieldError, InputError
from compiler.structured.contract import StructuredConfig
from validators import (
    batfish,
    bgp,
    clos5,
    deadlock,
    ecmp,
    headroom,
    hosts,
    mlag,
    mtu,
    overlay,
    reachability,
    roce,
    underlay,
    whatif,
)
from validators.common import CheckSkipped
from validators.context import FabricContext, ValidationInput, as_context
from validators.findings import CheckStatus, InternalFailure, Report, describe_examined
from validators.igp import IGP
from validators.physical import PHYSICAL_CHECKS, PHYSICAL_EXAMINED

logger = logging.getLogger(__name__)


class ValidationResult(Report):
    """The report of one :func:`validate_fabric` run, with its per-check timings and the shared context."""

    def __init__(self, title: str, context: FabricContext) -> None:
        super().__init__(title)
        self.context = context
        self.timings: dict[str, float] = {}  # wall seconds per check
        self.cpu_timings: dict[str, float] = {}  # CPU seconds of this process per check (steadier when shared)


NOTHING_EXAMINED = "nothing to examine"


def _needs_roce(check: Callable) -> Callable:
    def run(ctx):
        if not roce.roce_applies(ctx):
            raise CheckSkipped(roce.NO_ROCE)
        return check(ctx)
    return run


def _physical(name: str) -> Callable:
    def run(ctx):
        if ctx.inventory is None:
            raise CheckSkipped("no inventory (structured configs only)")
        ctx.record_examined(name, PHYSICAL_EXAMINED[name](ctx.inventory))
        return PHYSICAL_CHECKS[name](ctx.inventory)
    return run


def _whatif_result(ctx):
    """N-1 and N-2 (spine pairs) scenarios, computed once for both checks."""
    if ctx.whatif_result is None:
        ctx.whatif_result = whatif.run_whatif(ctx, spine_pairs=True)
    if ctx.whatif_result.skipped_reason:
        raise CheckSkipped(ctx.whatif_result.skipped_reason)
    return ctx.whatif_result


def _whatif(ctx):
    return whatif.check_whatif(ctx, _whatif_result(ctx))


def _whatif_n2(ctx):
    return whatif.check_whatif_n2(ctx, _whatif_result(ctx))


def _registry() -> dict[str, Callable[[FabricContext], list]]:
    checks: dict[str, Callable] = {}
    checks.update(bgp.CHECKS)
    checks[reachability.REACHABILITY] = reachability.check_vtep_reachability
    checks[IGP] = underlay.check_igp
    checks[ecmp.ECMP] = ecmp.check_ecmp
    checks.update(clos5.CHECKS)
    checks.update(overlay.CHECKS)
    checks.update(mtu.CHECKS)
    checks.update(mlag.CHECKS)
    checks.update({name: _needs_roce(check) for name, check in roce.CHECKS.items()})
    checks.update({name: _needs_roce(check) for name, check in headroom.CHECKS.items()})
    checks.update({name: _needs_roce(check) for name, check in deadlock.CHECKS.items()})
    checks.update({name: _needs_roce(check) for name, check in hosts.ROCE_CHECKS.items()})
    checks.update(hosts.LINK_CHECKS)
    checks.update({name: _physical(name) for name in PHYSICAL_CHECKS})
    checks[whatif.CHECK] = _whatif
    checks[whatif.CHECK_N2] = _whatif_n2
    checks.update(batfish.CHECKS)
    return checks


CHECKS = _registry()


def check_names() -> list[str]:
    return list(CHECKS)


def select_checks(checks: Iterable[str] | None) -> list[str]:
    """Check names for a selection of exact names or prefixes (``bgp`` = every ``bgp.*``)."""
    if checks is None:
        return list(CHECKS)
    selected: list[str] = []
    errors = []
    for wanted in checks:
        matches = [name for name in CHECKS if name == wanted or name.startswith(f"{wanted}.")]
        if not matches:
            errors.append(FieldError("checks", wanted, f"unknown check; known: {', '.join(CHECKS)}"))
        selected += [name for name in matches if name not in selected]
    if errors:
        raise InputError(errors)
    return selected


def validate_fabric(source: ValidationInput | FabricContext | CompileResult | Mapping[str, StructuredConfig],
                    checks: Iterable[str] | None = None, title: str | None = None) -> ValidationResult:
    """``source``: a :class:`ValidationInput` (what the apps pass); a context, CompileResult or structured dict
    is turned into one by :func:`~validators.context.as_context`."""
    ctx = as_context(source)
    names = select_checks(checks)
    fabric_name = ctx.inventory.fabric if ctx.inventory is not None else f"{len(ctx.structured)} devices"
    report = ValidationResult(title or f"validation of {fabric_name}", ctx)
    # Millions of small dicts and tuples: the cyclic GC would rescan them over and over for nothing.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for name in names:
            started, cpu_started = time.perf_counter(), time.process_time()
            _run_check(report, ctx, name, ctx.inventory.fabric if ctx.inventory is not None else "fabric")
            report.timings[name] = time.perf_counter() - started
            report.cpu_timings[name] = time.process_time() - cpu_started
    finally:
        if gc_was_enabled:
            gc.enable()
    return report


def _run_check(report: ValidationResult, ctx: FabricContext, name: str, fabric_name: str) -> None:
    """One check into ``report``: skipped (it said why, or it examined nothing), passed/failed, or an internal
    failure; nothing it raises stops the run."""
    try:
        findings = CHECKS[name](ctx)
    except CheckSkipped as skipped:
        report.skip(name, skipped.reason, ctx.examined.get(name))
        return
    except Exception as error:  # any bug or unexpected input shape: reported, never a crash
        logger.exception("check %s failed internally on %s", name, fabric_name)
        report.add(name, [InternalFailure.of(name, fabric_name, error)], ctx.examined.get(name))
        return
    examined = ctx.examined.get(name)
    result = report.add(name, findings, examined)
    if result.status == CheckStatus.PASSED and not any((examined or {}).values()):
        result.status = CheckStatus.SKIPPED
        result.reason = (f"{NOTHING_EXAMINED}: {describe_examined(examined)}" if examined else
                         "the check did not say what it examined")
