"""Namespaces: derived from the database, overridable, safe in a channel name."""

from __future__ import annotations

import pytest

from bodoge.cluster.namespace import BadNamespace, Namespace


def test_the_default_depends_on_the_database_not_on_the_password_or_driver() -> None:
    base = Namespace.for_database("postgresql+asyncpg://app:one@db:5432/games")
    assert base == Namespace.for_database("postgresql://app:two@db:5432/games")
    others = [
        "postgresql://app@db:5432/other",
        "postgresql://app@db:5433/games",
        "postgresql://app@db2:5432/games",
        "postgresql://admin@db:5432/games",
    ]
    assert len({base, *(Namespace.for_database(url) for url in others)}) == 5
    assert base.prefix.startswith("bodoge:") and len(base.prefix) == len("bodoge:") + 10


def test_an_override_wins_and_must_be_safe_in_a_channel_name() -> None:
    assert Namespace.for_database("postgresql://db/x", "prod-eu").table("t") == "prod-eu:table:t"
    for bad in ["", "two words", "tab\there", "名前", "x" * 101]:
        with pytest.raises(BadNamespace):
            Namespace.for_database("postgresql://db/x", bad)
