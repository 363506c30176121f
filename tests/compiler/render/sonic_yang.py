"""Validate ``config_db.json`` against SONiC's own YANG models, the way SONiC does before ``config reload``.

SONiC's sonic-yang-mgmt (sonic-net/sonic-buildimage ``src/sonic-yang-mgmt/sonic_yang_ext.py``) translates each
CONFIG_DB table to the YANG module that defines a container of the same name, each entry to the ``<TABLE>_LIST``
list (or, for containers with several lists, the first list whose key count and leaves fit), splitting the entry
key on ``|`` into the list's keys. "Type 1" maps (DSCP_TO_TC_MAP...) become an inner list of key/value pairs.
Tables without a YANG model are set aside (not validated); a field no leaf of the list knows is an error
("All Keys are not parsed"). libyang then validates the translated tree: types, patterns, mandatory leaves,
leafrefs, ``must`` and ``when``.

This is our own translation (not SONiC's code), written to the behaviour above. It emits XML instead of SONiC's
JSON so that no YANG base type decides how a value is encoded: CONFIG_DB values are strings and XML carries
them as text. The schema (which lists, keys, leaves and leaf-lists each table has) is read from libyang's own
compiled tree (``yanglint -f tree``), so groupings and ``uses`` are already resolved. The models are the copy in
tests/schemas/sonic-yang/ (README there: source, commit, licence); the validator is Debian's ``yanglint``
(libyang2-tools, installed by scripts/ensure-system.sh).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from xml.sax.saxutils import escape

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas" / "sonic-yang"

# sonic_yang_ext.py Type_1_list_maps_model: tables whose entries are {key: value} maps, not field dicts.
TYPE_1_MAP_LISTS = frozenset({
    "DSCP_TO_TC_MAP_LIST", "DOT1P_TO_TC_MAP_LIST", "TC_TO_PRIORITY_GROUP_MAP_LIST", "TC_TO_QUEUE_MAP_LIST",
    "MAP_PFC_PRIORITY_TO_QUEUE_LIST", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_LIST", "DSCP_TO_FC_MAP_LIST",
    "EXP_TO_FC_MAP_LIST", "CABLE_LENGTH_LIST", "MPLS_TC_TO_TC_MAP_LIST", "TC_TO_DSCP_MAP_LIST",
})
# sonic_yang_ext.py LEAF_LIST_WITH_STRING_VALUE_DICT: leaf-lists CONFIG_DB stores as one joined string.
LEAF_LIST_SEPARATORS = {
    ("MIRROR_SESSION", "src_ip"): ",", ("NTP", "src_intf"): ";",
    ("BGP_ALLOWED_PREFIXES", "prefixes_v4"): ",", ("BGP_ALLOWED_PREFIXES", "prefixes_v6"): ",",
    ("BUFFER_PORT_EGRESS_PROFILE_LIST", "profile_list"): ",",
    ("BUFFER_PORT_INGRESS_PROFILE_LIST", "profile_list"): ",",
    ("PORT", "adv_speeds"): ",", ("PORT", "adv_interface_types"): ",",
}
_TREE_LINE = re.compile(r"^(?P<indent>[ |]*)\+--(?P<flags>rw|ro|-x|-n|:)\s*(?P<rest>.*)$")


@dataclass
class SchemaNode:
    """A container or list of the compiled schema (choices and cases are flattened, as sonic-yang-mgmt does)."""

    name: str
    kind: str  # "container" or "list"
    keys: tuple[str, ...] = ()
    leaves: set[str] = field(default_factory=set)
    leaf_lists: set[str] = field(default_factory=set)
    children: dict[str, SchemaNode] = field(default_factory=dict)  # containers and lists, in schema order


@dataclass(frozen=True)
class TableSchema:
    module: str
    namespace: str
    container: SchemaNode


@dataclass
class YangReport:
    """One config's result: errors from translation and from libyang; tables SONiC would not validate."""

    errors: list[str]
    tables_without_yang: list[str]

    @property
    def ok(self) -> bool:
        return not self.errors


def yanglint_path() -> str | None:
    return shutil.which("yanglint")


def _module_files() -> list[Path]:
    return sorted(SCHEMA_DIR.glob("*.yang"))


@lru_cache(maxsize=1)
def table_schemas() -> dict[str, TableSchema]:
    """CONFIG_DB table name -> module, namespace and compiled container, from ``yanglint -f tree``."""
    namespaces = {}
    for path in _module_files():
        text = path.read_text()
        module = re.search(r"^\s*module\s+([\w-]+)", text, re.M)
        namespace = re.search(r"^\s*namespace\s+\"?([^\";\s]+)", text, re.M)
        if module and namespace:
            namespaces[module.group(1)] = namespace.group(1)
    tree = subprocess.run(
        ["yanglint", "-i", "-Q", "-f", "tree", "-L", "100000", "-p", str(SCHEMA_DIR), *map(str, _module_files())],
        capture_output=True, text=True, check=True,
    ).stdout
    tables: dict[str, TableSchema] = {}
    module = None
    stack: list[tuple[int, SchemaNode | None]] = []  # (indent, node); None = a node we do not model
    in_data = False
    for line in tree.splitlines():
        if line.startswith("module:"):
            module, stack, in_data = line.split(":", 1)[1].strip(), [], True
            continue
        if line.strip() in {"rpcs:", "notifications:"} or line.lstrip().startswith("augment "):
            in_data = False
            continue
        match = _TREE_LINE.match(line)
        if not match or not in_data or module is None:
            continue
        indent, flags, rest = len(match["indent"]), match["flags"], match["rest"]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else None
        if flags == ":" or rest.startswith("("):  # a case or a choice: transparent, children go to the parent
            stack.append((indent, parent))
            continue
        if flags != "rw":  # state data, actions, notifications: not configuration
            stack.append((indent, None))
            continue
        parts = rest.split()
        name = parts[0]
        bare = name.rstrip("?*!")
        is_list = name.endswith("*") and len(parts) > 1 and parts[1].startswith("[")
        if is_list:
            keys = tuple(" ".join(parts[1:]).split("]")[0].strip("[").split())
            node = SchemaNode(bare, "list", keys=keys)
        elif len(parts) == 1 or (len(parts) > 1 and parts[1] in {"!"}):
            node = SchemaNode(bare, "container")
        else:
            if parent is not None:
                (parent.leaf_lists if name.endswith("*") else parent.leaves).add(bare)
            stack.append((indent, None))
            continue
        if parent is not None:
            parent.children[bare] = node
        elif not stack:  # the module's top-level container: its child containers are the tables
            pass
        stack.append((indent, node))
        if len(stack) == 2 and stack[0][1] is not None and stack[0][1].name == module and node.kind == "container":
            tables[bare] = TableSchema(module=module, namespace=namespaces[module], container=node)
    return tables


def validate_config_db(config_db: dict) -> YangReport:
    """Translate and validate one config_db.json document; every problem is one error string."""
    return validate_many([config_db])[0]


def validate_many(config_dbs: list[dict]) -> list[YangReport]:
    """Validate several documents with one yanglint run per document (the models compile in ~0.1 s)."""
    schemas = table_schemas()
    reports = []
    with tempfile.TemporaryDirectory(prefix="sonic-yang-") as scratch:
        for number, config_db in enumerate(config_dbs):
            errors: list[str] = []
            without = sorted(table for table in config_db if table not in schemas)
            xml = _to_xml(config_db, schemas, errors)
            path = Path(scratch) / f"config_db_{number}.xml"
            path.write_text(xml)
            errors.extend(_yanglint(path))
            reports.append(YangReport(errors=errors, tables_without_yang=without))
    return reports


def _yanglint(path: Path) -> list[str]:
    result = subprocess.run(
        ["yanglint", "-i", "-Q", "-t", "config", "-p", str(SCHEMA_DIR), *map(str, _module_files()), str(path)],
        capture_output=True, text=True,
    )
    messages = [line for line in result.stderr.splitlines() if line.startswith("libyang err")]
    if result.returncode != 0 and not messages:
        messages = [f"yanglint exit {result.returncode}: {result.stderr.strip()[:500]}"]
    return messages


def _to_xml(config_db: dict, schemas: dict[str, TableSchema], errors: list[str]) -> str:
    by_module: dict[str, list[str]] = {}
    namespaces: dict[str, str] = {}
    for table, entries in config_db.items():
        schema = schemas.get(table)
        if schema is None:
            continue
        namespaces[schema.module] = schema.namespace
        body = _container_xml(table, schema.container, entries, errors)
        by_module.setdefault(schema.module, []).append(f"<{table}>{body}</{table}>")
    return "\n".join(
        f'<{module} xmlns="{namespaces[module]}">{"".join(parts)}</{module}>' for module, parts in by_module.items()
    ) + "\n"


def _container_xml(table: str, container: SchemaNode, entries: dict, errors: list[str]) -> str:
    lists = [child for child in container.children.values() if child.kind == "list"]
    if len(lists) == 1 and lists[0].name != f"{container.name}_LIST":
        lists = []  # sonic-yang-mgmt translates a single list only when it is named <TABLE>_LIST
    remaining = dict(entries)
    out: list[str] = []
    for model_list in lists:
        for key in list(remaining):
            entry_xml = _list_entry_xml(table, model_list, key, remaining[key])
            if entry_xml is not None:
                out.append(entry_xml)
                del remaining[key]
    for name, child in container.children.items():
        if child.kind == "container" and name in remaining:
            value = remaining.pop(name)
            if isinstance(value, dict):
                out.append(f"<{name}>{_container_xml(table, child, value, errors)}</{name}>")
            else:
                errors.append(f"{table}|{name}: expected an object, got {value!r}")
    for name in list(remaining):
        if name in container.leaves or name in container.leaf_lists:
            out.append(_leaf_xml(table, name, remaining.pop(name), name in container.leaf_lists))
    for name in remaining:
        errors.append(f"{table}: key {name!r} matches no list, container or leaf of the YANG model")
    return "".join(out)


def _list_entry_xml(table: str, model_list: SchemaNode, key: str, fields) -> str | None:
    """XML for one entry if it fits this list (key count and field names), else None."""
    values = key.split("|")
    if len(values) != len(model_list.keys) or not isinstance(fields, dict):
        return None
    parts = [f"<{name}>{escape(value.strip())}</{name}>" for name, value in zip(model_list.keys, values, strict=True)]
    if model_list.name in TYPE_1_MAP_LISTS:
        inner = next((child for child in model_list.children.values() if child.kind == "list"), None)
        if inner is None:
            return None
        value_leaf = next(iter(sorted(inner.leaves - set(inner.keys))), None)
        for map_key, map_value in fields.items():
            parts.append(f"<{inner.name}><{inner.keys[0]}>{escape(str(map_key))}</{inner.keys[0]}>"
                         f"<{value_leaf}>{escape(str(map_value))}</{value_leaf}></{inner.name}>")
        return f"<{model_list.name}>{''.join(parts)}</{model_list.name}>"
    for name, value in fields.items():
        if name in model_list.keys:
            continue
        if name in model_list.leaves or name in model_list.leaf_lists:
            parts.append(_leaf_xml(table, name, value, name in model_list.leaf_lists))
        else:
            return None  # sonic-yang-mgmt: this entry does not fit this list (maybe another one)
    return f"<{model_list.name}>{''.join(parts)}</{model_list.name}>"


def _leaf_xml(table: str, name: str, value, is_leaf_list: bool) -> str:
    if is_leaf_list:
        if isinstance(value, str):
            separator = LEAF_LIST_SEPARATORS.get((table, name))
            items = [item.strip() for item in value.split(separator)] if separator else [value]
        else:
            items = [str(item) for item in value]
        return "".join(f"<{name}>{escape(item)}</{name}>" for item in items if item != "")
    return f"<{name}>{escape(str(value))}</{name}>"
