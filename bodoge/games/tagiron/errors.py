"""Tagiron's precise errors, each a kind of the shared game errors."""

from __future__ import annotations

from bodoge.core.errors import BadMove, IllegalMove


class UnknownCard(BadMove):
    """A question card id that does not exist (or is not in this player count's deck)."""

    code = "unknown_card"


class CardNotFaceUp(IllegalMove):
    """A real question card that is not among the face-up cards now."""

    code = "card_not_face_up"


class BadChoice(BadMove):
    """A choice card asked without one of its two numbers, or a choice on a plain card."""

    code = "bad_choice"


class BadDeclaration(BadMove):
    """A declaration of the wrong length, with unknown tiles, or not in hand order."""

    code = "bad_declaration"


class MayNotAsk(IllegalMove):
    """Asking when only declaring (or passing) is allowed."""

    code = "may_not_ask"


class MayNotDeclare(IllegalMove):
    """Declaring after one's one declaration (3–4 players) or when eliminated."""

    code = "may_not_declare"


class MayNotPass(IllegalMove):
    """Passing is only allowed in a turn where one may only declare or pass."""

    code = "may_not_pass"
