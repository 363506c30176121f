"""A recorded Arista EOS device behind NAPALM's real eos driver: replaces ``pyeapi.client.Node``.

It records every eAPI call (the exact command lists NAPALM sends) and answers from recordings in eos_recorded/:
``show version|hostname|interfaces`` from the JSON files, ``show running-config`` from the ``*.cfg`` file the
device currently runs, the BGP state NAPALM's ``get_bgp_neighbors`` reads from ``bgp/<that config>.json``. Configuration sessions follow EOS's semantics (EOS User Manual, "Configuration sessions"
and "commit timer"): a session holds a candidate until ``configure session <s> commit`` (or ``commit timer``,
which applies it and reverts it unless confirmed in time) or ``abort``. What EOS prints after loading a session
is a recording too: the session's commands must be one of the recorded ``*.cfg`` files as NAPALM sends them
(lines stripped, '!' comments dropped); an unknown candidate is an eAPI CommandError, so nothing is invented.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

from pyeapi.eapilib import CommandError, ConnectionError  # pyeapi's own name

RECORDED = Path(__file__).parent / "eos_recorded"
BGP_COMMANDS = ("show ip bgp summary vrf all", "show ipv6 bgp summary vrf all", "show ip bgp neighbors vrf all",
                "show ipv6 bgp peers vrf all")  # what NAPALM's get_bgp_neighbors sends
ROCE_DATA = Path(__file__).parent / "data" / "rocegate"
COUNTER_FILES = {"show priority-flow-control counters detail": "eos_pfc_counters.json",
                 "show priority-flow-control counters watchdog": "eos_pfc_watchdog.json",
                 "show qos interfaces ecn counters queue": "eos_ecn_counters.json",
                 "show interfaces counters queue drops": "eos_queue_drops.json"}
_SESSION = re.compile(r"^configure session (\S+)$")
_SESSION_ACTION = re.compile(r"^configure session (\S+) (commit timer \d\d:\d\d:\d\d|commit|abort)$")


def session_commands(text: str) -> list[str]:
    """A config as NAPALM's eos driver sends it inside a session (napalm/eos/eos.py ``_load_config``)."""
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line and not (line.startswith("!") and not line.startswith("!!"))
            and line != "end"]


class RecordedEosNode:
    def __init__(self, running: str = "running-before.cfg"):
        self.configs = {path.name: path.read_text() for path in sorted(RECORDED.glob("*.cfg"))}
        self.running = self.configs[running]
        self.startup = self.running
        self.flash: dict[str, str] = {}
        self.sessions: dict[str, list[str]] = {}
        self.pending: tuple[str, str] | None = None  # (session, running config before the commit timer)
        self.unreachable = False  # the management path is cut: every call fails like an unanswered eAPI request
        self.calls: list[list[str]] = []
        self.connection = self  # NAPALM's close() looks for device.connection.close

    def close(self) -> None:
        pass

    @property
    def commands(self) -> list[str]:
        return [command for call in self.calls for command in call]

    def _json(self, name: str) -> dict:
        return json.loads((RECORDED / name).read_text())

    def rendering(self, commands: list[str]) -> str:
        for text in self.configs.values():
            if session_commands(text) == commands:
                return text
        raise CommandError(1002, "no recorded EOS rendering for this session's candidate", commands=commands)

    def expire_commit_timer(self) -> None:
        """The commit timer ran out without a confirm: EOS restores the config it ran before."""
        assert self.pending is not None, "no commit timer is pending"
        self.running = self.pending[1]
        self.sessions.pop(self.pending[0], None)
        self.pending = None

    def run_commands(self, commands, encoding="json", send_enable=True, **kwargs):
        commands = list(commands)
        self.calls.append(commands)
        if self.unreachable:
            raise ConnectionError("192.0.2.11", "Socket error during eAPI connection: timed out")
        if _SESSION.match(commands[0]) and len(commands) > 1:
            return self._load_session(_SESSION.match(commands[0]).group(1), commands[1:])
        return [self._one(command, encoding) for command in commands]

    def _load_session(self, name: str, commands: list[str]) -> list[dict]:
        body = [command for command in commands if command != "end"]
        if body and body[0] == "rollback clean-config":
            self.sessions[name] = body[1:]
        else:  # a merge session: not recorded here
            raise CommandError(1002, "merge sessions are not recorded", commands=commands)
        return [{} for _ in commands] + [{}]

    def _one(self, command: str, encoding: str) -> dict:
        text = {"show running-config": lambda: self.running}
        if command in text:
            return {"output": text[command]()}
        if command in BGP_COMMANDS:  # recorded per running config (bgp/<config>.json)
            current = next(name for name, text in self.configs.items() if text == self.running)
            return json.loads((RECORDED / "bgp" / current.replace(".cfg", ".json")).read_text())[command]
        if command in COUNTER_FILES:  # the RoCE gate's counters (data/rocegate, SOURCES.md there)
            return json.loads((ROCE_DATA / COUNTER_FILES[command]).read_text())
        if command in ("show version", "show hostname", "show interfaces"):
            return self._json(command.replace(" ", "_") + ".json")
        if command == "show configuration sessions":
            return {"sessions": {name: {"state": "pending", "description": ""} for name in self.sessions}}
        if command == "show configuration sessions detail":
            uptime = self._json("show_version.json")["uptime"]
            return {"sessions": {} if self.pending is None else
                    {self.pending[0]: {"state": "pendingCommitTimer", "commitBy": uptime + 290}}}
        match = re.match(r"^show session-config named (\S+) diffs$", command)
        if match:
            after = self.rendering(self.sessions[match.group(1)])
            diff = difflib.unified_diff(self.running.splitlines(), after.splitlines(), "system:/running-config",
                                        f"session:/{match.group(1)}-session-config", lineterm="")
            return {"output": "\n".join(diff) + "\n"}
        if command == "copy startup-config flash:rollback-0":
            self.flash["rollback-0"] = self.startup
            return {"output": "Copy completed successfully.\n"}
        if command == "write memory":
            self.startup = self.running
            return {"output": "Copy completed successfully.\n"}
        if command == "configure replace flash:rollback-0":
            self.running = self.flash["rollback-0"]
            return {"output": ""}
        match = _SESSION_ACTION.match(command)
        if match:
            name, action = match.groups()
            if action == "abort":
                if self.pending and self.pending[0] == name:
                    self.running = self.pending[1]
                    self.pending = None
                self.sessions.pop(name, None)
            elif action == "commit" and self.pending and self.pending[0] == name:
                self.pending = None  # confirmed
                self.sessions.pop(name, None)
            else:
                before, self.running = self.running, self.rendering(self.sessions[name])
                if action.startswith("commit timer"):
                    self.pending = (name, before)
                else:
                    self.sessions.pop(name)
            return {"output": ""}
        raise CommandError(1002, f"CLI command 1 of 1 {command!r} failed: invalid command", commands=[command])
