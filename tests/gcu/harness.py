"""The test side of SONiC's Generic Config Updater (GCU) in the test suite: where it runs and how a test calls it.

GCU (sonic-utilities ``generic_config_updater``), sonic-yang-mgmt and sonic-config-engine are vendored unmodified in
tests/gcu/vendor/ (README.md there: repositories, paths, commits, licence). They need libyang 3 and its Python
binding: scripts/gcu-env.sh builds ``libyang==3.2.0`` (CESNET libyang-python: 3.1.0 plus exactly the three patches
sonic-buildimage applies in src/libyang3-py3) against Debian trixie's libyang 3.12.2, the version SONiC builds
(rules/libyang3.mk), into out/gcu/site. Trixie's libyang needs glibc 2.38, so GCU runs in its own process under
trixie's dynamic loader (extracted by scripts/frr10.sh); ``gcu_unavailable()`` says exactly what is missing, and the
tests skip with that reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RUNNER = HERE / "gcu_runner.py"
DEVICE_DIR = HERE / "device"
GCU_SITE = Path(os.environ.get("FT_GCU_DIR", REPO / "out" / "gcu")) / "site"  # scripts/gcu-env.sh builds it
TRIXIE_LIB = Path(os.environ.get("FT_FRR10_DIR", REPO / "out" / "frr" / "10.3")) / "root/usr/lib/x86_64-linux-gnu"
LOADER = TRIXIE_LIB / "ld-linux-x86-64.so.2"


@dataclass(frozen=True)
class SonicSwitch:
    """What a real switch tells about itself: its HwSKU files, /etc/sonic/sonic_version.yml and base MAC."""

    platform: str
    hwsku: str
    asic_type: str  # sonic_version.yml asic_type (the platform's device/<...>/platform_asic)
    build_version: str
    mac: str

    def environment(self, config_db_path: Path | None = None) -> dict[str, str]:
        env = {**os.environ, "FT_GCU_PLATFORM": self.platform, "FT_GCU_DEVICE_DIR": str(DEVICE_DIR),
               "FT_GCU_MAC": self.mac, "PYTHONPATH": str(GCU_SITE),
               "FT_GCU_VERSION_INFO": json.dumps({"asic_type": self.asic_type, "build_version": self.build_version}),
               "PATH": f"{HERE / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
        if config_db_path is not None:
            env["FT_GCU_CONFIG_DB"] = str(config_db_path)
        return env


@dataclass(frozen=True)
class GcuResult:
    accepted: bool
    error: str = ""


def _run(switch: SonicSwitch, args: list[str], *, config_db_path: Path | None = None) -> dict:
    command = [str(LOADER), "--library-path", str(TRIXIE_LIB), sys.executable, str(RUNNER), *args]
    result = subprocess.run(command, capture_output=True, text=True, env=switch.environment(config_db_path),
                            cwd=HERE, timeout=900)
    if result.returncode != 0:
        raise RuntimeError(f"GCU runner {args[0]} failed (rc={result.returncode}): {result.stderr[-3000:]}")
    return json.loads(result.stdout)


@cache
def gcu_unavailable() -> str | None:
    """None when GCU runs here, else the exact reason it cannot (a test skips with it)."""
    if not LOADER.exists():
        return f"Debian trixie's loader {LOADER} is missing: run scripts/frr10.sh (scripts/ensure-system.sh does)"
    if not (GCU_SITE / "libyang").is_dir():
        return f"the libyang 3 Python binding is not built in {GCU_SITE}: run scripts/gcu-env.sh"
    probe = SonicSwitch("", "", "vs", "", "")
    command = [str(LOADER), "--library-path", str(TRIXIE_LIB), sys.executable, str(RUNNER), "probe"]
    result = subprocess.run(command, capture_output=True, text=True, env=probe.environment(), cwd=HERE, timeout=300)
    if result.returncode != 0:
        return f"SONiC's sonic_yang does not load its YANG models here: {result.stderr.strip()[-500:]}"
    return None


def factory_config_db(switch: SonicSwitch) -> dict:
    """The CONFIG_DB a factory-fresh switch runs (gcu_runner.py ``factory``: SONiC's own first-boot logic)."""
    return _run(switch, ["factory", "--hwsku", switch.hwsku])


def gcu_dry_run(switch: SonicSwitch, running: dict, patch: list[dict]) -> GcuResult:
    """``config apply-patch --dry-run`` of ``patch`` on a switch running ``running`` (real GCU, unmodified)."""
    with tempfile.TemporaryDirectory(prefix="ft-gcu-") as scratch:
        config_db_path, patch_path = Path(scratch) / "config_db.json", Path(scratch) / "patch.json"
        config_db_path.write_text(json.dumps(running))
        patch_path.write_text(json.dumps(patch))
        answer = _run(switch, ["apply-patch", str(patch_path)], config_db_path=config_db_path)
    return GcuResult(accepted=answer["accepted"], error=answer.get("error", ""))
