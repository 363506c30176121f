"""Randomised cross-check: on small fabrics with random faults (shut ports, ASN collisions, allowas-in,
maximum_paths caps, withdrawn VTEPs, multipath without as-path relax; one or two spine planes, parallel links),
the fast leaf-pair matrix equals the reference path-vector simulation and the fast N-1/N-2 engine equals exact
re-propagation. Seeds are fixed: reproducible."""

import random

import pytest
from validator_fabrics import compiled, context, set_asn

from validators import whatif
from validators.routing import simulate_reference


def random_faults(seed: int):
    rng = random.Random(seed)

    def mutate(structured):
        leaves = [host for host, config in structured.items() if config["role"] == "leaf"]
        for _ in range(rng.randint(0, 4)):
            host = rng.choice(leaves)
            port = rng.choice([p for p in structured[host]["interfaces"] if p["kind"] == "fabric"])
            port["enabled"] = False
        if rng.random() < 0.5:
            a, b = rng.sample(leaves, 2)
            set_asn(structured, b, structured[a]["asn"])
        if rng.random() < 0.3:
            structured[rng.choice(leaves)]["bgp"]["allowas_in"] = 1
        if rng.random() < 0.4:
            structured[rng.choice(leaves)]["bgp"]["maximum_paths"] = rng.randint(1, 3)
        if rng.random() < 0.2:
            host = rng.choice(leaves)
            structured[host]["bgp"]["networks"] = structured[host]["bgp"]["networks"][:1]
        if rng.random() < 0.3:
            structured[rng.choice(leaves)]["bgp"]["multipath_relax"] = False
    return mutate


@pytest.mark.parametrize("seed", range(24))
def test_random_faults_fast_equals_reference(seed):
    shape = [dict(spines=4, leaves=6), dict(spines=4, leaves=6, planes=2), dict(spines=2, leaves=5, uplinks_per_spine=2)]
    ctx = context(compiled(**shape[seed % 3]), random_faults(seed))
    model = ctx.routing
    reference = simulate_reference(model)
    matrix = ctx.leaf_pairs
    for origin in matrix.leaves:
        prefix = model.vtep_prefix[model.index[origin]]
        for receiver in matrix.leaves:
            if origin != receiver:
                route = reference[receiver].get(prefix)
                assert matrix.width(origin, receiver) == (route.ecmp_width if route else 0), (seed, origin, receiver)
    fast = whatif.run_whatif(ctx, spine_pairs=True)
    exact = whatif.run_whatif(ctx, engine="exact", spine_pairs=True)
    assert [(s.subject, s.min_ecmp, s.unreachable_pairs) for s in fast.scenarios] == \
        [(s.subject, s.min_ecmp, s.unreachable_pairs) for s in exact.scenarios], seed
