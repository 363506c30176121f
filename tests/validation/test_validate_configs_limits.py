"""Bounded work per config-validation upload (compiler.parse.files limits, issue 29 items 5 and 6): the upload's
size, the inflated size, the member count, line length and JSON nesting are refused before any parser runs, as a
400 naming the field and the limit; corrupt archives are 400s, never 500s. Each guard is shown to matter by the
same input breaking the code without it."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import time
import zipfile
import zlib

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from common import api_limits
from compiler.errors import InputError
from compiler.parse import files
from compiler.parse.files import MAX_JSON_DEPTH, MAX_LINE_CHARS, configs_from_archive, configs_from_uploads

pytestmark = pytest.mark.django_db
URL = "/api/validation-runs/configs/"
EOS = "hostname leaf1\n!\ninterface Ethernet1\n   description uplink\n!\nend\n"


def _upload(data: bytes, name: str) -> io.BytesIO:
    buffer = io.BytesIO(data)
    buffer.name = name
    return buffer


def _zip(members: dict[str, bytes], name: str = "fabric.zip") -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    return _upload(buffer.getvalue(), name)


def _config_db(depth: int) -> bytes:
    """A config_db.json nesting ``depth`` lists under one key, one bracket a line (as an indented dump would)."""
    return ('{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}}, "X": ' + "[\n" * depth + "]\n" * depth
            + "}").encode()


def _error(response) -> str:
    assert response.status_code == 400, response.content
    return json.dumps(response.json())


def test_a_long_line_is_refused_at_once_naming_file_line_and_limit(api_client):
    """The audit's input: one 384 kB line cost 34.8 s of CPU in the readers; now refused before they run."""
    text = EOS.replace("description uplink", "description " + "A" * 384_000)
    started = time.process_time()
    message = _error(api_client.post(URL, {"files": [_upload(text.encode(), "leaf1.cfg")]}, format="multipart"))
    assert time.process_time() - started < 2.0
    assert "leaf1.cfg" in message and "line 4 is 384015 characters" in message
    assert f"MAX_LINE_CHARS={MAX_LINE_CHARS}" in message


def test_a_line_at_the_limit_is_read(monkeypatch):
    at_limit = EOS.replace("description uplink", "description " + "A" * (MAX_LINE_CHARS - 15))
    assert max(map(len, at_limit.splitlines())) == MAX_LINE_CHARS
    assert configs_from_uploads([("leaf1.cfg", at_limit.encode())])["leaf1"]["leaf1.cfg"] == at_limit
    with pytest.raises(InputError, match="line 4 is 16385 characters"):
        configs_from_uploads([("leaf1.cfg", at_limit.replace("AAAA", "AAAAA", 1).encode())])


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH, 100_000])
def test_deep_json_is_a_400_naming_the_limit(api_client, depth):
    message = _error(api_client.post(URL, {"files": [_upload(_config_db(depth), "leaf1.json")]}, format="multipart"))
    assert "leaf1.json" in message and f"MAX_JSON_DEPTH={MAX_JSON_DEPTH}" in message


def test_json_within_the_limit_and_brackets_inside_strings_are_read():
    shallow = _config_db(MAX_JSON_DEPTH - 2)  # two levels are the document and its "X" key's object
    assert configs_from_uploads([("leaf1.json", shallow)])
    in_strings = b'{"DEVICE_METADATA": {"localhost": {"hostname": "' + b"[" * 1000 + b'\\"{{"}}}'
    assert configs_from_uploads([("leaf1.json", in_strings)])


def test_without_the_nesting_check_deep_json_is_an_unhandled_recursion_error(api_client, monkeypatch):
    """Deliberately broken: the same upload, the guard bypassed, crashes the reader (a 500 in production)."""
    monkeypatch.setattr(files, "_check_text", lambda field, path, text: None)
    with pytest.raises(RecursionError):
        api_client.post(URL, {"files": [_upload(_config_db(100_000), "leaf1.json")]}, format="multipart")


def test_a_zip_bomb_is_refused_from_its_headers(api_client, monkeypatch):
    monkeypatch.setattr(files, "MAX_TOTAL_BYTES", 1024 * 1024)
    bomb = _zip({"leaf1.cfg": EOS.encode(), "leaf2.cfg": b"\n" * (2 * 1024 * 1024)})
    assert len(bomb.getvalue()) < 10_000  # 2 MiB claimed by a few kB
    opened = []
    monkeypatch.setattr(zipfile.ZipFile, "read", lambda self, info: opened.append(info) or b"")
    message = _error(api_client.post(URL, {"archive": bomb}, format="multipart"))
    assert "MAX_TOTAL_BYTES=1048576" in message and "fabric.zip" in message
    assert opened == []  # refused before a member was inflated


def test_a_tar_gz_bomb_is_refused_while_inflating(api_client, monkeypatch):
    monkeypatch.setattr(files, "MAX_TOTAL_BYTES", 1024 * 1024)
    bomb = _upload(gzip.compress(b"\0" * (3 * 1024 * 1024)), "fabric.tar.gz")
    message = _error(api_client.post(URL, {"archive": bomb}, format="multipart"))
    assert "inflates to more than MAX_TOTAL_BYTES=1048576" in message


def test_member_count_is_bounded(api_client, monkeypatch):
    monkeypatch.setattr(files, "MAX_FILES", 3)
    archive = _zip({f"leaf{number}.cfg": EOS.encode() for number in range(4)})
    assert "4 files; the limit is MAX_FILES=3" in _error(api_client.post(URL, {"archive": archive},
                                                                          format="multipart"))
    monkeypatch.setattr(files, "MAX_FILES", 4)
    assert configs_from_archive(archive.getvalue(), "fabric.zip").keys() == {f"leaf{n}" for n in range(4)}


def test_upload_size_is_bounded_before_reading(api_client, monkeypatch):
    monkeypatch.setattr(files, "MAX_UPLOAD_BYTES", 100)
    message = _error(api_client.post(URL, {"files": [_upload(EOS.encode() * 2, "leaf1.cfg")]}, format="multipart"))
    assert '"files"' in message and "MAX_UPLOAD_BYTES=100" in message
    message = _error(api_client.post(URL, {"archive": _zip({"leaf1.cfg": EOS.encode() * 20})}, format="multipart"))
    assert '"archive"' in message and "fabric.zip" in message


def test_the_request_length_is_bounded_before_the_files_are_spooled(api_client, monkeypatch):
    monkeypatch.setattr(api_limits, "MAX_UPLOAD_BYTES", 0)
    monkeypatch.setattr(api_limits, "UPLOAD_FORM_OVERHEAD_BYTES", 100)
    message = _error(api_client.post(URL, {"files": [_upload(EOS.encode(), "leaf1.cfg")]}, format="multipart"))
    assert "Content-Length" in message and "at most 100 bytes" in message


def _corrupt_zip() -> io.BytesIO:
    data = bytearray(_zip({"leaf1.cfg": EOS.encode() * 50}).getvalue())
    data[40:60] = b"\xff" * 20  # inside the deflated member: the CRC (or inflate) fails
    return _upload(bytes(data), "broken.zip")


def test_a_corrupt_zip_is_a_400_in_the_api_and_the_page(api_client, django_user_model):
    message = _error(api_client.post(URL, {"archive": _corrupt_zip()}, format="multipart"))
    assert "broken.zip" in message and "corrupt" in message
    truncated = _upload(gzip.compress(b"x" * 5000)[:-30], "cut.tar.gz")
    assert "cut.tar.gz" in _error(api_client.post(URL, {"archive": truncated}, format="multipart"))
    user = django_user_model.objects.create_user(username="configs-operator", password="pw-not-used")
    user.groups.set([Group.objects.get(name="operator")])
    page = Client()
    page.force_login(user)
    response = page.post("/validate-configs/", {"archive": _corrupt_zip()})
    assert response.status_code == 400 and "broken.zip" in response.content.decode()
    assert page.post("/validate-configs/", {"archive": _zip({"leaf1.cfg": EOS.encode()}),
                                            "fabric_intent": "\u00b2"}).status_code == 400


def test_without_the_handler_a_corrupt_zip_is_an_unhandled_error():
    """Deliberately broken: zipfile's own error escapes when read without files.py's handler."""
    with zipfile.ZipFile(io.BytesIO(_corrupt_zip().getvalue())) as archive, \
            pytest.raises((zipfile.BadZipFile, zlib.error)):
        archive.read("leaf1.cfg")


def _tar(members: dict[str, bytes]) -> bytes:
    """An uncompressed tar: the members' sizes are read from headers, with no inflation cap in front."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_tar_members_are_counted_and_summed_from_their_headers(monkeypatch):
    data = _tar({f"leaf{number}.cfg": EOS.encode() for number in range(4)})
    monkeypatch.setattr(files, "MAX_FILES", 3)
    with pytest.raises(InputError, match="4 files; the limit is MAX_FILES=3"):
        configs_from_archive(data, "fabric.tar.gz")
    monkeypatch.setattr(files, "MAX_FILES", 4)
    monkeypatch.setattr(files, "MAX_TOTAL_BYTES", 3 * len(EOS))
    with pytest.raises(InputError, match=f"{4 * len(EOS)} bytes in all"):
        configs_from_archive(data, "fabric.tar.gz")
    monkeypatch.setattr(files, "MAX_TOTAL_BYTES", 4 * len(EOS))
    assert len(configs_from_archive(data, "fabric.tar")) == 4
