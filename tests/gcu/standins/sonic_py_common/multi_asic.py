"""Stand-in for sonic_py_common.multi_asic: a single-ASIC switch (every catalogue SONiC HwSKU is one)."""

DEFAULT_NAMESPACE = ""


def is_multi_asic():
    return False


def get_namespace_list(namespace=None):
    return []


def get_num_asics():
    return 1


def get_asic_id_from_name(asic_name):
    raise ValueError(f"single-ASIC stand-in: no ASIC named {asic_name!r}")
