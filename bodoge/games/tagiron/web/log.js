// The answer log: who asked what and every answer, drawn so it reads at a
// glance — positions and runs on small tile rows, not only as numbers.

import { h, icon } from "/static/js/dom.js";
import { lang, t, tn } from "/static/js/i18n.js";
import { CARDS } from "./cards.js";
import { rack, tile } from "./tiles.js";

const SHARED_PREFIX = { ja: "【共有情報カード】", en: "[Shared] " };

/** A card's full question in the current language, without the shared mark. */
export function cardText(id) {
  const card = CARDS[id];
  if (!card) return id;
  const l = lang();
  const text = card[l] ?? card.en;
  const prefix = SHARED_PREFIX[l];
  return text.startsWith(prefix) ? text.slice(prefix.length) : text;
}

/** The short name of a question as asked (a choice card names its number). */
export function questionLabel(card, choice) {
  if (choice !== null && choice !== undefined) return t("tg.card.where_n", { n: choice });
  return t(`tg.card.${card}`);
}

function numberOf(card, choice) {
  if (choice !== null && choice !== undefined) return choice;
  if (card === "where_0") return 0;
  if (card === "where_5") return 5;
  return null;
}

/** One seat's answer to a question, drawn for its kind. */
export function answerView(card, choice, value, size) {
  const kind = CARDS[card]?.kind;
  if (kind === "number") {
    return h("span", { class: "ans ans--num", dataset: { testid: "answer" } }, String(value));
  }
  if (kind === "high_low") {
    const middle = Math.floor(size / 2) + 1;
    return h(
      "span",
      { class: "ans ans--hl", dataset: { testid: "answer" } },
      slots(size, (p) => (p === middle ? h("span", { class: ["slot", "slot--hl", `slot--${value}`] }, value === "high" ? "≥5" : "≤4") : null)),
      h("span", { class: ["ans-word", `ans-word--${value}`] }, value === "high" ? t("tg.log.high") : t("tg.log.low")),
    );
  }
  if (kind === "positions") {
    const n = numberOf(card, choice);
    const hit = new Set(value ?? []);
    return h(
      "span",
      { class: "ans ans--pos", dataset: { testid: "answer" } },
      slots(size, (p) =>
        hit.has(p)
          ? n === 5
            ? tile("G5", { size: "xs", label: false })
            : h("span", { class: "slot slot--hit" }, String(n))
          : null,
      ),
      hit.size === 0 ? h("span", { class: "ans-word" }, t("tg.log.none")) : null,
    );
  }
  if (kind === "runs") {
    const runs = value ?? [];
    const part = (p) => {
      for (const [a, b] of runs) {
        if (p >= a && p <= b) return p === a ? "start" : p === b ? "end" : "mid";
      }
      return null;
    };
    return h(
      "span",
      { class: "ans ans--runs", dataset: { testid: "answer" } },
      slots(size, (p) => {
        const where = part(p);
        return where ? h("span", { class: ["slot", "slot--run", `slot--run-${where}`] }) : null;
      }),
      runs.length === 0 ? h("span", { class: "ans-word" }, t("tg.log.none")) : null,
    );
  }
  return h("span", { class: "ans", dataset: { testid: "answer" } }, JSON.stringify(value));
}

function slots(size, fill) {
  const cells = [];
  for (let p = 1; p <= size; p++) {
    cells.push(h("span", { class: "slot-cell" }, fill(p) ?? h("span", { class: "slot" }), h("span", { class: "slot-pos" }, String(p))));
  }
  return h("span", { class: "slots" }, cells);
}

/** One log entry.  `ctx` names seats; `view` gives hand sizes and who "you" are. */
export function logEntry(entry, index, view, ctx) {
  const you = view.you;
  const name = (s) => (s === you ? t("tg.you") : ctx.seatNameNode(s));
  const who = (key, s) => (s === you ? t(`${key}_you`) : tn(key, { name: ctx.seatNameNode(s) }));
  // Every move adds one entry to the log, so entry k is move k + 1: the stand-in's mark.
  const standIn = () => ctx.standIn?.(index + 1, entry.seat) ?? null;
  if (entry.type === "question") {
    const answers = Object.entries(entry.answers ?? {})
      .map(([s, v]) => [Number(s), v])
      .sort((a, b) => a[0] - b[0]);
    return h(
      "li",
      { class: "lg lg--q", dataset: { testid: "log-entry", n: index + 1 } },
      h(
        "div",
        { class: "lg-head" },
        h("span", { class: "lg-no" }, String(index + 1)),
        h("span", { class: "lg-who" }, who("tg.log.asked", entry.seat)),
        h(
          "span",
          { class: ["lg-card", CARDS[entry.card]?.shared && "lg-card--shared"], title: cardText(entry.card) },
          CARDS[entry.card]?.shared ? icon("share", "icon icon--xs") : null,
          questionLabel(entry.card, entry.choice),
        ),
        standIn(),
      ),
      h(
        "ul",
        { class: "lg-answers" },
        answers.map(([s, v]) =>
          h(
            "li",
            { class: ["lg-answer", s === you && "lg-answer--you"] },
            h("span", { class: "lg-answerer" }, name(s)),
            answerView(entry.card, entry.choice, v, view.hand_counts?.[s] ?? 5),
          ),
        ),
      ),
    );
  }
  if (entry.type === "declaration") {
    return h(
      "li",
      { class: ["lg", "lg--d", entry.right ? "lg--right" : "lg--wrong"], dataset: { testid: "log-entry", n: index + 1 } },
      h(
        "div",
        { class: "lg-head" },
        h("span", { class: "lg-no" }, String(index + 1)),
        h("span", { class: "lg-who" }, who("tg.log.declared", entry.seat)),
        h(
          "span",
          { class: ["verdict", entry.right ? "verdict--right" : "verdict--wrong"], dataset: { testid: "verdict" } },
          icon(entry.right ? "check" : "cross", "icon icon--xs"),
          entry.right ? t("tg.log.right") : t("tg.log.wrong"),
        ),
        standIn(),
      ),
      entry.tiles
        ? h("div", { class: "lg-tiles" }, rack(entry.tiles, { size: "xs", positions: view.players === 2 }))
        : h("p", { class: "lg-note" }, t("tg.log.hidden")),
    );
  }
  return h(
    "li",
    { class: "lg lg--p", dataset: { testid: "log-entry", n: index + 1 } },
    h("div", { class: "lg-head" }, h("span", { class: "lg-no" }, String(index + 1)), h("span", { class: "lg-who" }, who("tg.log.passed", entry.seat)), standIn()),
  );
}
