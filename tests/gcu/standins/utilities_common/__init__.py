"""Stand-in for sonic-utilities' utilities_common: only what generic_config_updater.main imports."""
