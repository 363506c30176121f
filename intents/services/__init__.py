"""Writes of the intents app (HackSoft style: ``<entity>_<action>``, keyword-only arguments), one module per concern:

- ``objects``       save and delete intent objects, each followed by validation of the whole fabric intent
- ``defaults``      pools and management network a new fabric intent gets when it does not say
- ``allocations``   stored VNIs, ASNs and addresses: allocate what is missing, never move a stored value
- ``compile_runs``  the compile run record, compiling devices, stored and deployed DeviceConfig rows
- ``diffs``         per device diff against what a target runs, blast radius of a proposed edit
- ``exports``       a compile run's configs as a directory tree or an archive
- ``apply``         a whole fabric intent from a scenario-shaped dict (YAML import)

This module is the public facade: callers import ``intents.services`` and the names below.
"""

from .allocations import AllocationSyncResult, allocations_sync
from .apply import FABRIC_INTENT_FIELDS, ROCE_CLASS_FIELDS, fabric_intent_apply
from .compile_runs import (
    compile_devices,
    compile_run_create,
    compile_run_execute,
    compile_run_prepare,
    device_configs_mark_deployed,
)
from .defaults import fabric_intent_defaults, fabric_intent_free_pools, fabric_management_network
from .diffs import DeviceDiff, blast_radius_as_dict, blast_radius_preview, config_diff
from .exports import ARCHIVE_KINDS, compile_run_archive, compile_run_write
from .objects import (
    fabric_intent_create,
    fabric_intent_update,
    intent_object_delete,
    intent_object_save,
    intent_validate,
    network_create,
    roce_class_create,
    roce_defaults_apply,
    tenant_create,
)

__all__ = [
    "ARCHIVE_KINDS", "FABRIC_INTENT_FIELDS", "ROCE_CLASS_FIELDS", "AllocationSyncResult", "DeviceDiff",
    "allocations_sync", "blast_radius_as_dict", "blast_radius_preview", "compile_devices", "compile_run_archive",
    "compile_run_create", "compile_run_execute", "compile_run_prepare", "compile_run_write", "config_diff",
    "device_configs_mark_deployed", "fabric_intent_apply", "fabric_intent_create", "fabric_intent_defaults",
    "fabric_intent_free_pools", "fabric_intent_update", "fabric_management_network", "intent_object_delete",
    "intent_object_save", "intent_validate", "network_create", "roce_class_create", "roce_defaults_apply",
    "tenant_create",
]
