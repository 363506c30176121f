"""docker-compose.yml validates against the Compose Specification schema and has every service the stack needs."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
COMPOSE_SCHEMA = REPO_ROOT / "tests" / "schemas" / "compose-spec.json"  # copied in: tests/schemas/README.md


@pytest.fixture(scope="module")
def validator():
    if not COMPOSE_SCHEMA.exists():
        pytest.fail(f"Compose Specification schema missing: {COMPOSE_SCHEMA} (tests/schemas/README.md)")
    schema = json.loads(COMPOSE_SCHEMA.read_text())
    return jsonschema.Draft7Validator(schema)


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())


def _errors(validator, document) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(document)]


def test_compose_file_is_valid(validator, compose):
    assert _errors(validator, compose) == []


def test_a_broken_compose_file_is_rejected(validator, compose):
    broken = json.loads(json.dumps(compose))
    broken["services"]["web"]["ports"] = {"http": 8000}  # ports must be a list
    broken["services"]["redis"]["imagez"] = "redis:7"  # unknown key
    errors = _errors(validator, broken)
    assert any(error.startswith("services/web/ports") for error in errors)
    assert any("imagez" in error for error in errors)


def test_every_service_is_there(compose):
    services = compose["services"]
    assert {"web", "worker", "beat", "postgres", "redis", "batfish"} <= set(services)
    assert "gunicorn twin.wsgi:application" in " ".join(services["web"]["command"])
    assert services["worker"]["command"][:4] == ["celery", "-A", "twin", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "twin", "beat"]
    assert services["postgres"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")
    assert services["batfish"]["image"].startswith("batfish/allinone")
    web_env = services["web"]["environment"]
    assert web_env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in web_env["DATABASE_URL"]
    assert web_env["CELERY_BROKER_URL"] == "redis://redis:6379/0" and web_env["BATFISH_HOST"] == "batfish"


def test_dockerfile_builds_the_gunicorn_image():
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    assert "FROM python:3.11-slim" in dockerfile.splitlines()
    assert "pip install -r requirements.txt" in dockerfile
    assert '"gunicorn", "twin.wsgi:application"' in dockerfile
