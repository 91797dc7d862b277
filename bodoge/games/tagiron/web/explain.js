// Question cards that explain themselves: on hover, on keyboard focus and on a
// long press, a card shows what it asks, how it is answered (its mark) and the
// answer an example hand would give, drawn as the log draws answers.  The
// example answers are computed here by the rules of
// bodoge/games/tagiron/answers.py; tests/e2e/test_tagiron_rules.py checks every
// card against it.

import { h } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";
import { CARDS } from "./cards.js";
import { answerView, cardText } from "./log.js";
import { colour, number, rack, tileName } from "./tiles.js";

/** The example hands: 5 tiles (2–3 players) and 4 (4 players), in hand order. */
export const EXAMPLE_HANDS = {
  5: ["B1", "R3", "R4", "G5", "B8"],
  4: ["B1", "R3", "R4", "G5"],
};

/** The marks printed on the cards, by the kind of answer. */
export const KIND_MARK = { number: "Σ", positions: "↓", runs: "↔", high_low: "↕" };

const LONG_PRESS_MS = 450;
const HIDE_DELAY_MS = 120;

function runs(tiles, linked) {
  const found = [];
  let start = 0;
  for (let i = 1; i <= tiles.length; i++) {
    if (i === tiles.length || !linked(tiles[i - 1], tiles[i])) {
      if (i - start >= 2) found.push([start + 1, i]);
      start = i;
    }
  }
  return found;
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const positions = (tiles, n) => tiles.flatMap((c, i) => (number(c) === n ? [i + 1] : []));

const NUMBER = {
  total_sum: (ts) => sum(ts.map(number)),
  low3_sum: (ts) => sum(ts.slice(0, 3).map(number)),
  mid3_sum: (ts) => sum(ts.slice(Math.floor((ts.length - 3) / 2), Math.floor((ts.length - 3) / 2) + 3).map(number)),
  high3_sum: (ts) => sum(ts.slice(-3).map(number)),
  red_sum: (ts) => sum(ts.filter((c) => colour(c) === "R").map(number)),
  blue_sum: (ts) => sum(ts.filter((c) => colour(c) === "B").map(number)),
  max_minus_min: (ts) => Math.max(...ts.map(number)) - Math.min(...ts.map(number)),
  odd_count: (ts) => ts.filter((c) => number(c) % 2 === 1).length,
  even_count: (ts) => ts.filter((c) => number(c) % 2 === 0).length,
  pairs: (ts) => new Set(ts.map(number).filter((n, i, all) => all.indexOf(n) !== i)).size,
  red_count: (ts) => ts.filter((c) => colour(c) === "R").length,
  blue_count: (ts) => ts.filter((c) => colour(c) === "B").length,
  where_0: (ts) => positions(ts, 0),
  where_5: (ts) => positions(ts, 5),
  same_colour_runs: (ts) => runs(ts, (a, b) => colour(a) === colour(b)),
  consecutive_runs: (ts) => runs(ts, (a, b) => number(b) === number(a) + 1),
  centre_high_low: (ts) => (number(ts[Math.floor(ts.length / 2)]) >= 5 ? "high" : "low"),
};

/** The answer a holder of `tiles` (hand order) gives to `card` (with `choice` on a choice card). */
export function answerOf(card, tiles, choice = null) {
  if (choice !== null && choice !== undefined) return positions(tiles, choice);
  return NUMBER[card](tiles);
}

/** The number an example asks about on a choice card: one the hand holds, if any. */
export function exampleChoice(card, tiles) {
  const choices = CARDS[card]?.choices;
  if (!choices) return null;
  return choices.find((n) => tiles.some((c) => number(c) === n)) ?? choices[0];
}

/** An answer in words, for screen readers (the tip draws it). */
export function answerWords(card, value) {
  const kind = CARDS[card]?.kind;
  if (kind === "number") return String(value);
  if (kind === "high_low") return value === "high" ? t("tg.log.high") : t("tg.log.low");
  if (!value.length) return t("tg.log.none");
  const list = kind === "runs" ? value.map(([a, b]) => t("tg.tip.run", { a, b })) : value.map(String);
  return t("tg.tip.positions", { list: list.join(t("common.list_sep")) });
}

/** What a card asks, in one or two sentences. */
export function explanation(card) {
  const c = CARDS[card];
  if (c.choices) return t("tg.explain.where_choice", { a: c.choices[0], b: c.choices[1] });
  return t(`tg.explain.${card}`);
}

/** The example, as a sentence: the hand and its answer. */
export function exampleWords(card, size) {
  const tiles = EXAMPLE_HANDS[size];
  const choice = exampleChoice(card, tiles);
  const hand = tiles.map(tileName).join(t("common.list_sep"));
  const answer = answerWords(card, answerOf(card, tiles, choice));
  return choice === null ? t("tg.tip.example_words", { hand, answer }) : t("tg.tip.example_words_choice", { hand, answer, n: choice });
}

/** The whole explanation as plain text (a card's accessible description). */
export function describeCard(card, size) {
  const c = CARDS[card];
  return [explanation(card), t(`tg.kind.${c.kind}`), c.shared ? t("tg.shared_long") : null, exampleWords(card, size)].filter(Boolean).join(" ");
}

/** The tip's content: the question, what it asks, its mark and the example drawn. */
function tipContent(card, size) {
  const c = CARDS[card];
  const tiles = EXAMPLE_HANDS[size];
  const choice = exampleChoice(card, tiles);
  const value = answerOf(card, tiles, choice);
  return [
    h("p", { class: "qc-tip-q" }, cardText(card)),
    h("p", { class: "qc-tip-what" }, explanation(card)),
    h(
      "p",
      { class: "qc-tip-kind" },
      h("span", { class: ["qc-kind", "qc-kind--tip", `qc-kind--${c.kind}`], "aria-hidden": "true" }, KIND_MARK[c.kind]),
      t(`tg.kind.${c.kind}`),
    ),
    c.shared ? h("p", { class: "qc-tip-shared" }, t("tg.shared_long")) : null,
    h(
      "div",
      { class: "qc-tip-example" },
      h("p", { class: "qc-tip-label" }, choice === null ? t("tg.tip.example") : t("tg.tip.example_choice", { n: choice })),
      h("div", { class: "qc-tip-row" }, rack(tiles, { size: "xs" }), h("span", { class: "qc-tip-arrow", "aria-hidden": "true" }, "→"), answerView(card, choice, value, tiles.length)),
    ),
  ];
}

/**
 * Card tips for the question cards inside `cardsEl` (cards carry `data-card` on
 * `.qc`, the focusable face is `.qc-face`).  `size()` is the hand size of the
 * table (5, or 4 with 4 players).  Returns {el, hide, destroy}; `el` (one popover
 * in the top layer, so no scrolling box clips it) goes anywhere in the page.
 */
export function createCardTips(cardsEl, { size }) {
  const el = h("div", { class: "qc-tip", popover: "manual", role: "tooltip", id: "qc-tip", dataset: { testid: "card-tip" } });
  let shownFor = null;
  let hideTimer = null;
  let pressTimer = null;
  let pressedAt = null;
  let pressType = null;
  let pressTime = 0;
  let swallowClick = false;
  let clicked = null;

  // Above the row of cards (else below it, else beside the card): a tip never
  // covers a card nor the buttons that ask one.
  function place(anchor) {
    const r = anchor.getBoundingClientRect();
    const grid = cardsEl.getBoundingClientRect();
    const tip = el.getBoundingClientRect();
    const margin = 8;
    let bottom = grid.bottom;
    for (const ask of cardsEl.querySelectorAll(".qc-ask")) bottom = Math.max(bottom, ask.getBoundingClientRect().bottom);
    const above = grid.top - tip.height - margin;
    const below = bottom + margin;
    // Nor the opponents' plates above the cards: what is asked is read against them.
    let ceiling = margin;
    for (const plates of document.querySelectorAll(".tg-opps")) {
      const p = plates.getBoundingClientRect();
      if (p.height && p.bottom <= r.top + 1) ceiling = Math.max(ceiling, p.bottom + margin);
    }
    let top;
    let left = Math.max(margin, Math.min(r.left + r.width / 2 - tip.width / 2, window.innerWidth - tip.width - margin));
    if (above >= ceiling) top = above;
    else if (below + tip.height <= window.innerHeight - margin) top = below;
    else if (grid.right + margin + tip.width <= window.innerWidth - margin) {
      // Beside the row of cards (over the side panel a moment): still clear of both.
      top = Math.max(ceiling, r.top);
      left = grid.right + margin;
    } else top = Math.max(ceiling, below);
    el.style.top = `${Math.max(margin, Math.min(top, window.innerHeight - tip.height - margin))}px`;
    el.style.left = `${left}px`;
  }

  function show(qc) {
    clearTimeout(hideTimer);
    const card = qc?.dataset.card;
    if (!card || !CARDS[card]) return;
    if (shownFor !== card) {
      // The assistant's bits on the card, said in plain words where they are read.
      const bits = qc.querySelector("[data-testid=card-bits]") ? h("p", { class: "qc-tip-bits", dataset: { testid: "tip-bits" } }, t("tg.bits_help")) : null;
      el.replaceChildren(...tipContent(card, size()).filter(Boolean), ...(bits ? [bits] : []));
      el.dataset.card = card;
      shownFor = card;
    }
    if (!el.isConnected) return;
    if (!el.matches(":popover-open")) el.showPopover();
    place(qc);
  }

  function hide() {
    clearTimeout(hideTimer);
    shownFor = null;
    if (el.isConnected && el.matches(":popover-open")) el.hidePopover();
  }

  const hideSoon = () => {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, HIDE_DELAY_MS);
  };

  const cardOf = (target) => target?.closest?.(".qc[data-card]");

  const on = [
    // The help follows the mouse's own moves: a card redrawn under a resting mouse (a new
    // card dealt where one was asked) does not pop its help up, and a card clicked has
    // been read: its help comes back only once the mouse leaves it and returns.
    [
      cardsEl,
      "pointermove",
      (e) => {
        const qc = e.pointerType === "mouse" ? cardOf(e.target) : null;
        if (qc && qc.dataset.card !== clicked && qc.dataset.card !== shownFor) show(qc);
      },
    ],
    [
      cardsEl,
      "pointerout",
      (e) => {
        if (e.pointerType !== "mouse" || !cardOf(e.target) || cardOf(e.target).contains(e.relatedTarget)) return;
        if (cardOf(e.relatedTarget)?.dataset.card !== clicked) clicked = null;
        hideSoon();
      },
    ],
    // The tip stays while the pointer is on it (it may be read, its text selected).
    [el, "pointerenter", () => clearTimeout(hideTimer)],
    [el, "pointerleave", hideSoon],
    // Keyboard focus shows the tip; the focus a click or a tap gives does not (a
    // pointer has hover and the long press).
    [
      cardsEl,
      "focusin",
      (e) => {
        const pointed = pressType !== null && performance.now() - pressTime < 1000;
        if (pointed) return;
        if (e.target.classList?.contains("qc-face")) show(cardOf(e.target));
        else hide();
      },
    ],
    [cardsEl, "focusout", (e) => !cardsEl.contains(e.relatedTarget) && hide()],
    // A long press on a touch screen shows the tip instead of choosing the card.
    [
      cardsEl,
      "pointerdown",
      (e) => {
        pressType = e.pointerType;
        pressTime = performance.now();
        // A card pressed is being chosen: its tip gives way to the ask buttons.
        if (cardOf(e.target)) {
          hide();
          clicked = cardOf(e.target).dataset.card;
        }
        if (e.pointerType === "mouse" || !cardOf(e.target)) return;
        const qc = cardOf(e.target);
        pressedAt = [e.clientX, e.clientY];
        clearTimeout(pressTimer);
        pressTimer = setTimeout(() => {
          swallowClick = true;
          show(qc);
        }, LONG_PRESS_MS);
      },
    ],
    [
      cardsEl,
      "pointermove",
      (e) => {
        if (pressedAt && Math.hypot(e.clientX - pressedAt[0], e.clientY - pressedAt[1]) > 10) clearTimeout(pressTimer);
      },
    ],
    [cardsEl, "pointerup", () => clearTimeout(pressTimer)],
    [cardsEl, "pointercancel", () => clearTimeout(pressTimer)],
    [cardsEl, "contextmenu", (e) => cardOf(e.target) && e.preventDefault()],
    [
      document,
      "pointerdown",
      (e) => {
        if (shownFor && !el.contains(e.target) && !cardOf(e.target)) hide();
      },
    ],
    [
      document,
      "keydown",
      (e) => {
        if (e.key === "Escape" && shownFor) {
          hide();
          e.stopPropagation();
        }
      },
    ],
  ];
  for (const [target, type, fn] of on) target.addEventListener(type, fn);
  // Capture phase: the click that ends a long press must not also choose the card.
  const swallow = (e) => {
    if (!swallowClick) return;
    swallowClick = false;
    e.stopPropagation();
    e.preventDefault();
  };
  cardsEl.addEventListener("click", swallow, true);

  return {
    el,
    hide,
    /** The tip now shows the card it showed, redrawn (after a language switch). */
    refresh() {
      const card = shownFor;
      shownFor = null;
      const qc = card && cardsEl.querySelector(`.qc[data-card="${card}"]`);
      if (qc) show(qc);
      else hide();
    },
    destroy() {
      hide();
      for (const [target, type, fn] of on) target.removeEventListener(type, fn);
      cardsEl.removeEventListener("click", swallow, true);
      clearTimeout(pressTimer);
    },
  };
}
