"""The compiler's public API (pyavd-shaped pure functions; contract in docs/structured-config.md).

    validate_intent(snapshot)                -> None or IntentValidationError (all field errors)
    allocate(inventory, intent, existing)    -> Allocations (stable)
    build_facts(snapshot)                    -> FabricFacts
    structured_configs(snapshot, facts)      -> {hostname: structured config}
    render_device(structured, platform)      -> {file name: text}
    compile_fabric(snapshot, platforms=None, workers=1) -> CompileResult
    render_configs(structured, platforms=None, workers=1) -> (rendered, hashes)
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from compiler.allocate import allocate
from compiler.errors import FieldError, InputError
from compiler.facts import FabricFacts, build_facts
from compiler.model import Platform, Snapshot
from compiler.render import render_device, render_device_platforms, supported_platforms
from compiler.structured import build_structured_configs
from compiler.structured.contract import StructuredConfig
from compiler.validate import check_intent, validate_intent

__all__ = [
    "CompileResult", "allocate", "build_facts", "compile_fabric", "render_configs", "render_device",
    "structured_configs", "supported_platforms", "validate_intent", "platforms_for",
]

Rendered = dict[str, dict[str, dict[str, str]]]  # host -> platform -> file -> text
Hashes = dict[str, dict[str, str]]  # host -> platform -> sha256 over its files
# Hosts per task of a worker pool: big enough that the per-task pickling of texts back to the parent is a few
# large messages, small enough that 2 workers finish together (4,998 switches: ~40 tasks).
HOSTS_PER_TASK = 128


@dataclass(frozen=True)
class CompileResult:
    snapshot: Snapshot
    facts: FabricFacts
    structured: Mapping[str, StructuredConfig]
    rendered: Mapping[str, Mapping[str, Mapping[str, str]]]  # host -> platform -> file -> text
    hashes: Mapping[str, Mapping[str, str]]  # host -> platform -> sha256 over its files

    __hash__ = None  # type: ignore[assignment]  # holds mappings: unhashable on purpose

    @property
    def allocations(self):
        return self.facts.allocations


def structured_configs(snapshot: Snapshot, facts: FabricFacts) -> dict[str, StructuredConfig]:
    return build_structured_configs(snapshot, facts)


def files_sha256(files: Mapping[str, str]) -> str:
    """One digest over a platform's files (names and contents, in name order)."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(files[name].encode())
        digest.update(b"\0")
    return digest.hexdigest()


def platforms_for(own_platform: str, platforms: Iterable[str] | None) -> tuple[str, ...]:
    """None: the device's own platform plus "frr" (the twin runs every switch as FRR)."""
    if platforms is None:
        return (own_platform,) if own_platform == Platform.FRR else (own_platform, Platform.FRR)
    return tuple(dict.fromkeys(platforms))


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building millions of small dicts and lists.

    Compiling creates no reference cycles (refcounting frees everything), but the collector's generation-2
    passes over ever more live containers cost ~1.5 s of 5 s at 1,088 switches. Restores the previous state.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def compile_fabric(snapshot: Snapshot, platforms: Iterable[str] | None = None, *, workers: int = 1) -> CompileResult:
    """Check, allocate, build facts and structured configs, render every device (``workers``: see
    :func:`render_configs`)."""
    with gc_paused():
        return _compile(snapshot, platforms, workers)


def _compile(snapshot: Snapshot, platforms: Iterable[str] | None, workers: int) -> CompileResult:
    allocations = check_intent(snapshot)
    facts = build_facts(snapshot, allocations)
    structured = structured_configs(snapshot, facts)
    rendered, hashes = render_configs(structured, platforms, workers=workers)
    return CompileResult(snapshot=snapshot, facts=facts, structured=structured, rendered=rendered, hashes=hashes)


def render_configs(structured: Mapping[str, StructuredConfig], platforms: Iterable[str] | None = None, *,
                   workers: int = 1) -> tuple[Rendered, Hashes]:
    """Render every device (``platforms``: see :func:`platforms_for`) and hash each platform's files.

    ``workers`` > 1 renders in that many forked processes (rendering is pure and per device, ~half of compile
    time at 5,000 switches): the children inherit the structured configs from the fork (nothing is pickled on the
    way in) and send back each batch of texts. Only with the ``fork`` start method (Linux); elsewhere, or with
    ``workers`` <= 1, in this process. The result is the same, host order included; a RenderError of a child is
    raised here. Forking a process that holds threads or database connections is the caller's choice: the
    5-stage benchmark (bench/clos5_bench.py) asks for it; the web and Celery processes do not.
    """
    if workers < 1:
        raise InputError(FieldError("workers", workers, "must be an integer >= 1"))
    wanted = None if platforms is None else tuple(platforms)
    hosts = list(structured)
    if workers == 1 or len(hosts) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return _render_hosts(structured, hosts, wanted)
    per_task = min(HOSTS_PER_TASK, -(-len(hosts) // workers))
    global _FORKED  # the fork hands it to the children; reset below
    _FORKED = (structured, wanted)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            batches = pool.map(_render_batch, [hosts[start:start + per_task]
                                               for start in range(0, len(hosts), per_task)], chunksize=1)
    finally:
        _FORKED = None
    rendered: Rendered = {}
    hashes: Hashes = {}
    for batch_rendered, batch_hashes in batches:
        rendered.update(batch_rendered)
        hashes.update(batch_hashes)
    return rendered, hashes


_FORKED: tuple[Mapping[str, StructuredConfig], tuple[str, ...] | None] | None = None


def _render_batch(hosts: list[str]) -> tuple[Rendered, Hashes]:
    assert _FORKED is not None, "render_configs sets it before forking"
    structured, wanted = _FORKED
    return _render_hosts(structured, hosts, wanted)


def _render_hosts(structured: Mapping[str, StructuredConfig], hosts: list[str],
                  wanted: tuple[str, ...] | None) -> tuple[Rendered, Hashes]:
    rendered: Rendered = {}
    hashes: Hashes = {}
    for host in hosts:
        config = structured[host]
        rendered[host] = {}
        hashes[host] = {}
        for platform, files in render_device_platforms(config, platforms_for(config["platform"], wanted)).items():
            rendered[host][platform] = files
            hashes[host][platform] = files_sha256(files)
    return rendered, hashes
