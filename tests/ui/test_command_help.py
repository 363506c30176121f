"""Every option of every project management command has --help text (issue #16: several had none).

Walks the argparse parser of each command the project ships (apps under this repository, not Django's own),
sub-commands included, and fails naming the command and the option without help.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

REPO = Path(__file__).resolve().parents[2]
# Options argparse and Django add to every command: their help is Django's own.
BASE_OPTIONS = {"-h", "--version", "-v", "--settings", "--pythonpath", "--traceback", "--no-color",
                "--force-color", "--skip-checks"}


def _project_commands() -> list[tuple[str, str]]:
    out = []
    for name, app in sorted(get_commands().items()):
        module = app if isinstance(app, str) else ""
        if module.split(".")[0] and (REPO / module.split(".")[0]).is_dir():
            out.append((app, name))
    return out


def options_without_help(parser: argparse.ArgumentParser, prefix: str = "") -> list[str]:
    """'command [sub] --option' for every option or positional argument with no (or an empty) help text."""
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub_parser in action.choices.items():
                missing += options_without_help(sub_parser, f"{prefix} {sub_name}")
            continue
        if isinstance(action, argparse._HelpAction) or set(action.option_strings) & BASE_OPTIONS:
            continue
        if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
            missing.append(f"{prefix} {'/'.join(action.option_strings) or action.dest}".strip())
    return missing


COMMANDS = _project_commands()


def test_the_walk_finds_the_project_commands():
    names = {name for _, name in COMMANDS}
    assert {"fabric_build", "compile", "validate", "twin", "rollout", "demo_user"} <= names


@pytest.mark.parametrize(("app", "name"), COMMANDS, ids=[name for _, name in COMMANDS])
def test_every_option_has_help(app, name):
    parser = load_command_class(app, name).create_parser("manage.py", name)
    assert options_without_help(parser, name) == []


def test_an_option_without_help_is_found():
    parser = argparse.ArgumentParser()
    parser.add_argument("--named", help="has help")
    parser.add_argument("--bare")
    sub = parser.add_subparsers(dest="action").add_parser("up")
    sub.add_argument("fabric")
    assert options_without_help(parser, "cmd") == ["cmd --bare", "cmd up fabric"]
