"""Secrets at rest and in the open: optional_args secrets encrypted, the per-install key, one redaction helper
for audit entries (as a viewer reads them through the API) and logs, and the upgrade migration."""

from __future__ import annotations

import base64
import importlib
import json
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from rest_framework.test import APIClient

from changes import audit, services
from changes.audit import audit_actor
from changes.credentials import credential_key, endpoint_options, endpoint_password, is_encrypted
from changes.drivers import driver_for_endpoint
from changes.models import AuditLog, DeviceEndpoint, Rollout, Step
from changes.pipelines import runner
from common.redaction import REDACTED, RedactSecretsFilter, is_secret_name, redact, redact_text, secret_remember
from common.roles import ADMIN, OPERATOR, VIEWER, roles_ensure
from compiler.errors import DriverError

pytestmark = pytest.mark.django_db
ENABLE_SECRET = "en4ble-S3cret-never-in-clear"
COMMUNITY = "c0mmunity-never-in-clear"
PASSWORD = "Pa55word-never-in-clear"
OPTIONS = {"path": "/tmp/recorded", "secret": ENABLE_SECRET, "transport": "https",
           "snmp": {"community": COMMUNITY, "version": "2c"}, "use_keys": True}


def _endpoint(**extra) -> DeviceEndpoint:
    with audit_actor(User.objects.create_user("carol")):
        return services.endpoint_create(hostname="leaf7", driver="napalm_mock", address="192.0.2.7",
                                        username="admin", password=PASSWORD, optional_args=dict(OPTIONS), **extra)


def _raw_tables_text() -> str:
    """Every row of every changes_* table as the database holds it."""
    rows = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            if table.startswith("changes_"):
                cursor.execute(f'SELECT * FROM "{table}"')  # table names from introspection
                rows.append(repr(cursor.fetchall()))
    return "\n".join(rows)


def test_secret_names_follow_one_pattern():
    for name in ("secret", "enable_secret", "password", "passwd", "ssh_passphrase", "api_key", "auth_token",
                 "snmp_community", "credentials", "private_key_file", "PASSWORD"):
        assert is_secret_name(name), name
    for name in ("path", "transport", "twin_prefix", "hostname", "port", "image_url", 3, None):
        assert not is_secret_name(name), name


def test_optional_args_secrets_are_encrypted_at_rest_and_decrypted_for_the_driver_only():
    endpoint = _endpoint()
    stored = DeviceEndpoint.objects.get(pk=endpoint.pk).optional_args
    assert stored["path"] == "/tmp/recorded" and stored["transport"] == "https" and stored["snmp"]["version"] == "2c"
    assert is_encrypted(stored["secret"]) and is_encrypted(stored["snmp"]["community"])
    assert is_encrypted(stored["use_keys"])  # by name; its type survives the round trip
    raw = _raw_tables_text()
    for clear in (ENABLE_SECRET, COMMUNITY, PASSWORD):
        assert clear not in raw
    # Saving again (admin form, shell) does not encrypt twice.
    again = DeviceEndpoint.objects.get(pk=endpoint.pk)
    again.save()
    assert DeviceEndpoint.objects.get(pk=endpoint.pk).optional_args == stored
    assert endpoint_options(again) == OPTIONS
    assert repr(endpoint_options(again)["secret"]) == "'***'"  # a traceback of connection kwargs shows no secret
    driver = driver_for_endpoint(again)
    assert driver._connection_args["optional_args"]["secret"] == ENABLE_SECRET
    assert driver._connection_args["password"] == PASSWORD


def test_a_viewer_reading_the_audit_log_sees_no_secret():
    roles_ensure()
    endpoint = _endpoint()
    endpoint.optional_args = {**endpoint_options(endpoint), "enable_password": "n3w-enable-password"}
    endpoint.save()  # an update: the audit row snapshots the new options
    audit.audit_record(action="update", instance=endpoint, message=f"pushed with {ENABLE_SECRET}",
                       changes={"note": f"operator pasted {PASSWORD} here", "token": "abc123456"})
    viewer = User.objects.create_user("vera")
    viewer.groups.add(Group.objects.get(name=VIEWER))
    client = APIClient()
    client.force_authenticate(viewer)
    response = client.get("/api/audit-log/", {"object_type": "changes.deviceendpoint"})
    assert response.status_code == 200
    rows = response.json()["results"]
    assert len(rows) == 3
    text = json.dumps(rows)
    for clear in (ENABLE_SECRET, COMMUNITY, PASSWORD, "n3w-enable-password", "abc123456"):
        assert clear not in text, clear
    created = rows[-1]["changes"]
    assert created["password_encrypted"] == REDACTED and created["optional_args"]["secret"] == REDACTED
    assert created["optional_args"]["snmp"] == {"community": REDACTED, "version": "2c"}
    assert created["hostname"] == "leaf7"  # everything else is still there to audit
    assert rows[0]["message"] == f"pushed with {REDACTED}"


def test_broken_redaction_would_be_caught(monkeypatch):
    """The deliberately broken case: with the redaction helper bypassed the same check finds the secrets."""
    monkeypatch.setattr(audit, "redact", lambda value, **kwargs: value)
    monkeypatch.setattr(audit, "redact_text", lambda text: text)
    endpoint = _endpoint()
    audit.audit_record(action="update", instance=endpoint, message=f"pushed with {ENABLE_SECRET}")
    text = json.dumps(list(AuditLog.objects.values("changes", "message")))
    assert ENABLE_SECRET in text


def test_logs_are_redacted_by_value_and_by_key(caplog):
    secret_remember("remembered-s3cret")
    logger = logging.getLogger("changes.test_secrets")
    record = logger.makeRecord(logger.name, logging.ERROR, __file__, 1,
                               "connect to %s failed: %r", ("leaf1", {"secret": "abc", "host": "leaf1"}), None)
    record_with_value = logger.makeRecord(logger.name, logging.ERROR, __file__, 1,
                                          "login with remembered-s3cret refused; enable_password=hunter22", (), None)
    log_filter = RedactSecretsFilter()
    assert log_filter.filter(record) and log_filter.filter(record_with_value)
    assert record.getMessage() == "connect to leaf1 failed: {'secret': '***', 'host': 'leaf1'}"
    assert record_with_value.getMessage() == "login with *** refused; enable_password=***"
    # The project's console handler carries the filter (settings.LOGGING).
    assert "redact_secrets" in settings.LOGGING["handlers"]["console"]["filters"]
    # Without the filter the same record shows the secret (the check above can fail).
    unfiltered = logger.makeRecord(logger.name, logging.ERROR, __file__, 1, "login with remembered-s3cret", (), None)
    assert "remembered-s3cret" in unfiltered.getMessage()


def test_tracebacks_in_logs_are_redacted():
    secret_remember("trace-s3cret")
    try:
        raise RuntimeError("device said: bad password trace-s3cret")
    except RuntimeError:
        import sys

        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    RedactSecretsFilter().filter(record)
    assert "trace-s3cret" not in record.exc_text and "RuntimeError" in record.exc_text


def test_redact_keeps_structure_and_empty_values():
    assert redact({"a": [{"token": "t0ken-value"}, "x"], "password": "", "n": 3}) == \
        {"a": [{"token": REDACTED}, "x"], "password": "", "n": 3}
    assert redact_text("api_key: 'abcdef' and community=public") == "api_key: '***' and community=***"


def test_key_file_is_created_once_0600_and_reused_across_restarts(credential_key_file, monkeypatch):
    monkeypatch.delenv("FT_CREDENTIAL_KEY", raising=False)
    assert not credential_key_file.exists()
    endpoint = _endpoint()
    assert stat.S_IMODE(credential_key_file.stat().st_mode) == 0o600
    key = credential_key_file.read_bytes()
    assert credential_key() == key.strip()
    # "Restart": nothing is cached in memory; the file is read again and the stored password still opens.
    assert endpoint_password(DeviceEndpoint.objects.get(pk=endpoint.pk)) == PASSWORD
    assert credential_key_file.read_bytes() == key  # never regenerated


def test_key_does_not_depend_on_secret_key(settings, monkeypatch):
    monkeypatch.delenv("FT_CREDENTIAL_KEY", raising=False)
    endpoint = _endpoint()
    settings.SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"  # the old public constant
    assert endpoint_password(DeviceEndpoint.objects.get(pk=endpoint.pk)) == PASSWORD
    legacy = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                  info=b"fabric-twin device credentials v1").derive(settings.SECRET_KEY.encode())
    assert credential_key() != base64.urlsafe_b64encode(legacy)


def test_a_readable_key_file_or_a_malformed_key_is_refused(credential_key_file, monkeypatch):
    monkeypatch.delenv("FT_CREDENTIAL_KEY", raising=False)
    credential_key()
    os.chmod(credential_key_file, 0o644)
    with pytest.raises(ImproperlyConfigured, match=r"FT_CREDENTIAL_KEY_FILE=.*mode 0644.*chmod 600"):
        credential_key()
    monkeypatch.setenv("FT_CREDENTIAL_KEY", "not-a-fernet-key-value")
    with pytest.raises(ImproperlyConfigured, match="FT_CREDENTIAL_KEY: not a Fernet key") as error:
        credential_key()
    assert "not-a-fernet-key-value" not in str(error.value)
    good = Fernet.generate_key().decode()
    monkeypatch.setenv("FT_CREDENTIAL_KEY", good)
    assert credential_key() == good.encode()


def test_upgrade_migration_encrypts_clear_options_and_rekeys_legacy_passwords(settings, monkeypatch):
    monkeypatch.delenv("FT_CREDENTIAL_KEY", raising=False)
    endpoint = _endpoint()
    legacy = Fernet(base64.urlsafe_b64encode(HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                                                   info=b"fabric-twin device credentials v1")
                                              .derive(settings.SECRET_KEY.encode())))
    # What an older version left in the table: a password under the SECRET_KEY-derived key, options in clear.
    DeviceEndpoint.objects.filter(pk=endpoint.pk).update(
        password_encrypted=legacy.encrypt(PASSWORD.encode()).decode(), optional_args=OPTIONS)
    assert ENABLE_SECRET in _raw_tables_text()
    migration = importlib.import_module("changes.migrations.0002_encrypt_endpoint_secrets")
    migration.encrypt_endpoint_secrets(apps, None)
    assert ENABLE_SECRET not in _raw_tables_text() and COMMUNITY not in _raw_tables_text()
    upgraded = DeviceEndpoint.objects.get(pk=endpoint.pk)
    assert endpoint_password(upgraded) == PASSWORD and endpoint_options(upgraded) == OPTIONS
    Fernet(credential_key()).decrypt(upgraded.password_encrypted.encode())  # now under the per-install key


# ------------------------------------------------------------------------------------------- the endpoints API

def _client_with_role(username: str, role: str | None) -> APIClient:
    roles_ensure()
    user = User.objects.create_user(username)
    if role:
        user.groups.add(Group.objects.get(name=role))
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_endpoint_credentials_are_write_only_in_the_api():
    admin = _client_with_role("ada", ADMIN)
    created = admin.post("/api/device-endpoints/", {
        "hostname": "leaf8", "driver": "napalm_mock", "address": "192.0.2.8", "username": "admin",
        "password": PASSWORD, "optional_args": OPTIONS}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert "password" not in body and body["has_password"] is True
    assert body["optional_args"] == {**OPTIONS, "secret": REDACTED, "snmp": {"community": REDACTED, "version": "2c"},
                                     "use_keys": REDACTED}
    listed = admin.get("/api/device-endpoints/").content.decode()
    for clear in (PASSWORD, ENABLE_SECRET, COMMUNITY):
        assert clear not in listed and clear not in created.content.decode() and clear not in _raw_tables_text()
    endpoint = DeviceEndpoint.objects.get(hostname="leaf8")
    assert endpoint_password(endpoint) == PASSWORD and endpoint_options(endpoint) == OPTIONS

    # Sending back what was read (secrets as ***) changes only what was edited; the password is kept.
    edited = {**body["optional_args"], "transport": "ssh"}
    updated = admin.patch(f"/api/device-endpoints/{endpoint.pk}/", {"optional_args": edited}, format="json")
    assert updated.status_code == 200, updated.content
    endpoint.refresh_from_db()
    assert endpoint_options(endpoint) == {**OPTIONS, "transport": "ssh"} and endpoint_password(endpoint) == PASSWORD
    # A new secret value replaces the stored one; an empty password clears it.
    admin.patch(f"/api/device-endpoints/{endpoint.pk}/", {"optional_args": {**edited, "secret": "n3w-s3cret"},
                                                          "password": ""}, format="json")
    endpoint.refresh_from_db()
    assert endpoint_options(endpoint)["secret"] == "n3w-s3cret" and endpoint_password(endpoint) == ""
    assert admin.get(f"/api/device-endpoints/{endpoint.pk}/").json()["has_password"] is False
    # *** where nothing is stored cannot be kept: a 400 naming the path, and nothing changes.
    before = DeviceEndpoint.objects.get(pk=endpoint.pk).optional_args
    refused = admin.patch(f"/api/device-endpoints/{endpoint.pk}/",
                          {"optional_args": {**edited, "snmp": {"community": REDACTED, "auth_key": REDACTED}}},
                          format="json")
    assert refused.status_code == 400
    assert list(refused.json()) == ["optional_args.snmp.auth_key"]
    assert DeviceEndpoint.objects.get(pk=endpoint.pk).optional_args == before


def test_endpoint_api_errors_are_400_naming_the_field_and_nothing_is_saved():
    admin = _client_with_role("ada", ADMIN)
    bad_driver = admin.post("/api/device-endpoints/", {"hostname": "leaf8", "driver": "telnet", "address": "x"},
                            format="json")
    assert bad_driver.status_code == 400 and "driver" in bad_driver.content.decode()
    bad_options = admin.post("/api/device-endpoints/", {"hostname": "leaf8", "driver": "napalm_mock",
                                                        "address": "x", "optional_args": ["secret", "x"]},
                             format="json")
    assert bad_options.status_code == 400 and "optional_args" in bad_options.json()
    assert not DeviceEndpoint.objects.exists()


@pytest.mark.parametrize("role", [VIEWER, OPERATOR, None])
def test_only_admins_reach_endpoints(role):
    _endpoint()
    client = _client_with_role("olga", role)
    assert client.get("/api/device-endpoints/").status_code == 403
    assert client.post("/api/device-endpoints/", {"hostname": "x", "driver": "napalm_mock", "address": "x"},
                       format="json").status_code == 403
    assert APIClient().get("/api/device-endpoints/").status_code == 401


LOGGING_PROBE = """
import logging, django
django.setup()
from common.redaction import secret_remember
secret_remember("zz-remembered-s3cret-zz")
try:
    raise RuntimeError("device refused zz-remembered-s3cret-zz")
except RuntimeError:
    logging.getLogger("django.request").exception("Internal Server Error: /api/x")
logging.getLogger("changes.drivers").warning("connect kwargs %s", {"enable_password": "clear-enable-pw"})
print("done")
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_configured_logging_prints_no_secret(debug, tmp_path):
    """End to end through settings.LOGGING (Django's loggers included, DEBUG on and off)."""
    env = {key: value for key, value in os.environ.items() if key not in {"DJANGO_SETTINGS_MODULE", "DEBUG"}}
    env.update({"DJANGO_SETTINGS_MODULE": "twin.settings", "DEBUG": debug, "SECRET_KEY": "q" * 40 + "-Zx9",
                "FT_DATA_DIR": str(tmp_path)})
    result = subprocess.run([sys.executable, "-c", LOGGING_PROBE], cwd=Path(__file__).resolve().parents[2],
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "done", result.stderr
    assert "Internal Server Error: /api/x" in result.stderr and "RuntimeError: device refused ***" in result.stderr
    assert "'enable_password': '***'" in result.stderr
    assert "zz-remembered-s3cret-zz" not in result.stderr and "clear-enable-pw" not in result.stderr


def test_an_empty_key_file_is_refused(credential_key_file, monkeypatch):
    monkeypatch.delenv("FT_CREDENTIAL_KEY", raising=False)
    credential_key_file.parent.mkdir(parents=True, exist_ok=True)
    credential_key_file.write_bytes(b"")
    credential_key_file.chmod(0o600)
    with pytest.raises(ImproperlyConfigured, match="FT_CREDENTIAL_KEY_FILE=.*the file is empty"):
        credential_key()


def test_step_output_and_rollout_errors_readable_by_viewers_are_redacted():
    _endpoint()  # the password is now a remembered secret of this process
    rollout = Rollout.objects.create(name="r", kind="canary_push", target="production", policy={}, plan={})
    step = Step.objects.create(rollout=rollout, device="leaf7", phase="push")
    runner._finish(step, "failed", f"DriverError: leaf7 said: login admin/{PASSWORD} refused; secret=abc")
    step.refresh_from_db()
    assert step.output == f"DriverError: leaf7 said: login admin/{REDACTED} refused; secret={REDACTED}"


def test_non_string_secret_options_are_not_remembered_as_text():
    """Only clear strings are redacted by value: use_keys=true is a secret by name, but "true" stays readable."""
    _endpoint()
    endpoint_options(DeviceEndpoint.objects.get(hostname="leaf7"))
    assert redact_text("bgp enabled: true, secret in text: " + ENABLE_SECRET) == \
        f"bgp enabled: true, secret in text: {REDACTED}"
    assert redact_text('"snmp": {"community": "c"}') == f'"snmp": {{"community": "{REDACTED}"}}'


# ------------------------------------------------------------------------------------------- key rotation

def _stored_tokens() -> list[bytes]:
    endpoint = DeviceEndpoint.objects.get(hostname="leaf7")
    return [endpoint.password_encrypted.encode(), endpoint.optional_args["secret"]["$fernet"].encode(),
            endpoint.optional_args["snmp"]["community"]["$fernet"].encode()]


def test_key_file_rotation_reencrypts_every_secret(credential_key_file, monkeypatch, capsys):
    monkeypatch.delenv("FT_CREDENTIAL_KEY", raising=False)
    _endpoint()
    old_key = credential_key()
    call_command("credential_key_rotate")
    assert "re-encrypted 4 secrets" in capsys.readouterr().out  # password, secret, community, use_keys
    new_key = credential_key_file.read_bytes().strip()
    assert new_key != old_key and b"\n" not in new_key  # the old key is gone from the file
    assert stat.S_IMODE(credential_key_file.stat().st_mode) == 0o600
    for token in _stored_tokens():
        Fernet(new_key).decrypt(token)
        with pytest.raises(InvalidToken):
            Fernet(old_key).decrypt(token)
    endpoint = DeviceEndpoint.objects.get(hostname="leaf7")
    assert endpoint_password(endpoint) == PASSWORD and endpoint_options(endpoint) == OPTIONS


def test_environment_key_rotation_and_the_missing_step(monkeypatch):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    monkeypatch.setenv("FT_CREDENTIAL_KEY", old)
    _endpoint()
    # The deliberately broken order: switching to the new key alone before re-encrypting loses access.
    monkeypatch.setenv("FT_CREDENTIAL_KEY", new)
    with pytest.raises(DriverError, match="cannot be decrypted"):
        endpoint_password(DeviceEndpoint.objects.get(hostname="leaf7"))
    with pytest.raises(CommandError, match="leaf7: a stored credential cannot be decrypted"):
        call_command("credential_key_rotate")
    # The documented order: NEW,OLD while re-encrypting, then NEW alone.
    monkeypatch.setenv("FT_CREDENTIAL_KEY", f"{new},{old}")
    call_command("credential_key_rotate")
    monkeypatch.setenv("FT_CREDENTIAL_KEY", new)
    endpoint = DeviceEndpoint.objects.get(hostname="leaf7")
    assert endpoint_password(endpoint) == PASSWORD and endpoint_options(endpoint) == OPTIONS
