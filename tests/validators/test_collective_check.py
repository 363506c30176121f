"""collective.bottleneck (validators/collective/check.py) and the simulator's inputs: a passing and a failing
fabric + job, recommendations that are computed (the QP count found is re-checked), the collectives' connection
counts and bytes, and bad input named field by field."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from compiler.clos import ClosParams, plan_clos
from compiler.errors import InputError
from compiler.pods import PodsParams, plan_pods
from validators.collective import FabricGraph, HashConfig, HashPolicy, Job, Scenario, simulate
from validators.collective.check import CHECK, check_collective, prediction_table
from validators.collective.jobs import connections, place


@pytest.fixture(scope="module")
def ring():
    """8 leaves x 4 servers under 4 spines; the ring alternates leaves so every hop crosses a spine."""
    inventory = plan_clos(ClosParams(name="chk", spines=4, leaves=8, servers_per_leaf=4))
    order = tuple(f"gpu{leaf * 4 + slot + 1:04d}" for slot in range(4) for leaf in range(8))
    return inventory, FabricGraph(inventory), Job(servers=order)


def test_fails_with_the_worst_links_and_a_qp_count_that_works(ring):
    inventory, graph, job = ring
    scenario = Scenario(job=job, channels=1, qps=1, trials=64)
    result = check_collective(inventory, scenario, limit=1.5, graph=graph)
    check = result.report.checks[CHECK]
    assert check.status == "failed" and not result.report.ok
    finding = check.findings[0]
    assert finding.actual >= 2 and "->spine" in finding.subject and "worst links" in finding.message
    assert result.qps_needed is not None and result.qps_needed > 1
    assert f"NCCL_IB_QPS_PER_CONNECTION={result.qps_needed}" in result.recommendations[0]
    # the intent field that renders it into every host's nccl.env (compiler.host_config)
    assert f"ecmp_hashing.qps_per_connection={result.qps_needed}" in result.recommendations[0]
    again = check_collective(inventory, replace(scenario, qps=result.qps_needed), limit=1.5, graph=graph)
    assert again.report.ok and again.recommendations == []
    assert check.examined == {"flows": 32, "links": 128, "trials": 64}
    table = prediction_table(result.prediction)
    assert "| leaf->spine | 32 | 32 |" in table and "p95 4.00" in table


def test_dlb_passes_where_static_hashing_fails(ring):
    inventory, graph, job = ring
    dlb = Scenario(job=job, channels=1, qps=1, trials=32, hashing=HashPolicy(default=HashConfig(dlb=True)))
    result = check_collective(inventory, dlb, graph=graph)
    assert result.report.ok and result.prediction.percentile(95) == pytest.approx(1.0)


def test_no_qp_count_reaching_the_limit_recommends_dlb(ring):
    inventory, graph, job = ring
    result = check_collective(inventory, Scenario(job=job, channels=1, trials=16), limit=1.01, graph=graph)
    assert result.qps_needed is None and result.recommendations[0].startswith("DLB:")


def test_polarized_tier_gets_the_offset_recommendation():
    inventory = plan_pods(PodsParams(name="polchk", pods=2, super_spines_per_plane=4,
                                     pod=ClosParams(spines=4, leaves=8, servers_per_leaf=4)))
    scenario = Scenario(job=Job(gpus=512), collective="alltoall-pxn", qps=4, trials=2)
    result = check_collective(inventory, scenario, search_qps=False)
    assert any("polarization 1.00 at spine->super-spine" in line and "offset" in line
               for line in result.recommendations)
    keyed = check_collective(inventory, Scenario(job=Job(gpus=512), collective="alltoall-pxn", qps=4, trials=2,
                                                 hashing=HashPolicy(default=HashConfig(function="random"))),
                             search_qps=False)
    assert any("distinct hash seeds" in line for line in keyed.recommendations)


def test_collective_connection_counts_and_bytes(ring):
    inventory, graph, job = ring
    placement = place(inventory, graph, job)
    servers, ranks = 32, 256
    src, dst, size = connections(placement, "ring-allreduce", 1 << 30, 2)
    assert len(src) == servers * 2 and np.allclose(size, 2 * (ranks - 1) / ranks * (1 << 30) / 2)
    assert not np.any(src == dst)
    src, _dst, size = connections(placement, "allgather", 1 << 30, 1)
    assert np.allclose(size, (ranks - 1) / ranks * (1 << 30))
    src, dst, _size = connections(placement, "tree-allreduce", 1 << 20, 2)
    assert len(src) == 2 * 2 * (servers - 1)  # two trees, every edge both ways
    assert len(set(zip(src[:31].tolist(), dst[:31].tolist(), strict=True))) == 31
    src, _dst, size = connections(placement, "alltoall", ranks, 1)
    assert len(src) == servers * (servers - 1) * 8 * 8 and np.allclose(size, 1.0)
    src, _dst, size = connections(placement, "alltoall-pxn", ranks, 1)
    assert len(src) == servers * (servers - 1) and np.allclose(size, 64.0)  # one rail: all 64 GPU pairs


def test_qp_policies_and_source_port_modes(ring):
    inventory, graph, job = ring
    split = simulate(inventory, Scenario(job=job, channels=1, qps=3, size_bytes=10 << 20, trials=1), graph=graph)
    dealt = simulate(inventory, Scenario(job=job, channels=1, qps=3, size_bytes=10 << 20, trials=1,
                                         qp_policy="round-robin", message_bytes=4 << 20), graph=graph)
    assert split.flows == dealt.flows == 96
    assert split.tiers[0].bytes == pytest.approx(dealt.tiers[0].bytes)
    few = simulate(inventory, Scenario(job=job, channels=1, qps=4, size_bytes=1 << 20, trials=1,
                                       qp_policy="round-robin", message_bytes=1 << 20), graph=graph)
    assert few.flows == 32 * 2  # 2(N-1)/N MiB = two messages per connection: two of the four QPs send
    pinned = simulate(inventory, Scenario(job=job, channels=1, qps=4, trials=4, sport="pinned",
                                          pinned_sports=(49152, 50000)), graph=graph)
    assert pinned.link_flows.shape == (4, graph.link_count)
    vxlan = simulate(inventory, Scenario(job=job, channels=1, qps=4, trials=4, encapsulation="vxlan",
                                         hashing=HashPolicy(default=HashConfig(fields="vxlan-outer"))), graph=graph)
    assert vxlan.percentile(95) >= 1.0


@pytest.mark.parametrize("fields,field_name", [
    (dict(qps=0), "qps"), (dict(collective="ring"), "collective"), (dict(sport="pinned"), "pinned_sports"),
    (dict(sport="pinned", pinned_sports=(80,)), "pinned_sports"), (dict(trials=0), "trials"),
    (dict(hashing=HashPolicy(default=HashConfig(function="md5"))), "hashing.default.function"),
    (dict(hashing=HashPolicy(by_role={"spine": HashConfig(offset=16)})), "hashing.by_role[spine].offset"),
    (dict(job=Job(servers=("nope",))), "job.servers"), (dict(job=Job(gpus=1)), "job.gpus"),
    (dict(job=Job(servers=("gpu0001",))), "job"), (dict(job=Job(gpus=10_000)), "job.gpus"),
    (dict(hashing=HashPolicy(default=HashConfig(fields="vxlan-outer"))), "hashing.default.fields"),
])
def test_bad_input_names_the_field(ring, fields, field_name):
    inventory, graph, job = ring
    values = {"job": job, "channels": 1, "trials": 2, **fields}
    with pytest.raises(InputError) as raised:
        simulate(inventory, Scenario(**values), graph=graph)
    assert field_name in [error.field for error in raised.value.errors]


def test_job_aware_n_minus_1_names_the_spine_loss_that_slows_the_job(ring):
    inventory, graph, job = ring
    dlb = Scenario(job=job, channels=1, qps=1, trials=8, hashing=HashPolicy(default=HashConfig(dlb=True)))
    result = check_collective(inventory, dlb, graph=graph, n_minus_1=True)
    assert [row["switch"] for row in result.n_minus_1] and len(result.n_minus_1) == 4  # every spine carries flows
    # 4 flows per leaf on 3 remaining uplinks: one carries 2, twice the intact fabric's ideal
    assert all(row["p95"] == pytest.approx(2.0) for row in result.n_minus_1)
    warning = result.report.checks[CHECK].findings[0]
    assert warning.severity == "warning" and result.report.ok  # a what-if warns, it does not fail the job
    assert "slows this job to a p95 2.00x" in warning.message and "4 of 4 switch losses" in warning.message
    assert result.report.checks[CHECK].examined["switch failures"] == 4
    tolerant = check_collective(inventory, dlb, graph=graph, n_minus_1=True, limit=2.5)
    assert tolerant.report.checks[CHECK].findings == []


def test_n_minus_1_reports_a_loss_that_partitions_the_job():
    inventory = plan_clos(ClosParams(name="one", spines=1, leaves=2, servers_per_leaf=1))
    result = check_collective(inventory, Scenario(job=Job(gpus=16), trials=2), n_minus_1=True, search_qps=False)
    assert result.n_minus_1[0]["switch"] == "spine1" and "partitioned" in result.n_minus_1[0]["error"]
    assert "partitions the job" in result.report.checks[CHECK].findings[-1].message


def test_identical_qp_headers_get_the_destination_qp_recommendation():
    """16 QPs pinned to one source port look like one flow to a 5-tuple hash: every QP of a connection takes the
    same uplink (concentration 1). The kernel's ports spread them; hashing the destination QP would too."""
    inventory = plan_clos(ClosParams(name="pair", spines=8, leaves=2, servers_per_leaf=1))
    pinned = Scenario(job=Job(gpus=16), channels=1, qps=16, trials=4, sport="pinned", pinned_sports=(49152,))
    result = check_collective(inventory, pinned, search_qps=False)
    first = next(tier for tier in result.prediction.tiers if tier.concentration is not None)
    assert first.tier == "leaf->spine" and first.concentration == pytest.approx(1.0)
    assert any(line.startswith("QP hashing:") for line in result.recommendations)
    udf = check_collective(inventory, replace(pinned, hashing=HashPolicy(default=HashConfig(fields="5-tuple+dqp"))),
                           search_qps=False)
    assert next(t for t in udf.prediction.tiers if t.tier == "leaf->spine").concentration < 0.3
    assert not any(line.startswith("QP hashing:") for line in udf.recommendations)
