"""Secrets by reference: the one home of how a stored or rendered config names a secret it never contains.

The intent names the AAA shared secret by reference (``management.aaa_secret_ref``, e.g.
``vault:secret/fabric/tacacs``). Renderers print :func:`placeholder` where the secret goes
(``FT-SECRET[vault:secret/fabric/tacacs]``); stored configs, diffs, goldens and the UI only ever hold that marker.
The push drivers replace each marker with the secret from the encrypted credential store just before the config
leaves for the device (``changes.credentials.secret_refs_resolve``), and refuse the push when a reference is not
registered. Pure Python (no Django).

The reference grammar is narrower than "any non-blank" on purpose: the marker must survive every place a secret
goes unchanged as one token - an EOS CLI word (``key 7 <token>``) and SONiC's TACACS+ ``passkey``
(sonic-system-tacacs.yang: ``[^ #,]*``, 1..256 characters) - so ``#``, ``,``, brackets and blanks are refused.
"""

from __future__ import annotations

import re

# "<scheme>:<path>", e.g. vault:secret/fabric/tacacs. At most 200 characters (FabricIntent.aaa_secret_ref).
SECRET_REFERENCE = re.compile(r"^[a-z][a-z0-9+.-]*:[A-Za-z0-9_./:@+=-]{1,190}$")
PLACEHOLDER_PREFIX = "FT-SECRET["
# A marker anywhere in a config text; group 1 is the reference.
PLACEHOLDER = re.compile(r"FT-SECRET\[([a-z][a-z0-9+.-]*:[A-Za-z0-9_./:@+=-]{1,190})\]")


def placeholder(reference: str) -> str:
    """The marker a rendered config carries instead of the secret named by ``reference``."""
    if not SECRET_REFERENCE.match(reference or ""):
        raise ValueError(f"secret reference {reference!r} is not '<scheme>:<path>' ([A-Za-z0-9_./:@+=-] in the path)")
    return f"{PLACEHOLDER_PREFIX}{reference}]"


def references_in(text: str) -> list[str]:
    """The distinct references a config text names, in order of first appearance."""
    return list(dict.fromkeys(PLACEHOLDER.findall(text or "")))
