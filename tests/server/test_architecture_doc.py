"""``docs/architecture.md`` maps every module of ``bodoge/server`` and no other."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text()
SERVER = ROOT / "bodoge" / "server"


def test_the_module_map_lists_exactly_the_server_modules() -> None:
    section = DOC[DOC.index("## Modules") :]
    section = section[: section.index("\n## ", 1)]
    first_column = re.findall(r"^\| ([^|]+) \|", section, re.M)
    mapped = [name for cell in first_column for name in re.findall(r"`([a-z_/]+\.py)`", cell)]
    modules = [
        p.relative_to(SERVER).as_posix() for p in SERVER.rglob("*.py") if p.name != "__init__.py"
    ]
    assert sorted(mapped) == sorted(modules)


def test_each_package_of_the_server_is_in_the_drawing() -> None:
    section = DOC[DOC.index("## Modules") :]
    for package in sorted(p.name for p in SERVER.iterdir() if (p / "__init__.py").exists()):
        assert f"  {package}/" in section, package
