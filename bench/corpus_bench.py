"""Public corpus benchmark: ``python -m bench.corpus_bench [--write] [--baseline] [--json] [--only SOURCE/SET]``.

Runs, for every set of tests/data/corpus/<source>/<set> (configs this project did not write; SOURCES.md there),
exactly what ``manage.py validate --configs DIR`` runs (compiler.parse.files.configs_from_directory, then
validators.configs.validate_configs), in-process, one set at a time, catching what escapes. Per set it reports:
the outcome (report, refusal with its message, or traceback with the exception type, the frame that raised it
and the check running), devices read one by one (refused ones with the reason), devices silently dropped (a
device key that is neither in the report nor named by a refusal), config lines and unmodelled lines per platform
(text: non-blank non-comment lines; config_db.json: table rows, an unmodelled table counting all its rows),
error/warning findings, checks passed/failed/skipped and config lines per CPU-second of the whole path.

Devices are also parsed one by one (compiler.parse.parse_device, what validate --configs does per device) so one
refused device does not hide the others' numbers, and each device read is rendered back for its own platform
(issue 25 item 5: ``render(parse(text))`` prints no ``None`` and our own parser reads it; :func:`round_trip`).
``--write`` stores bench/results/corpus.md and corpus.json;
``--baseline`` also copies the table to corpus-baseline.md (the "before" of issue 25). Benchmarks are not tests:
tests/validation/test_corpus.py holds the invariants (no traceback, no silent loss) on the same sets.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from compiler.errors import FabricTwinError
from compiler.parse import parse_device
from compiler.parse.files import configs_from_directory
from compiler.render import render_device
from compiler.render.unset import UNSET
from validators.configs import ConfigValidation, validate_configs
from validators.findings import CheckStatus, Severity

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
RESULTS = ROOT / "bench" / "results"
NOT_SETS = {"LICENSES"}  # licence texts beside the sets
# Issue 25's target population (SOURCES.md, "Fabric devices"): known-good sets of these kinds.
FABRIC_KIND_PREFIXES = ("EVPN", "L2/MLAG", "SONiC T")
# Access-port features issue 25 lets the target report as out of scope: port-based network access control (IEEE
# 802.1X-2020; EOS "802.1X Port Security": `dot1x ...` on a port, `aaa ... dot1x` for its RADIUS server), Power
# over Ethernet (IEEE 802.3bt; EOS "Power over Ethernet": `poe ...`) and phone VLANs (EOS "Voice VLAN": `switchport
# phone ...`, `switchport mode trunk phone`). A line of one of these on a campus access port configures the
# attached phone or laptop, never a path through the fabric. Nothing else is out of scope: storm-control,
# spanning tree, MACsec, PTP and the management plane are fabric features and count as unmodelled until modelled.
OUT_OF_SCOPE = (
    ("802.1X", re.compile(r"(?:no )?dot1x(?: |$)|aaa (?:authentication|authorization|accounting) dot1x ")),
    ("PoE", re.compile(r"(?:no )?poe(?: |$)")),
    ("phone VLAN", re.compile(r"(?:no )?switchport phone |switchport mode trunk phone$")),
)
TOP_KINDS_KEPT = 25  # most frequent unmodelled line kinds kept per set in corpus.json


@dataclass
class Outcome:
    """What one run of validate --configs on a set ended in: a report, a refusal or a traceback."""

    status: str  # "report" | "refused" | "traceback"
    result: ConfigValidation | None = None
    exception: str = ""  # the exception's type name (refusal or traceback)
    message: str = ""
    frame: str = ""  # where a traceback was raised: "validators/overlay.py:120 in vlan_vni"
    check: str = ""  # the check that was running when it was raised, if any
    dropped: list[str] = field(default_factory=list)  # device keys neither in the report nor named by a refusal

    @property
    def problem(self) -> str:
        """Why this outcome breaks the corpus invariants ("" when it does not): a traceback, or a device lost
        without a word (a refusal must name the device it could not read)."""
        if self.status == "traceback":
            return f"{self.exception} in {self.check or self.frame}"
        if self.dropped:
            shown = ", ".join(self.dropped[:3]) + (f" and {len(self.dropped) - 3} more" if len(self.dropped) > 3 else "")
            return (f"{self.exception} refusal names no device" if self.status == "refused"
                    else f"devices silently dropped: {shown}")
        return ""

    @property
    def label(self) -> str:
        if self.status == "traceback":
            return f"{self.exception} in {self.check or self.frame}"
        if self.status == "refused":
            return f"refused: {self.exception}"
        return "report"


def corpus_sets(root: Path = CORPUS) -> list[tuple[str, str, Path]]:
    """(source, set, directory) of every set, in name order."""
    return [(source.name, config_set.name, config_set)
            for source in sorted(root.iterdir()) if source.is_dir() and source.name not in NOT_SETS
            for config_set in sorted(source.iterdir()) if config_set.is_dir()]


def set_kinds(root: Path = CORPUS) -> dict[str, dict[str, str]]:
    """{"source/set": {"kind": ..., "known_good": "yes"|"no"}} from SOURCES.md's table."""
    out = {}
    for line in (root / "SOURCES.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 10 and "/" in cells[0] and not cells[0].startswith("source"):
            out[cells[0]] = {"kind": cells[6], "known_good": cells[9]}
    return out


def names_device(message: str, key: str) -> bool:
    """The message names the device key (its directory, or its file's stem) as a word of its own."""
    return re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", message) is not None


def raised_where(error: BaseException) -> tuple[str, str]:
    """(the frame that raised, the check validators.run was running): "file:line in function", check name."""
    frames = traceback.extract_tb(error.__traceback__)
    last = frames[-1] if frames else None
    where = ""
    if last is not None:
        path = Path(last.filename)
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        where = f"{shown}:{last.lineno} in {last.name}"
    check = ""
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "validate_fabric" and "name" in tb.tb_frame.f_locals:
            check = str(tb.tb_frame.f_locals["name"])
        tb = tb.tb_next
    return where, check


def validate_files(device_files: dict[str, dict[str, str]]) -> Outcome:
    """validate --configs on ``{device key: {file: text}}`` (after configs_from_directory): never raises."""
    try:
        result = validate_configs(device_files)
    except FabricTwinError as error:
        # A refusal: nothing is reported, so it must name the device it could not read.
        outcome = Outcome("refused", exception=type(error).__name__, message=str(error))
        outcome.dropped = [] if any(names_device(outcome.message, key) for key in device_files) else sorted(device_files)
        return outcome
    except Exception as error:  # measuring what escapes is the point
        frame, check = raised_where(error)
        return Outcome("traceback", exception=type(error).__name__, message=str(error)[:300], frame=frame,
                       check=check)
    present = {device.source for device in result.devices.values()}
    return Outcome("report", result=result, dropped=sorted(set(device_files) - present))


def validate_directory(directory: Path) -> tuple[dict[str, dict[str, str]], Outcome]:
    """Exactly ``manage.py validate --configs DIRECTORY``: read the set, then validate it."""
    try:
        device_files = configs_from_directory(directory)
    except FabricTwinError as error:
        return {}, Outcome("refused", exception=type(error).__name__, message=str(error))
    return device_files, validate_files(device_files)


def config_lines(files: dict[str, str]) -> dict[str, int]:
    """{file: lines}: text lines that say something (not blank, not a ``!`` comment); JSON: table rows."""
    out = {}
    for name, text in files.items():
        data = _json(text)
        if isinstance(data, dict):
            out[name] = sum(len(rows) if isinstance(rows, dict) else 1 for rows in data.values())
        else:
            out[name] = sum(1 for line in text.split("\n") if line.strip() and not line.strip().startswith("!"))
    return out


def _json(text: str):
    if not text.lstrip().startswith("{"):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def out_of_scope(text: str) -> str | None:
    """The out-of-scope access-port feature a config line configures (:data:`OUT_OF_SCOPE`), or None."""
    return next((feature for feature, pattern in OUT_OF_SCOPE if pattern.match(text)), None)


def line_kind(text: str) -> str:
    """What an unmodelled line is, for counting: its first two words with numbers as N (``router bfd``,
    ``neighbor N.N.N.N``); a config_db item: its table."""
    if "|" in text and " " not in text or text.isupper():
        return text.split("|")[0]
    return re.sub(r"\d+", "N", " ".join(text.split()[:2]))


def unmodelled_lines(files: dict[str, str], device, kinds: dict[str, int] | None = None) -> tuple[int, int]:
    """(unmodelled lines, out-of-scope lines) of a parsed device; an unmodelled config_db table counts all its
    rows. ``kinds`` (when given) counts the unmodelled lines by :func:`line_kind`."""
    tables = {name: data for name, text in files.items() if isinstance(data := _json(text), dict)}
    count = excluded = 0
    for item in device.unmodelled:
        rows = tables.get(item.file, {}).get(item.text)
        if rows is None and out_of_scope(item.text):
            excluded += 1
            continue
        lines = len(rows) if isinstance(rows, dict) else 1
        count += lines
        if kinds is not None:
            kind = line_kind(item.text)
            kinds[kind] = kinds.get(kind, 0) + lines
    return count, excluded


def round_trip(device, every_line_read: bool = False) -> str:
    """Why ``render(parse(text))`` of a parsed device fails ("" when it does not): the renderer refuses or crashes, a
    line prints ``None`` (or an unset value survives), or our own parser refuses what was printed (with
    ``every_line_read``: or leaves a printed line unmodelled)."""
    stage = "render"
    try:
        rendered = render_device(device.structured, device.platform)
        for name, text in rendered.items():
            bad = next((line.strip() for line in text.splitlines()
                        if UNSET in line or "None" in line.split() or '"None"' in line), None)
            if bad is not None:
                return f"prints None: {name}: {bad[:120]}"
        stage = "parse again"
        again = parse_device(rendered, platform=device.platform)
        if every_line_read and again.unmodelled:
            return f"printed but not read back: {again.unmodelled[0]}"
    except Exception as error:  # measured: a refusal and a crash both break the round trip
        return f"{stage}: {type(error).__name__}: {str(error).splitlines()[0][:200] if str(error) else ''}"
    return ""


def per_device(device_files: dict[str, dict[str, str]]) -> dict:
    """Each device parsed on its own: read / refused (reason) / crashed, lines and unmodelled per platform."""
    platforms: dict[str, dict[str, int]] = {}
    refused: dict[str, str] = {}
    crashed: dict[str, str] = {}
    unread_lines = 0
    kinds: dict[str, int] = {}
    round_trip_failures: dict[str, str] = {}
    for key, files in sorted(device_files.items()):
        lines = sum(config_lines(files).values())
        try:
            device = parse_device(files, hostname_hint=key)
        except FabricTwinError as error:
            refused[key] = f"{type(error).__name__}: {error}"
            unread_lines += lines
            continue
        except Exception as error:  # measured, not hidden
            frame, _ = raised_where(error)
            crashed[key] = f"{type(error).__name__} at {frame}"
            unread_lines += lines
            continue
        row = platforms.setdefault(device.platform, {"devices": 0, "lines": 0, "unmodelled": 0, "out_of_scope": 0})
        unmodelled, excluded = unmodelled_lines(files, device, kinds)
        row["devices"] += 1
        row["lines"] += lines
        row["unmodelled"] += unmodelled
        row["out_of_scope"] += excluded
        if problem := round_trip(device):
            round_trip_failures[key] = problem
    top = dict(sorted(kinds.items(), key=lambda item: (-item[1], item[0]))[:TOP_KINDS_KEPT])
    return {"platforms": platforms, "refused": refused, "crashed": crashed, "unread_lines": unread_lines,
            "round_trip_failures": round_trip_failures, "unmodelled_kinds": top, "_all_kinds": kinds}


def measure_set(source: str, name: str, directory: Path) -> dict:
    started = time.process_time()
    device_files, outcome = validate_directory(directory)
    cpu_s = time.process_time() - started
    files = sum(len(files) for files in device_files.values())
    lines = sum(sum(config_lines(files).values()) for files in device_files.values())
    row = {"set": f"{source}/{name}", "files": files, "devices": len(device_files), "outcome": outcome.label,
           "message": outcome.message[:300], "frame": outcome.frame, "check": outcome.check,
           "dropped": outcome.dropped, "config_lines": lines, "cpu_s": round(cpu_s, 3),
           "lines_per_cpu_s": round(lines / cpu_s) if cpu_s > 0 else None}
    row.update(per_device(device_files))
    if outcome.result is not None:
        report = outcome.result.report
        row["errors"] = sum(1 for finding in report.findings if finding.severity == Severity.ERROR)
        row["warnings"] = sum(1 for finding in report.findings if finding.severity == Severity.WARNING)
        row["checks"] = report.counts()
        row["devices_in_report"] = len(outcome.result.devices)
    else:
        row["errors"] = row["warnings"] = None
        row["checks"] = {CheckStatus.PASSED: None, CheckStatus.FAILED: None, CheckStatus.SKIPPED: None}
        row["devices_in_report"] = 0
    return row


def run(only: str | None = None, root: Path = CORPUS) -> dict:
    kinds = set_kinds(root)
    rows = []
    for source, name, directory in corpus_sets(root):
        if only and f"{source}/{name}" != only:
            continue
        row = measure_set(source, name, directory)
        row.update(kinds.get(row["set"], {"kind": "?", "known_good": "?"}))
        row["fabric"] = is_fabric(row)
        rows.append(row)
        print(f"  {row['set']}: {row['outcome']}", file=sys.stderr, flush=True)
    fabric = fabric_totals(rows)
    for row in rows:
        row.pop("_all_kinds", None)
    return {"rows": rows, "totals": totals(rows), "fabric": fabric}


def is_fabric(row: dict) -> bool:
    """A set of issue 25's target population: known-good and of a fabric kind (SOURCES.md, "Fabric devices")."""
    return row.get("known_good") == "yes" and str(row.get("kind", "")).startswith(FABRIC_KIND_PREFIXES)


def platform_sums(rows: list[dict]) -> dict[str, dict[str, int]]:
    platforms: dict[str, dict[str, int]] = {}
    for row in rows:
        for platform, counts in row["platforms"].items():
            into = platforms.setdefault(platform, {"devices": 0, "lines": 0, "unmodelled": 0, "out_of_scope": 0})
            for key, value in counts.items():
                into[key] += value
    return platforms


def fabric_totals(rows: list[dict]) -> dict:
    """The target's figure per platform: devices, config lines, out of scope, unmodelled, and the unmodelled
    percentage of the in-scope lines; the line kinds most often unmodelled."""
    fabric = [row for row in rows if row.get("fabric")]
    platforms = platform_sums(fabric)
    for counts in platforms.values():
        counts["in_scope"] = counts["lines"] - counts["out_of_scope"]
    kinds: dict[str, int] = {}
    for row in fabric:
        for kind, count in row.get("_all_kinds", row["unmodelled_kinds"]).items():
            kinds[kind] = kinds.get(kind, 0) + count
    return {"sets": [row["set"] for row in fabric], "platforms": platforms,
            "lines": sum(counts["lines"] for counts in platforms.values()),
            "out_of_scope": sum(counts["out_of_scope"] for counts in platforms.values()),
            "in_scope": sum(counts["in_scope"] for counts in platforms.values()),
            "unmodelled": sum(counts["unmodelled"] for counts in platforms.values()),
            "devices": sum(counts["devices"] for counts in platforms.values()),
            "round_trip_failures": {f"{row['set']}/{key}": why for row in fabric
                                    for key, why in row.get("round_trip_failures", {}).items()},
            "kinds": dict(sorted(kinds.items(), key=lambda item: (-item[1], item[0])))}


def totals(rows: list[dict]) -> dict:
    platforms = platform_sums(rows)
    checks = {status: sum(row["checks"][status] or 0 for row in rows)
              for status in (CheckStatus.PASSED, CheckStatus.FAILED, CheckStatus.SKIPPED)}
    cpu_s = sum(row["cpu_s"] for row in rows)
    lines = sum(row["config_lines"] for row in rows)
    return {
        "sets": len(rows), "files": sum(row["files"] for row in rows), "devices": sum(row["devices"] for row in rows),
        "devices_read": sum(counts["devices"] for counts in platforms.values()),
        "devices_refused": sum(len(row["refused"]) for row in rows),
        "devices_crashed": sum(len(row["crashed"]) for row in rows),
        "devices_dropped": sum(len(row["dropped"]) for row in rows),
        "round_trip_failures": sum(len(row.get("round_trip_failures", {})) for row in rows),
        "sets_report": sum(1 for row in rows if row["outcome"] == "report"),
        "sets_refused": sum(1 for row in rows if row["outcome"].startswith("refused")),
        "sets_traceback": sum(1 for row in rows if " in " in row["outcome"]),
        "config_lines": lines, "platforms": platforms,
        "unmodelled": sum(counts["unmodelled"] for counts in platforms.values()),
        "out_of_scope": sum(counts["out_of_scope"] for counts in platforms.values()),
        "read_lines": sum(counts["lines"] for counts in platforms.values()),
        "errors": sum(row["errors"] or 0 for row in rows), "warnings": sum(row["warnings"] or 0 for row in rows),
        "errors_known_good": sum(row["errors"] or 0 for row in rows if row.get("known_good") == "yes"),
        "unmodelled_known_good": sum(counts["unmodelled"] for row in rows if row.get("known_good") == "yes"
                                     for counts in row["platforms"].values()),
        "read_lines_known_good": sum(counts["lines"] for row in rows if row.get("known_good") == "yes"
                                     for counts in row["platforms"].values()),
        "out_of_scope_known_good": sum(counts["out_of_scope"] for row in rows if row.get("known_good") == "yes"
                                       for counts in row["platforms"].values()),
        "checks": checks, "cpu_s": round(cpu_s, 2), "lines_per_cpu_s": round(lines / cpu_s) if cpu_s else None,
    }


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "-"


def _unmodelled_cell(platforms: dict[str, dict[str, int]]) -> str:
    # Out-of-scope lines are neither modelled nor unmodelled: out of the denominator, shown beside it.
    return "; ".join(f"{platform} {counts['unmodelled']:,}/{counts['lines'] - counts.get('out_of_scope', 0):,} "
                     f"({_percent(counts['unmodelled'], counts['lines'] - counts.get('out_of_scope', 0))})"
                     + (f" + {counts['out_of_scope']:,} out of scope" if counts.get("out_of_scope") else "")
                     for platform, counts in sorted(platforms.items())) or "-"


def _cell(value) -> str:
    return "-" if value is None else f"{value:,}" if isinstance(value, int) else str(value)


def table(result: dict) -> str:
    lines = [
        "| set | kind | known-good | files | devices | read | refused | dropped | outcome | config lines | "
        "unmodelled (per platform) | errors | warnings | checks passed / failed / skipped | lines per CPU s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        read = sum(counts["devices"] for counts in row["platforms"].values())
        checks = row["checks"]
        lines.append(
            f"| {row['set']} | {row['kind']} | {row['known_good']} | {row['files']} | {row['devices']} | {read} | "
            f"{len(row['refused']) + len(row['crashed'])} | {len(row['dropped'])} | {row['outcome']} | "
            f"{row['config_lines']:,} | {_unmodelled_cell(row['platforms'])} | {_cell(row['errors'])} | "
            f"{_cell(row['warnings'])} | {_cell(checks['passed'])} / {_cell(checks['failed'])} / "
            f"{_cell(checks['skipped'])} | {_cell(row['lines_per_cpu_s'])} |")
    total = result["totals"]
    checks = total["checks"]
    lines.append(
        f"| **totals ({total['sets']} sets)** | | | {total['files']:,} | {total['devices']:,} | "
        f"{total['devices_read']:,} | {total['devices_refused'] + total['devices_crashed']:,} | "
        f"{total['devices_dropped']:,} | {total['sets_report']} report, {total['sets_refused']} refused, "
        f"{total['sets_traceback']} traceback | {total['config_lines']:,} | "
        f"{total['unmodelled']:,}/{total['read_lines'] - total['out_of_scope']:,} "
        f"({_percent(total['unmodelled'], total['read_lines'] - total['out_of_scope'])}): "
        f"{_unmodelled_cell(total['platforms'])} | {total['errors']:,} ({total['errors_known_good']:,} on known-good) | "
        f"{total['warnings']:,} | {checks['passed']} / {checks['failed']} / {checks['skipped']} | "
        f"{_cell(total['lines_per_cpu_s'])} |")
    return "\n".join(lines)


def details(result: dict) -> str:
    """Why: each traceback's frame and message, each refusal, each device refused one by one (grouped)."""
    out = ["### Tracebacks and refusals of validate --configs", ""]
    for row in result["rows"]:
        if row["outcome"] != "report":
            where = f" at {row['frame']}" if row["frame"] else ""
            out.append(f"- {row['set']}: {row['outcome']}{where}: {row['message'][:200]}")
        if row["dropped"]:
            out.append(f"- {row['set']}: silently dropped {len(row['dropped'])}: {', '.join(row['dropped'][:8])}"
                       + (" ..." if len(row["dropped"]) > 8 else ""))
    out += ["", "### Devices refused when parsed one by one (reason, first words; count)", ""]
    reasons: dict[str, list[str]] = {}
    for row in result["rows"]:
        for key, reason in {**row["refused"], **row["crashed"]}.items():
            short = _without_names(reason.split("\n")[0], key)[:140]
            reasons.setdefault(short, []).append(f"{row['set']}/{key}")
    for reason, keys in sorted(reasons.items(), key=lambda item: -len(item[1])):
        out.append(f"- {len(keys)} x {reason} (e.g. {keys[0]})")
    out += ["", f"### render(parse(text)) round-trip failures, every set ({result['totals']['round_trip_failures']} "
            "devices; the allowed ones and why: tests/validation/test_corpus_round_trip.py)", ""]
    for row in result["rows"]:
        for key, why in sorted(row.get("round_trip_failures", {}).items()):
            out.append(f"- {row['set']}/{key}: {why[:200]}")
    return "\n".join(out)


def _without_names(reason: str, key: str) -> str:
    """A refusal's reason without the exception type and the file names, so equal reasons group together."""
    kind, _, rest = reason.partition(": ")
    names, separator, why = rest.partition(": ")
    if separator and (key in names or "." in names or "," in names):
        rest = why
    return re.sub(r"'[^']*'", "'…'", f"{kind}: {rest}")  # the values differ, the reason is the same


def markdown(result: dict) -> str:
    return ("# Public corpus: validate --configs on configs this project did not write\n\n"
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; sets and sources: tests/data/corpus/SOURCES.md. "
            "`python -m bench.corpus_bench --write`.\n\n"
            "read = devices parsed one by one; refused = not read (reason below); dropped = device keys the "
            "report lost without a word (or a refusal that names no device); outcome = how `validate --configs` "
            "ended on the set; unmodelled = lines the parsers did not model / config lines of the devices read "
            "(config_db.json: table rows); errors, warnings and checks count only where the run ended in a report "
            "(a traceback or a refusal reports nothing); lines per CPU s = config lines / CPU time of the whole "
            "path (a run cut short by a traceback or refusal is cheaper than a whole one).\n\n"
            + table(result) + "\n\n" + known_good(result["totals"]) + "\n\n" + fabric_table(result["fabric"])
            + "\n\n" + details(result) + "\n")


def known_good(total: dict) -> str:
    in_scope = total["read_lines_known_good"] - total["out_of_scope_known_good"]
    percent = _percent(total["unmodelled_known_good"], in_scope)
    return (f"Known-good sets (SOURCES.md): unmodelled {total['unmodelled_known_good']:,} of {in_scope:,} in-scope "
            f"lines read ({percent}; {total['out_of_scope_known_good']:,} out-of-scope access-port lines apart); "
            f"{total['errors_known_good']} error findings "
            "on those that ended in a report, judged one by one in tests/data/corpus/JUDGED.md (rerun it when this count changes).")


def fabric_table(fabric: dict, kinds_shown: int = 15) -> str:
    """Issue 25's target per platform, with the line kinds still unmodelled most often."""
    lines = ["### Fabric devices: unmodelled lines (target <= 10 %)", "",
             f"Sets (SOURCES.md, \"Fabric devices\"): {', '.join(fabric['sets'])}. Out of scope: the access-port "
             f"features of bench.corpus_bench.OUT_OF_SCOPE ({', '.join(name for name, _ in OUT_OF_SCOPE)}), "
             "counted apart and left out of the denominator.", "",
             "| platform | devices | config lines | out of scope | in-scope lines | unmodelled | unmodelled % |",
             "|---|---|---|---|---|---|---|"]
    for platform in ("eos", "frr", "sonic"):
        counts = fabric["platforms"].get(platform)
        if counts is None:
            lines.append(f"| {platform} | 0 | - | - | - | - | no known-good fabric set in the corpus |")
            continue
        lines.append(f"| {platform} | {counts['devices']:,} | {counts['lines']:,} | {counts['out_of_scope']:,} | "
                     f"{counts['in_scope']:,} | {counts['unmodelled']:,} | "
                     f"{_percent(counts['unmodelled'], counts['in_scope'])} |")
    lines.append(f"| **all** | | {fabric['lines']:,} | {fabric['out_of_scope']:,} | {fabric['in_scope']:,} | "
                 f"{fabric['unmodelled']:,} | **{_percent(fabric['unmodelled'], fabric['in_scope'])}** |")
    shown = list(fabric["kinds"].items())[:kinds_shown]
    lines += ["", "Most frequent unmodelled line kinds there: "
              + "; ".join(f"`{kind}` {count:,}" for kind, count in shown) + "."]
    failures = fabric.get("round_trip_failures", {})
    lines += ["", f"`render(parse(text))` on these devices (no `None` printed, our parser reads it back): "
              f"{fabric.get('devices', 0) - len(failures):,} of {fabric.get('devices', 0):,} round-trip"
              + (f"; failing: {', '.join(sorted(failures)[:8])}" if failures else "") + "."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="store bench/results/corpus.md and corpus.json")
    parser.add_argument("--baseline", action="store_true", help="also store bench/results/corpus-baseline.md")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON line last")
    parser.add_argument("--only", metavar="SOURCE/SET", help="one set")
    parser.add_argument("--kinds", type=int, metavar="N", help="print the N most frequent unmodelled line kinds on "
                        "the fabric devices")
    args = parser.parse_args(argv)
    result = run(args.only)
    text = markdown(result)
    if args.kinds:
        for kind, count in list(result["fabric"]["kinds"].items())[:args.kinds]:
            print(f"{count:7,}  {kind}", file=sys.stderr)
    if args.write or args.baseline:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "corpus.md").write_text(text)
        (RESULTS / "corpus.json").write_text(json.dumps(result, indent=1, default=str) + "\n")
        if args.baseline:
            (RESULTS / "corpus-baseline.md").write_text(text)
    print(text)
    if args.json:
        print(json.dumps(result, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
