"""Stand-in for swsscommon.swsscommon. A dry run never writes CONFIG_DB; GCU's PORT validator reads STATE_DB
``PORT_TABLE`` supported_speeds / supported_fecs, which this switch does not advertise (an empty answer: GCU then
accepts any speed and its default FEC list, as on a switch whose STATE_DB lacks those fields). portconfig reads
CONFIG_DB first and falls back to the HwSKU files when it is not reachable: ``connect`` fails, as at first boot."""


class ConfigDBConnector:
    def __init__(self, *args, **kwargs):
        pass

    def connect(self, *args, **kwargs):
        raise ConnectionError("no CONFIG_DB in the GCU test harness (tests/gcu/README.md)")


class DBConnector:
    def __init__(self, *args, **kwargs):
        pass


class Table:
    def __init__(self, db, table):
        self.table = table

    def hget(self, key, field):
        return (False, "")
