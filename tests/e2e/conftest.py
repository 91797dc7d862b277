"""Browser fixtures: Debian's chromium driven by Playwright, against a real server.

Never downloads a browser: the tests use ``/usr/bin/chromium`` (or
``BODOGE_CHROMIUM``) and are skipped when it is missing.  Screenshots go to
``BODOGE_SCREENSHOTS`` (default ``test-artifacts/screenshots``).  Every WebSocket frame a
page receives is checked against the protocol's JSON Schemas (``tests/support/schema.py``;
``tests/conftest.py`` fails the test on a violation).  Every page runs under the server's
Content-Security-Policy, and every test here fails if the browser reports a violation of it
(:class:`PolicyWatch`: each context the browser opens listens for them).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support import http_schema
from tests.support.live_server import LiveServer
from tests.support.schema import FrameChecker

CHROMIUM = os.environ.get("BODOGE_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here that opens a browser is an ``e2e`` test (``-m "not e2e"`` skips them)."""
    here = Path(__file__).parent
    for item in items:
        uses_browser = {"browser", "open_page"} & set(getattr(item, "fixturenames", ()))
        if here in Path(str(item.fspath)).parents and uses_browser:
            item.add_marker(pytest.mark.e2e)


#: Reports each page's ``securitypolicyviolation`` events (the document's, and those its
#: elements send up) to the test, before any script of the page runs.
POLICY_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__bodogePolicyViolation(
    `${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`
    + (e.sample ? ` (${e.sample})` : ""));
}, true);
"""


class PolicyWatch:
    """The Content-Security-Policy violations the browser reported during one test: the
    page's own events and the console's "Refused to …" (what the browser logs for each)."""

    def __init__(self) -> None:
        self.violations: list[str] = []

    def watch(self, context: object) -> None:
        context.expose_function("__bodogePolicyViolation", self._report)  # type: ignore[attr-defined]
        context.add_init_script(POLICY_LISTENER)  # type: ignore[attr-defined]
        context.on("console", self._console)  # type: ignore[attr-defined]

    def _report(self, text: str) -> None:
        self.violations.append(text)

    def _console(self, message: object) -> None:
        text = message.text  # type: ignore[attr-defined]
        if "Content Security Policy" in text or text.startswith("Refused to"):
            self.violations.append(f"console: {text}")

    def take(self) -> list[str]:
        found, self.violations = self.violations, []
        return found


POLICY = PolicyWatch()


def _watched(browser: object) -> object:
    """``browser``, whose every new context (and page) reports policy violations."""
    new_context = browser.new_context  # type: ignore[attr-defined]

    def watched_context(*args: object, **kwargs: object) -> object:
        context = new_context(*args, **kwargs)
        POLICY.watch(context)
        return context

    def watched_page(*args: object, **kwargs: object) -> object:
        page = watched_context(*args, **kwargs).new_page()  # type: ignore[attr-defined]
        return page

    browser.new_context = watched_context  # type: ignore[attr-defined]
    browser.new_page = watched_page  # type: ignore[attr-defined]
    return browser


# Module scope: the sync Playwright API runs an event loop of its own while it is
# open, which would break pytest-asyncio tests that the same worker runs later.
@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield _watched(browser)
        browser.close()


@pytest.fixture(autouse=True)
def no_policy_violation() -> Iterator[None]:
    """Fails the test if a page broke the Content-Security-Policy (set up before, so torn
    down after, the fixtures that close the test's contexts)."""
    POLICY.take()
    yield
    found = POLICY.take()
    assert not found, f"the page broke its Content-Security-Policy: {found}"


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    folder = Path(os.environ.get("BODOGE_SCREENSHOTS", ROOT / "test-artifacts" / "screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class PageProblems:
    """Uncaught page errors and every dialog a page opened (none should open by itself)."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []


def check_answer(response: object) -> None:
    """Check a page's JSON answer of the HTTP API against ``docs/schema/http``."""
    url = urlsplit(response.url)  # type: ignore[attr-defined]
    kind = response.headers.get("content-type", "")  # type: ignore[attr-defined]
    if not kind.startswith("application/json"):
        return
    try:
        body = response.body()  # type: ignore[attr-defined]
    except Exception:  # the page went away first: nothing to check
        return
    method = response.request.method  # type: ignore[attr-defined]
    http_schema.check(method, url.path, response.status, kind, body)  # type: ignore[attr-defined]


def check_socket(ws: object, origin: str) -> None:
    """Check every frame the server sends on a page's WebSocket against the schemas."""
    checker = FrameChecker(origin)
    ws.on("framereceived", checker.check)  # type: ignore[attr-defined]


@pytest.fixture
def open_page(
    browser: object, live_server: LiveServer
) -> Iterator[Callable[..., tuple[object, PageProblems]]]:
    """Open a fresh browser context (its own localStorage: a different person) on the server."""
    contexts = []
    problems: list[PageProblems] = []

    def open_(path: str = "/", *, viewport: dict[str, int] = DESKTOP, lang: str = "ja"):
        context = browser.new_context(viewport=viewport, locale="ja-JP")  # type: ignore[attr-defined]
        context.add_init_script(
            f"try {{ if (!localStorage.getItem('bodoge.lang')) "
            f"localStorage.setItem('bodoge.lang', '{lang}'); }} catch (e) {{}}"
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        found = PageProblems()
        problems.append(found)
        page.on("pageerror", lambda e: found.errors.append(str(e)))
        page.on("websocket", lambda ws: check_socket(ws, f"to the page {path}"))
        page.on("response", check_answer)

        def on_dialog(dialog: object) -> None:
            found.dialogs.append(f"{dialog.type}: {dialog.message}")  # type: ignore[attr-defined]
            dialog.dismiss()  # type: ignore[attr-defined]

        page.on("dialog", on_dialog)
        page.goto(live_server.url.rstrip("/") + path)
        return page, found

    yield open_
    for context in contexts:
        context.close()
    errors = [e for p in problems for e in p.errors]
    assert not errors, f"uncaught errors in the page: {errors}"
