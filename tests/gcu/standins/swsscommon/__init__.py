"""Stand-in for SONiC's swsscommon Python binding (no Redis here): see swsscommon.swsscommon."""
