"""The live twin: a fabric booted on Linux network namespaces + FRR, measured, and torn down.

``labs.topology`` is the plain input (what to boot), ``labs.runtime`` boots/inspects/removes it,
``labs.collectors`` reads FRR and kernel state as dicts, ``labs.measure`` takes every live measurement (one
function each), ``labs.expect`` says what the topology predicts, ``labs.checks`` (one module per property)
turns measurements vs expectations into findings and ``labs.fidelity`` compares the same measurements with the
validators' static prediction (``validators.prediction``).
No Django imports here: the ``manage.py twin`` command and Celery tasks wrap this package.
"""
