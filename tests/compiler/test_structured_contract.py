"""The structured config types (compiler/structured/contract.py) against the contract document and the compiled
output: docs/structured-config.md's YAML example has exactly the declared keys, every declared key is named in
the document, and every golden scenario's compiled structured config has the declared shape."""

from __future__ import annotations

import json
import re
import types
import typing
from pathlib import Path

import pytest
import yaml

from compiler.structured.contract import Interface, Mlag, PortChannel, SpanningTree, StructuredConfig, Vlan, Vrf

REPO_ROOT = Path(__file__).resolve().parents[2]
DOC = REPO_ROOT / "docs" / "structured-config.md"
GOLDEN_STRUCTURED = sorted((REPO_ROOT / "tests" / "golden").glob("*/expected/structured/*.json"))


def all_keys(typed: type) -> frozenset[str]:
    return typed.__required_keys__ | typed.__optional_keys__  # type: ignore[attr-defined]


def shape_problems(value: object, expected: object, path: str = "") -> list[str]:
    """What in ``value`` does not fit the annotation ``expected`` (TypedDicts, lists, dicts, optionals): unknown
    keys, missing required keys, and partly filled ``total=False`` blocks. Scalars are not type-checked here
    (mypy does that on the code); the keys are the contract."""
    if typing.is_typeddict(expected):
        if not isinstance(value, dict):
            return [f"{path or '/'}: expected a mapping, got {type(value).__name__}"]
        declared = all_keys(expected)  # type: ignore[arg-type]
        problems = [f"{path}.{key}: not in {expected.__name__}" for key in sorted(set(value) - declared)]
        required = expected.__required_keys__  # type: ignore[attr-defined]
        if not expected.__total__ and value:  # type: ignore[attr-defined]
            required = declared - _not_required(expected)  # a {}-able block is empty or complete
        problems += [f"{path}.{key}: missing from {expected.__name__}" for key in sorted(required - set(value))]
        hints = typing.get_type_hints(expected)
        for key in sorted(set(value) & declared):
            problems += shape_problems(value[key], hints[key], f"{path}.{key}")
        return problems
    origin = typing.get_origin(expected)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return []
        candidates = [arg for arg in typing.get_args(expected) if arg is not type(None)]
        results = [shape_problems(value, arg, path) for arg in candidates]
        return min(results, key=len)
    if origin is list and isinstance(value, list):
        (item_type,) = typing.get_args(expected)
        return [problem for index, item in enumerate(value) for problem in shape_problems(item, item_type,
                                                                                        f"{path}[{index}]")]
    if origin is dict and isinstance(value, dict):
        _key_type, item_type = typing.get_args(expected)
        return [problem for key, item in value.items() for problem in shape_problems(item, item_type,
                                                                                   f"{path}[{key}]")]
    return []


def _not_required(typed: type) -> frozenset[str]:
    """Keys annotated NotRequired inside a total=False block stay optional even when the block is filled."""
    hints = typing.get_type_hints(typed, include_extras=True)
    return frozenset(key for key, hint in hints.items() if typing.get_origin(hint) is typing.NotRequired)


def declared_typeddicts(root: type = StructuredConfig) -> dict[str, type]:
    found: dict[str, type] = {}

    def visit(annotation: object) -> None:
        if typing.is_typeddict(annotation):
            if annotation.__name__ in found:  # type: ignore[union-attr]
                return
            found[annotation.__name__] = annotation  # type: ignore[union-attr,assignment]
            for hint in typing.get_type_hints(annotation).values():
                visit(hint)
        for arg in typing.get_args(annotation):
            visit(arg)

    visit(root)
    return found


def doc_example() -> dict:
    section = DOC.read_text().split("## Structured config", 1)[1]
    return yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))


def test_the_document_example_has_exactly_the_declared_keys():
    assert shape_problems(doc_example(), StructuredConfig) == []


def test_every_declared_key_is_named_in_the_document():
    text = DOC.read_text()
    unnamed = sorted(f"{name}.{key}" for name, typed in declared_typeddicts().items() for key in all_keys(typed)
                     if not re.search(rf"\b{re.escape(key)}\b", text))
    assert unnamed == []


@pytest.mark.parametrize("path", GOLDEN_STRUCTURED, ids=lambda path: "/".join(path.parts[-4:]))
def test_compiled_golden_output_has_the_declared_shape(path):
    assert shape_problems(json.loads(path.read_text()), StructuredConfig) == []


def test_there_are_golden_configs_to_check():
    assert len(GOLDEN_STRUCTURED) >= 20


# Deliberately broken: the checker must see an unknown key, a missing key and a half-filled {}-able block.
def test_checker_reports_an_unknown_key():
    example = doc_example()
    example["vrfs"][0]["table"] = 1001
    assert shape_problems(example, StructuredConfig) == [".vrfs[0].table: not in Vrf"]


def test_checker_reports_a_missing_key():
    example = doc_example()
    del example["interfaces"][0]["lanes"]
    assert shape_problems(example, StructuredConfig) == [".interfaces[0].lanes: missing from Interface"]


def test_checker_reports_a_half_filled_block():
    example = doc_example()
    del example["vxlan"]["flood_lists"]
    assert shape_problems(example, StructuredConfig) == [".vxlan.flood_lists: missing from Vxlan"]
    example["vxlan"] = {}
    assert shape_problems(example, StructuredConfig) == []  # {} on spines is fine


def test_optional_keys_stay_optional():
    assert "fec" in all_keys(Interface) and "fec" not in Interface.__required_keys__
    assert "linux_table" in Vrf.__required_keys__


def test_the_layer2_example_has_the_declared_keys():
    section = DOC.read_text().split("### Layer 2", 1)[1]
    example = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))
    blocks = {"port_channels": list[PortChannel], "mlag": Mlag, "spanning_tree": SpanningTree, "vlans": list[Vlan]}
    assert set(blocks) < set(example)
    assert [problem for key, typed in blocks.items() for problem in shape_problems(example[key], typed, key)] == []
