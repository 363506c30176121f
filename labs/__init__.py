"""The live twin: a fabric booted on Linux network namespaces + FRR, measured, and torn down.

``labs.topology`` is the plain input (what to boot), ``labs.runtime`` boots/inspects/removes it,
``labs.collectors`` reads FRR and kernel state as dicts, ``labs.checks`` turns measurements into findings.
No Django imports here: the ``manage.py twin`` command and Celery tasks wrap this package.
"""
