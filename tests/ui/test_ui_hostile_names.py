"""A "/" (or any character) in a stored name never breaks a UI page.

Rows written before the name grammar (or straight to the database) may hold anything. Every read-only UI page is
fetched with such names in the fabric, intent, switch and server rows: no page may answer 5xx, and the detail
pages of the hostile objects must open (the URL converter round-trips any name).
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from intents.models import FabricIntent
from inventory.models import Fabric, Server, Switch

FABRIC, INTENT = "uifab", "uifab-intent"  # as tests/ui/conftest.py

HOSTILE = ["a/b", "../x", "/etc/passwd", "x\ny", "a%2Fb", "..", ".", "日本/語", "a?b#c", "x\u2028y", "a b"]

# Pages without arguments and pages keyed by a name: (url name, kwarg, which object's name).
LIST_PAGES = ["dashboard", "fabric_list", "topology_pick", "rack_list", "switch_list", "interface_list",
              "optic_list", "cable_list", "server_list", "intent_list", "config_pick", "validation_pick",
              "twin_pick", "rollout_list"]
NAMED_PAGES = [("fabric_detail", "fabric"), ("topology", "fabric"), ("switch_detail", "switch"),
               ("server_detail", "server"), ("intent_detail", "intent"), ("config_list", "intent"),
               ("validation_report", "intent"), ("twin_detail", "intent")]


def _rename_everything(value: str) -> dict[str, str]:
    """Rename one fabric, intent, switch and server to ``value`` behind the models' back (as an old row)."""
    Fabric.objects.filter(name=FABRIC).update(name=value)
    FabricIntent.objects.filter(name=INTENT).update(name=value)
    Switch.objects.filter(hostname="leaf1").update(hostname=value)
    server = Server.objects.order_by("name").first()
    Server.objects.filter(pk=server.pk).update(name=value)
    return {"fabric": value, "intent": value, "switch": value, "server": value}


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_no_page_breaks_on_a_hostile_name(admin, fabric_intent, value):
    names = _rename_everything(value)
    failures = []
    for page in LIST_PAGES:
        response = admin.get(reverse(f"ui:{page}"))
        if response.status_code >= 500:
            failures.append((page, response.status_code))
    for page, which in NAMED_PAGES:
        kwarg = "hostname" if page == "switch_detail" else "name"
        response = admin.get(reverse(f"ui:{page}", kwargs={kwarg: names[which]}))
        if response.status_code >= 500 or response.status_code == 404:
            failures.append((page, response.status_code))
    assert failures == []


def test_detail_page_of_a_slash_name_shows_that_object(admin, fabric_intent):
    _rename_everything("a/b")
    response = admin.get(reverse("ui:switch_detail", kwargs={"hostname": "a/b"}))
    assert response.status_code == 200 and b"a/b" in response.content


def test_deliberately_broken_converter_cannot_reverse_a_slash(settings):
    """With <str:> (what the converter replaced) reverse() cannot build the URL: every page linking it was a 500."""
    import sys
    import types

    from django.http import HttpResponse
    from django.urls import NoReverseMatch, clear_url_caches, path

    module = types.ModuleType("broken_urls")
    module.urlpatterns = [path("switches/<str:hostname>/", lambda request, hostname: HttpResponse(), name="sw")]
    sys.modules["broken_urls"] = module
    settings.ROOT_URLCONF = "broken_urls"
    clear_url_caches()
    try:
        assert reverse("sw", kwargs={"hostname": "leaf1"}) == "/switches/leaf1/"
        with pytest.raises(NoReverseMatch):
            reverse("sw", kwargs={"hostname": "a/b"})
    finally:
        del sys.modules["broken_urls"]
        clear_url_caches()
