"""Stand-in for utilities_common.general: the database config is SONiC's Redis layout, which a dry run never uses."""


def load_db_config():
    return None
