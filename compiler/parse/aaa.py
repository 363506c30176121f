"""Management AAA (TACACS+, issue #13) read back: ``management.aaa = {tacacs_servers, secret_ref}``.

EOS (compiler/render/eos/templates/management.j2): ``tacacs-server host IP [vrf V] key 7 FT-SECRET[ref]`` per
server, the ``aaa group server tacacs+ FT_TACACS`` group listing them, ``aaa authentication login`` / ``aaa
authorization exec default group FT_TACACS local`` and ``ip tacacs [vrf V] source-interface PORT``. SONiC
(compiler.render.sonic.config_db.aaa_tables): TACPLUS (the passkey is the marker), TACPLUS_SERVER (first server
has the highest priority) and AAA. The secret is a reference (compiler.secret_refs); a key that is no marker is
not modelled (its line stays unmodelled).
"""

from __future__ import annotations

from compiler.parse.common import Node, Unmodelled
from compiler.secret_refs import PLACEHOLDER
from compiler.structured.contract import Aaa

AAA_TABLES = {"TACPLUS", "TACPLUS_SERVER", "AAA"}


def _without_vrf(words: list[str]) -> list[str]:
    if "vrf" in words and words.index("vrf") + 1 < len(words):
        index = words.index("vrf")
        return words[:index] + words[index + 2:]
    return words


class EosAaa:
    """The AAA lines of one EOS config; :meth:`finish` yields ``management.aaa`` and marks what it used."""

    def __init__(self) -> None:
        self.hosts: list[tuple[str, str, Node]] = []  # (server, secret reference, line)
        self.groups: dict[str, Node] = {}
        self.methods: list[tuple[str, Node]] = []  # (group, line)
        self.source_lines: list[Node] = []

    def line(self, node: Node) -> bool:
        """Collects a top-level AAA line; True when it is one."""
        words = _without_vrf(node.words())
        if words[:2] == ["tacacs-server", "host"] and len(words) == 6 and words[3:5] == ["key", "7"]:
            match = PLACEHOLDER.fullmatch(words[5])
            if match is None:
                return False
            self.hosts.append((words[2], match.group(1), node))
        elif words[:4] == ["aaa", "group", "server", "tacacs+"] and len(words) == 5:
            self.groups[words[4]] = node
        elif (words[:4] in (["aaa", "authentication", "login", "default"], ["aaa", "authorization", "exec", "default"])
              and len(words) == 7 and words[4] == "group" and words[6] == "local"):
            self.methods.append((words[5], node))
        elif words[:2] == ["ip", "tacacs"] and len(words) == 4 and words[2] == "source-interface":
            self.source_lines.append(node)
        else:
            return False
        return True

    def finish(self) -> Aaa | None:
        if not self.hosts:
            return None
        reference = self.hosts[0][1]
        servers = [server for server, ref, _ in self.hosts if ref == reference]
        used = [node for _, ref, node in self.hosts if ref == reference] + self.source_lines
        for name, group in self.groups.items():
            members = [child for child in group.children if _without_vrf(child.words())[:1] == ["server"]
                       and len(_without_vrf(child.words())) == 2 and _without_vrf(child.words())[1] in servers]
            used += [group, *members]
            used += [node for group_name, node in self.methods if group_name == name]
        for node in used:
            node.used = True
        return {"tacacs_servers": list(dict.fromkeys(servers)), "secret_ref": reference}


def sonic_aaa(db: dict, unmodelled: list[Unmodelled], file_name: str, lines: dict[str, int]) -> Aaa | None:
    """TACPLUS / TACPLUS_SERVER / AAA -> ``management.aaa``; tables it cannot read are reported unmodelled."""
    present = [table for table in ("TACPLUS", "TACPLUS_SERVER", "AAA") if table in db]
    if not present:
        return None
    passkey = str(((db.get("TACPLUS") or {}).get("global") or {}).get("passkey") or "")
    match = PLACEHOLDER.fullmatch(passkey)
    servers = db.get("TACPLUS_SERVER") or {}
    if match is None or not servers:
        unmodelled.extend(Unmodelled(file_name, lines.get(table, 0), table) for table in present)
        return None

    def priority(item: tuple[str, dict]) -> int:
        value = str(item[1].get("priority") or "0")
        return -int(value) if value.isdigit() else 0

    return {"tacacs_servers": [server for server, _ in sorted(servers.items(), key=priority)],
            "secret_ref": match.group(1)}
