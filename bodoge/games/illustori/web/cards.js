// Picture cards: where a card's picture comes from, what it shows in words
// (alt text), and the card element every part of the table uses.
//
// A generated deck's card n is /api/games/illustori/assets/cards/{seed}/{n}.svg
// (drawn by the server from OpenMoji, cached for long); an uploaded deck's is
// /api/decks/{id}/{n}.  Pictures are <img> elements: an SVG shown that way
// cannot run anything.

import { h, userText } from "/static/js/dom.js";
import { lang, t } from "/static/js/i18n.js";

const ASSETS = "/api/games/illustori/assets";
const altCache = new Map(); // "seed/size" -> {ja: [...], en: [...]} | Promise

/** The picture's address for card `n` of the view's deck (`view.deck`). */
export function cardUrl(deck, n) {
  if (deck?.custom) return `/api/decks/${encodeURIComponent(deck.custom)}/${n}`;
  return `${ASSETS}/cards/${deck?.seed ?? 0}/${n}.svg`;
}

/**
 * Load the deck's alt texts once; `then` runs when they arrive (to redraw).
 * Uploaded decks have none: their cards are called "picture n".
 */
export function loadAlt(deck, then) {
  if (!deck || deck.custom || deck.seed === null || deck.seed === undefined) return;
  const key = `${deck.seed}/${deck.size}`;
  if (altCache.has(key)) return;
  const pending = fetch(`${ASSETS}/cards/${deck.seed}/alt-${deck.size}.json`)
    .then((res) => (res.ok ? res.json() : null))
    .then((texts) => {
      altCache.set(key, texts);
      if (texts) then();
    })
    .catch(() => altCache.set(key, null));
  altCache.set(key, pending);
}

/** What card `n` shows, in words, in the page's language. */
export function cardAlt(deck, n) {
  const texts = deck && !deck.custom ? altCache.get(`${deck.seed}/${deck.size}`) : null;
  const text = texts && !(texts instanceof Promise) ? texts[lang()]?.[n] : null;
  return text ?? t("il.card.picture", { n: n + 1 });
}

/**
 * A card: its picture, and below it the word it was given (user text).
 *
 *   card(view.deck, 12, {size: "lg", word: "つきよ", seat: "Hana"})
 *
 * `size` is xs, sm, md, lg or xl; `tag` lets a card be a button.
 */
export function card(deck, n, { size = "md", word = null, who = null, tag = "figure", props = {}, extra = null } = {}) {
  const alt = cardAlt(deck, n);
  return h(
    tag,
    { ...props, class: ["ic", `ic--${size}`, ...[props.class ?? []].flat()], dataset: { card: n, ...(props.dataset ?? {}) } },
    h(
      "span",
      { class: "ic-art" },
      h("img", {
        src: cardUrl(deck, n),
        alt,
        title: alt,
        loading: "lazy",
        decoding: "async",
        draggable: "false",
        width: 240,
        height: 240,
        onerror: (e) => e.target.classList.add("ic-img--broken"),
      }),
    ),
    word !== null ? h(tag === "figure" ? "figcaption" : "span", { class: "ic-word" }, userText(word, "ic-word-text"), who) : null,
    extra,
  );
}
