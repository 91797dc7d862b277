"""The names of one cluster's Redis channels.

Every process of a cluster talks on channels whose names start with the cluster's
*namespace*, so two clusters that share a Redis server (each on its own database) never
hear each other. By default the namespace is derived from the database URL, which all
processes of one cluster are given anyway; ``--redis-namespace`` overrides it.

>>> ns = Namespace.for_database("postgresql+asyncpg://bodoge:secret@db.example/bodoge")
>>> ns.prefix
'bodoge:57f66fe58c'
>>> ns.table("t_1"), ns.process("p1"), ns.lobby
('bodoge:57f66fe58c:table:t_1', 'bodoge:57f66fe58c:proc:p1', 'bodoge:57f66fe58c:lobby')

The password is not part of it (changing it must not split a cluster), nor is the driver:

>>> Namespace.for_database("postgresql://bodoge:other@db.example/bodoge") == ns
True
>>> Namespace.for_database("postgresql://bodoge@db.example/other") == ns
False
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from sqlalchemy.engine import URL, make_url

#: What every default namespace starts with.
PREFIX = "bodoge"
#: Hex digits of the database URL's SHA-256 in a default namespace: 40 bits, so two
#: databases collide with probability ~1e-12 — and a collision only costs traffic.
DIGITS = 10
#: An override: printable ASCII without spaces, so it is safe in any channel or key name.
_VALID = re.compile(r"[!-~]{1,100}")


class BadNamespace(ValueError):
    """A namespace override that is empty, too long or holds spaces or non-ASCII."""


def database_identity(url: str) -> str:
    """The database URL as a cluster is told it, without password and driver.

    >>> database_identity("postgresql+asyncpg://u:pw@h:5433/db?ssl=require")
    'postgresql://u@h:5433/db?ssl=require'
    """
    parsed = make_url(url)
    bare = URL.create(
        parsed.get_backend_name(),
        username=parsed.username,
        host=parsed.host,
        port=parsed.port,
        database=parsed.database,
        query=parsed.query,
    )
    return bare.render_as_string(hide_password=False)


@dataclass(frozen=True, slots=True)
class Namespace:
    """A cluster's namespace and the channel names made from it."""

    prefix: str

    def __post_init__(self) -> None:
        if not _VALID.fullmatch(self.prefix):
            raise BadNamespace(
                f"a namespace is 1 to 100 printable ASCII characters without spaces, "
                f"not {self.prefix!r}"
            )

    @classmethod
    def for_database(cls, url: str, override: str | None = None) -> Namespace:
        """The namespace of the cluster on database ``url``, or ``override`` if given.

        >>> Namespace.for_database("postgresql://u@h/db", "blue").prefix
        'blue'
        """
        if override is not None:
            return cls(override)
        digest = hashlib.sha256(database_identity(url).encode()).hexdigest()
        return cls(f"{PREFIX}:{digest[:DIGITS]}")

    def table(self, table_id: str) -> str:
        """The channel a table's owner publishes its committed changes on."""
        return f"{self.prefix}:table:{table_id}"

    def process(self, process_id: str) -> str:
        """The channel a process receives requests and replies on."""
        return f"{self.prefix}:proc:{process_id}"

    @property
    def lobby(self) -> str:
        """The channel of lobby changes."""
        return f"{self.prefix}:lobby"

    @property
    def cluster(self) -> str:
        """The channel of cluster-wide events (a process leaving, tables released)."""
        return f"{self.prefix}:cluster"
