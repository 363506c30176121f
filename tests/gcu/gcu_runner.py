"""Runs SONiC's own code (vendored unmodified under tests/gcu/vendor/) the way a SONiC switch runs it.

Run by tests/gcu/harness.py in a separate Python process: under Debian trixie's loader (libyang 3.12.2 needs glibc
2.38) with the libyang 3.2.0 Python binding of scripts/gcu-env.sh on PYTHONPATH. Two commands, each printing one
JSON document on stdout:

- ``factory``: the factory CONFIG_DB of a HwSKU as SONiC builds it at first boot (sonic-buildimage
  files/image_config/config-setup ``generate_config factory``: ``sonic-cfggen -H -k <HWSKU> --preset t1``, then
  ``config reload`` of that file over /etc/sonic/init_cfg.json, then db_migrator's version stamp). The PORT and
  BREAKOUT_CFG tables come from sonic-config-engine's own ``portconfig`` over the HwSKU's port_config.ini /
  hwsku.json / platform.json, the t1 preset from its own ``config_samples``; init_cfg.json is the image's
  template ``files/build_templates/init_cfg.json.j2`` rendered with the build's default options (BUILD_OPTIONS).
  Redis stores every value as a string and no empty table, so the document is what ``show runningconfiguration all``
  then prints.
- ``apply-patch``: ``config apply-patch --dry-run <patch>`` as sonic-utilities config/main.py runs it:
  ``generic_config_updater.main.apply_patch_from_file(..., dry_run=True)`` with its pre-processing (empty tables,
  duplicate leaf-list entries, YANG validation of the whole target), then GenericUpdater's PatchApplier over a
  DryRunConfigWrapper (field-operation validators, empty-table check, StrictPatchSorter with YANG validation of
  every step). Prints {"accepted": true} or {"accepted": false, "error": "<GCU's own message>"}.

The only things set from outside SONiC's code: the YANG model directory (gu_common.YANG_DIR and
SonicYangCfgDbGenerator's default, both /usr/local/yang-models on a switch), the device directory
(portconfig.PLATFORM_ROOT_PATH, /usr/share/sonic/device) and the platform services the stand-ins
in tests/gcu/standins/ and tests/gcu/bin/ answer for (README.md there).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import traceback
from contextlib import redirect_stdout
from pathlib import Path

HERE = Path(__file__).resolve().parent
YANG_DIR = HERE.parent / "schemas" / "sonic-yang"
for part in ("standins", "vendor/sonic-utilities", "vendor/sonic-yang-mgmt", "vendor/sonic-config-engine"):
    sys.path.insert(0, str(HERE / part))

# sonic-buildimage rules/config at 086b03bd70f9: the build options init_cfg.json.j2 reads (defaults of a
# standard image; the y/n flags as rules/config sets them).
BUILD_OPTIONS = {
    "default_buffer_model": "traditional", "include_p4rt": "n", "shutdown_bgp_on_start": "n",
    "enable_pfcwd_on_start": "n", "include_router_advertiser": "y", "include_lldp": "y", "include_snmp": "y",
    "include_teamd": "y", "include_dhcp_server": "n", "include_iccpd": "n", "include_mgmt_framework": "y",
    "include_mux": "y", "include_nat": "y", "include_restapi": "n", "include_sflow": "y", "include_macsec": "y",
    "include_system_gnmi": "y", "include_system_telemetry": "n", "include_system_otel": "y",
    "include_system_eventd": "y", "BUILD_REDUCE_IMAGE_SIZE": "n", "include_kubernetes": "n",
    "enable_auto_tech_support": "y",
}
# The systemd units a single-ASIC image installs for those features (has_global_scope in FEATURE).
INSTALLER_SERVICES = ("bgp.service database.service dhcp_relay.service eventd.service gnmi.service lldp.service "
                      "macsec.service mgmt-framework.service mux.service nat.service otel.service pmon.service "
                      "radv.service sflow.service snmp.service swss.service syncd.service teamd.service")
# sonic-utilities scripts/db_migrator.py at 691b1bbc4fd2: a fresh CONFIG_DB is stamped with the current version.
DB_VERSION = "version_202605_01"


def _strings(value):
    """CONFIG_DB as Redis holds it: every scalar a string (sonic-cfggen --write-to-db, then --print-data)."""
    if isinstance(value, dict):
        return {str(key): _strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_strings(item) for item in value]
    return str(value)


def _deep_update(target: dict, source: dict) -> dict:
    for key, value in source.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _deep_update(target[key], value)
        else:
            target[key] = value
    return target


def factory(hwsku: str) -> dict:
    import config_samples
    import jinja2
    import portconfig
    from sonic_py_common import device_info

    platform = device_info.get_platform()
    portconfig.PLATFORM_ROOT_PATH = os.environ["FT_GCU_DEVICE_DIR"]  # /usr/share/sonic/device on a switch
    data: dict = {"DEVICE_METADATA": {"localhost": {"hwsku": hwsku}}}
    port_config = device_info.get_path_to_port_config_file(hwsku)
    if port_config is None:
        raise SystemExit(f"no port_config.ini / platform.json for {platform}/{hwsku}")
    ports, _, _ = portconfig.get_port_config(hwsku, platform, port_config)
    if not ports:
        raise SystemExit(f"portconfig found no ports for {platform}/{hwsku} in {port_config}")
    data["PORT"] = ports
    breakout = portconfig.get_breakout_mode(hwsku, platform, port_config)
    if breakout is not None:
        data["BREAKOUT_CFG"] = breakout
    data["DEVICE_METADATA"]["localhost"].update(platform=platform, mac=device_info.get_system_mac())  # -H
    data = config_samples.generate_sample_config(data, "t1")
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "vendor" / "build_templates")),
                                     extensions=["jinja2.ext.do"])
    init_cfg = json.loads(environment.get_template("init_cfg.json.j2").render(
        **BUILD_OPTIONS, sonic_asic_platform=device_info.get_sonic_version_info()["asic_type"],
        installer_services=INSTALLER_SERVICES))
    running = _deep_update(init_cfg, _strings(data))  # config reload: -j init_cfg.json -j config_db.json
    running.setdefault("VERSIONS", {})["DATABASE"] = {"VERSION": DB_VERSION}
    # Redis holds no empty table: the preset's empty BGP_NEIGHBOR/DEVICE_NEIGHBOR never reach CONFIG_DB
    return _strings({table: entries for table, entries in running.items() if entries})


def apply_patch(patch_path: str) -> dict:
    import generic_config_updater.gu_common as gu_common
    import sonic_yang_cfg_generator
    from generic_config_updater.main import apply_patch_from_file

    gu_common.YANG_DIR = str(YANG_DIR)
    sonic_yang_cfg_generator.SonicYangCfgDbGenerator.__init__.__defaults__ = (str(YANG_DIR),)
    console = io.StringIO()
    try:
        with redirect_stdout(console):  # sonic_yang prints its errors; stdout carries only our JSON
            apply_patch_from_file(patch_path, config_format_name="CONFIGDB", verbose=False, dry_run=True,
                                  parallel=False, ignore_non_yang_tables=False, ignore_path=())
    except Exception as exc:  # GCU's own refusal (GenericConfigUpdaterError, ValueError subclasses...)
        return {"accepted": False, "error": f"{type(exc).__name__}: {exc}", "console": console.getvalue()[-4000:]}
    return {"accepted": True}


def main() -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("factory").add_argument("--hwsku", required=True)
    sub.add_parser("apply-patch").add_argument("patch")
    sub.add_parser("probe")
    args = parser.parse_args()
    try:
        if args.command == "factory":
            result = factory(args.hwsku)
        elif args.command == "apply-patch":
            result = apply_patch(args.patch)
        else:
            import libyang
            import sonic_yang
            sy = sonic_yang.SonicYang(str(YANG_DIR), print_log_enabled=False)
            sy.loadYangModel()
            result = {"libyang": libyang.__file__, "modules": len(sy.yangFiles), "tables": len(sy.confDbYangMap)}
    except Exception:
        print(traceback.format_exc(), file=sys.stderr)
        return 2
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("FT_GCU_VERSION_INFO", "{}")
    sys.exit(main())
