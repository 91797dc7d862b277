"""``Player``, the value a table knows a person by (the services keep the rest: tokens,
names' rules, ``Players``)."""

from __future__ import annotations

import secrets
import string
from dataclasses import dataclass

_ID_ALPHABET = string.ascii_lowercase + string.digits


@dataclass(eq=False)
class Player:
    """A known visitor.  One object per player, shared, so a rename shows everywhere."""

    id: str
    name: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name}


def new_id(prefix: str, length: int = 10) -> str:
    """A random id such as ``t_k3x9q2m1a0``: short enough for an invite link."""
    return prefix + "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))
