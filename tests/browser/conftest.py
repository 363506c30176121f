"""The browser fixture of the end-to-end tests: Debian's chromium driven by Playwright (skipped when missing)."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


@pytest.fixture
def browser_page(live_server, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.set_default_timeout(60_000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        # A script or handler the Content-Security-Policy blocks (docs/security.md) is reported on the console.
        page.on("console", lambda message: errors.append(message.text)
                if "Content Security Policy" in message.text else None)
        yield page
        browser.close()
        assert not errors, f"JavaScript errors on the page: {errors}"
