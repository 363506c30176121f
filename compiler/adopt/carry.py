"""Carried lines: what an adopted device's config states and no intent field expresses, kept so nothing is lost.

``carried_lines(original_files, rendered_files)`` compares a device's running files with what the compiler renders
for it from the adopted intent: every CLI line (EOS, FRR) whose block path (its parent lines and itself) the
rendering lacks is carried with its parents, in original order and bytes; every config_db.json row or field the
rendering lacks is carried as it stands; a file the compiler does not write (FRR's ``daemons``) is carried whole.
``with_carried(rendered_files, carried)`` puts them back: CLI blocks appended (EOS before the closing ``end``: EOS and
FRR merge a repeated block into the one before, Arista EOS User Manual "Command-Line Interface", FRR user guide
"VTY shell"), config_db rows merged. Each carried line keeps its kind (the top-level command it sits under) and its
origin (file:line), so a report lists them by kind. Pure Python; never imports Django.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from compiler.parse import is_daemons_file
from compiler.parse.common import Node, cli_tree
from compiler.parse.sonic import _json_line_index

# The rendered file each kind of original file corresponds to (compiler.render: EOS startup-config; SONiC
# config_db.json + frr.conf; FRR frr.conf + linux-plan.json).
EOS_FILE, FRR_FILE, CONFIG_DB_FILE = "startup-config", "frr.conf", "config_db.json"
_KIND_TWO_WORDS = frozenset({"router", "ip", "ipv6", "management", "no", "service", "aaa", "address-family",
                             "platform", "hardware", "qos", "priority-flow-control", "class-map", "policy-map"})


@dataclass(frozen=True, slots=True)
class CarriedBlock:
    """Lines carried under one rendered file: ``text`` is the original lines (with the parent lines that give
    them their context), byte for byte; ``kind`` the top-level command; ``file``/``line`` where they start."""

    target: str  # rendered file name the block goes back into
    kind: str
    file: str
    line: int
    text: str  # the carried lines as the original has them (a CLI subtree; a config_db row as JSON)
    lines: int  # carried lines in it
    parents: tuple[str, ...] = ()  # CLI: the lines (stripped) it sits under, which the rendering has too

    def as_dict(self) -> dict:
        return {"target": self.target, "kind": self.kind, "file": self.file, "line": self.line, "text": self.text,
                "lines": self.lines, "parents": list(self.parents)}


def target_of(name: str, text: str, platform: str) -> str:
    """The rendered file an original file's lines belong to."""
    if text.lstrip().startswith("{"):
        return CONFIG_DB_FILE if platform == "sonic" else "linux-plan.json"
    if is_daemons_file(text):
        return name.rsplit("/", 1)[-1]
    return EOS_FILE if platform == "eos" else FRR_FILE


def _kind(words: list[str]) -> str:
    return " ".join(words[:2]) if words and words[0] in _KIND_TWO_WORDS and len(words) > 1 else (words[0] if words else "")


def _paths(text: str) -> set[tuple[str, ...]]:
    paths: set[tuple[str, ...]] = set()
    pending: list[tuple[tuple[str, ...], Node]] = [((), node) for node in cli_tree(text)]
    while pending:
        parents, node = pending.pop()
        path = parents + (node.text,)
        paths.add(path)
        pending.extend((path, child) for child in node.children)
    return paths


def _cli_blocks(name: str, text: str, target: str, rendered: set[tuple[str, ...]]) -> list[CarriedBlock]:
    """One block per line whose path the rendering lacks, with everything under it (the rendering cannot hold a
    child of a line it lacks); its parents, which the rendering has, say where it goes back."""
    raw = text.split("\n")
    blocks: list[CarriedBlock] = []
    pending: list[tuple[Node, tuple[str, ...]]] = [(node, ()) for node in reversed(cli_tree(text))]
    while pending:
        node, parents = pending.pop()
        path = parents + (node.text,)
        if path in rendered:
            pending.extend((child, path) for child in reversed(node.children))
            continue
        lines = []
        subtree = [node]
        while subtree:
            item = subtree.pop()
            lines.append(item.line)
            subtree.extend(reversed(item.children))
        blocks.append(CarriedBlock(target=target, kind=_kind((parents[0] if parents else node.text).split()),
                                   file=name, line=node.line, lines=len(lines), parents=parents,
                                   text="\n".join(raw[line - 1].rstrip("\r") for line in sorted(lines))))
    return blocks


def _config_db_blocks(name: str, text: str, rendered_text: str) -> list[CarriedBlock]:
    original, rendered = json.loads(text), json.loads(rendered_text or "{}")
    index = _json_line_index(text)
    blocks = []
    for table, rows in original.items():
        have = rendered.get(table) or {}
        if not isinstance(rows, dict):
            continue
        for key, fields in rows.items():
            if key not in have:
                carried = fields
            elif isinstance(fields, dict) and isinstance(have[key], dict):
                carried = {field: value for field, value in fields.items() if field not in have[key]}
            else:
                carried = {}
            if not carried:
                continue
            blocks.append(CarriedBlock(target=CONFIG_DB_FILE, kind=f"config_db {table}", file=name,
                                       line=index.get(f"{table}|{key}", index.get(table, 0)),
                                       text=json.dumps({table: {key: carried}}, sort_keys=True),
                                       lines=len(carried) if isinstance(carried, dict) else 1))
    return blocks


def carried_lines(original: dict[str, str], rendered: dict[str, str], platform: str) -> list[CarriedBlock]:
    """Every original line the rendering lacks, as blocks (see the module docstring)."""
    blocks: list[CarriedBlock] = []
    cli_paths = {target: _paths(text) for target, text in rendered.items() if not text.lstrip().startswith("{")}
    for name in sorted(original):
        text = original[name]
        target = target_of(name, text, platform)
        if target == CONFIG_DB_FILE:
            blocks += _config_db_blocks(name, text, rendered.get(CONFIG_DB_FILE, ""))
        elif target not in (EOS_FILE, FRR_FILE):
            if target not in rendered and not text.lstrip().startswith("{"):  # FRR's daemons: carried whole
                blocks.append(CarriedBlock(target=target, kind="file", file=name, line=1, text=text,
                                           lines=sum(1 for line in text.split("\n") if line.strip())))
        else:
            blocks += _cli_blocks(name, text, target, cli_paths.get(target, set()))
    return blocks


def with_carried(rendered: dict[str, str], blocks: list[CarriedBlock]) -> dict[str, str]:
    """The rendered files with the carried blocks put back (see the module docstring)."""
    out = dict(rendered)
    for target in dict.fromkeys(block.target for block in blocks):
        mine = [block for block in blocks if block.target == target]
        if target == CONFIG_DB_FILE:
            data = json.loads(out.get(target) or "{}")
            for block in mine:
                for table, rows in json.loads(block.text).items():
                    for key, fields in rows.items():
                        current = data.setdefault(table, {}).get(key)
                        if isinstance(current, dict) and isinstance(fields, dict):
                            current.update(fields)
                        else:
                            data[table][key] = fields
            out[target] = json.dumps(data, indent=4, sort_keys=True) + "\n"
        elif target in (EOS_FILE, FRR_FILE):
            out[target] = _merged(out.get(target, ""), mine)
        else:
            out[target] = mine[0].text
    return out


def _merged(text: str, blocks: list[CarriedBlock]) -> str:
    """CLI text with each carried block put under its parents (after the last line of the parent's block, before
    its closing ``exit``/``exit-address-family``: FRR leaves a block there) or, without parents, appended before
    EOS's closing ``end``: one block per command, as the device prints it, so no parser reads a second
    ``router bgp`` that replaces the first."""
    lines = text.rstrip("\n").split("\n") if text else []
    ends: dict[tuple[str, ...], int] = {}  # parent path -> index of the line to insert before
    pending: list[tuple[Node, tuple[str, ...]]] = [(node, ()) for node in cli_tree(text)]
    while pending:
        node, parents = pending.pop()
        path = parents + (node.text,)
        last = node
        while last.children:
            last = last.children[-1]
        position = last.line  # insert after the subtree's last line (1-based line == 0-based index after it)
        if last is not node and last.text.startswith("exit"):
            position = last.line - 1
        ends[path] = position
        pending.extend((child, path) for child in node.children)
    inserts: dict[int, list[str]] = {}
    appended: list[str] = []
    for block in blocks:
        if block.parents and block.parents in ends:
            inserts.setdefault(ends[block.parents], []).append(block.text)
        else:
            appended += ["!", *(f"{line}" for line in _with_parents(block))]
    for position in sorted(inserts, reverse=True):
        lines[position:position] = inserts[position]
    if appended:
        closing = len(lines) - 1 if lines and lines[-1].strip() == "end" else len(lines)
        lines[closing:closing] = ["! carried from the adopted config (no intent field expresses these lines)",
                                  *appended, "!"]
    return "\n".join(lines) + "\n"


def _with_parents(block: CarriedBlock) -> list[str]:
    """A block whose parents the rendering lacks (the rendering changed since): its parents first, indented."""
    out = []
    indent = ""
    for parent in block.parents:
        out.append(indent + parent)
        indent += "   "
    return out + block.text.split("\n")
