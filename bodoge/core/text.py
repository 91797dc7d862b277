"""What text people type for others to read may never hold: characters that draw nothing.

One rule for every name and line a person types — player names, account names, passkey
names, chat, Illustori's words: no character with Unicode's ``Default_Ignorable_Code_Point``
property (zero-width spaces and joiners, variation selectors, Hangul fillers, Mongolian and
Khmer invisibles, tags…) and none with ``Bidi_Control`` (the marks, embeddings, overrides
and isolates that turn the rest of a line around).  They are found by those properties
(the ``regex`` package's Unicode database), not by a list, so a new Unicode version's
characters are covered when the package is.  "Hana" and "Ha\\u034fna" then cannot both be
names: the second is refused, not shown as the first.

Names identify people, so they allow nothing invisible at all, not even inside an emoji
(``❤️`` is U+2764 U+FE0F: the name takes ``❤`` alone).  Free text (``emoji=True``: chat, a
word) keeps a well-formed emoji sequence whole, as phones type them — an emoji followed by
the emoji presentation selector U+FE0F, emoji joined by U+200D, a flag's tag sequence — and
refuses the same characters anywhere else.

>>> invisible("Hana"), invisible("はなこ"), invisible("a\\u034fb")
(None, None, '\\u034f')
>>> invisible("\\u2764\\ufe0f gg"), invisible("\\u2764\\ufe0f gg", emoji=True)
('\\ufe0f', None)
>>> invisible("Hana\\ufe0f", emoji=True), invisible("ok \\u202e", emoji=True)
('\\ufe0f', '\\u202e')
"""

from __future__ import annotations

import regex

#: Every character that draws nothing or turns the line around, by Unicode property.
INVISIBLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]")

_PICTURE = r"(?:\p{Extended_Pictographic}|\p{Emoji})"
_ONE = _PICTURE + r"\uFE0F?\p{Emoji_Modifier}?\u20E3?"
#: A well-formed emoji sequence: presentation selectors, ZWJ-joined emoji, a flag's tags.
EMOJI_SEQUENCE = regex.compile(
    _ONE + r"(?:[\U000E0020-\U000E007E]+\U000E007F)?(?:\u200D" + _ONE + r")*"
)


def invisible(text: str, *, emoji: bool = False) -> str | None:
    """The first character of ``text`` that draws nothing (``None``: there is none).

    With ``emoji``, the invisible characters inside well-formed emoji sequences are kept.
    """
    if emoji:
        text = EMOJI_SEQUENCE.sub("", text)
    found = INVISIBLE.search(text)
    return None if found is None else found.group()
