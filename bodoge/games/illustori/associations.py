"""What the things on the cards bring to mind, beyond CLDR's keywords.

CLDR's Japanese keywords are few (🐻 is クマ and 動物; the English ones know it
likes honey).  People at the table reach for an animal's cry, what it eats,
where it lives, a food's taste, a famous pair: ``ケロケロ`` for a frog,
``はちみつ`` for a bear, ``南極`` for a penguin, ``甘酸っぱい`` for a
strawberry.  These words are loose but defensible: bots may say them (tier
3, see :mod:`.words`) and voters mostly let them pass.

>>> things("🐻", "ja")[:2]
('はちみつ', '冬眠')
>>> things("🐸", "en")
('croak', 'pond', 'tadpole', 'jump')
>>> things("🫥", "ja")
()
"""

from __future__ import annotations

__all__ = ["THINGS", "things"]


def _pair(ja: str, en: str) -> dict[str, tuple[str, ...]]:
    return {"ja": tuple(ja.split("/")), "en": tuple(en.split("/"))}


#: Emoji -> words it brings to mind (Japanese and English), written compactly.
THINGS: dict[str, dict[str, tuple[str, ...]]] = {
    char: _pair(ja, en)
    for char, ja, en in (
        ("🐶", "ワンワン/散歩/骨/忠犬", "woof/walk/bone/loyal"),
        ("🐕", "ワンワン/散歩/骨/忠犬", "woof/walk/bone/loyal"),
        ("🐱", "ニャー/マタタビ/こたつ/肉球", "meow/purr/whiskers/paws"),
        ("🐈", "ニャー/マタタビ/こたつ/肉球", "meow/purr/whiskers/paws"),
        ("🐭", "チーズ/チューチュー/屋根裏", "cheese/squeak/trap"),
        ("🐹", "ひまわりの種/回し車/ほお袋", "seeds/wheel/cheeks"),
        ("🐰", "にんじん/月/ぴょんぴょん/耳", "carrot/hop/ears/easter"),
        ("🐇", "にんじん/月/ぴょんぴょん/耳", "carrot/hop/ears/easter"),
        ("🦊", "油揚げ/化ける/コンコン/しっぽ", "sly/tail/clever/den"),
        ("🐻", "はちみつ/冬眠/森/鮭", "honey/hibernate/woods/salmon"),
        ("🐼", "笹/竹/動物園/白黒", "bamboo/zoo/black and white/china"),
        ("🐯", "しましま/ジャングル/猛獣/ガオー", "stripes/jungle/roar/wild"),
        ("🦁", "百獣の王/たてがみ/サバンナ/ガオー", "king/mane/savanna/roar"),
        ("🐮", "牛乳/ミルク/牧場/モー", "milk/farm/moo/grass"),
        ("🐷", "ブーブー/豚肉/泥んこ/貯金箱", "oink/mud/bacon/piggy bank"),
        ("🐸", "ケロケロ/池/おたまじゃくし/ジャンプ", "croak/pond/tadpole/jump"),
        ("🐵", "バナナ/ウキー/木登り/温泉", "banana/climb/jungle/cheeky"),
        ("🐔", "コケコッコー/卵/朝/ひよこ", "cluck/eggs/farm/morning"),
        ("🐓", "コケコッコー/卵/朝/早起き", "crow/eggs/morning/farm"),
        ("🐤", "ピヨピヨ/卵/黄色/小鳥", "cheep/egg/yellow/tweet"),
        ("🐺", "遠吠え/満月/群れ/赤ずきん", "howl/full moon/pack/red riding hood"),
        ("🐧", "南極/氷/よちよち/水族館", "antarctica/ice/waddle/aquarium"),
        ("🦉", "ホーホー/森/夜行性/知恵", "hoot/woods/night/wisdom"),
        ("🦀", "はさみ/横歩き/海/カニ鍋", "claws/sideways/beach/seafood"),
        ("🐟", "海/泳ぐ/刺身/水族館", "sea/swim/sushi/aquarium"),
        ("🐡", "毒/ふぐ刺し/とげ/海", "poison/spiky/puffy/sea"),
        ("🐳", "海/大きい/潮吹き/大海原", "sea/big/blowhole/deep"),
        ("🐬", "海/水族館/ジャンプ/賢い", "sea/aquarium/jump/smart"),
        ("🦈", "海/歯/ジョーズ/背びれ", "sea/teeth/jaws/fin"),
        ("🐙", "墨/八本足/海/たこ焼き", "ink/eight legs/sea/tentacles"),
        ("🦑", "墨/海/するめ/足", "ink/sea/tentacles/calamari"),
        ("🐢", "甲羅/のろのろ/浦島太郎/長生き", "shell/slow/pond/old"),
        ("🐌", "殻/のろのろ/雨/ぬるぬる", "shell/slow/rain/slimy"),
        ("🐝", "はちみつ/花/針/ブンブン", "honey/flowers/sting/buzz"),
        ("🐛", "葉っぱ/ちょうちょ/さなぎ/もぞもぞ", "leaf/butterfly/cocoon/crawl"),
        ("🐞", "赤/水玉/花/幸運", "red/spots/garden/lucky"),
        ("🦋", "花/さなぎ/ひらひら/春", "flowers/cocoon/flutter/spring"),
        ("🐜", "砂糖/働き者/行列/巣", "sugar/hard work/colony/tiny"),
        ("🐘", "鼻/サーカス/大きい/動物園", "trunk/circus/big/zoo"),
        ("🦒", "首/キリン/サバンナ/高い", "neck/tall/savanna/spots"),
        ("🦛", "川/大口/重い/水浴び", "river/mouth/heavy/mud"),
        ("🦏", "角/サバンナ/突進/重い", "horn/savanna/charge/heavy"),
        ("🐊", "ワニ/沼/歯/川", "swamp/teeth/river/snap"),
        ("🦖", "恐竜/化石/ジュラ紀/ガオー", "fossil/jurassic/roar/extinct"),
        ("🦕", "化石/首/ジュラ紀/大昔", "fossil/neck/jurassic/prehistoric"),
        ("🐫", "こぶ/砂漠/オアシス/旅", "hump/desert/oasis/caravan"),
        ("🐑", "メー/羊毛/眠れない夜/牧場", "baa/wool/counting/farm"),
        ("🐐", "メー/ミルク/山/紙", "bleat/milk/mountain/farm"),
        ("🐴", "ヒヒーン/にんじん/競馬/牧場", "neigh/carrot/race/farm"),
        ("🦄", "虹/夢/魔法/角", "rainbow/dream/magic/horn"),
        ("🐨", "ユーカリ/オーストラリア/木/のんびり", "eucalyptus/australia/tree/sleepy"),
        ("🦘", "オーストラリア/ジャンプ/ポケット/ボクシング", "australia/hop/pouch/boxing"),
        ("🐿️", "どんぐり/木の実/しっぽ/森", "acorn/nuts/tail/woods"),
        ("🦆", "ガーガー/池/水辺/アヒル", "quack/pond/water/duckling"),
        ("🦢", "湖/白鳥の湖/バレエ/優雅", "lake/ballet/graceful/white"),
        ("🐲", "火/伝説/辰年/昔話", "fire/legend/fairy tale/fantasy"),
        ("🐉", "火/伝説/辰年/昔話", "fire/legend/fairy tale/fantasy"),
        ("🍓", "甘酸っぱい/ショートケーキ/春/赤", "sweet/shortcake/red/jam"),
        ("🍎", "赤/白雪姫/ジュース/アップルパイ", "red/snow white/juice/apple pie"),
        ("🍋", "すっぱい/レモネード/ビタミン/黄色", "sour/lemonade/vitamin/yellow"),
        ("🍑", "桃太郎/甘い/夏/ピンク", "sweet/summer/pink/juicy"),
        ("🍒", "甘い/初夏/赤/ふたご", "sweet/red/summer/pair"),
        ("🍅", "赤/サラダ/ケチャップ/夏野菜", "red/salad/ketchup/sauce"),
        ("🍩", "甘い/穴/おやつ/コーヒー", "sweet/hole/snack/coffee"),
        ("🍪", "甘い/おやつ/サクサク/ミルク", "sweet/snack/crunchy/milk"),
        ("🧁", "甘い/おやつ/パーティー/クリーム", "sweet/party/frosting/treat"),
        ("🍙", "お弁当/のり/遠足/梅干し", "lunch/seaweed/picnic/rice"),
        ("🍣", "回転寿司/わさび/魚/しょうゆ", "wasabi/fish/raw/soy sauce"),
        ("🍔", "ファストフード/ポテト/ランチ/ジャンクフード", "fast food/fries/lunch/junk food"),
        ("🍕", "チーズ/イタリア/パーティー/宅配", "cheese/italy/party/delivery"),
        ("🍦", "冷たい/夏/甘い/コーン", "cold/summer/sweet/cone"),
        ("🧀", "ネズミ/ピザ/ワイン/穴", "mouse/pizza/wine/holes"),
        ("🥚", "朝ごはん/ひよこ/目玉焼き/殻", "breakfast/chick/shell/omelette"),
        ("🍄", "森/毒/マリオ/秋", "forest/poison/autumn/fungus"),
        ("🌵", "とげ/とげとげ/乾燥/メキシコ", "prickly/spines/dry/mexico"),
        ("🎃", "ハロウィン/お化け/オレンジ/秋", "halloween/spooky/orange/autumn"),
        ("👻", "ハロウィン/おばけ屋敷/夜/ホラー", "halloween/haunted/night/horror"),
        ("🤖", "機械/未来/ピコピコ/コンピューター", "machine/future/computer/beep"),
        ("👽", "宇宙/円盤/火星/地球侵略", "space/saucer/mars/invasion"),
        ("💀", "ホラー/骨/海賊/ハロウィン", "horror/bones/pirate/halloween"),
        ("⏰", "朝/寝坊/目覚め/早起き", "morning/late/ring/wake up"),
        ("👑", "王様/女王/お姫さま/宝石", "king/queen/princess/jewels"),
        ("🚀", "宇宙/月/発射/宇宙飛行士", "space/moon/blast off/astronaut"),
        ("🎣", "魚/川/海/休日", "fish/river/lake/weekend"),
        ("🍰", "甘い/誕生日/いちご/おやつ", "sweet/birthday/strawberry/treat"),
        ("❤️", "恋/大好き/バレンタイン/心", "love/valentine/heart/crush"),
        ("💤", "夢/夜/いびき/眠い", "dream/night/snore/tired"),
    )
}


def things(char: str, language: str) -> tuple[str, ...]:
    """What ``char`` brings to mind in ``language`` (``()`` if nothing is listed)."""
    return THINGS.get(char, {}).get(language, ())
