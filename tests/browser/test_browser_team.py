"""What a team meets in a real browser (issue #30: points 2, 4, 5, 6, 9): a 5-stage fabric built from the UI form
(pods, super-spines, the name prefix, free management pools named after the build); the 16x64 topology fitted whole
into its window (the drawing's bounding box inside the window after "fit" and after zooming out; the point under the
pointer kept by the wheel) with each switch's platform shown; findings filtered by severity; an interface found
by ``switch:port``; a production rollout created by one admin, approved by a second admin after reading its diff,
pushed, and shown rolled back. Screenshots: test-artifacts/screenshots/team-*.png.

The push is real (the rollout runner, its health checks and its rollback), the devices are not: production
endpoints are reached through the change-pipeline tests' in-memory device double (tests/browser/team_rollout.py),
whose BGP goes down once a config is pushed. No response may be a 5xx.
"""

from __future__ import annotations

import os
import re

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from playwright.sync_api import expect

from compiler.clos import ClosParams
from inventory.builder import fabric_build
from inventory.models import Cable, Interface, Rack
from tests.browser.conftest import CHROMIUM
from tests.browser.team_rollout import production_intent
from tests.browser.test_browser_e2e import PASSWORD, log_in, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium)"),
]

# the drawing's pieces in window pixels, and the svg element (the window onto the drawing)
DRAWING_BOX = """() => {
  const svg = document.querySelector("svg.topology");
  const parts = svg.querySelectorAll("g.node rect, g.srv rect, g.badge rect, text.tier");
  const box = {left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity};
  for (const part of parts) {
    const r = part.getBoundingClientRect();
    box.left = Math.min(box.left, r.left); box.top = Math.min(box.top, r.top);
    box.right = Math.max(box.right, r.right); box.bottom = Math.max(box.bottom, r.bottom);
  }
  const w = svg.getBoundingClientRect();
  return {drawing: box, window: {left: w.left, top: w.top, right: w.right, bottom: w.bottom},
          viewport: {width: window.innerWidth, height: window.innerHeight}};
}"""


CHANGED = "(before) => document.querySelector('svg.topology').getAttribute('viewBox') !== before"


@pytest.fixture
def no_server_errors(browser_page):
    errors: list[str] = []
    browser_page.on("response", lambda response: errors.append(f"{response.status} {response.url}")
                    if response.status >= 500 else None)
    yield errors
    assert not errors, f"server errors: {errors}"


def _inside(page) -> dict:
    boxes = page.evaluate(DRAWING_BOX)
    drawing, window, viewport = boxes["drawing"], boxes["window"], boxes["viewport"]
    assert window["left"] >= 0 and window["right"] <= viewport["width"] + 0.5, boxes
    assert drawing["left"] >= window["left"] - 0.5 and drawing["right"] <= window["right"] + 0.5, boxes
    assert drawing["top"] >= window["top"] - 0.5 and drawing["bottom"] <= window["bottom"] + 0.5, boxes
    return boxes


def _centre(page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_five_stage_build_topology_fit_findings_and_port_search(browser_page, live_server, transactional_db,
                                                                no_server_errors):
    page, base = browser_page, live_server.url
    call_command("demo_user", password=PASSWORD)
    # the backend fabric: 16 spines x 64 leaves, EOS and SONiC leaves alternating; it holds the default pools
    fabric_build(params=ClosParams(name="be", spines=16, leaves=64, servers_per_leaf=1,
                                   leaf_platforms=("eos", "sonic")))
    log_in(page, base, "admin")

    # point 4: a 5-stage fabric from the form, its super-spines prefixed, free pools picked and said
    page.goto(f"{base}/fabrics/build/")
    page.fill("#id_name", "five")
    page.fill("#id_spines", "2")
    page.fill("#id_leaves", "2")
    page.fill("#id_servers_per_leaf", "1")
    page.fill("#id_name_prefix", "p-")
    page.fill("#id_pods", "2")
    page.fill("#id_super_spines_per_plane", "2")
    page.select_option("#id_super_spine_platform", "sonic")
    shot(page, "team-01-build-five-stage")
    page.click("text=Build fabric")
    page.wait_for_url(f"{base}/fabrics/five/")
    banner = page.inner_text("ul.messages")
    assert "Built fabric five: 12 switches" in banner  # 2 pods x 4 + 2 planes x 2 super-spines
    assert "Management pool picked: mgmt_pool 172.17.0.0/16 (172.16.0.0/16 is used by fabric be)" in banner
    shot(page, "team-02-five-stage-built")
    page.goto(f"{base}/fabrics/five/topology/")
    assert page.locator("svg.topology g.node[data-device='p-superspine1'] rect[data-platform=sonic]").count() == 1

    # point 5: the 16x64 topology seen whole; zoom keeps the point under the pointer; platforms shown
    page.goto(f"{base}/fabrics/be/topology/")
    assert page.locator("svg.topology rect[data-platform=sonic]").count() == 32
    assert page.locator("svg.topology rect[data-platform=eos]").count() == 48  # 16 spines + 32 leaves
    assert page.locator(".legend [data-platform-key]").all_inner_texts() == ["EEOS", "SSONiC"]
    _inside(page)  # fitted when the page opens
    page.click("[data-zoom-for=topology] [data-zoom-step='1.25']")
    page.click("[data-zoom-for=topology] [data-zoom-step='0']")
    fitted = page.get_attribute("svg.topology", "viewBox")
    boxes = _inside(page)
    # the fit fills the window across: a 64-leaf drawing spans (nearly) its whole width
    assert boxes["drawing"]["right"] - boxes["drawing"]["left"] > 0.9 * (boxes["window"]["right"]
                                                                         - boxes["window"]["left"])
    shot(page, "team-03-topology-16x64-fit")
    for _ in range(4):  # zooming out past the whole drawing does nothing: the picture never slides away
        page.click("[data-zoom-for=topology] [data-zoom-step='0.8']")
    assert page.get_attribute("svg.topology", "viewBox") == fitted
    _inside(page)
    # the wheel zooms about the pointer: leaf40 stays under it
    x, y = _centre(page, "svg.topology g.node[data-device=leaf40] rect")
    page.mouse.move(x, y)
    for _ in range(6):  # 1.15 per notch: 2.3x
        page.mouse.wheel(0, -120)
    page.wait_for_function(CHANGED, arg=fitted)
    after_x, after_y = _centre(page, "svg.topology g.node[data-device=leaf40] rect")
    # across, where the drawing is wider than the window, exactly; down, the drawing (about as tall as the window
    # now) is kept from sliding out of it, which may move the point a little
    assert abs(after_x - x) < 2 and abs(after_y - y) < 40, (x, y, after_x, after_y)
    assert page.locator("svg.topology g.node[data-device=leaf40] rect").bounding_box()["width"] > 30  # legible
    shot(page, "team-04-topology-16x64-zoomed")
    page.click("[data-zoom-for=topology] [data-zoom-step='0']")
    assert page.get_attribute("svg.topology", "viewBox") == fitted
    page.set_viewport_size({"width": 1100, "height": 800})  # a fitted picture stays fitted when the window changes
    page.wait_for_function(CHANGED, arg=fitted)
    _inside(page)
    page.set_viewport_size({"width": 1440, "height": 900})

    # findings filtered by severity: one cable far beyond its optic's reach is an error among the rest
    interface = Interface.objects.filter(switch__hostname="leaf1", name="Ethernet1/1").get()
    Cable.objects.filter(pk=interface.cable_id).update(length_m=5000)
    rack = Rack.objects.filter(fabric__name="be").order_by("name").first()
    Rack.objects.filter(pk=rack.pk).update(power_budget_kw=0)  # no budget recorded: an info finding
    page.goto(f"{base}/validation/be/")
    page.click("text=Run validation")
    page.wait_for_selector("#validation-status:not([hx-get])")
    findings = "h2:has-text('Findings') + .table-wrap tbody tr"
    every = page.locator(f"{findings} td:first-child .pill").all_inner_texts()
    assert "error" in every and set(every) - {"error"}, every  # something to filter out
    page.select_option("select[name=severity]", "error")
    page.wait_for_url(re.compile(r"severity=error"))
    errors = page.locator(f"{findings} td:first-child .pill").all_inner_texts()
    assert errors and set(errors) == {"error"} and len(errors) < len(every)
    assert "leaf1" in page.inner_text(findings + ":first-child")
    shot(page, "team-05-findings-errors")

    # point 9: an interface by the switch:port every finding prints
    page.goto(f"{base}/inventory/interfaces/")
    page.fill("form.filters input[name=q]", "leaf1:Ethernet1/1")  # the list answers as you type (HTMX, URL pushed)
    page.wait_for_url(re.compile(r"q=leaf1%3AEthernet1%2F1"))
    rows = page.locator("#list-results table tbody tr")
    expect(rows.first.locator("td").nth(1)).to_have_text("Ethernet1/1")
    page.wait_for_load_state("networkidle")
    first = rows.first.locator("td").all_inner_texts()
    assert first[:2] == ["leaf1", "Ethernet1/1"]  # the exact port first (natural order)
    for index in range(rows.count()):
        switch, port = rows.nth(index).locator("td").all_inner_texts()[:2]
        assert switch == "leaf1" and port.startswith("Ethernet1/1"), (switch, port)
    shot(page, "team-06-interface-search")


def test_a_production_rollout_is_approved_by_a_second_admin_and_rolls_back(browser_page, live_server,
                                                                          transactional_db, no_server_errors,
                                                                          monkeypatch):
    page, base = browser_page, live_server.url
    call_command("demo_user", password=PASSWORD)
    second = User.objects.create_user("admin2", password=PASSWORD)
    second.groups.set([Group.objects.get(name="admin")])
    fabric_build(params=ClosParams(name="prod", spines=2, leaves=2, servers_per_leaf=1, name_prefix="pr-"))
    intent, devices = production_intent("prod", monkeypatch)

    # the first admin creates it: the rollout waits for someone else
    log_in(page, base, "admin")
    page.goto(f"{base}/rollouts/")
    page.select_option("select[name=intent]", intent)
    page.select_option("select[name=target]", "production")
    page.click("text=Create rollout")
    page.wait_for_selector("#rollout-progress[data-state=awaiting_approval]")
    url = page.url
    assert page.locator("#rollout-progress button:has-text('Approve')").count() == 0  # not by its creator
    page.click("text=Log out")

    # the second admin reads every changed device's diff, then approves and starts
    log_in(page, base, "admin2")
    page.goto(url)
    changes = page.inner_text("#rollout-changes")
    assert "to review before approving" in changes and "4 devices change" in changes, changes[:500]
    devices_listed = page.locator("#rollout-changes summary strong").all_inner_texts()
    assert devices_listed == ["pr-leaf1", "pr-leaf2", "pr-spine1", "pr-spine2"]
    assert "router bgp" in changes and "hostname pr-leaf1" in changes  # the canary's diff, open to read
    page.click("#rollout-changes summary:has-text('pr-spine1')")  # another device's diff on demand
    assert "hostname pr-spine1" in page.inner_text("#rollout-changes")
    shot(page, "team-07-production-approval-diff")
    page.click("#rollout-progress button:has-text('Approve')")
    page.wait_for_selector("#rollout-progress[data-state=pending]")
    assert "approved" in page.inner_text("ul.messages")
    # no broker in the tests: the start runs the rollout in the request; the canary's BGP stays down, so the
    # health check polls for the policy's converge_timeout_s (60 s) before the runner rolls it back
    page.click("#rollout-progress button:has-text('Start')", timeout=180_000)
    page.wait_for_selector("#rollout-progress[data-state=rolled_back]")
    banner = page.inner_text("ul.messages")
    assert "then was rolled back" in banner and "done" not in banner, banner
    page.reload()  # the page as anyone opens it later
    progress = page.inner_text("#rollout-progress")
    assert "rolled back" in progress.lower() and "health" in progress, progress[:2000]
    assert devices.commits == {"pr-leaf1": 1} and devices.rollbacks == {"pr-leaf1": 1}  # the canary only
    assert devices.configs["pr-leaf1"] == {"config": "hostname pr-leaf1\n"}  # back to what it ran
    shot(page, "team-08-production-rolled-back")
