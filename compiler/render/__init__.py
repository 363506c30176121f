"""Platform dispatch: structured config -> files of one platform.

Each platform lives in ``compiler.render.<platform>`` and exposes ``render(structured) -> {file name: text}``
(eos: ``startup-config``; sonic: ``config_db.json`` + ``frr.conf``; frr: ``frr.conf`` + ``linux-plan.json``).
A platform whose renderer is not installed raises RenderError instead of producing something half right.

Every rendering goes through :func:`render_device` / :func:`render_device_platforms`, the one choke point where a
structured config holding a line break or NUL in any string is refused (``compiler.names.check_single_line``):
whatever a value holds, it can never add a line to an EOS startup-config, a SONiC config_db.json/frr.conf or an
FRR frr.conf. The name grammar refuses such values earlier; this is defence in depth.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from compiler.errors import RenderError
from compiler.model import PEER_LINK_REFUSED, PLATFORM_LABEL, Platform
from compiler.names import check_single_line
from compiler.structured.contract import StructuredConfig

_RENDERERS: dict[str, Callable[[StructuredConfig], dict[str, str]] | None] = {}


def _renderer(platform: str) -> Callable[[StructuredConfig], dict[str, str]] | None:
    if platform not in _RENDERERS:
        module_name = f"compiler.render.{platform}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise  # a real import bug inside the renderer must surface, not read as "not installed"
            module = None
        _RENDERERS[platform] = getattr(module, "render", None)
    return _RENDERERS[platform]


def supported_platforms() -> tuple[str, ...]:
    """Platforms whose renderer is present in this checkout."""
    return tuple(platform for platform in Platform.ALL if _renderer(platform) is not None)


def render_device(structured: StructuredConfig, platform: str) -> dict[str, str]:
    return render_device_platforms(structured, (platform,))[platform]


def render_device_platforms(structured: StructuredConfig, platforms: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """{platform: files} for one device; the line-break guard runs once for all platforms (it costs ~1 ms per
    device at 1,088 switches, as much as rendering one platform)."""
    for platform in platforms:
        _check_platform(structured, platform)
    check_single_line(structured, "/".join(platforms))
    _refuse_peer_links(structured, platforms)
    _refuse_unrendered_layer2(structured, platforms)
    return {platform: _renderer(platform)(structured) for platform in platforms}  # type: ignore[misc]


def _refuse_peer_links(structured: StructuredConfig, platforms: tuple[str, ...]) -> None:
    """Only EOS renders MLAG, and only for a member of the ``mlag.peer_link`` port-channel; elsewhere a ``peer_link`` port would reach the switch as a routed port without an
    address (EOS), a bare PORT (SONiC) or an unconfigured link (FRR/Linux). ``validate_intent`` refuses the cable
    first; this is the renderers' own refusal for a structured config that did not come through it."""
    peer_link = (structured.get("mlag") or {}).get("peer_link")
    for interface in structured["interfaces"]:
        if interface["kind"] == "peer_link":
            if platforms == (Platform.EOS,) and peer_link and interface.get("port_channel") == peer_link:
                continue  # EOS prints MLAG (mlag configuration, the peer-link port-channel): a member of it is fine
            labels = ", ".join(PLATFORM_LABEL[platform] for platform in platforms)
            raise RenderError(f"{structured.get('hostname')}: interfaces[{interface['name']}].kind='peer_link': "
                              f"{PEER_LINK_REFUSED} by the {labels} renderer (validate_intent refuses peer-link "
                              "cables on every platform)")


def _refuse_unrendered_layer2(structured: StructuredConfig, platforms: tuple[str, ...]) -> None:
    """Layer 2 read from a foreign config that a platform's writer cannot print is refused, never dropped: MLAG
    (EOS only; SONiC MC-LAG is not modelled), port-channels on FRR/Linux (the Linux plan has no bonds)."""
    hostname = structured.get("hostname")
    if structured.get("mlag") and platforms != (Platform.EOS,):
        raise RenderError(f"{hostname}: mlag.domain_id={structured['mlag'].get('domain_id')!r}: MLAG is rendered "
                          "by the EOS renderer only")
    if structured.get("port_channels") and Platform.FRR in platforms:
        raise RenderError(f"{hostname}: port_channels[{structured['port_channels'][0]['name']}]: the FRR/Linux "
                          "plan has no bonds")


def _check_platform(structured: StructuredConfig, platform: str) -> None:
    if platform not in Platform.ALL:
        raise RenderError(f"platform={platform!r}: unknown platform, expected one of {Platform.ALL}")
    render = _renderer(platform)
    if render is None:
        raise RenderError(f"platform={platform!r}: no renderer for this platform is installed "
                          f"(compiler.render.{platform}.render is missing); cannot render {structured.get('hostname')}")
