"""End to end in a real browser (Debian's chromium driven by Playwright) against pytest-django's live server.

Flow: log in, build a small fabric, write its intent (tenant, network with server attachments, RoCE defaults,
a blast-radius preview), compile, run a validation, open the topology and click a link; then on the live twin: boot it,
ping matrix, change the intent, compile, create a twin canary rollout, start it and watch the HTMX-polled
progress until it finishes; stop the twin. Screenshots of the main pages go to test-artifacts/screenshots/.

The twin half needs root, network namespaces and FRR (skipped with the reason otherwise). Celery runs eagerly
here (no broker in the test settings), so "start" returns when the rollout has run; the progress page is then
checked to have stopped polling in a final state.
"""

from __future__ import annotations

import os
import shutil

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM, SCREENSHOTS

PASSWORD = "browser-test-pass-1"
FABRIC = "webfab"
INTENT = "webfab-intent"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium)"),
]


def shot(page, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def log_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/")
    assert "/login/" in page.url
    shot(page, "00-login")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def build_fabric_and_intent(page, base: str) -> None:
    page.goto(f"{base}/fabrics/build/")
    page.fill("#id_name", FABRIC)
    page.fill("#id_spines", "2")
    page.fill("#id_leaves", "2")
    page.fill("#id_servers_per_leaf", "2")
    # SONiC: the RoCE classes applied below reach a SONiC switch (validators.roce platform check); an FRR/Linux
    # switch on the default Broadcom model has no driver that programs PFC/ECN, and the rollout pre-check says so.
    page.select_option("#id_platform", "sonic")
    shot(page, "01-fabric-build")
    page.click("text=Build fabric")
    page.wait_for_url(f"{base}/fabrics/{FABRIC}/")
    assert "Built fabric webfab: 4 switches, 4 servers" in page.content()

    page.goto(f"{base}/intents/new/")
    page.fill("#id_name", INTENT)
    page.select_option("#id_fabric", FABRIC)
    page.click("text=Save fabric intent")
    page.wait_for_url(f"{base}/intents/{INTENT}/")
    page.click("text=Add tenant")
    page.fill("#id_name", "A")
    page.fill("#id_vrf", "TENANT_A")
    page.click("text=Save tenant")
    page.wait_for_url(f"{base}/intents/{INTENT}/")
    page.click("text=Apply RoCEv2 defaults")
    page.wait_for_selector("text=Applied RoCE default classes: roce.")

    add_network(page, base, "net10", 10, attach=["gpu0001:eth0", "gpu0002:eth0", "gpu0003:eth0"])
    shot(page, "04-intent")


def add_network(page, base: str, name: str, vlan: int, attach: list[str]) -> None:
    page.goto(f"{base}/intents/{INTENT}/networks/new/")
    page.select_option("#id_tenant", label="A")
    page.fill("#id_name", name)
    page.fill("#id_vlan_id", str(vlan))
    # first a refused value: the inline error comes from the intents validation
    page.fill("#id_subnet", f"10.{vlan}.0.1/24")
    page.click("text=Save network")
    page.wait_for_selector("#id_subnet_error, .field-error")
    assert "host bits" in page.content()
    page.fill("#id_subnet", f"10.{vlan}.0.0/24")
    page.fill("#id_gateway", f"10.{vlan}.0.1")
    page.select_option("#id_attachments", label=attach)
    page.click("text=Preview blast radius")
    page.wait_for_selector("#blast-radius h3")
    assert "Blast radius: 2 devices" in page.inner_text("#blast-radius")
    shot(page, f"05-network-{name}-blast-radius")
    page.click("text=Save network")
    page.wait_for_url(f"{base}/intents/{INTENT}/")


def compile_and_validate(page, base: str) -> None:
    page.goto(f"{base}/intents/{INTENT}/")
    page.click("button:has-text('Compile')")
    page.wait_for_url(f"{base}/configs/{INTENT}/")
    assert "Compiled 4 devices" in page.content()
    shot(page, "06-configs")
    page.click("text=leaf1")
    page.wait_for_selector("pre.config")
    # a SONiC switch opens on its own platform (config_db.json), the twin's FRR tab after it
    assert page.get_attribute(".tabs a.active[data-platform]", "data-platform") == "sonic"
    page.click(".tabs a[data-platform=frr]")
    page.wait_for_selector("pre.config .kw")
    shot(page, "07-config-leaf1")

    page.goto(f"{base}/validation/{FABRIC}/")
    page.click("text=Run validation")
    page.wait_for_url(f"{base}/validation/{FABRIC}/")
    assert "Source: validation run #" in page.content()
    assert page.locator("table >> text=physical.cable_reach").count() == 1
    shot(page, "08-validation")


def topology(page, base: str) -> None:
    page.goto(f"{base}/fabrics/{FABRIC}/topology/")
    page.wait_for_selector("svg.topology")
    shot(page, "09-topology")
    page.click("g.bundle[data-link='leaf1--spine1'] line.hit", force=True)
    page.wait_for_selector("#link-detail h3")
    detail = page.inner_text("#link-detail")
    assert "leaf1 ↔ spine1" in detail and "spine1:" in detail
    shot(page, "10-topology-link")
    # data-autosubmit (ui/static/ui/ui.js; no inline handler under the CSP): choosing a lens reloads the page
    page.select_option("select[name=lens]", "mtu")
    page.wait_for_url("**lens=mtu**")
    page.wait_for_selector("svg.topology")


def test_engineer_flow_in_a_browser(browser_page, live_server, transactional_db):
    page, base = browser_page, live_server.url
    call_command("demo_user", password=PASSWORD)
    log_in(page, base, "admin")
    shot(page, "02-dashboard-empty")
    build_fabric_and_intent(page, base)
    compile_and_validate(page, base)
    topology(page, base)
    page.goto(f"{base}/")
    shot(page, "03-dashboard")
    page.goto(f"{base}/inventory/racks/")
    page.click("text=dc1-r001")
    page.wait_for_selector("svg.rack")
    shot(page, "11-rack")
    page.goto(f"{base}/inventory/switches/leaf1/")
    shot(page, "12-switch")
    # live search (HTMX): typing narrows the list without a page load
    page.goto(f"{base}/inventory/switches/")
    page.fill("form.filters input[name=q]", "leaf2")
    # (a locator, not wait_for_function: that evaluates a string, which the page's CSP refuses as eval)
    expect(page.locator("#list-results tbody tr")).to_have_count(1)
    assert "leaf2" in page.inner_text("#list-results tbody") and "q=leaf2" in page.url


def _twin_missing() -> list[str]:
    from labs.shell import twin_prerequisites

    return twin_prerequisites() + ([] if shutil.which("vtysh") else ["vtysh not on PATH"])


@pytest.mark.twin
def test_twin_canary_rollout_in_a_browser(browser_page, live_server, transactional_db):
    missing = _twin_missing()
    if missing:
        pytest.skip("the live twin cannot run here: " + "; ".join(missing))
    page, base = browser_page, live_server.url
    page.set_default_timeout(300_000)
    call_command("demo_user", password=PASSWORD)
    log_in(page, base, "admin")
    build_fabric_and_intent(page, base)
    compile_and_validate(page, base)
    try:
        page.goto(f"{base}/twin/{FABRIC}/")
        page.click("text=Start twin")  # boots, converges and runs the live checks (ping matrix included)
        page.wait_for_selector("#twin-status h3 .pill.up")
        page.wait_for_selector("table.heat")
        page.click("text=Run live checks")
        page.wait_for_selector("#twin-status h3 .pill.up")
        assert page.locator("table.heat td.h-bad").count() == 0, "every intended ping must answer"
        assert page.locator("table.heat td.h-ok").count() > 0
        page.click("text=Measure fidelity")
        page.wait_for_selector("text=between the twin and the static validators")
        page.click("text=Fail a leaf uplink")
        page.wait_for_selector("#twin-status dt:has-text('Outage')")
        assert page.locator("#twin-status td:has-text('Fail a leaf uplink')").count() == 1  # the operation log
        shot(page, "13-twin")

        # a change: a second network -> compile -> twin canary rollout
        add_network(page, base, "net20", 20, attach=["gpu0004:eth0"])
        page.goto(f"{base}/intents/{INTENT}/")
        page.click("button:has-text('Compile')")
        page.wait_for_url(f"{base}/configs/{INTENT}/")
        page.goto(f"{base}/rollouts/")
        page.select_option("select[name=intent]", INTENT)
        page.select_option("select[name=target]", "twin")
        page.click("text=Create rollout")
        page.wait_for_selector("#rollout-progress")
        assert "Wave 1 (canary)" in page.inner_text("#rollout-progress")
        shot(page, "14-rollout-pending")
        page.click("#rollout-progress button:has-text('Start')")
        page.wait_for_selector("#rollout-progress[data-state=succeeded], #rollout-progress[data-state=failed], "
                               "#rollout-progress[data-state=rolled_back], #rollout-progress[data-state=cancelled]")
        shot(page, "15-rollout-finished")
        state = page.get_attribute("#rollout-progress", "data-state")
        assert state == "succeeded", page.inner_text("#rollout-progress")[:3000]
        assert page.locator("#rollout-progress[hx-get]").count() == 0, "a finished rollout stops polling"
        # the twin followed the rollout: the config pages compare with what it runs, its live checks are green
        page.goto(f"{base}/configs/{INTENT}/leaf2/?platform=frr")
        page.wait_for_selector("h3:has-text('Diff vs twin (running compile #')")
        page.goto(f"{base}/twin/{FABRIC}/")
        page.click("text=Run live checks")
        page.wait_for_selector("#twin-status:not([hx-get]) h3 .pill.up", timeout=180_000)
        assert "runs compile #" in page.inner_text("#twin-status")
        shot(page, "16-twin-after-rollout")
    finally:
        page.goto(f"{base}/twin/{FABRIC}/")
        if page.locator("text=Stop twin").count():
            page.click("text=Stop twin")
            page.wait_for_selector("#twin-status h3 .pill.down")
