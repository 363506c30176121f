"""The pure compiler: intent + inventory snapshot -> facts -> structured config -> rendered configs.

Never imports Django (enforced by tests/test_contracts.py).
"""
