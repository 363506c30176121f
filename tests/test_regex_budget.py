"""Every regular expression in the project runs in bounded time on hostile input (issue 29: one quadratic redaction
pattern made an 8,000-character Host header cost ~15 s of CPU without a login).

The test finds the patterns itself, so a new one is covered the day it is written:

- every ``re.Pattern`` reachable from a module of a first-party package (module level, class attributes, and inside
  module-level tuples/lists/dicts), importing every module of every package;
- every pattern literal passed to ``re.compile``/``re.match``/``re.search``/``re.fullmatch``/``re.sub``/
  ``re.findall``/``re.finditer``/``re.split`` anywhere in the source (function bodies included), read from the AST;
- every Django validator with a ``regex`` (model fields, DRF serializer and form fields) and every URL pattern.

Each is searched in strings of 10^5 characters built to make a backtracking engine work: long runs of word
characters, digits, blanks and separators, the pattern's own literals repeated (alone, glued to word characters,
separated), and near misses (a literal run that never completes). A search over budget fails naming the module and
the pattern's name; a runaway search is interrupted by a timer (CPython's ``re`` checks signals while it loops).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import signal
import time
from pathlib import Path
from re import _parser as sre_parse  # re's own parser of its syntax: the patterns' literals

import pytest

from compiler.secret_refs import PLACEHOLDER
from tests.test_security_hardening import INLINE_SCRIPT

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("compiler", "validators", "labs", "inventory", "intents", "validation", "twins", "changes", "ui", "twin")
LENGTH = 100_000
# A URL pattern never sees more than the request line gunicorn accepts (its limit_request_line default, 4094 bytes:
# docs.gunicorn.org settings): Django's own admin pattern "r/<path>/<path>/" is quadratic, bounded there (27 ms).
URL_LENGTH = 4094
BUDGET_SECONDS = 0.5  # per search of one hostile string (a linear search of 10^5 characters takes ~1 ms)
_RE_FUNCTIONS = {"compile", "match", "search", "fullmatch", "sub", "subn", "findall", "finditer", "split"}


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        names.append(package)
        module = importlib.import_module(package)
        names += [info.name for info in pkgutil.walk_packages(module.__path__, prefix=f"{package}.")]
    return names


def _patterns_in(value, where: str, found: dict, depth: int = 0) -> None:
    if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
        found.setdefault((value.pattern, value.flags), where)
    elif depth < 3 and isinstance(value, (tuple, list, frozenset, set)):
        for index, item in enumerate(value):
            _patterns_in(item, f"{where}[{index}]", found, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for key, item in value.items():
            _patterns_in(item, f"{where}[{key!r}]", found, depth + 1)


def _literal_patterns(path: Path, module: str, found: dict) -> None:
    """Pattern literals handed to the re module anywhere in a source file (compiled where they are used)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RE_FUNCTIONS
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            flags = 0
            for keyword in node.keywords:
                if keyword.arg == "flags" and isinstance(keyword.value, ast.Attribute):
                    flags |= getattr(re, keyword.value.attr, 0)
            for argument in node.args[1:]:
                if isinstance(argument, ast.Attribute) and argument.attr in ("IGNORECASE", "I", "MULTILINE", "M",
                                                                             "DOTALL", "S", "VERBOSE", "X"):
                    flags |= getattr(re, argument.attr)
            key = (node.args[0].value, int(re.compile(node.args[0].value, flags).flags))
            found.setdefault(key, f"{module}:{node.lineno} (re.{node.func.attr} literal)")


def _django_patterns(found: dict) -> None:
    from django.apps import apps
    from django.urls import URLPattern, URLResolver, get_resolver

    for model in apps.get_models():
        for field in model._meta.get_fields():
            for validator in getattr(field, "validators", ()):
                if getattr(validator, "regex", None) is not None:
                    _patterns_in(validator.regex, f"{model.__module__}.{model.__name__}.{field.name} validator", found)

    def walk(patterns, prefix: str) -> None:
        for entry in patterns:
            _patterns_in(entry.pattern.regex, f"urls: {prefix}{entry.pattern}", found)
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, f"{prefix}{entry.pattern}")
            else:
                assert isinstance(entry, URLPattern)

    walk(get_resolver().url_patterns, "")


def _form_and_serializer_patterns(module, found: dict) -> None:
    for name, cls in vars(module).items():
        if not inspect.isclass(cls) or cls.__module__ != module.__name__:
            continue
        fields = getattr(cls, "_declared_fields", None) or getattr(cls, "base_fields", None) or {}
        for field_name, field in dict(fields).items():
            for validator in getattr(field, "validators", ()):
                if getattr(validator, "regex", None) is not None:
                    _patterns_in(validator.regex, f"{module.__name__}.{name}.{field_name} validator", found)


def all_patterns() -> dict[tuple[str, int], str]:
    """(pattern, flags) -> where it was found (module and name)."""
    found: dict[tuple[str, int], str] = {}
    for name in _modules():
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == name:
                for class_attribute, class_value in vars(value).items():
                    _patterns_in(class_value, f"{name}.{attribute}.{class_attribute}", found)
            else:
                _patterns_in(value, f"{name}.{attribute}", found)
        _form_and_serializer_patterns(module, found)
        if module.__file__ and module.__file__.endswith(".py"):
            _literal_patterns(Path(module.__file__), name, found)
    _django_patterns(found)
    return found


def _literals(pattern: str, flags: int) -> list[str]:
    """The literal runs of a pattern (``key``, ``FT-SECRET[``, ``:``), read with re's own parser."""
    runs: list[str] = []

    def walk(parsed) -> None:
        current: list[str] = []
        for op, argument in parsed:
            if op is sre_parse.LITERAL:
                current.append(chr(argument))
                continue
            if current:
                runs.append("".join(current))
                current = []
            if op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, sre_parse.POSSESSIVE_REPEAT):
                walk(argument[2])
            elif op is sre_parse.SUBPATTERN:
                walk(argument[-1])
            elif op is sre_parse.BRANCH:
                for branch in argument[1]:
                    walk(branch)
            elif op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT):
                walk(argument[1])
        if current:
            runs.append("".join(current))

    walk(sre_parse.parse(pattern, flags))
    return sorted(set(runs), key=len, reverse=True)[:12]


BASIC_SHAPES = ["a", "0", " ", "\t", "-", ".", ":", "/", "_", "a.", "a-", "a ", "0.", "1:", "a,", "a=", "'", "\"",
                "\n", "a\n", "[", "{", "\\", "=", "ab12:", "é"]


def hostile_strings(pattern: str, flags: int, length: int = LENGTH) -> list[str]:
    strings = [(shape * (length // len(shape) + 1))[:length] + "!" for shape in BASIC_SHAPES]
    for literal in _literals(pattern, flags):
        for glue in ("", "a", " ", "0", "=", ":", ".", "/"):
            unit = literal + glue
            strings.append((unit * (length // len(unit) + 1))[:length] + "\x00")
        # near miss: the literal, then a long run that almost continues it
        strings.append(literal + "a" * length + "\x00")
        strings.append(literal + " " * length + "\x00")
    return strings


class _Runaway(Exception):
    pass


def _interrupt(signum, frame):
    raise _Runaway


def slowest_search(compiled: re.Pattern, strings: list[str], budget: float) -> tuple[float, str]:
    """Seconds of the slowest search (one interrupted at 4x the budget counts as that) and its string's head."""
    previous = signal.signal(signal.SIGALRM, _interrupt)
    worst, worst_head = 0.0, ""
    try:
        for text in strings:
            started = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, budget * 4)
            try:
                compiled.search(text)
            except _Runaway:
                return budget * 4, f"{text[:24]} (interrupted)"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            elapsed = time.perf_counter() - started
            if elapsed > worst:
                worst, worst_head = elapsed, text[:24]
    finally:
        signal.signal(signal.SIGALRM, previous)
    return worst, worst_head


def test_the_finder_sees_module_class_literal_url_and_validator_patterns(db):
    found = all_patterns()
    wheres = list(found.values())
    assert (PLACEHOLDER.pattern, PLACEHOLDER.flags) in found  # module level
    assert (INLINE_SCRIPT.pattern, INLINE_SCRIPT.flags) not in found  # tests are not the product
    assert any("literal" in where for where in wheres)  # inside a function body
    assert any(where.startswith("urls: ") for where in wheres)
    assert any("validator" in where for where in wheres)
    assert len(found) > 100


def test_every_regex_finishes_hostile_input_within_the_budget(db):
    slow = {}
    for (pattern, flags), where in sorted(all_patterns().items(), key=lambda item: item[1]):
        compiled = re.compile(pattern, flags)
        length = URL_LENGTH if where.startswith("urls: ") else LENGTH
        seconds, head = slowest_search(compiled, hostile_strings(pattern, flags, length), BUDGET_SECONDS)
        if seconds > BUDGET_SECONDS:
            slow[where] = f"{seconds:.2f} s on {head!r}… ({pattern[:80]!r})"
    assert not slow, "over budget:\n" + "\n".join(f"{where}: {detail}" for where, detail in slow.items())


@pytest.mark.parametrize("pattern", [
    r"(?P<name>[\w.-]*(?:secret|passw|key)[\w.-]*)(?P<sep>\s*[:=])",  # the redaction pattern issue 29 found
    r"^(a+)+$",  # the textbook exponential one
])
def test_a_backtracking_pattern_is_caught(pattern):
    """The deliberately broken case: the quadratic redaction pattern this test was written for fails the budget."""
    seconds, _ = slowest_search(re.compile(pattern, re.IGNORECASE), hostile_strings(pattern, re.IGNORECASE),
                                BUDGET_SECONDS)
    assert seconds > BUDGET_SECONDS
