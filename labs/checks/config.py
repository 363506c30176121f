"""``twin.frr_config_load``: every frr.conf line was accepted by ``vtysh -b`` when the twin booted."""

from __future__ import annotations

from validators.findings import Finding, Report, Severity

from ..runtime import TwinState

CHECK = "twin.frr_config_load"


def check_config_load(state: TwinState, report: Report) -> None:
    report.add(CHECK, [
        Finding(CHECK, Severity.ERROR, node, "every frr.conf line accepted", error.splitlines()[-1],
                f"vtysh -b rejected part of {node}'s frr.conf: {error[-300:]}")
        for node, error in sorted(state.config_errors.items())
    ])
