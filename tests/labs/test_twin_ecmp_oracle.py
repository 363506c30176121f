"""Ladder rung (iii) of issue #32: the Linux kernel's ECMP hash, live in a twin of namespaces, as the oracle for
the collective simulator's random-hash model.

A 4-leaf x 4-spine twin (labs/ecmp_oracle.py), each leaf with ``fib_multipath_hash_policy=1`` and its own
``fib_multipath_hash_seed``; every host sends 1,000 RoCE-like UDP flows (source ports 49152-65535, port 4791) to
one GPU address behind each other leaf; the leaves' uplink tx counters give the flows per link. Over 5 seeds:

* the measured per-link counts and the simulator's random-hash model (its keyed random oracle over the same
  5-tuples, 200 keys) pass a two-sample KS test (p > 0.05), and the pooled chi-square against the uniform
  multinomial has p > 0.05; each seed alone p > 0.001;
* a seed is a seed: the same seed gives the same counts, another seed other counts;
* broken case: ``fib_multipath_hash_policy=0`` (addresses only) puts each host pair on one uplink -- the same
  tests reject it (p < 1e-6), so they can fail.

Deterministic on a given kernel: seeds and flows are fixed. Needs root and ``ip netns``; not FRR (the routes are
static multipath routes: the kernel's FIB hash is what is measured, not BGP). About 15 s here.
"""

import os
import shutil
import subprocess

import numpy as np
import pytest

from labs import ecmp_oracle as oracle
from labs.topology import new_prefix

pytestmark = pytest.mark.twin

SEEDS = (101, 205, 309, 413, 517)  # each leaf i gets seed + i
FLOWS_PER_HOST = 1000


def skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root (network namespaces, veth)"
    for tool in ("ip", "sysctl"):
        if shutil.which(tool) is None:
            return f"'{tool}' not on PATH"
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        return "'ip netns' does not work here"
    return oracle.seed_sysctl_problem()


@pytest.fixture(scope="module")
def twin():
    reason = skip_reason()
    if reason:
        pytest.skip(f"ECMP oracle twin unavailable: {reason}")
    built = oracle.OracleTwin(prefix=new_prefix())  # our own prefix: nothing else is touched
    try:
        oracle.build(built)
        yield built
    finally:
        oracle.destroy(built)


@pytest.fixture(scope="module")
def flows(twin):
    return oracle.roce_flows(twin, FLOWS_PER_HOST, np.random.default_rng(32))


@pytest.fixture(scope="module")
def measured(twin, flows):
    counts = {}
    for seed in SEEDS:
        oracle.set_hashing(twin, policy=1, seed=seed)
        counts[seed] = oracle.measure(twin, flows)
    return counts


def test_kernel_counts_match_the_random_hash_model(twin, flows, measured):
    model = oracle.simulated_counts(twin, flows, keys=[1_000_003 * (key + 1) for key in range(200)])
    everything = np.stack(list(measured.values()))
    statistic, p_ks = oracle.ks_two_sample(everything, model)
    _, dof, p_pooled = oracle.chi_square_uniform(everything.reshape(-1, twin.spines))
    per_seed = {seed: oracle.chi_square_uniform(counts)[2] for seed, counts in measured.items()}
    print(f"\nKS D={statistic:.3f} p={p_ks:.3f}; pooled chi-square p={p_pooled:.3f} (dof {dof}); per seed "
          + ", ".join(f"{seed}: {p:.3f}" for seed, p in per_seed.items()))
    assert p_ks > 0.05 and p_pooled > 0.05
    assert min(per_seed.values()) > 0.001
    # the model's own draws are uniform too (the comparison is not against a degenerate model)
    assert oracle.chi_square_uniform(model.reshape(-1, twin.spines))[2] > 0.05


def test_the_per_namespace_seed_decides(twin, flows, measured):
    oracle.set_hashing(twin, policy=1, seed=SEEDS[0])
    assert np.array_equal(oracle.measure(twin, flows), measured[SEEDS[0]])  # same seed, same paths
    assert not np.array_equal(measured[SEEDS[0]], measured[SEEDS[1]])  # another seed, other paths


def test_address_only_hashing_is_rejected(twin, flows):
    """Broken case: policy 0 hashes addresses only, so each host's flows to one peer share one uplink."""
    oracle.set_hashing(twin, policy=0, seed=SEEDS[0])
    counts = oracle.measure(twin, flows)
    model = oracle.simulated_counts(twin, flows, keys=[1_000_003 * (key + 1) for key in range(200)])
    assert oracle.ks_two_sample(counts, model)[1] < 1e-6
    assert oracle.chi_square_uniform(counts)[2] < 1e-6
    assert (counts == 0).sum() >= twin.leaves  # with 3 peers and 4 uplinks, at least one idle uplink per leaf


def test_statistics_against_known_values():
    """The p-value functions (no scipy here) against textbook values."""
    assert oracle.chi_square_p(3.841458820694124, 1) == pytest.approx(0.05, abs=1e-9)
    assert oracle.chi_square_p(21.02606981748307, 12) == pytest.approx(0.05, abs=1e-9)
    assert oracle.chi_square_p(2.0, 2) == pytest.approx(np.exp(-1.0), rel=1e-12)  # dof 2: exp(-x/2)
    assert oracle.kolmogorov_p(1.3580986393225505 / (1 + 0.12 + 0.11), 1.0) == pytest.approx(0.05, abs=2e-4)
    uniform = np.array([[250, 250, 250, 250]])
    assert oracle.chi_square_uniform(uniform)[2] == 1.0
    assert oracle.ks_two_sample(np.arange(100), np.arange(100) + 1000)[1] < 1e-6
