// The question cards' texts and kinds, exactly as bodoge/games/tagiron/cards.py
// has them (tests/e2e/test_web_static.py checks that the two agree).  The
// object literal below is plain JSON so that check can read it.

export const CARDS = {
  "total_sum": {
    "kind": "number",
    "shared": true,
    "choices": null,
    "ja": "【共有情報カード】数字の合計は？",
    "en": "[Shared] What is the sum of your tiles?"
  },
  "low3_sum": {
    "kind": "number",
    "shared": false,
    "choices": null,
    "ja": "小さい数から3枚の合計は？",
    "en": "What is the sum of your three smallest tiles (from the left)?"
  },
  "mid3_sum": {
    "kind": "number",
    "shared": false,
    "choices": null,
    "ja": "中央の3枚の合計は？",
    "en": "What is the sum of your three middle tiles?"
  },
  "high3_sum": {
    "kind": "number",
    "shared": false,
    "choices": null,
    "ja": "大きい数から3枚の合計は？",
    "en": "What is the sum of your three largest tiles (from the right)?"
  },
  "red_sum": {
    "kind": "number",
    "shared": false,
    "choices": null,
    "ja": "赤の数の合計は？",
    "en": "What is the sum of your red tiles?"
  },
  "blue_sum": {
    "kind": "number",
    "shared": false,
    "choices": null,
    "ja": "青の数の合計は？",
    "en": "What is the sum of your blue tiles?"
  },
  "max_minus_min": {
    "kind": "number",
    "shared": true,
    "choices": null,
    "ja": "【共有情報カード】数字の最大から最小を引いた数は？",
    "en": "[Shared] Your largest number minus your smallest?"
  },
  "odd_count": {
    "kind": "number",
    "shared": false,
    "choices": null,
    "ja": "奇数は何枚ある？",
    "en": "How many odd tiles do you have?"
  },
  "even_count": {
    "kind": "number",
    "shared": false,
    "choices": null,
    "ja": "偶数は何枚ある？（0も含む）",
    "en": "How many even tiles do you have (0 is even)?"
  },
  "pairs": {
    "kind": "number",
    "shared": false,
    "choices": null,
    "ja": "同じ数字タイルのペアは何組ある？",
    "en": "How many pairs of the same number do you have?"
  },
  "red_count": {
    "kind": "number",
    "shared": false,
    "choices": null,
    "ja": "赤の数字タイルは何枚ある？",
    "en": "How many red tiles?"
  },
  "blue_count": {
    "kind": "number",
    "shared": false,
    "choices": null,
    "ja": "青の数字タイルは何枚ある？",
    "en": "How many blue tiles?"
  },
  "where_0": {
    "kind": "positions",
    "shared": false,
    "choices": null,
    "ja": "0はどこ？",
    "en": "Where are your 0s?"
  },
  "where_5": {
    "kind": "positions",
    "shared": false,
    "choices": null,
    "ja": "5はどこ？",
    "en": "Where are your 5s?"
  },
  "where_1or2": {
    "kind": "positions",
    "shared": false,
    "choices": [
      1,
      2
    ],
    "ja": "1または2はどこ？（どちらか1つを選んで質問する）",
    "en": "Where are your 1s or 2s? (the asker picks one number)"
  },
  "where_3or4": {
    "kind": "positions",
    "shared": false,
    "choices": [
      3,
      4
    ],
    "ja": "3または4はどこ？（どちらか1つを選んで質問する）",
    "en": "Where are your 3s or 4s? (the asker picks one number)"
  },
  "where_6or7": {
    "kind": "positions",
    "shared": false,
    "choices": [
      6,
      7
    ],
    "ja": "6または7はどこ？（どちらか1つを選んで質問する）",
    "en": "Where are your 6s or 7s? (the asker picks one number)"
  },
  "where_8or9": {
    "kind": "positions",
    "shared": false,
    "choices": [
      8,
      9
    ],
    "ja": "8または9はどこ？（どちらか1つを選んで質問する）",
    "en": "Where are your 8s or 9s? (the asker picks one number)"
  },
  "same_colour_runs": {
    "kind": "runs",
    "shared": false,
    "choices": null,
    "ja": "同じ色が連続している数字タイルはどこ？",
    "en": "Where are neighbouring tiles of the same colour?"
  },
  "consecutive_runs": {
    "kind": "runs",
    "shared": false,
    "choices": null,
    "ja": "数が連続している数字タイルはどこ？",
    "en": "Where are neighbouring tiles with consecutive numbers?"
  },
  "centre_high_low": {
    "kind": "high_low",
    "shared": true,
    "choices": null,
    "ja": "【共有情報カード】中央の数字タイルは5以上？4以下？",
    "en": "[Shared] Is your middle tile 5 or more, or 4 or less?"
  }
};
