"""``docs/architecture.md`` maps every module of ``bodoge/server`` and no other."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text()


def test_the_module_map_lists_exactly_the_server_modules() -> None:
    section = DOC[DOC.index("## Modules") :]
    section = section[: section.index("\n## ", 1)]
    first_column = re.findall(r"^\| ([^|]+) \|", section, re.M)
    mapped = [name for cell in first_column for name in re.findall(r"`([a-z_]+\.py)`", cell)]
    modules = sorted(p.name for p in (ROOT / "bodoge" / "server").rglob("*.py"))
    assert sorted(mapped) == sorted(m for m in modules if m != "__init__.py")
