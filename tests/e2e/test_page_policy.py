"""The page under its Content-Security-Policy in Chromium: it works (its scripts, styles,
pictures and its WebSocket are its own), and what the policy forbids — inline script, a
``style`` attribute, a script of another site — is refused and reported, which fails every
browser test (``tests/e2e/conftest.py``)."""

from __future__ import annotations

import time

from tests.e2e import ui
from tests.e2e.conftest import POLICY
from tests.support.live_server import LiveServer


def wait_for_reports(page: object, *wanted: str) -> list[str]:
    """The reports, once each of ``wanted`` begins one of the page's own (not the console's)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(
        any(v.startswith(w) for v in POLICY.violations) for w in wanted
    ):
        page.wait_for_timeout(50)  # type: ignore[attr-defined]
    return POLICY.take()


def test_the_page_works_under_its_policy_and_reports_what_it_refuses(
    live_server: LiveServer, open_page
) -> None:
    page, _ = open_page("/")
    ui.sign_in(page, "Mio")
    # The WebSocket to the page's own host passes `connect-src 'self'`.
    page.wait_for_function("() => window.bodoge.conn.state === 'ready'")
    colour = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert colour not in ("", "rgba(0, 0, 0, 0)")  # the style sheet applied
    assert POLICY.take() == []

    ran = page.evaluate(
        """() => {
            window.inlineRan = false;
            const script = document.createElement("script");
            script.textContent = "window.inlineRan = true";
            document.head.append(script);
            document.body.setAttribute("style", "outline: 3px solid red");
            const other = document.createElement("script");
            other.src = "https://example.invalid/x.js";
            document.head.append(other);
            return window.inlineRan;
        }"""
    )
    assert ran is False
    wanted = (
        "script-src-elem blocked inline",
        "style-src-attr blocked inline",
        "script-src-elem blocked https://example.invalid/x.js",
    )
    found = wait_for_reports(page, *wanted)
    for report in wanted:
        assert any(v.startswith(report) for v in found), (report, found)
    # The browser's console said so too.
    assert sum(v.startswith("console: ") for v in found) >= 3, found
