"""Ladder rung (iii) of issue #32: the Linux kernel's ECMP hash, live in a twin of namespaces, as the oracle for
the collective simulator's random-hash model.

Twins of namespaces (labs/ecmp_oracle.py), 4 leaves x 4 spines and 4 leaves x 64 spines, each leaf with
``fib_multipath_hash_policy=1`` and its own ``fib_multipath_hash_seed``; every host sends 1,000 (4,000 on 4x64)
RoCE-like UDP flows (source ports 49152-65535, port 4791) to one GPU address behind each other leaf; the leaves'
uplink tx counters give the flows per link. Over 5 seeds:

* the measured per-link counts and the simulator's random-hash model (its keyed random oracle over the same
  5-tuples, 100 keys) pass a two-sample KS test (p > 0.05), and the pooled chi-square against the uniform
  multinomial has p > 0.05; each seed alone p > 0.001;
* a seed is a seed: the same seed gives the same counts, another seed other counts;
* broken case: ``fib_multipath_hash_policy=0`` (addresses only) puts each host pair on one uplink -- the same
  tests reject it (p < 1e-6), so they can fail;
* two hashing tiers (4 x 4 x 4 super-spines): one seed on leaves and spines polarizes the spines (each sends
  every flow to one super-spine: index 1.0, 75 % of the uplinks idle), as the simulator's model predicts;
  distinct seeds, per switch or per tier, remove it.

Deterministic on a given kernel: seeds and flows are fixed. Needs root and ``ip netns``; not FRR (the routes are
static multipath routes: the kernel's FIB hash is what is measured, not BGP). About 40 s here.
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


# (leaves, spines, flows per host): 4-way ECMP, and the 4 x 64 (64-way ECMP, ~20 s to build and measure)
SIZES = {"4x4": (4, 4, 1000), "4x64": (4, 64, 4000)}
MODEL_KEYS = [1_000_003 * (key + 1) for key in range(100)]


@pytest.fixture(scope="module", params=list(SIZES))
def twin(request):
    reason = skip_reason()
    if reason:
        pytest.skip(f"ECMP oracle twin unavailable: {reason}")
    leaves, spines, per_host = SIZES[request.param]
    built = oracle.OracleTwin(prefix=new_prefix(), leaves=leaves, spines=spines)  # our own prefix only
    try:
        oracle.build(built)
        yield built, per_host
    finally:
        oracle.destroy(built)


@pytest.fixture(scope="module")
def flows(twin):
    built, per_host = twin
    return oracle.roce_flows(built, per_host, np.random.default_rng(32))


@pytest.fixture(scope="module")
def measured(twin, flows):
    built, _ = twin
    counts = {}
    for seed in SEEDS:
        oracle.set_hashing(built, policy=1, seed=seed)
        counts[seed] = oracle.measure(built, flows)
    return counts


def test_kernel_counts_match_the_random_hash_model(twin, flows, measured):
    twin, _ = twin
    model = oracle.simulated_counts(twin, flows, keys=MODEL_KEYS)
    everything = np.stack(list(measured.values()))
    statistic, p_ks = oracle.ks_two_sample(everything, model)
    _, dof, p_pooled = oracle.chi_square_uniform(everything.reshape(-1, twin.spines))
    per_seed = {seed: oracle.chi_square_uniform(counts)[2] for seed, counts in measured.items()}
    print(f"\n{twin.leaves}x{twin.spines}: KS D={statistic:.3f} p={p_ks:.3f}; pooled chi-square p={p_pooled:.3f} (dof {dof}); per seed "
          + ", ".join(f"{seed}: {p:.3f}" for seed, p in per_seed.items()))
    assert p_ks > 0.05 and p_pooled > 0.05
    assert min(per_seed.values()) > 0.001
    # the model's own draws are uniform too (the comparison is not against a degenerate model)
    assert oracle.chi_square_uniform(model.reshape(-1, twin.spines))[2] > 0.05


def test_the_per_namespace_seed_decides(twin, flows, measured):
    twin, _ = twin
    oracle.set_hashing(twin, policy=1, seed=SEEDS[0])
    assert np.array_equal(oracle.measure(twin, flows), measured[SEEDS[0]])  # same seed, same paths
    assert not np.array_equal(measured[SEEDS[0]], measured[SEEDS[1]])  # another seed, other paths


def test_address_only_hashing_is_rejected(twin, flows):
    """Broken case: policy 0 hashes addresses only, so each host's flows to one peer share one uplink."""
    twin, _ = twin
    oracle.set_hashing(twin, policy=0, seed=SEEDS[0])
    counts = oracle.measure(twin, flows)
    model = oracle.simulated_counts(twin, flows, keys=MODEL_KEYS)
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
    assert oracle.concentration(np.diag([1000, 1000, 1000, 1000])) == 1.0  # every group on one member
    assert oracle.concentration(np.full((4, 4), 250)) == 0.0  # every member used, as random hashing would


@pytest.fixture(scope="module")
def two_tiers():
    """4 leaves x 4 spines x 4 super-spines: the leaves and the spines hash (flows go beyond the super-spines)."""
    reason = skip_reason()
    if reason:
        pytest.skip(f"ECMP oracle twin unavailable: {reason}")
    built = oracle.OracleTwin(prefix=new_prefix(), super_spines=4)
    try:
        oracle.build(built)
        yield built
    finally:
        oracle.destroy(built)


@pytest.mark.parametrize(("label", "seeds"), [
    ("equal seeds on both tiers", {"seed": 7, "spine_seed": 7, "each_its_own": False}),
    ("distinct seeds per switch", {"seed": 7, "spine_seed": 1007, "each_its_own": True}),
    ("one seed per tier", {"seed": 7, "spine_seed": 8, "each_its_own": False}),
])
def test_equal_seeds_polarize_the_second_tier_as_predicted(two_tiers, label, seeds):
    """The issue's polarization rung, live: with one key on leaves and spines the kernel's spines repeat the
    leaves' choice -- each spine sends every flow to one super-spine -- as the simulator's random-hash model
    predicts; distinct keys (per switch, or just per tier: a keyed hash, unlike a CRC's XOR seed) remove it."""
    flows = oracle.roce_flows(two_tiers, FLOWS_PER_HOST, np.random.default_rng(32))
    oracle.set_hashing(two_tiers, policy=1, **seeds)
    lower, upper = oracle.measure_tiers(two_tiers, flows)
    model_lower, model_upper = oracle.simulated_tiers(two_tiers, flows, seeds["seed"], seeds["spine_seed"],
                                                      seeds["each_its_own"])
    measured = (oracle.concentration(upper) - oracle.concentration(lower), (upper == 0).mean())
    predicted = (oracle.concentration(model_upper) - oracle.concentration(model_lower), (model_upper == 0).mean())
    print(f"\n{label}: polarization {measured[0]:.2f} (model {predicted[0]:.2f}), idle super-spine uplinks "
          f"{measured[1]:.0%} (model {predicted[1]:.0%})")
    if label == "equal seeds on both tiers":
        assert measured[0] >= 0.8 and measured[1] >= 0.5
        assert predicted[0] >= 0.8 and predicted[1] >= 0.5
    else:
        assert measured[0] <= 0.1 and measured[1] == 0
        assert predicted[0] <= 0.1 and predicted[1] == 0
        assert oracle.chi_square_uniform(upper)[2] > 0.001
