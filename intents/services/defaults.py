"""What a new fabric intent gets when it does not say: pools free of the other fabrics' intents and the
management network its fabric's switches are addressed from (one rule for the scenario file, the API and the UI)."""

from __future__ import annotations

import ipaddress

from compiler import model as core
from compiler.names import OBJECT_NAME, name_problem
from inventory.models import Switch

from ..models import FabricIntent
from ..models.fabric import POOL_FIELDS, free_prefix, pool_prefix


def fabric_intent_defaults(*, fabric, name: str) -> dict:
    """Pools and management network for a new intent of ``fabric``, chosen as ``fabric_intent_apply`` chooses
    them: free of other fabrics' intents, and the /16 the fabric's switches are addressed from."""
    chosen = _fabric_defaults({"name": name}, fabric)
    defaults = {f"{key}_pool": value for key, value in chosen["pools"].items()}
    if "management" in chosen:
        defaults["management_network"] = chosen["management"]["network"]
    return defaults


def _fabric_defaults(raw: dict, fabric) -> dict:
    """``raw`` with what the file leaves out chosen for this inventory fabric (several fabrics per inventory):
    loopback/VTEP/link pools free of other fabrics' intents (the default when it is free), and the management
    network the fabric's switch addresses come from (the builder may have picked another /16 than the default)."""
    raw = dict(raw)
    given = raw.get("pools") if isinstance(raw.get("pools"), dict) else None
    if given is not None or "pools" not in raw:
        name = raw["name"] if isinstance(raw.get("name"), str) and not name_problem(OBJECT_NAME, raw["name"]) else None
        raw["pools"] = fabric_intent_free_pools(fabric=fabric, name=name, given=dict(given or {}))
    management = raw.get("management")
    if management is None or (isinstance(management, dict) and "network" not in management):
        network = fabric_management_network(fabric=fabric)
        if network is not None:
            raw["management"] = {**(management or {}), "network": network}
    return raw


def fabric_intent_free_pools(*, fabric, name: str | None, given: dict[str, str]) -> dict[str, str]:
    """Scenario pool keys (loopback, vtep, p2p) -> prefix: ``given`` kept, each missing pool the default when no
    other fabric's intent overlaps it, else the first free prefix of its length (the one rule of the scenario
    file, the API and the UI: issue #30 point 1)."""
    pools = dict(given)
    defaults = core.Pools()
    others = FabricIntent.objects.exclude(fabric=fabric)
    if name is not None:
        others = others.exclude(name=name)
    used = [prefix for value in others.values_list(*POOL_FIELDS) for prefix in map(pool_prefix, value) if prefix is not None]
    used += [prefix for prefix in map(pool_prefix, pools.values()) if prefix is not None]
    for key in ("loopback", "vtep", "p2p"):
        if key in pools:
            continue
        default = ipaddress.IPv4Network(getattr(defaults, key))
        chosen = default if not any(default.overlaps(other) for other in used) else (
            free_prefix(default.prefixlen, used) or default)
        pools[key] = str(chosen)
        used.append(chosen)
    return pools


def fabric_management_network(*, fabric) -> str | None:
    """The /16 the fabric's switch management addresses come from, when it is not the intent's default (the
    builder may have picked a free one); None otherwise."""
    address = (Switch.objects.filter(fabric=fabric).exclude(mgmt_ip=None).order_by("id")
               .values_list("mgmt_ip", flat=True).first())
    network = ipaddress.ip_network(f"{address}/16", strict=False) if address else None
    if isinstance(network, ipaddress.IPv4Network) and str(network) != core.Management().network:
        return str(network)
    return None
