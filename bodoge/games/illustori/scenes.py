"""What a card's scene is about, and what people call it.

A card is one of :data:`KINDS` of scene.  Most kinds come in *themes*: a
setting is a beach or a night sky, a big face is scared or sleepy, two
figures are in love or fighting.  A :class:`Theme` holds the emoji that show
it (a symbol, a tool, the things a face feels about) and the words a person
would use for it in both languages, so that a card can be called by its mood,
an action, a place or a pun as well as by the things on it:

* ``words`` — words that name the theme alone (``夜空``, ``night sky``);
* ``frames`` — short natural phrases with slots: ``{name}`` is the main
  figure's name, ``{other}`` the name of the second thing that matters (what
  a face fears, the partner of a pair, the dreamed thing), ``{names}`` the
  English plural of ``{name}`` (``夜空の{name}``, ``{name} at night``).

Nothing here is drawn: :mod:`.composition` lays the scenes out and
:mod:`.art` draws the settings' backdrops.

>>> theme("setting", "night").words["en"][:2]
('night sky', 'night')
>>> theme("face", "scared").frames["ja"][0]
'こわい{other}'
>>> sorted(KIND_SLOTS)[:3]
['crowd', 'doing', 'dream']
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cache

__all__ = [
    "KINDS",
    "KIND_SLOTS",
    "SEAT_WORDS",
    "SETTINGS",
    "THEMES",
    "Setting",
    "Theme",
    "scene_chars",
    "setting",
    "theme",
    "themes",
]

#: The kinds of scene, each laid out in its own way (see :mod:`.composition`).
KINDS: tuple[str, ...] = (
    "dressed",  # a figure wearing or holding one thing
    "ride",  # a figure in, on or riding something
    "setting",  # a figure in a place or weather
    "crowd",  # many of one thing: a swarm, a parade, an odd one out
    "face",  # a big face with an expression, and what it feels about
    "pair",  # two figures together: in love, fighting, chatting
    "shape",  # a shape made of one thing: a heart, a star, a ring, a tower
    "sign",  # a figure with a sign of its state: asleep, singing, in love, forbidden
    "sizes",  # a giant small thing beside a tiny big thing
    "doing",  # a figure doing something with a tool
    "family",  # a parent and its child
    "dream",  # a figure asleep, dreaming of something
)

#: How many cards of each kind a lap of 60 cards holds: no kind on more than
#: 12 cards (20%) of a 60-card deck.
KIND_SLOTS: dict[str, int] = {
    "dressed": 6,
    "ride": 6,
    "setting": 8,
    "crowd": 5,
    "face": 5,
    "pair": 5,
    "shape": 4,
    "sign": 6,
    "sizes": 4,
    "doing": 5,
    "family": 3,
    "dream": 3,
}


@dataclass(frozen=True)
class Theme:
    """One thing a scene can be about, with the emoji that show it and its words.

    ``marks`` are drawn to show the theme (a 💤, a fishing rod, a ❤️ between
    two figures; one is chosen; a face scene's face itself), ``things`` are
    what it goes with (what a face feels about; one is chosen).  ``words``
    and ``frames`` map a language to its words and phrase frames (see the
    module's doc); ``loose`` to words loosely but defensibly about it, that
    a voter mostly lets pass (``暑い`` for a desert, ``バレンタイン`` for two
    figures in love).
    """

    kind: str
    key: str
    words: dict[str, tuple[str, ...]]
    frames: dict[str, tuple[str, ...]] = field(default_factory=dict)
    marks: tuple[str, ...] = ()
    things: tuple[str, ...] = ()
    loose: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((self.kind, self.key))


@dataclass(frozen=True)
class Setting:
    """A place or weather drawn behind the figure.

    ``ground`` is where the figure stands, as a share of the card's height
    from the top (``None``: it floats, as in the sky, in space or under water).
    """

    key: str
    ground: float | None


def _t(
    kind: str,
    key: str,
    ja: str,
    en: str,
    ja_frames: str = "",
    en_frames: str = "",
    marks: str = "",
    things: str = "",
) -> Theme:
    """A theme from compact text: words and frames separated by ``/``, emoji by spaces."""
    return Theme(
        kind,
        key,
        {"ja": _split(ja), "en": _split(en)},
        {"ja": _split(ja_frames), "en": _split(en_frames)},
        tuple(marks.split()),
        tuple(things.split()),
    )


def _split(text: str) -> tuple[str, ...]:
    """Words separated by ``/``."""
    return tuple(w.strip() for w in text.split("/") if w.strip())


THEMES: tuple[Theme, ...] = (
    # -- settings: a place or weather behind the figure ---------------------------------
    _t("setting", "beach", "浜辺/ビーチ/海水浴/夏休み", "beach/seaside/summer",
       "浜辺の{name}/ビーチの{name}/夏の{name}", "{name} on the beach/beach {name}"),
    _t("setting", "night", "夜空/星空/夜/真夜中", "night sky/night/starry night/midnight",
       "夜空の{name}/夜の{name}/星空の{name}", "{name} at night/night {name}"),
    _t("setting", "snow", "雪/雪景色/冬/雪の日", "snow/winter/snowy day",
       "雪の{name}/冬の{name}/雪の日の{name}", "{name} in the snow/snow {name}/winter {name}"),
    _t("setting", "city", "街/都会/ビル街", "city/downtown/town",
       "都会の{name}/街の{name}", "{name} in the city/city {name}"),
    _t("setting", "space", "宇宙/銀河/宇宙旅行", "space/outer space/galaxy",
       "宇宙の{name}/宇宙飛行士の{name}", "{name} in space/space {name}"),
    _t("setting", "sea", "海の中/海底/水中", "under the sea/underwater/ocean",
       "海の{name}/海底の{name}", "{name} under the sea/sea {name}"),
    _t("setting", "rain", "雨/雨の日/梅雨/大雨", "rain/rainy day/shower",
       "雨の日の{name}/雨の{name}", "{name} in the rain/rainy {name}"),
    _t("setting", "desert", "砂漠/砂丘/オアシス", "desert/sand/dunes",
       "砂漠の{name}", "{name} in the desert/desert {name}"),
    _t("setting", "forest", "森/森の中/林", "forest/woods",
       "森の{name}", "{name} in the woods/forest {name}"),
    _t("setting", "stage", "舞台/ステージ/主役/本番", "stage/show/spotlight",
       "舞台の{name}/主役の{name}", "{name} on stage/star {name}"),
    _t("setting", "sunset", "夕焼け/夕方/夕日", "sunset/evening/dusk",
       "夕焼けの{name}/夕方の{name}", "{name} at sunset/evening {name}"),
    # -- crowds: many of one thing --------------------------------------------------------
    _t("crowd", "swarm", "群れ/大群/大集合", "crowd/swarm/gang",
       "{name}の群れ/{name}だらけ/たくさんの{name}/{name}の大群",
       "{name} crowd/lots of {names}/crowd of {names}/so many {names}"),
    _t("crowd", "parade", "行列/行進/パレード", "parade/march/queue",
       "{name}の行列/{name}の行進/{name}のパレード",
       "{name} parade/{names} in a row/marching {names}"),
    _t("crowd", "odd", "仲間はずれ/まぎれこみ/ひとりぼっち", "odd one out/stranger/intruder",
       "仲間はずれの{other}/{name}の群れ/{name}の中の{other}",
       "odd {other}/{other} among {names}/lots of {names}"),
    # -- big faces: a feeling and what it is about ---------------------------------------
    _t("face", "scared", "恐怖/悲鳴/こわい/ぞっと", "scared/fear/scream/horror",
       "こわい{other}/{other}がこわい", "scary {other}/afraid/scared stiff",
       marks="😱", things="👻 🕷️ 🐍 💀 🦈 👹 🧟"),
    _t("face", "cold", "さむい/寒さ/ぶるぶる/冷たい", "cold/freezing/chilly",
       "冷たい{other}/寒い{other}", "cold {other}/frozen/freezing {other}",
       marks="🥶", things="🧊 ⛄ 🍧 🐧 ❄️"),
    _t("face", "hot", "あつい/暑さ/猛暑/汗だく", "hot/heat/sweaty",
       "熱い{other}/暑い{other}", "hot {other}/heatwave",
       marks="🥵", things="🔥 🌶️ ☀️ 🍜 🌋"),
    _t("face", "yummy", "おいしい/うまい/ごちそう/食いしん坊", "yummy/delicious/tasty/hungry",
       "おいしい{other}/{other}が好き", "yummy {other}/tasty {other}/delicious {other}",
       marks="😋", things="🍰 🍕 🍣 🍔 🍙 🍩 🍦 🍤"),
    _t("face", "sleepy", "ねむい/寝顔/おやすみ/熟睡", "sleepy/asleep/bedtime/nap",
       "ねむい夜/{other}と寝る", "sleepy {other}/sweet dreams",
       marks="😴", things="🛏️ 🌙 🐑 🧸"),
    _t("face", "wow", "すごい/感動/あこがれ/うっとり", "wow/amazing/starstruck",
       "すごい{other}/あこがれの{other}", "amazing {other}/wow {other}",
       marks="🤩", things="⭐ 🎁 💎 🏆 🎆"),
    _t("face", "love", "大好き/しあわせ/ラブラブ/恋", "love/lovely/adore",
       "大好きな{other}/{other}が好き", "lovely {other}/love {other}",
       marks="🥰", things="💝 🌹 🧸 🍓 🐱"),
    _t("face", "angry", "怒り/激怒/イライラ/むかむか", "angry/mad/furious",
       "うるさい{other}/{other}にイライラ", "angry/mad {other}/furious",
       marks="😡", things="🦟 ⏰ 🐝"),
    _t("face", "sad", "かなしい/涙/大泣き/号泣", "sad/tears/crying",
       "かなしい{other}/涙の{other}", "sad {other}/tears",
       marks="😭", things="💔 🧅 🌧️ 🍦"),
    _t("face", "sick", "気持ち悪い/吐き気/まずい/苦手", "yuck/gross/sick",
       "まずい{other}/苦手な{other}", "yucky {other}/gross {other}",
       marks="🤢", things="🥦 🐛 🦠 🧦"),
    _t("face", "thinking", "考え中/なやみ/なぞ/うーん", "thinking/hmm/puzzle",
       "{other}のなぞ/なぞの{other}", "thinking about {other}/puzzled",
       marks="🤔", things="❓ 🧩 🎲 📖"),
    _t("face", "shy", "はずかしい/照れ/赤面/初恋", "shy/blush/embarrassed",
       "はずかしい{other}/{other}に照れる", "shy/blushing",
       marks="😳", things="💌 🌹 💋"),
    _t("face", "sneeze", "くしゃみ/風邪/花粉/鼻水", "sneeze/cold/allergy",
       "{other}でくしゃみ/花粉の季節", "sneezy/bless you",
       marks="🤧", things="🌼 🌸 🦠 🌻"),
    _t("face", "party", "パーティー/お祝い/誕生日/わーい", "party/celebration/birthday",
       "{other}でお祝い/うれしい{other}", "party {other}/happy birthday",
       marks="🥳", things="🎂 🎈 🎁 🎉"),
    _t("face", "melting", "溶ける/とろける/暑さ/へとへと", "melting/melt/heat",
       "溶ける{other}/暑い{other}", "melting/hot {other}",
       marks="🫠", things="☀️ 🔥 🍦"),
    # -- two figures together --------------------------------------------------------------
    _t("pair", "love", "恋/カップル/デート/両思い/ラブラブ", "love/couple/date/romance",
       "{name}と{other}/{name}と{other}の恋/{name}の恋人",
       "{name} and {other}/{name} loves {other}/{name} in love",
       marks="❤️ 💕"),
    _t("pair", "fight", "けんか/対決/ライバル/決闘", "fight/rivals/showdown/duel",
       "{name}と{other}/{name}と{other}のけんか/{name}の対決",
       "{name} and {other}/{name} versus {other}/{name} fight",
       marks="⚡ 💢"),
    _t("pair", "talk", "おしゃべり/会話/ないしょ話/相談", "chat/talk/gossip/secret",
       "{name}と{other}/{name}と{other}の会話/{name}のおしゃべり",
       "{name} and {other}/{name} talks to {other}/{name} chat",
       marks="💬"),
    # -- shapes made of one thing ----------------------------------------------------------
    _t("shape", "heart", "ハート/愛/ラブ", "heart/love",
       "{name}のハート/ハートの{name}", "{name} heart/heart of {names}"),
    _t("shape", "star", "星/スター/星形", "star/twinkle",
       "{name}の星/星形の{name}", "{name} star/star of {names}"),
    _t("shape", "ring", "輪/わっか/まる/サークル", "ring/circle/wreath",
       "{name}の輪/{name}のわっか", "{name} ring/circle of {names}/ring of {names}"),
    _t("shape", "tower", "塔/タワー/積み木/山積み", "tower/stack/pile",
       "{name}の塔/{name}タワー/{name}の山", "{name} tower/stack of {names}/pile of {names}"),
    # -- signs of a state ------------------------------------------------------------------
    _t("sign", "sleep", "昼寝/居眠り/おやすみ/熟睡", "nap/asleep/snooze/sleepy",
       "ねむい{name}/眠る{name}/{name}の昼寝", "sleepy {name}/{name} nap/sleeping {name}",
       marks="💤"),
    _t("sign", "sing", "歌/鼻歌/音楽/歌声", "song/singing/music/tune",
       "歌う{name}/{name}の歌/{name}の鼻歌", "singing {name}/{name} song",
       marks="🎵 🎶"),
    _t("sign", "angry", "怒り/イライラ/ぷんぷん/不機嫌", "angry/grumpy/mad",
       "怒った{name}/怒る{name}", "angry {name}/grumpy {name}/mad {name}",
       marks="💢"),
    _t("sign", "wonder", "なぞ/疑問/はてな/迷子", "question/mystery/puzzled",
       "なぞの{name}/{name}のなぞ/迷子の{name}", "puzzled {name}/mystery {name}/lost {name}",
       marks="❓"),
    _t("sign", "surprise", "びっくり/驚き/発見/注意", "surprise/alert/shock",
       "驚いた{name}/びっくりした{name}", "surprised {name}/shocked {name}",
       marks="❗"),
    _t("sign", "idea", "ひらめき/アイデア/名案/発明", "idea/bright idea/genius",
       "{name}のアイデア/ひらめいた{name}", "clever {name}/genius {name}/{name} idea",
       marks="💡"),
    _t("sign", "crush", "一目ぼれ/恋心/片思い/ときめき", "crush/love/smitten",
       "恋する{name}/{name}の恋/{name}の片思い", "{name} in love/lovesick {name}",
       marks="💕"),
    _t("sign", "sweat", "あせ/あせり/冷や汗/緊張", "sweat/nervous/panic",
       "あせる{name}/緊張する{name}", "nervous {name}/sweaty {name}/panicky {name}",
       marks="💦"),
    _t("sign", "fire", "やる気/情熱/燃える/熱血", "fire/passion/burning",
       "燃える{name}/やる気の{name}", "fiery {name}/burning {name}/{name} on fire",
       marks="🔥"),
    _t("sign", "dizzy", "めまい/くらくら/ふらふら/目が回る", "dizzy/dazed/woozy",
       "目が回る{name}/ふらふらの{name}", "dizzy {name}/dazed {name}",
       marks="💫"),
    _t("sign", "shiny", "ぴかぴか/きらきら/新品/宝物", "shiny/sparkle/brand new",
       "ぴかぴかの{name}/きらきらの{name}", "shiny {name}/sparkly {name}/sparkling {name}",
       marks="✨"),
    _t("sign", "forbidden", "禁止/立ち入り禁止/ダメ/お断り", "forbidden/banned/no entry",
       "{name}禁止/{name}お断り", "no {names}/banned {name}/{name} ban",
       marks="🚫"),
    # -- doing something with a tool -------------------------------------------------------
    _t("doing", "fishing", "釣り/釣り人/大漁", "fishing/catch/angler",
       "{name}の釣り/釣りをする{name}/釣り好きの{name}", "fishing {name}/{name} fishing",
       marks="🎣"),
    _t("doing", "karaoke", "カラオケ/歌手/熱唱/ライブ", "karaoke/singer/concert",
       "{name}の歌/歌う{name}/歌手の{name}", "singing {name}/{name} singer/pop star {name}",
       marks="🎤"),
    _t("doing", "rock", "ロック/バンド/演奏/ギター", "rock/band/guitarist/rock star",
       "{name}のバンド/ロックな{name}/{name}の演奏", "rock {name}/{name} band/rocking {name}",
       marks="🎸"),
    _t("doing", "violin", "演奏/音楽/コンサート/演奏会", "concert/music/violinist",
       "{name}の演奏/{name}のコンサート", "{name} concert/musical {name}",
       marks="🎻"),
    _t("doing", "sweeping", "掃除/大掃除/片付け/お手伝い", "cleaning/sweeping/chores",
       "{name}の掃除/掃除する{name}", "cleaning {name}/{name} sweeping",
       marks="🧹"),
    _t("doing", "painting", "お絵かき/画家/絵/芸術", "painting/artist/art",
       "{name}の絵/画家の{name}/絵を描く{name}", "painting {name}/{name} artist/artist {name}",
       marks="🖌️ 🎨"),
    _t("doing", "reading", "読書/勉強/物語/図書館", "reading/study/story/bookworm",
       "{name}の読書/本を読む{name}/物知りの{name}", "reading {name}/{name} reading/clever {name}",
       marks="📖"),
    _t("doing", "stargazing", "天体観測/星空/望遠鏡/観察", "stargazing/astronomer/telescope",
       "{name}の天体観測/星を見る{name}", "stargazing {name}/{name} astronomer",
       marks="🔭"),
    _t("doing", "kite", "凧あげ/正月/風/お正月", "kite/windy/flying a kite",
       "{name}の凧あげ/凧をあげる{name}", "{name} with a kite/windy day",
       marks="🪁"),
    _t("doing", "cooking", "料理/朝ごはん/目玉焼き/シェフ", "cooking/chef/breakfast",
       "{name}の料理/料理する{name}/シェフの{name}", "chef {name}/cooking {name}/{name} chef",
       marks="🍳"),
    _t("doing", "drumming", "太鼓/ドラム/リズム/演奏", "drum/drummer/rhythm/beat",
       "{name}の太鼓/ドラムの{name}", "drummer {name}/{name} drummer/drumming {name}",
       marks="🥁"),
    # -- one-off kinds with their own words ------------------------------------------------
    _t("family", "family", "親子/家族/赤ちゃん/子育て", "family/baby/mother/parent",
       "{name}の親子/{name}の赤ちゃん/{name}の家族/親子の{name}",
       "{name} family/baby {name}/mother {name}/{name} and baby"),
    _t("dream", "dream", "夢/夢の中/寝言/おやすみ", "dream/dreaming/sweet dreams/asleep",
       "{other}の夢/{name}の夢/夢見る{name}/{other}を夢見る",
       "{other} dream/dreaming {name}/{name} dreams/dream of {other}"),
    _t("sizes", "sizes", "巨大/ジャンボ/ちっちゃい/大きさ", "giant/huge/tiny/big and small",
       "巨大{name}/大きな{name}/ジャンボ{name}/小さな{other}/ちっちゃい{other}",
       "giant {name}/huge {name}/big {name}/tiny {other}/little {other}"),
    _t("dressed", "dressed", "おしゃれ/おめかし/ファッション", "fancy/dressed up/fashion",
       "{other}の{name}/おしゃれな{name}", "{other} {name}/fancy {name}"),
    _t("ride", "ride", "おでかけ/寄り道", "joyride/outing",
       "{other}の{name}/{name}のおでかけ", "{other} ride/{other} trip"),
)  # fmt: skip

# Words loosely but defensibly about each theme (kind/key: Japanese, English):
# what a place, a mood or an action brings to mind.
_LOOSE: dict[tuple[str, str], tuple[str, str]] = {
    ("setting", "beach"): (
        "海/夏/日焼け/波/砂浜/バカンス",
        "sea/sun/sunburn/waves/sand/holiday/vacation",
    ),
    ("setting", "night"): (
        "月/星/夜ふかし/眠れない/暗闇/おやすみ",
        "moon/stars/late/dark/sleepless/bedtime",
    ),
    ("setting", "snow"): (
        "寒い/雪だるま/スキー/白/こたつ/クリスマス",
        "cold/snowman/ski/white/frozen/christmas",
    ),
    ("setting", "city"): (
        "ビル/通勤/都市/夜景/渋滞/上京",
        "building/traffic/commute/urban/skyscraper/street",
    ),
    ("setting", "space"): (
        "星/宇宙人/無重力/ロケット/月面/惑星",
        "stars/alien/rocket/planet/moon/astronaut",
    ),
    ("setting", "sea"): ("魚/泳ぐ/潜水/泡/人魚/竜宮城", "fish/swim/diving/bubbles/mermaid/deep"),
    ("setting", "rain"): (
        "傘/水たまり/びしょぬれ/雨宿り/梅雨入り/雷",
        "umbrella/puddle/wet/soaked/storm/cloudy",
    ),
    ("setting", "desert"): (
        "暑い/乾燥/ラクダ/のどが渇く/旅人/太陽",
        "hot/dry/camel/thirsty/sun/heat",
    ),
    ("setting", "forest"): (
        "木/キャンプ/自然/迷子/きのこ/森林浴",
        "trees/camping/nature/lost/hiking/wild",
    ),
    ("setting", "stage"): (
        "拍手/スター/発表会/照明/緊張/アイドル",
        "applause/star/concert/spotlight/actor/idol",
    ),
    ("setting", "sunset"): (
        "夕方/帰り道/オレンジ/黄昏/一日の終わり/夕暮れ",
        "evening/orange/twilight/dusk/going home/romantic",
    ),
    ("crowd", "swarm"): (
        "たくさん/満員/混雑/集会/軍団/大家族",
        "many/crowded/army/herd/flock/gathering",
    ),
    ("crowd", "parade"): (
        "一列/順番/遠足/お祭り/大移動/整列",
        "line/queue/march/procession/follow/row",
    ),
    ("crowd", "odd"): (
        "まちがい探し/迷子/変装/異物/浮いてる/目立つ",
        "misfit/stranger/lost/spy/disguise/different",
    ),
    ("face", "scared"): (
        "ホラー/おばけ屋敷/肝試し/悲鳴/震える/逃げる",
        "horror/haunted/scream/shiver/panic/nightmare",
    ),
    ("face", "cold"): ("冬/震える/凍える/風邪/かき氷/南極", "winter/shiver/frozen/ice/snow/arctic"),
    ("face", "hot"): ("夏/汗/辛い/やけど/日差し/熱中症", "summer/sweat/spicy/burn/sunny/fever"),
    ("face", "yummy"): (
        "食事/よだれ/ランチ/腹ペこ/大好物/いただきます",
        "dinner/lunch/snack/delicious/treat/feast",
    ),
    ("face", "sleepy"): ("夜/ベッド/あくび/まくら/夢/朝寝坊", "night/bed/yawn/pillow/dream/tired"),
    ("face", "wow"): (
        "宝物/夢中/感激/キラキラ/ファン/ごほうび",
        "treasure/fan/dazzled/prize/excited/amazed",
    ),
    ("face", "love"): (
        "ハート/恋人/一目ぼれ/プレゼント/ときめき/片思い",
        "heart/crush/sweetheart/darling/romance/gift",
    ),
    ("face", "angry"): (
        "ストレス/ケンカ/うるさい/不満/むかつく/八つ当たり",
        "furious/annoyed/grumpy/rage/upset/noise",
    ),
    ("face", "sad"): (
        "失恋/悲しみ/泣き虫/ショック/お別れ/さよなら",
        "heartbreak/sorrow/tears/goodbye/lonely/upset",
    ),
    ("face", "sick"): (
        "病気/腹痛/嫌い/好き嫌い/においがする/にがい",
        "ill/nausea/disgusting/smelly/bitter/hate",
    ),
    ("face", "thinking"): (
        "推理/クイズ/悩み/難問/思案/名探偵",
        "riddle/quiz/mystery/wonder/detective/guess",
    ),
    ("face", "shy"): (
        "恋/ラブレター/照れ屋/告白/ドキドキ/赤面",
        "crush/love letter/blush/confession/nervous/bashful",
    ),
    ("face", "sneeze"): (
        "春/鼻/ティッシュ/ハクション/マスク/病院",
        "spring/nose/tissue/achoo/flu/allergy",
    ),
    ("face", "party"): (
        "お誕生日/乾杯/記念日/宴会/ケーキ/プレゼント",
        "birthday/cheers/anniversary/cake/fun/present",
    ),
    ("face", "melting"): (
        "夏/アイス/猛暑/バテる/ぐったり/暑苦しい",
        "summer/ice cream/heatwave/exhausted/sweaty/hot day",
    ),
    ("pair", "love"): (
        "バレンタイン/結婚/ハート/初恋/告白/仲良し",
        "valentine/wedding/heart/kiss/friends/sweethearts",
    ),
    ("pair", "fight"): (
        "勝負/試合/敵/怒り/口げんか/犬猿の仲",
        "battle/match/enemy/angry/argument/war",
    ),
    ("pair", "talk"): (
        "友達/電話/うわさ/秘密/会議/井戸端会議",
        "friends/phone/rumor/meeting/conversation/whisper",
    ),
    ("shape", "heart"): (
        "恋/バレンタイン/プレゼント/大好き/気持ち/カップル",
        "valentine/romance/gift/affection/lovely/sweet",
    ),
    ("shape", "star"): (
        "夜空/流れ星/一番星/キラキラ/クリスマス/スター",
        "sky/shining/twinkle/christmas/night/bright",
    ),
    ("shape", "ring"): (
        "まる/リース/円/丸い/仲間/手をつなぐ",
        "round/wreath/donut/friends/loop/together",
    ),
    ("shape", "tower"): (
        "高い/積み上げ/バランス/ぐらぐら/山盛り/ジェンガ",
        "tall/balance/wobbly/high/heap/stacked",
    ),
    ("sign", "sleep"): ("夢/あくび/ベッド/夜/眠い/まくら", "dream/yawn/bed/night/tired/pillow"),
    ("sign", "sing"): (
        "音楽/カラオケ/歌手/コンサート/メロディー/合唱",
        "music/karaoke/singer/melody/concert/choir",
    ),
    ("sign", "angry"): (
        "ケンカ/ストレス/不満/うるさい/怒鳴る/カンカン",
        "fight/furious/annoyed/grumpy/upset/rage",
    ),
    ("sign", "wonder"): (
        "迷子/クイズ/悩み/わからない/探し物/推理",
        "lost/quiz/confused/riddle/clueless/curious",
    ),
    ("sign", "surprise"): (
        "ドッキリ/発見/ショック/危険/注意/事件",
        "danger/warning/discovery/shock/alarm/wow",
    ),
    ("sign", "idea"): (
        "電球/天才/発明/名案/思いつき/工夫",
        "bulb/genius/invention/clever/inspiration/brainstorm",
    ),
    ("sign", "crush"): (
        "ハート/恋人/デート/ドキドキ/告白/初恋",
        "heart/valentine/date/sweetheart/romance/darling",
    ),
    ("sign", "sweat"): (
        "ピンチ/遅刻/必死/焦る/冷や汗/大慌て",
        "trouble/late/worried/stress/anxious/oops",
    ),
    ("sign", "fire"): (
        "熱い/本気/挑戦/全力/がんばる/気合い",
        "hot/flame/determined/champion/energy/power",
    ),
    ("sign", "dizzy"): (
        "混乱/ぐるぐる/疲れた/気絶/酔う/目まい",
        "confused/spinning/tired/faint/sick/woozy",
    ),
    ("sign", "shiny"): (
        "新品/宝石/きれい/自慢/ピカピカ/磨く",
        "new/gem/clean/polished/fancy/treasure",
    ),
    ("sign", "forbidden"): (
        "だめ/禁止令/入場禁止/規則/お断り/注意",
        "no/rule/warning/not allowed/keep out/stop",
    ),
    ("doing", "fishing"): ("魚/海/川/釣り竿/趣味/休日", "fish/river/lake/hobby/weekend/bait"),
    ("doing", "karaoke"): (
        "歌/マイク/音楽/アイドル/熱唱/拍手",
        "song/mic/music/idol/star/applause",
    ),
    ("doing", "rock"): (
        "音楽/ライブ/ギタリスト/コンサート/ロックスター/演奏",
        "music/concert/band/guitarist/stage/loud",
    ),
    ("doing", "violin"): (
        "音楽/クラシック/オーケストラ/練習/発表会/バイオリン",
        "music/classical/orchestra/practice/recital/violin",
    ),
    ("doing", "sweeping"): (
        "家事/きれい好き/ほうき/ごみ/大掃除/お手伝い",
        "housework/clean/broom/dust/tidy/chores",
    ),
    ("doing", "painting"): (
        "芸術家/絵の具/美術館/アート/作品/画用紙",
        "artist/paint/museum/masterpiece/colors/canvas",
    ),
    ("doing", "reading"): (
        "本/図書館/勉強/物語/絵本/読書家",
        "book/library/study/story/novel/homework",
    ),
    ("doing", "stargazing"): (
        "星/夜空/宇宙/望遠鏡/流れ星/星座",
        "stars/night/space/telescope/planet/astronomy",
    ),
    ("doing", "kite"): ("風/空/正月/遊び/凧/青空", "wind/sky/flying/play/breeze/string"),
    ("doing", "cooking"): (
        "料理人/キッチン/朝食/レシピ/フライパン/卵",
        "kitchen/recipe/breakfast/eggs/food/cook",
    ),
    ("doing", "drumming"): (
        "音楽/リズム/お祭り/ドラマー/バンド/太鼓",
        "music/rhythm/band/beat/festival/loud",
    ),
    ("family", "family"): (
        "母/子ども/家族写真/母の日/子育て/ママ",
        "mom/child/kid/mother's day/parents/cute",
    ),
    ("dream", "dream"): (
        "眠り/妄想/空想/ねごと/夜/寝る",
        "sleep/wish/fantasy/night/daydream/bedtime",
    ),
    ("sizes", "sizes"): (
        "大きい/小さい/逆転/ミニチュア/怪獣/びっくり",
        "big/small/tiny/giant/monster/upside down",
    ),
    ("dressed", "dressed"): (
        "服/帽子/似合う/コーディネート/かわいい/変身",
        "clothes/hat/style/outfit/cute/costume",
    ),
    ("ride", "ride"): (
        "旅/ドライブ/冒険/遠足/出発/行楽",
        "trip/vehicle/adventure/travel/drive/journey",
    ),
}


def _with_loose(t: Theme) -> Theme:
    ja, en = _LOOSE[t.kind, t.key]  # a KeyError here means a theme without loose words
    return dataclasses.replace(t, loose={"ja": _split(ja), "en": _split(en)})


THEMES = tuple(_with_loose(t) for t in THEMES)

#: Words for a card whose figure is in, on or riding a seat, by the seat.
SEAT_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "🍵": {"ja": ("お茶", "ティータイム"), "en": ("tea", "tea time")},
    "🪺": {"ja": ("巣立ち", "ひな"), "en": ("nest", "nesting")},
    "🛶": {"ja": ("川下り", "カヌー", "船旅"), "en": ("canoe", "paddling", "river trip")},
    "☁️": {"ja": ("雲の上", "天国", "空の旅"), "en": ("cloud nine", "sky", "heaven")},
    "🚤": {"ja": ("クルーズ", "船旅"), "en": ("speedboat", "cruise")},
    "🍳": {"ja": ("フライパン", "料理"), "en": ("frying", "breakfast")},
    "📦": {"ja": ("宅配便", "引っ越し", "段ボール"), "en": ("parcel", "delivery", "moving day")},
    "🪐": {"ja": ("宇宙旅行", "惑星"), "en": ("planet", "space trip")},
    "🌙": {"ja": ("お月見", "月夜"), "en": ("moon", "moonlight")},
    "🥞": {"ja": ("ホットケーキ", "おやつ"), "en": ("pancakes", "breakfast")},
    "🎂": {"ja": ("誕生日", "お祝い"), "en": ("birthday", "party")},
    "🛋️": {"ja": ("ソファー", "くつろぎ", "休日"), "en": ("couch", "lazy day")},
    "⚽": {"ja": ("サッカー", "玉乗り"), "en": ("soccer", "circus")},
    "🌍": {"ja": ("世界旅行", "地球"), "en": ("world", "earth", "world tour")},
    "🛷": {"ja": ("そり遊び", "雪遊び"), "en": ("sledding", "snow day")},
    "🚀": {"ja": ("宇宙旅行", "発射"), "en": ("space trip", "launch", "blast off")},
    "🚗": {"ja": ("ドライブ", "お出かけ"), "en": ("drive", "road trip")},
    "🚲": {"ja": ("サイクリング", "自転車"), "en": ("cycling", "bike ride")},
    "🛹": {"ja": ("スケボー", "スケートボード"), "en": ("skateboarding", "skater")},
    "🚂": {"ja": ("汽車", "旅", "機関車"), "en": ("train", "journey", "steam train")},
    "🐢": {"ja": ("カメ", "のんびり", "浦島太郎"), "en": ("slow", "turtle ride")},
    "🚒": {"ja": ("消防車", "火事", "出動"), "en": ("firefighter", "fire engine")},
    "🚌": {"ja": ("バス旅行", "遠足"), "en": ("bus ride", "school trip")},
    "🏍️": {"ja": ("バイク", "暴走"), "en": ("motorbike", "biker")},
    "🎠": {"ja": ("遊園地", "メリーゴーランド"), "en": ("carousel", "funfair")},
    "🐎": {"ja": ("乗馬", "競馬"), "en": ("horse ride", "horse racing")},
    "🐌": {"ja": ("のろのろ", "カタツムリ"), "en": ("slow", "snail mail")},
    "🦕": {"ja": ("恐竜", "ジュラ紀"), "en": ("dinosaur", "prehistoric")},
}

#: The settings' drawings need only where the figure stands (see :mod:`.art`).
SETTINGS: tuple[Setting, ...] = (
    Setting("beach", 0.9),
    Setting("night", None),
    Setting("snow", 0.9),
    Setting("city", 0.92),
    Setting("space", None),
    Setting("sea", None),
    Setting("rain", 0.92),
    Setting("desert", 0.9),
    Setting("forest", 0.92),
    Setting("stage", 0.9),
    Setting("sunset", 0.9),
)


@cache
def _themes() -> dict[tuple[str, str], Theme]:
    return {(t.kind, t.key): t for t in THEMES}


def theme(kind: str, key: str) -> Theme:
    """The theme ``key`` of scenes of ``kind`` (``KeyError`` if there is none)."""
    return _themes()[kind, key]


def themes(kind: str) -> tuple[Theme, ...]:
    """Every theme of one kind of scene.

    >>> [t.key for t in themes("pair")]
    ['love', 'fight', 'talk']
    """
    return tuple(t for t in THEMES if t.kind == kind)


def setting(key: str) -> Setting:
    """The setting ``key`` (a ``KeyError`` if there is none)."""
    return next(s for s in SETTINGS if s.key == key)


def scene_chars() -> tuple[str, ...]:
    """Every emoji the themes draw (marks and things), once each."""
    seen: dict[str, None] = {}
    for t in THEMES:
        for char in (*t.marks, *t.things):
            seen.setdefault(char, None)
    return tuple(seen)
