"""``collective.bottleneck``: fail a fabric + job whose predicted bottleneck factor exceeds the limit, naming the
worst links and what would bring it down.

This check runs only where a job is given (``manage.py collective``), not in every validation run: a fabric
without a job has no collective to predict. It examines the simulated flows; at the p95 of the trials it fails
when the bottleneck factor is above ``limit`` (default 1.1: within 10 % of perfectly balanced links).

Recommendations, each computed, not guessed:

* **QPs** -- the smallest ``NCCL_IB_QPS_PER_CONNECTION`` among 1, 2, 4, ... 64 whose p95 is within the limit
  (re-simulated; Meta reports scaling QPs per connection as its main ECMP fix, SIGCOMM 2024 "RDMA over Ethernet
  for Distributed AI Training at Meta Scale", section 5);
* **distinct seeds / hash offsets** -- when a tier's polarization index is >= 0.5 (its choices repeat the upstream
  tier's); with a CRC the seed is an XOR constant, so the advice is a different offset or function per tier;
* **destination-QP hashing (UDF)** -- when the first hashing tier's concentration is >= 0.5 (too little entropy
  in the 5-tuple: few distinct source ports);
* **single-choice planes (dual-plane)** -- when a tier after the first is polarized: planes where every switch
  after the first hop has one way up remove that tier's choice (Alibaba HPN, SIGCOMM 2024, section 4);
* **DLB** -- when no QP count up to 64 reaches the limit.

Job-aware N-1 (``n_minus_1=True``): every spine and super-spine carrying the job's flows is failed in turn (its
cables removed, routes recomputed) and the job re-simulated; the p95 slowdown against the *intact* fabric's
ideal is reported per switch, and a warning names the worst loss when it exceeds the limit.
Pure Python + numpy; never imports Django.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from compiler.errors import InputError
from compiler.model import Inventory
from validators.findings import Finding, Report, Severity

from .fabric import FabricGraph
from .hashing import HashFunction
from .simulate import Prediction, Scenario, simulate

CHECK = "collective.bottleneck"
DEFAULT_LIMIT = 1.1
QP_CANDIDATES = (1, 2, 4, 8, 16, 32, 64)
POLARIZED = 0.5


@dataclass
class CollectiveResult:
    report: Report
    prediction: Prediction
    recommendations: list[str]
    qps_needed: int | None  # None: no candidate reached the limit (or it was not searched)
    n_minus_1: list[dict] = field(default_factory=list)  # worst first: {"switch", "p95"} or {"switch", "error"}

    def as_dict(self) -> dict:
        return {"report": self.report.as_dict(), "prediction": self.prediction.as_dict(),
                "recommendations": self.recommendations, "qps_needed": self.qps_needed, "n_minus_1": self.n_minus_1}


def switch_losses(inventory: Inventory, scenario: Scenario, prediction: Prediction, graph: FabricGraph) -> list[dict]:
    """Each spine/super-spine the job's flows cross, failed alone: p95 slowdown against the intact ideal."""
    used = prediction.link_flows[:, : graph.switch_links].sum(axis=0) > 0
    names = sorted({graph.names[int(graph.tail[link])] for link in np.flatnonzero(used)
                    if graph.tier[graph.tail[link]] >= 1})
    results = []
    for name in names:
        failed = replace(inventory, cables=tuple(cable for cable in inventory.cables
                                                 if name not in (cable.a.device, cable.b.device)))
        try:
            degraded = simulate(failed, scenario)
        except InputError as error:  # the loss partitions the job
            results.append({"switch": name, "p95": float("inf"), "error": error.errors[0].message})
            continue
        slowdown = degraded.bottleneck * degraded.ideal_utilisation / prediction.ideal_utilisation
        results.append({"switch": name, "p95": float(np.percentile(slowdown, 95))})
    return sorted(results, key=lambda row: -row["p95"])


def qps_needed(inventory: Inventory, scenario: Scenario, limit: float, graph: FabricGraph) -> tuple[int | None, float]:
    """The smallest QP count whose p95 bottleneck is within ``limit``, and that p95 (or the last one tried)."""
    p95 = float("inf")
    for qps in QP_CANDIDATES:
        p95 = simulate(inventory, replace(scenario, qps=qps), graph=graph).percentile(95)
        if p95 <= limit:
            return qps, p95
    return None, p95


def check_collective(inventory: Inventory, scenario: Scenario, limit: float = DEFAULT_LIMIT,
                     graph: FabricGraph | None = None, search_qps: bool = True,
                     n_minus_1: bool = False) -> CollectiveResult:
    graph = graph or FabricGraph(inventory)
    prediction = simulate(inventory, scenario, graph=graph)
    p95 = prediction.percentile(95)
    recommendations: list[str] = []
    needed: int | None = None
    if p95 > limit and search_qps:
        needed, best = qps_needed(inventory, scenario, limit, graph)
        if needed is not None:
            recommendations.append(f"QPs: {needed} QPs per connection (NCCL_IB_QPS_PER_CONNECTION={needed}; intent "
                                   f"ecmp_hashing.qps_per_connection={needed} renders it into nccl.env) bring the "
                                   f"p95 bottleneck factor to {best:.2f} (limit {limit:.2f})")
        else:
            recommendations.append(f"DLB: no QP count up to {QP_CANDIDATES[-1]} reaches {limit:.2f} (p95 "
                                   f"{best:.2f} at {QP_CANDIDATES[-1]}); enable dynamic load balancing / flowlet "
                                   "switching where the ASIC supports it (intent ecmp_hashing.dlb)")
    hashing_tiers = [tier for tier in prediction.tiers if tier.concentration is not None]
    if hashing_tiers and hashing_tiers[0].concentration is not None and hashing_tiers[0].concentration >= POLARIZED:
        recommendations.append(f"QP hashing: the {hashing_tiers[0].tier} choices use few members (concentration "
                               f"{hashing_tiers[0].concentration:.2f}): add the BTH destination QP to the hash (UDF; intent "
                               "ecmp_hashing.dest_qp_hashing)")
    for tier in hashing_tiers[1:]:
        if tier.polarization is not None and tier.polarization >= POLARIZED:
            crc = scenario.hashing.default.function != HashFunction.RANDOM
            fix = ("a different hash offset or function per tier (a CRC applies its seed as an XOR constant, which "
                   "keeps power-of-two groups polarized; intent ecmp_hashing.tier_hashing=distinct_functions)" if crc
                   else "distinct hash seeds per switch (intent ecmp_hashing.tier_hashing=distinct_seeds)")
            recommendations.append(f"polarization {tier.polarization:.2f} at {tier.tier} ({tier.idle_links:.0f} of "
                                   f"{tier.links} links idle): use {fix}, or single-choice planes (dual-plane) so "
                                   "that tier has one way up")
    findings = []
    if p95 > limit:
        worst = "; ".join(f"{link['link']} ({link['load_vs_ideal']:.2f}x ideal, {link['max_flows']} flows)"
                          for link in prediction.worst_links[:3])
        findings.append(Finding(
            check=CHECK, severity=Severity.ERROR, subject=prediction.worst_links[0]["link"] if prediction.worst_links else inventory.fabric,
            expected=f"<= {limit}", actual=round(p95, 3),
            message=f"{scenario.collective} on {prediction.gpus} GPUs with {scenario.qps} QP(s): p95 bottleneck "
                    f"factor {p95:.2f} over {prediction.trials} trials (limit {limit:.2f}); worst links: {worst}"
                    + (f". Recommended: {recommendations[0]}" if recommendations else "")))
    losses = switch_losses(inventory, scenario, prediction, graph) if n_minus_1 else []
    if losses and losses[0]["p95"] > limit:
        worst_loss = losses[0]
        findings.append(Finding(
            check=CHECK, severity=Severity.WARNING, subject=worst_loss["switch"], expected=f"<= {limit}",
            actual=worst_loss["p95"] if "error" not in worst_loss else worst_loss["error"],
            message=f"losing {worst_loss['switch']} " + (f"partitions the job: {worst_loss['error']}" if "error" in worst_loss
                                                        else f"slows this job to a p95 {worst_loss['p95']:.2f}x the intact "
                                                             f"fabric's ideal (limit {limit:.2f})")
                    + f"; {sum(row['p95'] > limit for row in losses)} of {len(losses)} switch losses exceed it"))
    examined = {"flows": prediction.flows, "links": sum(tier.links for tier in prediction.tiers),
                "trials": prediction.trials}
    if n_minus_1:
        examined["switch failures"] = len(losses)
    report = Report(f"collective {scenario.collective} on {inventory.fabric}")
    report.add(CHECK, findings, examined)
    return CollectiveResult(report=report, prediction=prediction, recommendations=recommendations, qps_needed=needed,
                            n_minus_1=losses)


def prediction_table(prediction: Prediction) -> str:
    """The per-tier table the CLI prints."""
    header = ("| tier | links | flows | max flows/link | mean flows/link | idle links | bottleneck p50 | p95 "
              "| P(>=2 elephants share) | concentration | polarization |")
    lines = [header, "|---|---|---|---|---|---|---|---|---|---|---|"]

    def number(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    for tier in prediction.tiers:
        lines.append(f"| {tier.tier} | {tier.links} | {tier.flows} | {tier.max_flows} | {tier.mean_flows:.2f} | "
                     f"{tier.idle_links:.1f} | {tier.bottleneck_p50:.2f} | {tier.bottleneck_p95:.2f} | "
                     f"{number(tier.elephant_share_probability)} | {number(tier.concentration)} | "
                     f"{number(tier.polarization)} |")
    lines.append(f"\nbottleneck factor (the collective's predicted slowdown): p50 {prediction.percentile(50):.2f}, "
                 f"p95 {prediction.percentile(95):.2f} over {prediction.trials} trials; {prediction.flows:,} flows "
                 f"({prediction.connections:,} connections), {prediction.gpus} GPUs on {prediction.servers} servers")
    return "\n".join(lines)
