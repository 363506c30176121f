"""Stand-in for sonic_py_common.logger.Logger: messages at or above the minimum priority go to stderr when asked to
print to the console (SONiC also writes them to syslog, which a test has no use for)."""

import sys


class Logger:
    LOG_PRIORITY_ERROR = 3
    LOG_PRIORITY_WARNING = 4
    LOG_PRIORITY_NOTICE = 5
    LOG_PRIORITY_INFO = 6
    LOG_PRIORITY_DEBUG = 7

    def __init__(self, log_identifier=None, log_facility=None, log_option=None, enable_runtime_config=False):
        self._identifier = log_identifier or "sonic"
        self._min_priority = self.LOG_PRIORITY_NOTICE

    def set_min_log_priority(self, priority):
        self._min_priority = priority

    def set_min_log_priority_debug(self):
        self.set_min_log_priority(self.LOG_PRIORITY_DEBUG)

    def set_min_log_priority_info(self):
        self.set_min_log_priority(self.LOG_PRIORITY_INFO)

    def set_min_log_priority_notice(self):
        self.set_min_log_priority(self.LOG_PRIORITY_NOTICE)

    def log(self, priority, msg, also_print_to_console=False):
        if priority <= self._min_priority and also_print_to_console:
            print(f"{self._identifier}: {msg}", file=sys.stderr)

    def log_error(self, msg, also_print_to_console=False):
        self.log(self.LOG_PRIORITY_ERROR, msg, also_print_to_console)

    def log_warning(self, msg, also_print_to_console=False):
        self.log(self.LOG_PRIORITY_WARNING, msg, also_print_to_console)

    def log_notice(self, msg, also_print_to_console=False):
        self.log(self.LOG_PRIORITY_NOTICE, msg, also_print_to_console)

    def log_info(self, msg, also_print_to_console=False):
        self.log(self.LOG_PRIORITY_INFO, msg, also_print_to_console)

    def log_debug(self, msg, also_print_to_console=False):
        self.log(self.LOG_PRIORITY_DEBUG, msg, also_print_to_console)
