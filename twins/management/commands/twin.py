"""`manage.py twin up|status|down|check|inject|fidelity`: the live twin of a fabric intent from the shell.

    manage.py twin up --fabric ref [--engine netns|containerlab] [--failover]
    manage.py twin status --fabric ref --format json
    manage.py twin check --fabric ref [--failover]              # exit 1 when a live check failed
    manage.py twin inject --fabric ref --kind spine [--target spine2]
    manage.py twin fidelity --fabric ref [--n-minus-1 all]      # exit 1 when twin and validators disagree
    manage.py twin down --fabric ref [--force]

Where the machine cannot run the twin (no root, no FRR, no `ip netns`) every action prints
"skipped: <reason>" and exits 0: a skip is never reported as passed.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from compiler.errors import FabricTwinError, InputError
from intents.selectors import fabric_intent_resolve
from labs.frr_binaries import CHOICES as FRR_CHOICES
from labs.node_configs import summary_text
from twins import services
from twins.api.serializers import TwinSerializer
from twins.choices import InjectionKindChoices, TwinEngineChoices, TwinStatusChoices
from twins.selectors import twin_of
from validators.findings import CheckStatus, Severity

ACTIONS = ("up", "status", "down", "check", "inject", "fidelity")


class Command(BaseCommand):
    help = "Boot, inspect, check, break, compare with the validators, and remove a fabric intent's live twin."

    def add_arguments(self, parser):
        parser.add_argument("action", choices=ACTIONS, help="what to do: %(choices)s")
        parser.add_argument("--fabric", help="fabric intent name (or inventory fabric with one intent); "
                                             "default: the only intent")
        parser.add_argument("--engine", choices=TwinEngineChoices.values, default=TwinEngineChoices.NETNS,
                            help="how the twin runs: %(choices)s (default %(default)s)")
        parser.add_argument("--force", action="store_true", help="down: also remove this installation's leftovers (ownership markers, "
                                                                  "never another installation's)")
        parser.add_argument("--failover", action="store_true", help="up/check: also inject link and spine failures")
        parser.add_argument("--subset", default="", help="up: boot every spine and super-spine plus these leaves: "
                            "comma-separated leaf names, leaves:N, per-pod:N, pod:P, rail:R, or ci (= per-pod:2, the "
                            "CI-sized default); the report lists what was left out")
        parser.add_argument("--kind", choices=InjectionKindChoices.values, default=InjectionKindChoices.LINK,
                            help="inject: what fails, %(choices)s (default %(default)s)")
        parser.add_argument("--target", help="inject: leaf1:Ethernet63/1 (link) or spine2 (spine)")
        parser.add_argument("--n-minus-1", dest="n_minus_1", choices=("sample", "all", "none"), default="sample",
                            help="fidelity: which static what-if failures to repeat in the twin")
        parser.add_argument("--format", choices=("text", "json"), default="text",
                            help="output: %(choices)s (default %(default)s)")
        parser.add_argument("--frr", choices=FRR_CHOICES, default=None,
                            help="up: which FRR the switches run: 10.3 (extracted by scripts/frr10.sh), 8.4 (the "
                                 "system's) or auto (10.3 when extracted, else 8.4; default, or FT_TWIN_FRR)")

    def handle(self, *args, **options):
        self.format = options["format"]
        try:
            fabric_intent = fabric_intent_resolve(options["fabric"])
            outcome = getattr(self, f"do_{options['action']}")(fabric_intent, options)
        except services.TwinUnavailable as error:
            self._emit({"skipped": True, "reason": str(error)}, str(error))
            return
        except InputError as error:
            raise CommandError(f"invalid input: {error}") from error
        except FabricTwinError as error:
            raise CommandError(str(error)) from error
        if outcome is False:
            raise CommandError(f"twin {options['action']}: failed (see above)")

    # ------------------------------------------------------------------------------------------------ output

    def _emit(self, data, text: str) -> None:
        if self.format == "json":
            self.stdout.write(json.dumps(data, indent=2, sort_keys=True, default=str))
        else:
            self.stdout.write(text)

    def _twin(self, fabric_intent, options):
        twin = twin_of(fabric_intent=fabric_intent, engine=options["engine"])
        if twin is None:
            raise FabricTwinError(f"{fabric_intent.name} has no {options['engine']} twin: run `twin up` first")
        return twin

    def _report_text(self, twin) -> str:
        report = twin.last_report or {}
        lines = [f"twin {twin.prefix} ({twin.fabric_intent.name}, {twin.engine}): {twin.status} "
                 f"({services.twin_status_reason(twin=twin)}); {services.twin_runs_text(twin=twin)}; "
                 f"{twin.switches} switches, {twin.hosts} hosts; boot {twin.boot_s}s, converged {twin.converge_s}s "
                 f"after daemon start, FRR RSS {twin.rss_mb} MiB"]
        for check in report.get("checks", []):
            detail = f" ({check['reason']})" if check.get("reason") else ""
            lines.append(f"  [{check['status'].upper():7}] {check['name']}{detail}")
            for finding in check["findings"]:
                if finding["severity"] != Severity.INFO or check["status"] != CheckStatus.PASSED:
                    lines.append(f"      {finding['severity']:7} {finding['subject']}: {finding['message']}")
        lines += _device_config_lines((twin.last_measured or {}).get("device_configs") or {})
        return "\n".join(lines)

    # ------------------------------------------------------------------------------------------------ actions

    def do_up(self, fabric_intent, options):
        twin = services.twin_up(fabric_intent=fabric_intent, engine=options["engine"], failover=options["failover"],
                                subset=options["subset"], frr=options["frr"])
        self._emit(self._as_dict(twin), self._report_text(twin))
        return twin.status == TwinStatusChoices.UP  # degraded (a live check failed) exits 1 like `check`

    def do_status(self, fabric_intent, options):
        twin = twin_of(fabric_intent=fabric_intent, engine=options["engine"])
        if twin is None:
            self._emit({"fabric_intent": fabric_intent.name, "status": TwinStatusChoices.DOWN.value, "healthy": False,
                        "twin": None},
                       f"{fabric_intent.name}: no {options['engine']} twin (down)")
            return True
        live = services.twin_status(twin=twin)
        self._emit(live, "\n".join([self._status_line(twin, live),
                                     *_device_config_lines(live.get("device_configs") or {})]))
        return True

    @staticmethod
    def _status_line(twin, live: dict) -> str:
        """One line, one vocabulary (twins.choices.TwinStatusChoices): the status word, why, what the switches
        run; the runtime's liveness only where it adds something (dead daemons, missing namespaces)."""
        line = (f"twin {twin.prefix} ({twin.fabric_intent.name}, {twin.engine}): {live['status']} "
                f"({live['reason']}); {services.twin_runs_text(twin=twin)}")
        if live.get("exists"):
            line += f"; {live.get('switches')} switches, {live.get('hosts')} hosts, up {live.get('uptime_s')}s"
            frr = live.get("frr") or {}
            if frr.get("version"):  # which FRR the switches run (labs.frr_binaries: read from the binary)
                line += f"; FRR {frr['version']}"
        if live.get("dead_daemons"):
            line += f"; dead daemons {live['dead_daemons']}"
        if live.get("missing_namespaces"):
            line += f"; missing namespaces {live['missing_namespaces'][:5]}"
        if live.get("exists") is None and live.get("detail"):
            line += f"; {live['detail']}"
        return line

    def do_down(self, fabric_intent, options):
        summary = services.twin_down(twin=self._twin(fabric_intent, options), force=options["force"])
        self._emit(summary, " ".join(f"{key}={value}" for key, value in summary.items()))
        return True

    def do_check(self, fabric_intent, options):
        twin = services.twin_check(twin=self._twin(fabric_intent, options), failover=options["failover"])
        self._emit(self._as_dict(twin), self._report_text(twin))
        return twin.last_report.get("ok", False)

    def do_inject(self, fabric_intent, options):
        result = services.twin_inject(twin=self._twin(fabric_intent, options), kind=options["kind"],
                                      target=options["target"])
        lines = [f"{check['name']}: {check['status']}" + "".join(f"\n  {f['severity']} {f['message']}"
                                                                   for f in check["findings"])
                 for check in result["report"]["checks"]]
        self._emit(result, "\n".join(lines))
        return result["report"]["ok"]

    def do_fidelity(self, fabric_intent, options):
        result = services.twin_fidelity(twin=self._twin(fabric_intent, options), n_minus_1=options["n_minus_1"])
        lines = [f"fidelity: {result['disagreements']} disagreements, {result['agreed_failures']} faults both "
                 f"sides agree on; static validators: {result['static']['counts']}"]
        for check in result["report"]["checks"]:
            lines.append(f"  [{check['status'].upper():7}] {check['name']}")
            lines += [f"      {f['severity']:7} {f['subject']}: {f['message']}" for f in check["findings"]]
        self._emit(result, "\n".join(lines))
        return result["disagreements"] == 0

    @staticmethod
    def _as_dict(twin) -> dict:
        return dict(TwinSerializer(twin).data)


def _device_config_lines(device_configs: dict) -> list[str]:
    """What each switch runs: its own config, live parts and static-only parts (labs.node_configs)."""
    if not device_configs:
        return []
    return ["  what each switch runs:"] + [f"    {summary_text(host, summary)}"
                                           for host, summary in sorted(device_configs.items())]
