"""The kernel every app builds on and which imports no app (issue #28): the one run record (models.RunRecord,
runs.py: RunStatus, run_execute, run_start, the reaper), the API plumbing (api, api_limits, api_schema,
versioning, tokens, security, redaction, keyfiles), the name grammar as Django validators (names.py) and
authorisation in one place (models.Capability: the capabilities as ``common.<codename>`` permissions; roles.py:
the groups holding them; policy.py: what each API
operation needs; choices.py: the target a capability can depend on). tests/test_layers.py holds the order."""
