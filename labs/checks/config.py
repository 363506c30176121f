"""``twin.frr_config_load``: every frr.conf line was accepted by ``vtysh -b`` when the twin booted."""

from __future__ import annotations

from validators.findings import Finding, Report, Severity

from ..runtime import TwinState

CHECK = "twin.frr_config_load"


def check_config_load(state: TwinState, report: Report) -> None:
    report.add(CHECK, [
        Finding(check=CHECK, severity=Severity.ERROR, subject=node, expected="every frr.conf line accepted", actual=error.splitlines()[-1],
                message=f"vtysh -b rejected part of {node}'s frr.conf: {error[-300:]}")
        for node, error in sorted(state.config_errors.items())
    ])
