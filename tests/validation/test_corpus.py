"""The public corpus (tests/data/corpus, SOURCES.md there) through exactly what ``validate --configs DIR`` runs.

Per set: (a) nothing but a refusal escapes parse + validate (a FabricTwinError that names the device it could not
read; any other exception is a crash); (b) no device is silently lost: every device directory/file of the set is
in the report or named by the refusal; (c) the same under a derandomized hypothesis fuzzer that mutates one file
of the set (a line deleted or duplicated, two tokens swapped; for config_db.json a row deleted or copied, two
values swapped).

Sets failing today carry ``xfail(strict=True)`` with the baseline's reason (bench/results/corpus-baseline.md):
when a fix makes one pass, strict turns the XPASS into a failure so the mark is dropped with the fix. Pure: no
database. The invariant itself lives in bench.corpus_bench (Outcome.problem), shared with the bench.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from bench import corpus_bench
from bench.corpus_bench import CORPUS, corpus_sets, validate_directory, validate_files
from compiler.parse import ParseError
from compiler.parse.files import configs_from_directory

# The baseline (python -m bench.corpus_bench --baseline): sets whose unmutated files break (a) or (b).
FAILING: dict[str, str] = {}  # none today: a set that breaks again is added here with its reason
# Sets that pass unmutated but whose fuzzed mutations break (a) or (b) today (same run, derandomized).
FUZZ_FAILING: dict[str, str] = {}  # none today: a set that breaks again is added here with its reason

SETS = corpus_sets()
FUZZ_EXAMPLES = 40  # per set of up to FUZZ_LINES config lines; fewer for bigger sets (time stays bounded)
FUZZ_LINES = 5_000


def _param(name: str, failing: dict[str, str]):
    marks = [pytest.mark.xfail(strict=True, reason=failing[name])] if name in failing else []
    return pytest.param(name, id=name, marks=marks)


def _directory(name: str):
    return next(directory for source, set_name, directory in SETS if f"{source}/{set_name}" == name)


def test_the_corpus_is_what_sources_md_promises():
    sources = (CORPUS / "SOURCES.md").read_text()
    names = [f"{source}/{set_name}" for source, set_name, _ in SETS]
    assert all(f"| {name} |" in sources for name in names)  # every set has its provenance row
    devices = sum(len(configs_from_directory(directory)) for _, _, directory in SETS)
    assert len(SETS) >= 30 and devices >= 500
    assert len({source for source, _, _ in SETS}) >= 4


@pytest.mark.parametrize("name", [_param(f"{source}/{set_name}", FAILING) for source, set_name, _ in SETS])
def test_set_reads_without_crash_or_silent_loss(name):
    device_files, outcome = validate_directory(_directory(name))
    assert device_files, outcome.message  # the directory itself is a readable config set
    assert outcome.problem == "", f"{outcome.problem}: {outcome.message} ({outcome.frame})"


def test_the_invariant_catches_a_crash_a_loss_and_an_anonymous_refusal(monkeypatch):
    """The deliberately broken cases, independent of today's parsers: validate_configs replaced by stand-ins."""
    files = {"leaf1": {"frr.conf": "x"}, "leaf2": {"frr.conf": "x"}}

    def crash(device_files):
        raise TypeError("'<' not supported")

    monkeypatch.setattr(corpus_bench, "validate_configs", crash)
    assert validate_files(files).problem == "TypeError in tests/validation/test_corpus.py:" + \
        f"{crash.__code__.co_firstlineno + 1} in crash"

    def one_device_kept(device_files):
        return SimpleNamespace(devices={"same-hostname": SimpleNamespace(source="leaf1")})

    monkeypatch.setattr(corpus_bench, "validate_configs", one_device_kept)
    assert validate_files(files).problem == "devices silently dropped: leaf2"

    def refuse(message):
        def refusal(device_files):
            raise ParseError(message)
        return refusal

    monkeypatch.setattr(corpus_bench, "validate_configs", refuse("frr.conf: not an EOS, SONiC or FRR configuration"))
    assert validate_files(files).problem == "ParseError refusal names no device"
    monkeypatch.setattr(corpus_bench, "validate_configs", refuse("leaf2/frr.conf:3: not an FRR command"))
    assert validate_files(files).problem == ""
    monkeypatch.setattr(corpus_bench, "validate_configs", refuse("leaf22/frr.conf:3: a device not in the set"))
    assert validate_files(files).problem == "ParseError refusal names no device"


def _mutated_json(data: dict, draw) -> str:
    rows = [(table, key) for table, entries in data.items() if isinstance(entries, dict) for key in entries]
    if not rows:
        return json.dumps(data)
    mutation = draw(st.sampled_from(("delete", "copy", "swap")))
    table, key = draw(st.sampled_from(rows))
    if mutation == "delete":
        del data[table][key]
    elif mutation == "copy":
        other_table, other_key = draw(st.sampled_from(rows))
        data[other_table][f"{key}_copy"] = data[table][key]
    else:
        other_table, other_key = draw(st.sampled_from(rows))
        data[table][key], data[other_table][other_key] = data[other_table][other_key], data[table][key]
    note(f"json {mutation} {table}|{key}")
    return json.dumps(data, indent=4)


def _mutated_text(text: str, draw) -> str:
    lines = text.split("\n")
    mutation = draw(st.sampled_from(("delete", "duplicate", "swap")))
    index = draw(st.integers(0, len(lines) - 1))
    if mutation == "delete":
        del lines[index]
    elif mutation == "duplicate":
        lines.insert(index, lines[index])
    else:
        other = draw(st.integers(0, len(lines) - 1))
        first, second = lines[index].split(" "), lines[other].split(" ")
        i, j = draw(st.integers(0, len(first) - 1)), draw(st.integers(0, len(second) - 1))
        if index == other:
            first[i], first[j] = first[j], first[i]
            lines[index] = " ".join(first)
        else:
            first[i], second[j] = second[j], first[i]
            lines[index], lines[other] = " ".join(first), " ".join(second)
    note(f"text {mutation} at line {index + 1}")
    return "\n".join(lines)


@pytest.mark.parametrize("name", [_param(f"{source}/{set_name}", {**FAILING, **FUZZ_FAILING})
                                  for source, set_name, _ in SETS])
def test_fuzzed_set_reads_without_crash_or_silent_loss(name):
    device_files = configs_from_directory(_directory(name))
    lines = sum(text.count("\n") for files in device_files.values() for text in files.values())
    examples = max(5, min(FUZZ_EXAMPLES, FUZZ_EXAMPLES * FUZZ_LINES // max(lines, 1)))

    @settings(max_examples=examples, derandomize=True, deadline=None, database=None,
              phases=(Phase.generate,),  # no shrinking: the failing example is printed as drawn, time stays bounded
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def mutate(data):
        key = data.draw(st.sampled_from(sorted(device_files)), label="device")
        file_name = data.draw(st.sampled_from(sorted(device_files[key])), label="file")
        text = device_files[key][file_name]
        try:
            parsed = json.loads(text) if text.lstrip().startswith("{") else None
        except ValueError:
            parsed = None
        mutated = _mutated_json(parsed, data.draw) if isinstance(parsed, dict) else _mutated_text(text, data.draw)
        files = {**device_files, key: {**device_files[key], file_name: mutated}}
        outcome = validate_files(files)
        assert outcome.problem == "", f"{outcome.problem}: {outcome.message} ({outcome.frame})"

    mutate()
