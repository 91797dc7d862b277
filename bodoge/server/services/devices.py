"""The device a request comes from, as an account's list of sign-ins shows it: its client
address (as seen through the trusted proxies: uvicorn's ``--trusted-proxies`` handling) and
the browser and system its ``User-Agent`` names.

The header is read simply, by the tokens browsers have long sent, not parsed in full: the
list needs "Firefox, Windows", not a version.  Anything else is named by its first product
token (``Python``, ``curl``), and nothing at all stays unknown (``""``).

>>> device("203.0.113.7", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36"
...        " (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0")
Device(address='203.0.113.7', browser='Edge', system='Windows')
>>> device(None, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15"
...        " (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1")
Device(address='', browser='Safari', system='iPhone')
>>> device("::1", "Python/3.11 websockets/13.1").browser, device("::1", None).browser
('Python', '')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bodoge.store import Sighting

#: A browser's token in the User-Agent and its name, the more specific first (Edge and
#: Opera also say Chrome; Chrome also says Safari).
BROWSERS = (
    ("Edg/", "Edge"),
    ("EdgA/", "Edge"),
    ("EdgiOS/", "Edge"),
    ("OPR/", "Opera"),
    ("SamsungBrowser/", "Samsung Internet"),
    ("Firefox/", "Firefox"),
    ("FxiOS/", "Firefox"),
    ("CriOS/", "Chrome"),
    ("HeadlessChrome/", "Chrome"),
    ("Chromium/", "Chromium"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
#: A system's token and its name (an iPhone's also says "Mac OS X"; Android's "Linux").
SYSTEMS = (
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Android", "Android"),
    ("CrOS", "ChromeOS"),
    ("Windows", "Windows"),
    ("Macintosh", "macOS"),
    ("Mac OS X", "macOS"),
    ("Linux", "Linux"),
)
#: The most of a User-Agent read, and of a product's name kept.
AGENT_CHARS = 512
PRODUCT_CHARS = 24
_PRODUCT = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Device:
    """Where a request comes from: a client address and a browser on a system."""

    address: str = ""
    browser: str = ""
    system: str = ""

    def seen(self, at: int) -> Sighting:
        return Sighting(at, self.address, self.browser, self.system)


def device(address: str | None, user_agent: str | None) -> Device:
    """The device of a request from ``address`` whose ``User-Agent`` is ``user_agent``."""
    agent = (user_agent or "")[:AGENT_CHARS]
    browser = next((name for token, name in BROWSERS if token in agent), "")
    if not browser:
        product = _PRODUCT.match(agent)
        browser = (
            product.group()[:PRODUCT_CHARS] if product and product.group() != "Mozilla" else ""
        )
    system = next((name for token, name in SYSTEMS if token in agent), "")
    return Device(address or "", browser, system)
