"""Peer links are refused by every renderer (issue #13 point 4) unless EOS prints them as the MLAG peer-link
port-channel (tests/compiler/render/test_render_l2.py); MLAG/MC-LAG is modelled on no other platform."""

from __future__ import annotations

import pytest
from render_structured_fixtures import leaf_structured

from compiler.errors import RenderError
from compiler.model import Platform
from compiler.render import render_device


@pytest.mark.parametrize("platform", Platform.ALL)
def test_peer_link_port_is_refused_on_every_platform(platform):
    structured = leaf_structured(platform)
    port = structured["interfaces"][0]["name"]
    structured["interfaces"][0]["kind"] = "peer_link"
    with pytest.raises(RenderError, match=rf"interfaces\[{port}\]\.kind='peer_link': MLAG peer links are not "
                                          "supported by the (EOS|SONiC|FRR/Linux) renderer"):
        render_device(structured, platform)


@pytest.mark.parametrize("platform", Platform.ALL)
def test_the_same_device_without_the_peer_link_renders(platform):
    assert render_device(leaf_structured(platform), platform)
