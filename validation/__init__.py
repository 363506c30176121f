"""Static validation runs: compile a fabric intent, run validators.run.validate_fabric, store the report."""
