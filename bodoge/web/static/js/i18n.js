// Every visible string goes through t(): on the first visit the browser's
// language (English or Japanese, Japanese for any other), then the choice
// remembered per browser.  Games add their own strings with addStrings().

import { SHELL_STRINGS } from "./strings.js";

const STORE_KEY = "bodoge.lang";
export const LANGS = ["ja", "en"];

const tables = { ja: {}, en: {} };
const listeners = new Set();
let current = readLang();

function readLang() {
  try {
    const saved = localStorage.getItem(STORE_KEY);
    if (LANGS.includes(saved)) return saved;
  } catch {
    /* storage blocked: follow the browser */
  }
  return browserLang();
}

/**
 * The first of the browser's preferred languages that we speak, Japanese when
 * none is: ["en-GB", "ja"] gives "en", ["fr", "de"] gives "ja".
 */
export function browserLang(preferred = navigator.languages?.length ? navigator.languages : [navigator.language]) {
  for (const tag of preferred) {
    const base = String(tag ?? "").toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "ja";
}

export function addStrings(dict) {
  for (const [lang, strings] of Object.entries(dict)) {
    tables[lang] ??= {};
    Object.assign(tables[lang], strings);
  }
}

export function lang() {
  return current;
}

export function setLang(next) {
  if (!LANGS.includes(next) || next === current) return;
  current = next;
  try {
    localStorage.setItem(STORE_KEY, next);
  } catch {
    /* not remembered, still switched */
  }
  document.documentElement.lang = next;
  for (const fn of [...listeners]) fn(next);
}

/** Call `fn(lang)` after every switch; returns the function that stops it. */
export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/**
 * The string for `key` in the current language, with `{name}` placeholders
 * filled from `params`.  With a numeric `params.count`, `key.one` / `key.other`
 * are tried first (English plurals).
 *
 *   t("lobby.seats_free", {count: 2})  // "空き2席" / "2 seats free"
 */
export function t(key, params = {}) {
  const table = tables[current];
  let text;
  if (typeof params.count === "number") {
    const rule = plural(current, params.count);
    text = table[`${key}.${rule}`] ?? table[`${key}.other`];
  }
  text ??= table[key];
  if (text === undefined) {
    // A missing English string must never fall back to Japanese; show the key.
    console.warn(`missing ${current} string: ${key}`);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (m, name) => {
    const v = params[name];
    if (v === undefined) return m;
    return typeof v === "number" && Number.isInteger(v) ? num(v) : String(v);
  });
}

/**
 * Like t(), but returns a list of strings and nodes, so a parameter may be a
 * node — a user's name wrapped by userText() stays marked as user text.
 *
 *   h("p", null, tn("table.their_turn", {name: userText(seat.player.name)}))
 */
export function tn(key, params = {}) {
  const marked = {};
  const nodes = [];
  for (const [k, v] of Object.entries(params)) {
    if (v instanceof Node) {
      marked[k] = `\u0000${nodes.length}\u0000`;
      nodes.push(v);
    } else marked[k] = v;
  }
  const text = t(key, marked);
  if (!nodes.length) return [text];
  return text.split(/\u0000(\d+)\u0000/).map((part, i) => (i % 2 ? nodes[Number(part)] : part)).filter((x) => x !== "");
}

/** Whether `key` exists (games use it for optional strings). */
export function has(key) {
  return tables[current][key] !== undefined;
}

const rules = {};
function plural(language, count) {
  rules[language] ??= new Intl.PluralRules(language);
  return rules[language].select(count);
}

const numberFormats = {};

/** A number written for the current language (thousands separators). */
export function num(n) {
  numberFormats[current] ??= new Intl.NumberFormat(current === "ja" ? "ja-JP" : "en-GB");
  return numberFormats[current].format(n);
}

addStrings(SHELL_STRINGS);
document.documentElement.lang = current;
