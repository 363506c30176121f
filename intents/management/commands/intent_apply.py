"""manage.py intent_apply FILE.yaml: create or update a fabric intent (with its tenants, networks and RoCE classes)
from the scenario YAML shape (compiler.scenario; tests/golden/<scenario>/intent.yaml)."""

from pathlib import Path

import yaml
from django.core.management.base import BaseCommand, CommandError

from compiler.clos import plan_clos
from compiler.pods import plan_pods
from compiler.scenario import clos_params, pods_params
from intents import services
from inventory.models import Fabric
from inventory.services import inventory_persist

from ._common import command_errors


class Command(BaseCommand):
    help = ("Apply a fabric intent YAML ({intent: {name, pools, bgp, tenants, networks, roce_classes, ...}}). "
            "Declarative: tenants, networks and RoCE classes absent from the file are removed.")

    def add_arguments(self, parser):
        parser.add_argument("file", help="Scenario/intent YAML file")
        parser.add_argument("--fabric", help="Inventory fabric (default: intent.inventory_fabric, then clos.name)")
        parser.add_argument("--build-inventory", action="store_true",
                            help="Plan and persist the file's clos: (or 5-stage pods:) section first (creates or grows the fabric)")

    def handle(self, *args, **options):
        path = Path(options["file"])
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
            raise CommandError(f"cannot read {path}: {error}") from None
        except RecursionError:
            raise CommandError(f"cannot read {path}: nested too deeply") from None
        if not isinstance(data, dict):
            raise CommandError(f"{path}: expected a mapping with an 'intent:' section, got {type(data).__name__}")
        with command_errors(f"intent_apply {path}", source=str(path)):
            fabric = None
            if options["build_inventory"]:
                if "pods" in data:  # a 5-stage Clos (compiler.scenario.pods_params)
                    params = pods_params(data["pods"])
                    inventory_persist(inventory=plan_pods(params))
                    fabric = Fabric.objects.get(name=params.name)
                elif "clos" in data:
                    inventory_persist(inventory=plan_clos(clos_params(data["clos"])))
                    fabric = Fabric.objects.get(name=clos_params(data["clos"]).name)
                else:
                    raise CommandError(f"{path} has no clos: or pods: section to build the inventory from")
            if options["fabric"]:
                fabric = Fabric.objects.filter(name=options["fabric"]).first()
                if fabric is None:
                    raise CommandError(f"--fabric {options['fabric']!r}: no inventory fabric of this name")
            fabric_intent = services.fabric_intent_apply(data=data, fabric=fabric)
        self.stdout.write(self.style.SUCCESS(
            f"fabric intent {fabric_intent.name} on {fabric_intent.fabric.name}: "
            f"{fabric_intent.tenants.count()} tenants, {fabric_intent.networks.count()} networks, "
            f"{fabric_intent.roce_classes.count()} RoCE classes"))
