"""Platform dispatch: structured config -> files of one platform.

Each platform lives in ``compiler.render.<platform>`` and exposes ``render(structured) -> {file name: text}``
(eos: ``startup-config``; sonic: ``config_db.json`` + ``frr.conf``; frr: ``frr.conf`` + ``linux-plan.json``).
A platform whose renderer is not installed raises RenderError instead of producing something half right.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from compiler.errors import RenderError
from compiler.model import Platform

_RENDERERS: dict[str, Callable[[dict], dict[str, str]] | None] = {}


def _renderer(platform: str) -> Callable[[dict], dict[str, str]] | None:
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


def render_device(structured: dict, platform: str) -> dict[str, str]:
    if platform not in Platform.ALL:
        raise RenderError(f"platform={platform!r}: unknown platform, expected one of {Platform.ALL}")
    render = _renderer(platform)
    if render is None:
        raise RenderError(f"platform={platform!r}: no renderer for this platform is installed "
                          f"(compiler.render.{platform}.render is missing); cannot render {structured.get('hostname')}")
    return render(structured)
