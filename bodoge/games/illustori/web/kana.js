// The shiritori letters of a word, as bodoge/games/illustori/kana.py and
// shiritori.py read them, so the page can fill in the first and last kana and
// flag a word before it is sent.  The server still decides: this is only a
// preview, and where the two ever disagree the server's judgement stands.
//
//   ends("ピッチャー")        // {head: "ぴ", tail: "や"}
//   ends("東京タワー")        // {head: null, tail: "わ"}
//   check({word: "だいこん", language: "ja", nextHeads: ["た", "だ"]}).reason  // "ends_with_n"

const BASE = new Set("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわゐゑをん");
const DAKUTEN = "\u3099";
const HANDAKUTEN = "\u309a";
const OLD = { ゐ: "い", ゑ: "え", を: "お" };
const LONG = "ー";
// Small kana and their large forms (after katakana became hiragana).
const SMALL = {
  ぁ: "あ", ぃ: "い", ぅ: "う", ぇ: "え", ぉ: "お", っ: "つ", ゃ: "や", ゅ: "ゆ", ょ: "よ", ゎ: "わ", ゕ: "か", ゖ: "け",
  ㇰ: "く", ㇱ: "し", ㇲ: "す", ㇳ: "と", ㇴ: "ぬ", ㇵ: "は", ㇶ: "ひ", ㇷ: "ふ", ㇸ: "へ", ㇹ: "ほ", ㇺ: "む", ㇻ: "ら", ㇼ: "り", ㇽ: "る", ㇾ: "れ", ㇿ: "ろ",
};
const EMOJI = /\p{Regional_Indicator}|[0-9#*]\uFE0F?\u20E3|\p{Extended_Pictographic}(?:\uFE0F|\u200D\p{Extended_Pictographic}|[\u{1F3FB}-\u{1F3FF}]|[\u{E0020}-\u{E007F}])*/gu;
const READ = /[\p{L}\p{N}]/u;

export const N = "ん";
export const MAX_WORD = 40;

/** Katakana as hiragana (ヷヸヹヺ have no hiragana and stay). */
function kataToHira(text) {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (code >= 0x30a1 && code <= 0x30f6) out += String.fromCodePoint(code - 0x60);
    else if (code === 0x30fd || code === 0x30fe) out += String.fromCodePoint(code - 0x60);
    else out += ch;
  }
  return out;
}

/** One form for every text: emoji dropped, NFKC (half-width kana made full), hiragana. */
export function normalize(text) {
  return kataToHira(String(text).replace(EMOJI, "").normalize("NFKC"));
}

/** The kana letter `ch` is (hiragana, large, (han)dakuten kept), or null. */
export function letter(ch) {
  let text = normalize(ch);
  if ([...text].length !== 1) return null;
  text = SMALL[text] ?? text;
  const parts = [...text.normalize("NFD")];
  const plain = kataToHira(parts[0]);
  if (!BASE.has(plain) || parts.slice(1).some((p) => p !== DAKUTEN && p !== HANDAKUTEN)) return null;
  return text;
}

/** The family a letter belongs to: its plain modern letter (ぱ → は, を → お), or null. */
export function base(ch) {
  const found = letter(ch);
  if (found === null) return null;
  const plain = kataToHira([...found.normalize("NFD")][0]);
  return OLD[plain] ?? plain;
}

/** Whether two kana link (dakuten aside). */
export function sameFamily(a, b) {
  const key = base(a);
  return key !== null && key === base(b);
}

function skipped(ch) {
  return ch === LONG || !READ.test(ch);
}

/** The first kana letter of `text`, or null when it does not begin with kana. */
export function first(text) {
  for (const ch of normalize(text)) if (!skipped(ch)) return letter(ch);
  return null;
}

/** The last kana letter of `text` (a final ー skipped, ゝゞ repeating), or null. */
export function last(text) {
  const chars = [...normalize(text)];
  for (let i = chars.length - 1; i >= 0; i--) if (!skipped(chars[i])) return repeat(chars, i);
  return null;
}

function repeat(chars, i) {
  const ch = chars[i];
  if (ch !== "ゝ" && ch !== "ゞ") return letter(ch);
  const before = i > 0 ? repeat(chars, i - 1) : null;
  if (before === null) return null;
  const plain = kataToHira([...before.normalize("NFD")][0]);
  if (ch === "ゝ") return plain;
  // Katakana, because ヸ (ゐ with dakuten) has no hiragana.
  const kata = String.fromCodePoint(plain.codePointAt(0) + 0x60);
  return letter((kata + DAKUTEN).normalize("NFC")) ?? plain;
}

/** The English letters a-z of `text`, lower case, accents dropped. */
export function letters(text) {
  return String(text)
    .replace(EMOJI, "")
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z]/g, "");
}

/** The head and tail a word gives by itself (null where it does not). */
export function ends(word, language = "ja") {
  if (language === "en") {
    const found = letters(word);
    return found ? { head: found[0], tail: found[found.length - 1] } : { head: null, tail: null };
  }
  return { head: first(word), tail: last(word) };
}

function stated(text, language, atHead) {
  if (text === null || text === undefined || !String(text).trim()) return null;
  if (language === "en") {
    const found = letters(text);
    return (atHead ? found.slice(0, 1) : found.slice(-1)) || "";
  }
  return (atHead ? first(text) : last(text)) ?? "";
}

function same(a, b, language) {
  return language === "en" ? a === b : sameFamily(a, b);
}

function key(ch, language) {
  return language === "en" ? ch : base(ch);
}

/**
 * The page's preview of the shiritori judge, with the same reasons and order
 * as shiritori.judge (and the engine's rule that a word's own joint counts as
 * used when joints are banned).  `nextHeads` is null for the first word.
 *
 * Returns {reason, head, tail, ownHead, ownTail}: `reason` is "ok", a
 * refusal ("empty", "too_long", "not_kana", "no_letters", "head_mismatch",
 * "tail_mismatch", "no_link") or a penalty ("ends_with_n", "same_ends",
 * "banned_joint").
 */
export function check({ word, language = "ja", nextHeads = null, head = null, tail = null, banSameEnds = false, usedJoints = null }) {
  const text = String(word ?? "").trim();
  const own = ends(text, language);
  const result = (reason, h = null, t = null) => ({ reason, head: h, tail: t, ownHead: own.head, ownTail: own.tail });
  if (![...text].some((ch) => !/[\p{Z}\p{C}]/u.test(ch))) return result("empty");
  if ([...text].length > MAX_WORD) return result("too_long");
  const statedHead = stated(head, language, true);
  const statedTail = stated(tail, language, false);
  const h = own.head || statedHead || null;
  const t = own.tail || statedTail || null;
  if (language === "en" && own.head === null) return result("no_letters");
  if (h === null || t === null) return result("not_kana", h, t);
  if (own.head && statedHead !== null && !same(own.head, statedHead, language)) return result("head_mismatch", h, t);
  if (own.tail && statedTail !== null && !same(own.tail, statedTail, language)) return result("tail_mismatch", h, t);
  if (nextHeads && !nextHeads.some((x) => same(h, x, language))) return result("no_link", h, t);
  if (language === "ja" && base(t) === N) return result("ends_with_n", h, t);
  if (banSameEnds && same(h, t, language)) return result("same_ends", h, t);
  if (usedJoints) {
    const banned = new Set(usedJoints.map((j) => key(j, language)));
    if (nextHeads) banned.add(key(h, language)); // the joint this word makes
    if (banned.has(key(t, language))) return result("banned_joint", h, t);
  }
  return result("ok", h, t);
}

/** Refusals the server would answer with an error (the move cannot be sent as it is). */
export const REFUSED = new Set(["empty", "too_long", "not_kana", "no_letters", "head_mismatch", "tail_mismatch", "no_link"]);
/** Words the rules let you play but punish: the card is discarded. */
export const PENALTIES = new Set(["ends_with_n", "same_ends", "banned_joint"]);
