"""Where a device endpoint's password may come from (changes.credentials.secret_source_problems, issue 29 item 4):
the encrypted column, a file inside FT_SECRET_DIR or a variable named FT_DEVICE_SECRET_*. An admin picks the
address a password is sent to, so any other file or variable would send the server's own secrets there; the
audit extracted SECRET_KEY, DATABASE_URL, the credential key file and /etc/shadow this way."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth.models import Group, User
from rest_framework.test import APIClient

from changes import credentials
from changes.credentials import endpoint_key_file, endpoint_password
from changes.models import DeviceEndpoint
from common.roles import ADMIN, roles_ensure
from compiler.errors import DriverError

pytestmark = pytest.mark.django_db
DEVICE_PASSWORD = "dev1ce-Pa55-from-the-secret-dir"


@pytest.fixture
def secret_dir(tmp_path, settings):
    root = tmp_path / "secrets"
    root.mkdir()
    (root / "leaf1.password").write_text(DEVICE_PASSWORD + "\n")
    (root / "leaf1.key").write_text("not a real key\n")
    (tmp_path / "server-secret").write_text("the-server-secret\n")
    (root / "escape").symlink_to(tmp_path / "server-secret")
    settings.FT_SECRET_DIR = str(root)
    return root


@pytest.fixture
def admin():
    roles_ensure()
    user = User.objects.create_user("ada")
    user.groups.add(Group.objects.get(name=ADMIN))
    client = APIClient()
    client.force_authenticate(user)
    return client


def _post(client, **fields):
    return client.post("/api/device-endpoints/", {"hostname": "leaf1", "driver": "napalm_mock",
                                                  "address": "192.0.2.1", **fields}, format="json")


@pytest.mark.parametrize(("field", "value"), [
    ("password_env", "SECRET_KEY"), ("password_env", "DATABASE_URL"), ("password_env", "FT_CREDENTIAL_KEY"),
    ("password_env", "FT_DEVICE_SECRET_"),  # the prefix alone names no device secret
    ("secret_file", "/etc/shadow"), ("secret_file", "../server-secret"), ("secret_file", "escape"),
    ("secret_file", "/proc/self/environ"), ("key_file", "/etc/ssh/ssh_host_ed25519_key"), ("key_file", "../x"),
])
def test_server_secrets_are_refused_as_a_400_naming_the_field(admin, secret_dir, field, value):
    response = _post(admin, **{field: value})
    assert response.status_code == 400, response.content
    assert list(response.json()) == [field] and repr(value) in response.json()[field][0]
    assert not DeviceEndpoint.objects.exists()


def test_allowed_sources_are_saved_and_read(admin, secret_dir, monkeypatch):
    monkeypatch.setenv("FT_DEVICE_SECRET_LEAF1", DEVICE_PASSWORD)
    response = _post(admin, password_env="FT_DEVICE_SECRET_LEAF1", key_file="leaf1.key")
    assert response.status_code == 201, response.content
    endpoint = DeviceEndpoint.objects.get(hostname="leaf1")
    assert endpoint_password(endpoint) == DEVICE_PASSWORD
    assert endpoint_key_file(endpoint) == str(secret_dir / "leaf1.key")
    for name in ("leaf1.password", str(secret_dir / "leaf1.password")):  # relative to the directory, or absolute
        update = admin.patch(f"/api/device-endpoints/{endpoint.pk}/", {"password_env": "", "secret_file": name},
                             format="json")
        assert update.status_code == 200, update.content
        assert endpoint_password(DeviceEndpoint.objects.get(pk=endpoint.pk)) == DEVICE_PASSWORD


def test_the_server_key_files_are_refused_even_inside_the_secret_dir(admin, settings, tmp_path):
    """A deployment that points FT_SECRET_DIR at (or above) FT_DATA_DIR still cannot hand out its own keys."""
    settings.FT_SECRET_DIR = str(tmp_path)
    settings.FT_DATA_DIR = tmp_path / "data"
    settings.FT_DATA_DIR.mkdir()
    (settings.FT_DATA_DIR / "secret_key").write_text("the-secret-key\n")
    settings.FT_CREDENTIAL_KEY_FILE = tmp_path / "credential.key"
    settings.FT_CREDENTIAL_KEY_FILE.write_text("key\n")
    (tmp_path / "leaf1.password").write_text(DEVICE_PASSWORD + "\n")
    for name in ("data/secret_key", "credential.key", str(settings.FT_CREDENTIAL_KEY_FILE)):
        response = _post(admin, secret_file=name)
        assert response.status_code == 400 and "key files" in response.json()["secret_file"][0], name
    assert _post(admin, secret_file="leaf1.password").status_code == 201


def test_without_a_secret_dir_no_file_is_accepted(admin, settings, tmp_path):
    settings.FT_SECRET_DIR = ""
    (tmp_path / "pw").write_text("x\n")
    response = _post(admin, secret_file=str(tmp_path / "pw"))
    assert response.status_code == 400 and "FT_SECRET_DIR is not set" in response.json()["secret_file"][0]


def test_a_row_stored_before_the_rule_is_refused_when_used(secret_dir, monkeypatch):
    """Rows written before this version (or with the model's save, which skips clean) are checked again at use."""
    monkeypatch.setenv("SECRET_KEY", "the-server-secret-key")
    endpoint = DeviceEndpoint.objects.create(hostname="leaf1", driver="napalm_mock", address="192.0.2.1",
                                             password_env="SECRET_KEY", secret_file="/etc/shadow")
    with pytest.raises(DriverError) as error:
        endpoint_password(endpoint)
    message = str(error.value)
    assert "password_env='SECRET_KEY'" in message and "secret_file='/etc/shadow'" in message
    assert "the-server-secret-key" not in message
    endpoint.password_env, endpoint.secret_file = "", ""
    endpoint.key_file = "/etc/ssh/ssh_host_ed25519_key"
    with pytest.raises(DriverError, match="key_file"):
        endpoint_key_file(endpoint)


def test_the_old_unchecked_reader_would_hand_out_the_server_secret(secret_dir, monkeypatch):
    """Deliberately broken: without the source check the same row reads SECRET_KEY (what the audit did)."""
    monkeypatch.setenv("SECRET_KEY", "the-server-secret-key")
    monkeypatch.setattr(credentials, "_source_checked", lambda endpoint: None)
    endpoint = DeviceEndpoint(hostname="leaf1", driver="napalm_mock", address="192.0.2.1", password_env="SECRET_KEY")
    assert endpoint_password(endpoint) == os.environ["SECRET_KEY"]
