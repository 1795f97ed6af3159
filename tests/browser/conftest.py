"""What the browser tests share: Debian's Chromium driven by Playwright, a live uvicorn server
on the test database (tests/e2e/server.py: WebSockets, which pytest-django's live_server does
not serve), and pages that record every console error and uncaught exception, which is where
a script or style refused by the Content-Security-Policy shows up."""

from __future__ import annotations

import os

import pytest

from tests.e2e.server import current_database_url, live_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
WAIT_MS = 15_000

try:
    from playwright import sync_api
except ImportError:
    sync_api = None

needs_chromium = [
    pytest.mark.browser,
    pytest.mark.skipif(sync_api is None, reason="needs playwright (pip install playwright)"),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"needs {CHROMIUM}"),
]


@pytest.fixture(scope="module")
def web_server(django_db_setup):
    redis_url = os.environ.get("REDIS_URL")
    with live_server(
        database_url=current_database_url(),
        redis_url=redis_url,
        workers=2 if redis_url else 1,  # the in-memory layer lives in one process only
        env={"DEBUG": "true"},  # Django serves /static/ (uvicorn does not)
    ) as live:
        yield live


@pytest.fixture
def chromium():
    """Launched after the fixtures that write the database: Playwright's sync API runs an
    event loop in this thread, and Django refuses database calls from it."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def watched_page(browser, problems: list[str], viewport=DESKTOP, locale: str | None = None):
    """A page in a fresh context (its own cookies) that appends to `problems` every console
    error (a refused script or style, a failed load) and every uncaught exception."""
    options = {"viewport": viewport, "has_touch": viewport is PHONE}
    if locale:
        options["locale"] = locale
    page = browser.new_context(**options).new_page()
    page.set_default_timeout(WAIT_MS)

    def console(message):
        if message.type == "error":
            problems.append(f"{page.url}: console: {message.text}")

    page.on("console", console)
    page.on("pageerror", lambda error: problems.append(f"{page.url}: {error}"))
    return page


def log_in(page, base: str, username: str, password: str) -> None:
    """Through the login form, as a person does."""
    page.goto(f"{base}/login")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("#auth-form button[type=submit]")
    try:
        page.wait_for_url(f"{base}/")
    except sync_api.TimeoutError as error:
        refused = page.inner_text("#form-error")
        raise AssertionError(f"{username} could not log in: {refused!r}") from error


VISIBLE_BUT_HIDDEN = """() => [...document.querySelectorAll('[hidden]')]
    .filter((node) => node.checkVisibility())
    .map((node) => node.id || node.outerHTML.slice(0, 80))"""


def visible_hidden_controls(page) -> list[str]:
    """Elements that carry `hidden` and are drawn all the same (a CSS display rule beat it)."""
    return page.evaluate(VISIBLE_BUT_HIDDEN)


def settle(page) -> None:
    """Wait until a game page has its players' names (the summary's refresh redraws the
    panels once more, and a click aimed before that redraw may land beside its button)."""
    page.wait_for_function(
        """() => {
            const cells = [...document.querySelectorAll('#seats tbody td:nth-child(2)')];
            return cells.length > 0 && cells.every((td) => !td.textContent.startsWith('?'));
        }"""
    )
    page.wait_for_load_state("networkidle")
