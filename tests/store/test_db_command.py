"""``bodoge db upgrade | current | history`` as the operator runs them, and their exit status."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from bodoge.cli import main
from bodoge.store import sqlite_url
from bodoge.store.upgrade import head
from tests.support.live_server import ROOT
from tests.support.old_stores import FIXTURES


def _bump(url: str) -> None:
    async def bump() -> None:
        engine = create_async_engine(url)
        async with engine.begin() as conn:
            await conn.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
        await engine.dispose()

    asyncio.run(bump())


def test_an_older_store_is_behind_then_upgraded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(FIXTURES / "first.sqlite3", tmp_path / "bodoge.sqlite3")
    data = ["db", "--data", str(tmp_path)]
    assert main([*data, "current"]) == 1
    assert "made before migrations" in capsys.readouterr().out
    assert main([*data, "upgrade"]) == 0
    assert f"upgraded from none to {head()}" in capsys.readouterr().out
    assert main([*data, "current"]) == 0
    assert capsys.readouterr().out.strip() == f"{head()} (newest)"
    assert main([*data, "upgrade"]) == 0
    assert capsys.readouterr().out.strip() == f"already at {head()}"
    assert main(["db", "history"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("0001")


def test_a_store_a_newer_release_upgraded_is_named_and_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["db", "--data", str(tmp_path)]
    assert main([*data, "upgrade"]) == 0
    _bump(sqlite_url(tmp_path))
    assert main([*data, "upgrade"]) == 2
    error = capsys.readouterr().err
    assert "version 9999" in error and f"its newest is {head()}" in error


def test_serve_refuses_a_store_a_newer_release_upgraded(tmp_path: Path) -> None:
    assert main(["db", "--data", str(tmp_path), "upgrade"]) == 0
    _bump(sqlite_url(tmp_path))
    command = [sys.executable, "-m", "bodoge", "serve", "--data", str(tmp_path), "--port", "0"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "schema is at version 9999, newer than this bodoge knows" in done.stderr
    assert "Traceback" not in done.stderr
