"""compiler.hardware: the ASIC family of a switch model and the electrical lanes of a (broken-out) port."""

from __future__ import annotations

from dataclasses import replace

import pytest

from compiler.catalog import SWITCH_MODELS
from compiler.hardware import (
    ASIC_FAMILIES,
    EOS_FAMILIES,
    ROCE_CAPABILITIES,
    AsicFamily,
    RoceFeature,
    asic_family,
    port_lanes,
    roce_capabilities,
)
from compiler.model import Platform
from compiler.render.eos import ECN_QUEUE_KEYWORD


@pytest.mark.parametrize(("model", "family"), [
    ("DCS-7060DX5-64S", AsicFamily.STRATA), ("DCS-7060X6-64PE", AsicFamily.STRATA),
    ("DCS-7816R4", AsicFamily.SAND), ("SN5600", AsicFamily.SPECTRUM), ("Z9664F-ON", AsicFamily.STRATA),
])
def test_every_catalogue_model_has_its_family(model, family):
    assert asic_family(SWITCH_MODELS[model]) == family


def test_catalogue_asics_are_all_known():
    assert {model.asic for model in SWITCH_MODELS.values()} <= set(ASIC_FAMILIES)


def test_unknown_asic_has_no_family():
    assert asic_family(replace(SWITCH_MODELS["DCS-7060DX5-64S"], asic="Marvell Prestera")) is None


@pytest.mark.parametrize(("model", "breakout", "lanes"), [
    ("DCS-7060X6-64PE", 1, 8), ("DCS-7060X6-64PE", 2, 4), ("DCS-7060X6-64PE", 8, 1),
    ("DCS-7060DX5-64S", 4, 2), ("DCS-7060DX5-64S", 1, 8),
])
def test_port_lanes_divide_the_cage(model, breakout, lanes):
    assert port_lanes(SWITCH_MODELS[model], breakout) == lanes


@pytest.mark.parametrize(("form_factor", "breakout"), [("QSFP-DD", 3), ("QSFP-DD", 0), ("CFP2", 1)])
def test_impossible_breakout_or_unknown_cage_has_no_lanes(form_factor, breakout):
    assert port_lanes(replace(SWITCH_MODELS["DCS-7060DX5-64S"], form_factor=form_factor), breakout) is None


def test_eos_renderer_knows_the_queue_keyword_of_every_eos_family():
    assert set(ECN_QUEUE_KEYWORD) == set(EOS_FAMILIES)


@pytest.mark.parametrize(("platform", "family", "missing"), [
    (Platform.EOS, AsicFamily.STRATA, set()),
    (Platform.EOS, AsicFamily.SAND, set()),
    (Platform.EOS, AsicFamily.SPECTRUM, set(RoceFeature.ALL)),  # no EOS image for Spectrum
    (Platform.SONIC, AsicFamily.STRATA, set()),
    (Platform.SONIC, AsicFamily.SPECTRUM, set()),
    (Platform.FRR, AsicFamily.SPECTRUM, {RoceFeature.PFC_WATCHDOG}),  # mlxsw: everything but a PFC watchdog
    (Platform.FRR, AsicFamily.STRATA, set(RoceFeature.ALL)),  # no upstream switchdev driver
    (Platform.FRR, None, set(RoceFeature.ALL)),  # an unknown ASIC implements nothing
    ("junos", AsicFamily.STRATA, set(RoceFeature.ALL)),
])
def test_roce_capabilities_per_platform_and_family(platform, family, missing):
    assert set(RoceFeature.ALL) - roce_capabilities(platform, family) == missing


def test_roce_capability_table_uses_known_names_only():
    for (platform, family), features in ROCE_CAPABILITIES.items():
        assert platform in Platform.ALL and family in AsicFamily.ALL and features <= set(RoceFeature.ALL)
    # Every platform EOS renders for has its families listed (the EOS renderer and this table agree).
    assert {family for platform, family in ROCE_CAPABILITIES if platform == Platform.EOS} == set(EOS_FAMILIES)
