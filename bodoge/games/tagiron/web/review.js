// The review mode of a finished game's replay: each player's candidates over the
// game on a log scale (inline SVG), their score explained in one line, and the
// marks of every question and declaration on the log, with the best question
// each time.  The review itself comes from GET /api/tables/{id}/review
// (bodoge/games/tagiron/review.py): every seat judged from what it knew then.

import { fill, h, svg } from "/static/js/dom.js";
import { num, t, tn } from "/static/js/i18n.js";
import { questionLabel } from "./log.js";

const W = 320;
const H = 170;
const PAD = { left: 34, right: 8, top: 8, bottom: 22 };

const pct = (x) => Math.round(x * 100);
const bits = (x) => x.toFixed(2); // as Python formats it (the exact binary value)

/**
 * `load()` fetches the review (resolves to its JSON or throws); `goTo(step)`
 * moves the replay; `seatNameNode(s)` names a seat.
 */
export function createReviewPanel({ load, goTo, seatNameNode }) {
  let review = null;
  let state = "idle"; // idle | loading | ready | failed
  let step = 0;
  const el = h("div", { class: "rv", dataset: { testid: "review" } });

  async function open() {
    if (state === "loading" || state === "ready") return;
    state = "loading";
    draw();
    try {
      review = await load();
      state = "ready";
    } catch {
      state = "failed";
    }
    draw();
    onReady?.();
  }

  let onReady = null;

  function draw() {
    if (state !== "ready") {
      fill(
        el,
        h("p", { class: "rv-intro muted" }, t("tg.review.intro")),
        state === "failed" ? h("p", { class: "rv-error", role: "alert" }, t("tg.review.failed")) : null,
        h(
          "button",
          { type: "button", class: "btn btn--primary", dataset: { testid: "review-load", key: "review-load" }, disabled: state === "loading", onclick: open },
          state === "loading" ? t("tg.review.loading") : t("tg.review.load"),
        ),
      );
      return;
    }
    fill(el, h("p", { class: "rv-intro muted" }, t("tg.review.intro")), graph(), scores(), legend());
  }

  function moments() {
    return Math.max(1, ...review.seats.map((s) => s.candidates.length - 1));
  }

  function graph() {
    const last = moments();
    const top = Math.max(10, ...review.seats.flatMap((s) => s.candidates.filter((c) => c !== null)));
    const decades = Math.ceil(Math.log10(top));
    const x = (n) => PAD.left + ((W - PAD.left - PAD.right) * n) / last;
    const y = (c) => H - PAD.bottom - ((H - PAD.top - PAD.bottom) * Math.log10(Math.max(1, c))) / decades;
    const parts = [];
    for (let d = 0; d <= decades; d++) {
      const yy = y(10 ** d);
      parts.push(svg("line", { class: "rv-grid", x1: PAD.left, x2: W - PAD.right, y1: yy, y2: yy }));
      parts.push(svg("text", { class: "rv-axis", x: PAD.left - 4, y: yy + 3, "text-anchor": "end" }, num(10 ** d)));
    }
    const ticks = last <= 12 ? 1 : last <= 30 ? 5 : 10;
    for (let n = 0; n <= last; n += ticks) {
      parts.push(svg("text", { class: "rv-axis", x: x(n), y: H - 6, "text-anchor": "middle" }, String(n)));
    }
    parts.push(svg("line", { class: "rv-now", x1: x(step), x2: x(step), y1: PAD.top, y2: H - PAD.bottom, dataset: { testid: "review-now" } }));
    for (const s of review.seats) {
      const points = s.candidates.map((c, n) => (c === null ? null : `${x(n).toFixed(1)},${y(c).toFixed(1)}`)).filter(Boolean);
      parts.push(svg("polyline", { class: ["rv-line", `rv-s${s.seat}`], points: points.join(" "), dataset: { testid: "review-line", seat: s.seat } }));
      for (const q of s.questions) {
        parts.push(
          svg(
            "circle",
            { class: ["rv-dot", `rv-dot--${q.mark}`, `rv-s${s.seat}`], cx: x(q.n), cy: y(q.after), r: q.mark === "mistake" || q.mark === "inaccuracy" ? 4.5 : 3, dataset: { testid: "review-dot", mark: q.mark, n: q.n } },
            svg("title", null, `${q.n}. ${questionLabel(q.card, q.choice)} · ${t(`tg.review.mark.${q.mark}`)}`),
          ),
        );
      }
      for (const d of s.declarations) {
        const c = s.candidates[d.n - 1] ?? 1;
        parts.push(
          svg(
            "text",
            { class: ["rv-decl", d.right ? "rv-decl--right" : "rv-decl--wrong", d.mark && "rv-decl--hasty"], x: x(d.n), y: y(c) - 5, "text-anchor": "middle", dataset: { testid: "review-decl" } },
            d.right ? "✓" : "✗",
          ),
        );
      }
      for (const m of s.missed) {
        const c = s.candidates[m.n - 1] ?? 1;
        parts.push(svg("rect", { class: ["rv-missed", `rv-s${s.seat}`], x: x(m.n - 1) - 3, y: y(c) - 3, width: 6, height: 6, transform: `rotate(45 ${x(m.n - 1)} ${y(c)})`, dataset: { testid: "review-missed" } }));
      }
    }
    const chart = svg(
      "svg",
      {
        class: "rv-graph",
        viewBox: `0 0 ${W} ${H}`,
        role: "img",
        "aria-label": t("tg.review.graph"),
        dataset: { testid: "review-graph" },
        onclick: (e) => {
          const box = chart.getBoundingClientRect();
          const at = ((e.clientX - box.left) / box.width) * W;
          const n = Math.round(((at - PAD.left) / (W - PAD.left - PAD.right)) * last);
          goTo(Math.max(0, Math.min(last, n)));
        },
      },
      parts,
    );
    return h("figure", { class: "rv-figure" }, h("figcaption", { class: "rv-caption" }, t("tg.review.graph")), chart);
  }

  function scores() {
    return h(
      "ul",
      { class: "rv-scores" },
      review.seats.map((s) =>
        h(
          "li",
          { class: "rv-score", dataset: { testid: "review-score", seat: s.seat } },
          h("span", { class: ["rv-swatch", `rv-s${s.seat}`], "aria-hidden": "true" }),
          h("span", { class: "rv-name" }, seatNameNode(s.seat)),
          h("strong", { class: "rv-points" }, t("tg.review.score", { score: s.score })),
          h("span", { class: "rv-summary" }, summary(s)),
        ),
      ),
    );
  }

  /** The score in one line: the questions' accuracy, missed chances, hasty declarations. */
  function summary(s) {
    const info = s.questions.length
      ? t("tg.review.info", { accuracy: pct(s.accuracy), loss: bits(s.loss), stake: bits(s.stake), count: s.questions.length })
      : t("tg.review.no_questions");
    const missed = t("tg.review.missed_count", { count: s.missed.length });
    const hasty = t("tg.review.hasty_count", { count: s.hasty });
    return [info, missed, hasty].join(t("tg.review.sep"));
  }

  function legend() {
    return h(
      "p",
      { class: "rv-legend muted" },
      ["best", "good", "inaccuracy", "mistake"].map((m) => h("span", { class: ["rv-tag", `rv-tag--${m}`] }, t(`tg.review.mark.${m}`))),
      " ",
      t("tg.review.legend", {
        good: pct(1 - review.thresholds.good_share),
        mistake: pct(1 - review.thresholds.mistake_share),
        cost: review.thresholds.missed_cost,
      }),
    );
  }

  /** The review's notes on log entry `index` (move index + 1), or null. */
  function note(index) {
    if (state !== "ready") return null;
    const n = index + 1;
    const notes = [];
    for (const s of review.seats) {
      const q = s.questions.find((x) => x.n === n);
      if (q) {
        const best = q.best.card !== q.card || q.best.choice !== q.choice;
        notes.push(
          h(
            "div",
            { class: ["rv-note", `rv-note--${q.mark}`], dataset: { testid: "review-mark", mark: q.mark } },
            h("span", { class: ["rv-tag", `rv-tag--${q.mark}`] }, t(`tg.review.mark.${q.mark}`)),
            " ",
            t("tg.review.bits", { bits: bits(q.bits) }),
            q.told >= 0.005 ? [" · ", t("tg.review.told", { told: bits(q.told) })] : null,
            best ? [" · ", t("tg.review.lost", { loss: bits(q.loss) }), " · ", t("tg.review.best_alt", { card: questionLabel(q.best.card, q.best.choice), bits: bits(q.best_bits) })] : null,
            " · ",
            t("tg.review.narrowed", { before: num(q.before), after: num(q.after) }),
          ),
        );
      }
      const d = s.declarations.find((x) => x.n === n);
      if (d) {
        notes.push(
          h(
            "div",
            { class: ["rv-note", d.mark ? "rv-note--mistake" : "rv-note--info"], dataset: { testid: "review-mark", mark: d.mark ?? "declaration" } },
            d.mark ? [h("span", { class: "rv-tag rv-tag--mistake" }, t("tg.review.hasty")), " "] : null,
            t("tg.review.declared_at", { p: pct(d.probability) }),
          ),
        );
      }
      const m = s.missed.find((x) => x.n === n);
      if (m) {
        const why = m.certain ? t("tg.review.certain") : t("tg.review.expert", { p: pct(m.probability) });
        notes.push(
          h(
            "div",
            { class: "rv-note rv-note--mistake", dataset: { testid: "review-mark", mark: "missed" } },
            h("span", { class: "rv-tag rv-tag--mistake" }, t("tg.review.missed_tag")),
            " ",
            tn("tg.review.missed", { name: seatNameNode(s.seat), why }),
          ),
        );
      }
    }
    return notes.length ? h("div", { class: "rv-notes" }, notes) : null;
  }

  draw();
  return {
    el,
    open,
    note,
    get ready() {
      return state === "ready";
    },
    set onReady(fn) {
      onReady = fn;
    },
    setStep(next) {
      step = next;
      if (state === "ready") draw();
    },
    redraw: draw,
  };
}
