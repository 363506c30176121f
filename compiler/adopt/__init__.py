"""Adopt the fabric you already have: running configs in, inventory + intent + pinned allocations out, nothing lost.

    adoption_plan(device_files, name=)  -> AdoptionPlan (compiler.adopt.plan)
    adoption_proof(plan)                -> AdoptionProof: compile, carried lines back, parse, semantic diff
    carried_lines / with_carried        -> the lines no intent field expresses, and putting them back

Pure Python; never imports Django (docs/inventory.md, "Adopting a running fabric").
"""

from compiler.adopt.carry import CarriedBlock, carried_lines, with_carried
from compiler.adopt.plan import AdoptionError, AdoptionPlan, InferredCable, Refusal, adoption_plan
from compiler.adopt.proof import AdoptionProof, DeviceProof, adoption_proof, modelled

__all__ = ["AdoptionError", "AdoptionPlan", "AdoptionProof", "CarriedBlock", "DeviceProof", "InferredCable",
           "Refusal", "adoption_plan", "adoption_proof", "carried_lines", "modelled", "with_carried"]
