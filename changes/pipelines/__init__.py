"""Canary push and rolling upgrade, run by the durable runner (runner.py) with checks from checks.py."""
