"""What every feature module reads: the snapshot, the facts and fabric-wide values computed once."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.model import Snapshot
from compiler.structured.qos_policy import FabricQos, build_fabric_qos


@dataclass(frozen=True)
class StructuredContext:
    snapshot: Snapshot
    facts: object  # compiler.facts.FabricFacts (kept loose to avoid an import cycle)
    overlay_enabled: bool  # any tenant or network: EVPN address family on every session
    qos: FabricQos | None

    __hash__ = None

    @classmethod
    def build(cls, snapshot: Snapshot, facts) -> StructuredContext:
        intent = snapshot.intent
        return cls(snapshot=snapshot, facts=facts, overlay_enabled=bool(intent.networks or intent.tenants),
                   qos=build_fabric_qos(intent) if intent.roce_classes else None)

    @property
    def intent(self):
        return self.snapshot.intent

    @property
    def inventory(self):
        return self.snapshot.inventory
