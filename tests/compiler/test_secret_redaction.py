"""The one pass over config text that turns device secrets into keyed markers (compiler/secret_redaction.py)."""

from __future__ import annotations

import json

from compiler.secret_redaction import (
    config_db_secrets_redacted,
    files_secrets_redacted,
    secret_marker,
    text_secrets_redacted,
    type7_decoded,
)

KEY = b"server-key-for-tests-0123456789ab"


def test_markers_are_keyed_hashes_in_the_reference_vocabulary():
    marker = secret_marker("Tacacs-Key-42", key=KEY)
    assert marker.startswith("FT-SECRET[sha256-hmac:") and len(marker) == len("FT-SECRET[sha256-hmac:]") + 12
    assert marker == secret_marker("Tacacs-Key-42", key=KEY)  # equal secrets compare equal
    assert marker != secret_marker("Tacacs-Key-43", key=KEY)  # a changed secret shows
    assert marker != secret_marker("Tacacs-Key-42", key=b"another-server")  # no key, no comparison
    assert secret_marker("FT-SECRET[vault:secret/fabric/tacacs]", key=KEY) == "FT-SECRET[vault:secret/fabric/tacacs]"


def test_type7_is_decoded_before_hashing():
    assert type7_decoded("0822455D0A16") == "cisco"  # the published type-7 example
    assert secret_marker("0822455D0A16", key=KEY, encoding="7") == secret_marker("cisco", key=KEY)
    assert type7_decoded("99ZZ") == "99ZZ"  # not type 7: hashed as it is


def test_sonic_tables_and_keys():
    document = {"TACPLUS": {"global": {"passkey": "tac-key", "auth_type": "pap"}},
                "SNMP_COMMUNITY": {"public-ro": {"TYPE": "RO"}},
                "BGP_NEIGHBOR": {"10.0.0.1": {"password": "bgp-pass", "asn": "65001"}},
                "NTP_KEY": {"1": {"type": "md5", "value": "ntp-value"}},
                "DEVICE_METADATA": {"localhost": {"hostname": "leaf2", "admin_password": "admin-pw"}}}
    shown = json.dumps(config_db_secrets_redacted(document, key=KEY))
    for value in ("tac-key", "public-ro", "bgp-pass", "ntp-value", "admin-pw"):
        assert value not in shown, value
    assert '"auth_type": "pap"' in shown and '"asn": "65001"' in shown and '"hostname": "leaf2"' in shown


def test_diff_lines_and_blocks_keep_their_shape():
    text = "router bgp 65000\n   neighbor 10.0.0.1 password 7 0822455D0A16\n!\n"
    shown = text_secrets_redacted(text, key=KEY)
    assert shown == text.replace("0822455D0A16", secret_marker("cisco", key=KEY))
    diff = "-snmp-server community Comm-1 ro\n+ neighbor 10.0.0.2 password Frr-Pass\n description uplink key 7 x\n"
    shown = text_secrets_redacted(diff, key=KEY)
    assert "Comm-1" not in shown and "Frr-Pass" not in shown
    assert " description uplink key 7 x\n" in shown  # deliberately broken case: no secret command, left alone
    quoted = "leaf1: line 12 rejected: ip ospf message-digest-key 1 md5 7 0822455D0A16 (bad key)\n"
    assert "0822455D0A16" not in text_secrets_redacted(quoted, key=KEY)  # a command quoted mid-line (an error)


def test_idempotent_and_files_told_apart_by_content():
    files = {"config_db.json": json.dumps({"TACPLUS": {"global": {"passkey": "k-1"}}}),
             "frr.conf": "password Vty-1\n", "linux-plan.json": json.dumps({"links": []})}
    once = files_secrets_redacted(files, key=KEY)
    assert files_secrets_redacted(once, key=KEY) == once
    assert "k-1" not in once["config_db.json"] and "Vty-1" not in once["frr.conf"]
    assert once["linux-plan.json"] == files["linux-plan.json"]
