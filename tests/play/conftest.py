"""Fixtures for the play server: a Flask test client, a live server and a headless Chromium.

The browser tests drive the system's Chromium (Debian package ``chromium``)
through Playwright's sync API; Playwright's own browser download is never
used. They are skipped, with the reason, when Chromium or Playwright is absent.
"""

from __future__ import annotations

import contextlib
import shutil
import threading

import pytest

from play.server import create_app
from tests.scripts import ROOT

ARTIFACTS = ROOT / "test-artifacts" / "play"
"""Where the browser tests save their screenshots and downloads (gitignored)."""

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # This machine's network is closed: without these Chromium keeps calling home and fails.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _browser_missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright)"
    if shutil.which("chromium") is None:
        return "chromium is not installed (Debian: apt-get install -y chromium)"
    return None


BROWSER_MISSING = _browser_missing()
needs_browser = pytest.mark.skipif(BROWSER_MISSING is not None, reason=f"browser tests skipped: {BROWSER_MISSING}")


@pytest.fixture
def app():
    return create_app(move_time=1.0)


@pytest.fixture
def client(app):
    return app.test_client()


@contextlib.contextmanager
def serve(app):
    """Serve ``app`` on a free localhost port in a background thread; yields its base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def live_server():
    """The page and API served on a free localhost port, in a background thread."""
    with serve(create_app(move_time=1.0)) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, request):
    """A fresh page; a screenshot of it is saved under test-artifacts/play/ after the test."""
    context = browser.new_context(viewport={"width": 1100, "height": 760}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
