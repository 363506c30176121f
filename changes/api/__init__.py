"""REST API of the change pipelines (mounted under /api/)."""
