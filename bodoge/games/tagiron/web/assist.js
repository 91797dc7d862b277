// The assistant: candidate count, tile probabilities (drawn on the memo
// sheet) and what each face-up question is worth in bits.  The analysis is
// bodoge/games/tagiron/assist.py's JSON; normalise() accepts the shapes it
// may take so the panel does not break if a field is renamed.

import { fill, h, keepFocus } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";
import { questionLabel } from "./log.js";
import { rack } from "./tiles.js";

function pick(obj, ...names) {
  for (const n of names) if (obj && obj[n] !== undefined && obj[n] !== null) return obj[n];
  return undefined;
}

/** Turn one candidate into {tiles, p}. */
function candidate(c) {
  if (Array.isArray(c)) return { tiles: c[0], p: c[1] ?? null };
  return { tiles: pick(c, "tiles", "hand", "set") ?? [], p: pick(c, "p", "probability", "weight") ?? null };
}

/**
 * The analysis in one shape:
 * {target, count, top: [{tiles, p}], slots: [{code: p}] | null,
 *  tiles: {code: p} | null, questions: [{card, choice, bits}],
 *  hands: {memo key: [{code: p}]}}: every hidden hand by the memo's keys
 *  ("s1" for seat 1, "centre"), the target's slots among them.
 */
export function normalise(raw, view) {
  if (!raw || typeof raw !== "object") return null;
  const target = view.players === 2 ? `s${1 - view.you}` : "centre";
  const probs = pick(raw, "probabilities") ?? {};
  const slots = pick(raw, "slot_probabilities", "slots", "positions") ?? pick(probs, "slots", "positions") ?? null;
  const tiles = pick(raw, "tile_probabilities", "tiles") ?? pick(probs, "tiles") ?? null;
  let count = pick(raw, "candidate_count", "count");
  let top = pick(raw, "top", "ranked", "best");
  const cands = raw.candidates;
  if (typeof cands === "number") count ??= cands;
  else if (Array.isArray(cands)) {
    top ??= cands;
    count ??= cands.length;
  }
  const questions = (pick(raw, "questions", "question_bits") ?? []).map((q) =>
    Array.isArray(q) ? { card: q[0], choice: q[1] ?? null, bits: q[2] } : { card: q.card, choice: q.choice ?? null, bits: Number(q.bits) },
  );
  const hands = {};
  const rawHands = pick(raw, "hands");
  if (rawHands && typeof rawHands === "object")
    for (const [key, positions] of Object.entries(rawHands)) if (Array.isArray(positions)) hands[key === "centre" ? key : `s${key}`] = positions;
  if (Array.isArray(slots)) hands[target] ??= slots;
  return {
    target,
    hands,
    count: typeof count === "number" ? count : null,
    top: Array.isArray(top) ? top.map(candidate) : [],
    slots: Array.isArray(slots) ? slots : null,
    tiles: tiles && typeof tiles === "object" ? tiles : null,
    questions,
  };
}

export function bitsText(bits) {
  return t("tg.assist.bits", { bits: bits.toFixed(2) });
}

/** The assistant's part of the memo panel. */
export function createAssistPanel({ onRun, onToggleShow, errorText }) {
  const el = h("section", { class: "assist", dataset: { testid: "assist" } });
  let state = { analysis: null, loading: false, show: true, error: null };

  function draw() {
    const a = state.analysis;
    const best = a?.questions?.length ? Math.max(...a.questions.map((q) => q.bits)) : 0;
    keepFocus(el, () =>
      fill(
        el,
        h(
          "div",
          { class: "assist-head" },
          h("h3", null, t("tg.assist.title")),
          h(
            "button",
            { type: "button", class: "btn btn--sm", dataset: { key: "assist-run", testid: "assist-run" }, onclick: onRun, disabled: state.loading },
            state.loading ? t("tg.assist.loading") : t("tg.assist.run"),
          ),
        ),
        a
          ? h(
              "div",
              { class: "assist-body" },
              h(
                "p",
                { class: ["assist-count", a.count === 1 && "assist-count--solved"], dataset: { testid: "assist-count" } },
                a.count === null ? "" : t("tg.assist.candidates", { count: a.count }),
                a.count === 1 ? h("span", { class: "assist-solved" }, t("tg.assist.solved")) : null,
              ),
              a.count !== null && a.count <= 6 && a.top.length
                ? h(
                    "ul",
                    { class: "assist-top" },
                    a.top.slice(0, 6).map((c) =>
                      h(
                        "li",
                        null,
                        rack(c.tiles, { size: "xs", positions: false }),
                        c.p !== null ? h("span", { class: "muted small" }, `${Math.round(c.p * 100)}%`) : null,
                      ),
                    ),
                  )
                : null,
              h(
                "label",
                { class: "check check--sm" },
                h("input", {
                  type: "checkbox",
                  checked: state.show,
                  dataset: { key: "assist-show", testid: "assist-show" },
                  onchange: (e) => onToggleShow(e.target.checked),
                }),
                h("span", null, t("tg.assist.show")),
              ),
              a.questions.length
                ? h(
                    "div",
                    { class: "assist-q" },
                    h("h4", null, t("tg.assist.questions")),
                    h(
                      "ul",
                      { class: "bits", dataset: { testid: "assist-bits" } },
                      [...a.questions]
                        .sort((x, y) => y.bits - x.bits)
                        .map((q) =>
                          h(
                            "li",
                            { class: ["bits-row", q.bits === best && best > 0 && "bits-row--best"], title: q.bits === best ? t("tg.assist.best") : null },
                            h("span", { class: "bits-label" }, questionLabel(q.card, q.choice)),
                            h("span", { class: "bits-bar" }, h("span", { class: "bits-fill", style: { "--w": best ? q.bits / best : 0 } })),
                            h("span", { class: "bits-val" }, bitsText(q.bits)),
                          ),
                        ),
                    ),
                  )
                : null,
            )
          : h("p", { class: "muted small" }, state.loading ? t("tg.assist.loading") : state.error ? errorText(state.error) : t("tg.assist.none")),
      ),
    );
  }

  draw();
  return {
    el,
    set(patch) {
      state = { ...state, ...patch };
      draw();
    },
    get analysis() {
      return state.analysis;
    },
  };
}
