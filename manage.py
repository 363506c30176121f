#!/usr/bin/env python
"""Django's command-line utility for Fabric Twin."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as error:
        # A setting missing or wrong (SECRET_KEY without DEBUG, a malformed variable) is one line saying what to
        # set, not a traceback through Django's settings import (issue #30 point 10).
        sys.stderr.write(f"manage.py: configuration error: {error}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
