"""The HTTP API's JSON Schemas (``docs/schema/http/``) as a checker for every answer a test gets.

``docs/schema/http.json`` names, under ``x-routes``, the schema of each JSON route's answer
(``"GET /api/tables/{table_id}": "http/table.json"``); every error answer of any route is
``http/error.json``.  Every ``httpx`` client of the tests (``tests/conftest.py`` wraps
``send``) and every browser page (``tests/e2e/conftest.py``) hands its answers to
:func:`check`, which records what is wrong in :data:`tests.support.schema.VIOLATIONS`,
so the test that got it fails, as for a WebSocket frame.  A JSON answer of a path no route
names is a violation too: a new endpoint cannot answer undocumented.

>>> problems("GET", "/api/tables/t_abc", 404, {"error": {"code": "unknown_table", "message": "x"}})
[]
>>> problems("GET", "/api/tables/t_abc", 404, {"error": "no"})
["GET /api/tables/t_abc 404: at $.error: 'no' is not of type 'object'"]
>>> problems("GET", "/api/nothing", 200, {})
['GET /api/nothing 200: no route of docs/schema/http.json answers it']
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from bodoge.core.values import JSON
from tests.support.schema import SCHEMA_DIR, VIOLATIONS, validate


@cache
def routes() -> tuple[tuple[str, re.Pattern[str], str, bool], ...]:
    """``(method, path pattern, schema file, for every status)`` of every route named in
    ``http.json``, in its order (the first that matches a path is its route)."""
    index = json.loads((SCHEMA_DIR / "http.json").read_text())
    found = []
    for route, named in index["x-routes"].items():
        method, template = route.split(" ", 1)
        pattern = re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(template))
        pattern = re.sub(r"\\\{[a-z_]+:path\\\}", ".*", pattern)
        every = isinstance(named, dict)
        path = named["every_status"] if every else named
        found.append((method, re.compile(pattern + r"\Z"), path, every))
    return tuple(found)


def schema_of(method: str, path: str, status: int) -> str | None:
    for m, pattern, schema, every in routes():
        if m == method and pattern.match(path):
            return schema if every or status < 400 else "http/error.json"
    return None


def problems(method: str, path: str, status: int, body: JSON) -> list[str]:
    """What is wrong with one JSON answer of ``method path`` with ``status``."""
    label = f"{method} {path} {status}"
    schema = schema_of(method, path, status)
    if schema is None and status >= 400:
        schema = "http/error.json"  # every error of any path, a test's own routes too
    if schema is None:
        return [f"{label}: no route of docs/schema/http.json answers it"]
    return validate(schema, body, label)


def check(method: str, url_path: str, status: int, content_type: str, content: bytes) -> None:
    """Validate one answer if it is JSON; record what is wrong."""
    if not content_type.startswith("application/json"):
        return
    try:
        body: Any = json.loads(content)
    except ValueError as exc:
        VIOLATIONS.append(f"{method} {url_path} {status}: not JSON ({exc})")
        return
    VIOLATIONS.extend(problems(method, url_path, status, body))
