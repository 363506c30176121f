"""Stand-in for sonic_py_common.device_info: the switch's identity from the test.

FT_GCU_PLATFORM (DEVICE_METADATA platform), FT_GCU_DEVICE_DIR (a copy of sonic-buildimage ``device/<vendor>/``
laid out as /usr/share/sonic/device: ``<platform>/<hwsku>/``), FT_GCU_VERSION_INFO (JSON of
/etc/sonic/sonic_version.yml: asic_type, build_version), FT_GCU_MAC (the base MAC ``sonic-cfggen -H`` reads from
the hardware). ``get_path_to_port_config_file`` follows device_info.py at sonic-buildimage 086b03bd70f9 line for line.
"""

import json
import os

PLATFORM_JSON_FILE = "platform.json"
HWSKU_JSON_FILE = "hwsku.json"
PORT_CONFIG_FILE = "port_config.ini"
VS_PLATFORM = "x86_64-kvm_x86_64-r0"


def get_platform():
    return os.environ.get("FT_GCU_PLATFORM", "")


def get_path_to_platform_dir():
    return os.path.join(os.environ["FT_GCU_DEVICE_DIR"], get_platform())


def get_sonic_version_info():
    return json.loads(os.environ.get("FT_GCU_VERSION_INFO", "{}"))


def get_localhost_info(field, config_db=None):
    return None


def is_chassis():
    return False


def is_switch_bmc():
    return False


def is_smartswitch():
    return False


def get_system_mac(namespace=None, hostname=None):
    return os.environ["FT_GCU_MAC"]


def get_path_to_port_config_file(hwsku=None, asic=None):
    platform = get_platform()
    if not platform:
        return None
    platform_path = get_path_to_platform_dir()
    hwsku_path = os.path.join(platform_path, hwsku)
    port_config_candidates = []
    hwsku_json_file = os.path.join(hwsku_path, HWSKU_JSON_FILE)
    if os.path.isfile(hwsku_json_file):
        if os.path.isfile(os.path.join(platform_path, PLATFORM_JSON_FILE)):
            json_file = os.path.join(platform_path, PLATFORM_JSON_FILE)
            with open(json_file) as handle:
                platform_data = json.load(handle)
            interfaces = platform_data.get("interfaces", None)
            if interfaces is not None and len(interfaces) > 0:
                port_config_candidates.append(json_file)
    if asic:
        port_config_candidates.append(os.path.join(hwsku_path, asic, PORT_CONFIG_FILE))
    else:
        port_config_candidates.append(os.path.join(hwsku_path, PORT_CONFIG_FILE))
    for candidate in port_config_candidates:
        if os.path.isfile(candidate):
            return candidate
    return None
