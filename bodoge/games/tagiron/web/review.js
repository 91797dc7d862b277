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
const qs = (x) => x.toFixed(2); // questions of value, likewise

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

  // The mark chosen on the graph (by keyboard, touch or mouse): its key and move.
  let chosen = null;

  /** A mark on the graph: its shape inside a larger invisible target (a finger's
   * width), focusable, named by its explanation; choosing it moves the replay to
   * its move, where the log shows the same note, and shows the note under the graph. */
  function markPoint(key, n, label, cx, cy, shape) {
    labels.set(key, label);
    const choose = (e) => {
      e.stopPropagation();
      chosen = { key, n };
      goTo(n);
      draw();
      const again = el.querySelector(`[data-key="${CSS.escape(key)}"]`);
      again?.focus({ preventScroll: true });
      document.querySelector(`[data-testid=log-entry][data-n="${n}"]`)?.scrollIntoView({ block: "nearest" });
    };
    return svg(
      "g",
      {
        class: ["rv-point", chosen?.key === key && "rv-point--chosen"],
        tabindex: "0",
        role: "button",
        "aria-label": label,
        dataset: { testid: "review-point", key, n },
        onclick: choose,
        onkeydown: (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            choose(e);
          }
        },
      },
      svg("circle", { class: "rv-hit", cx, cy, r: 11 }),
      shape,
    );
  }

  const nameOf = (seat) => {
    const name = seatNameNode(seat);
    return typeof name === "string" ? name : name.textContent;
  };

  function questionText(s, q) {
    const parts = [`${q.n}. ${nameOf(s.seat)}: ${questionLabel(q.card, q.choice)}`, t(`tg.review.mark.${q.mark}`), t("tg.review.bits", { bits: bits(q.bits) })];
    if (q.settle >= 0.005) parts.push(t("tg.review.settles", { p: pct(q.settle) }));
    if (q.best.card !== q.card || q.best.choice !== q.choice) {
      parts.push(t("tg.review.lost", { loss: qs(q.loss) }), t("tg.review.best_alt", { card: questionLabel(q.best.card, q.best.choice), bits: bits(q.best_bits) }));
    }
    return parts.join(" · ");
  }

  function declarationText(s, d) {
    const parts = [`${d.n}. ${nameOf(s.seat)}: ${t(d.right ? "tg.review.key.right" : "tg.review.key.wrong")}`, t("tg.review.declared_at", { p: pct(d.probability) })];
    if (d.mark) parts.push(t("tg.review.hasty"));
    return parts.join(" · ");
  }

  function missedText(s, m) {
    return `${m.n}. ${t("tg.review.missed", { name: nameOf(s.seat), why: missedWhy(m) })}`;
  }

  function missedWhy(m) {
    return m.certain ? t("tg.review.certain") : t("tg.review.expert", { p: pct(m.probability) });
  }

  // Each mark's explanation by its key, made in the language of this drawing.
  const labels = new Map();

  function graph() {
    labels.clear();
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
      parts.push(svg("text", { class: "rv-axis", x: x(n), y: H - PAD.bottom + 11, "text-anchor": "middle" }, String(n)));
    }
    parts.push(svg("text", { class: "rv-axis rv-axis-label", x: (PAD.left + W - PAD.right) / 2, y: H - 3, "text-anchor": "middle", dataset: { testid: "review-axis-x" } }, t("tg.review.axis_x")));
    parts.push(svg("text", { class: "rv-axis rv-axis-label", x: 9, y: (PAD.top + H - PAD.bottom) / 2, "text-anchor": "middle", transform: `rotate(-90 9 ${(PAD.top + H - PAD.bottom) / 2})`, dataset: { testid: "review-axis-y" } }, t("tg.review.axis_y")));
    parts.push(svg("line", { class: "rv-now", x1: x(step), x2: x(step), y1: PAD.top, y2: H - PAD.bottom, dataset: { testid: "review-now" } }));
    const points = [];
    for (const s of review.seats) {
      const line = s.candidates.map((c, n) => (c === null ? null : `${x(n).toFixed(1)},${y(c).toFixed(1)}`)).filter(Boolean);
      parts.push(svg("polyline", { class: ["rv-line", `rv-s${s.seat}`], points: line.join(" "), dataset: { testid: "review-line", seat: s.seat } }));
      for (const q of s.questions) {
        const cx = x(q.n);
        const cy = y(q.after);
        const dot = svg("circle", { class: ["rv-dot", `rv-dot--${q.mark}`, `rv-s${s.seat}`], cx, cy, r: q.mark === "mistake" || q.mark === "inaccuracy" ? 4.5 : 3, dataset: { testid: "review-dot", mark: q.mark, n: q.n } });
        points.push(markPoint(`q${s.seat}-${q.n}`, q.n, questionText(s, q), cx, cy, dot));
      }
      for (const d of s.declarations) {
        const c = s.candidates[d.n - 1] ?? 1;
        const cx = x(d.n);
        const cy = y(c) - 5;
        const sign = svg("text", { class: ["rv-decl", d.right ? "rv-decl--right" : "rv-decl--wrong", d.mark && "rv-decl--hasty"], x: cx, y: cy, "text-anchor": "middle", dataset: { testid: "review-decl" } }, d.right ? "✓" : "✗");
        points.push(markPoint(`d${s.seat}-${d.n}`, d.n, declarationText(s, d), cx, cy - 4, sign));
      }
      for (const m of s.missed) {
        const c = s.candidates[m.n - 1] ?? 1;
        const cx = x(m.n - 1);
        const cy = y(c);
        const diamond = svg("rect", { class: ["rv-missed", `rv-s${s.seat}`], x: cx - 3, y: cy - 3, width: 6, height: 6, transform: `rotate(45 ${cx} ${cy})`, dataset: { testid: "review-missed" } });
        points.push(markPoint(`m${s.seat}-${m.n}`, m.n, missedText(s, m), cx, cy, diamond));
      }
    }
    const chart = svg(
      "svg",
      {
        class: "rv-graph",
        viewBox: `0 0 ${W} ${H}`,
        role: "group",
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
      points,
    );
    return h(
      "figure",
      { class: "rv-figure" },
      h("figcaption", { class: "rv-caption" }, t("tg.review.graph")),
      chart,
      keyList(),
      h("p", { class: ["rv-chosen", !chosen && "muted"], "aria-live": "polite", dataset: { testid: "review-chosen" } }, (chosen && labels.get(chosen.key)) || t("tg.review.choose")),
    );
  }

  /** What the graph's lines and marks mean. */
  function keyList() {
    const sample = (shape) => svg("svg", { class: "rv-key-icon", viewBox: "0 0 14 14", width: 14, height: 14, "aria-hidden": "true" }, shape);
    const item = (icon, text, testid) => h("li", { class: "rv-key-item", dataset: { testid } }, icon, h("span", null, text));
    return h(
      "ul",
      { class: "rv-key", dataset: { testid: "review-key" } },
      item(sample(svg("line", { class: "rv-line rv-key-line", x1: 1, x2: 13, y1: 7, y2: 7 })), t("tg.review.key.line"), "key-line"),
      item(sample(svg("circle", { class: "rv-dot rv-dot--good rv-key-dot", cx: 7, cy: 7, r: 3 })), t("tg.review.key.dot"), "key-dot"),
      item(sample(svg("circle", { class: "rv-dot rv-dot--mistake rv-key-dot", cx: 7, cy: 7, r: 4.5 })), t("tg.review.key.big_dot"), "key-big-dot"),
      item(sample(svg("text", { class: "rv-decl rv-decl--right", x: 7, y: 11, "text-anchor": "middle" }, "✓")), t("tg.review.key.right"), "key-right"),
      item(sample(svg("text", { class: "rv-decl rv-decl--wrong", x: 7, y: 11, "text-anchor": "middle" }, "✗")), t("tg.review.key.wrong"), "key-wrong"),
      item(sample(svg("rect", { class: "rv-missed rv-key-missed", x: 4, y: 4, width: 6, height: 6, transform: "rotate(45 7 7)" })), t("tg.review.key.missed"), "key-missed"),
    );
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

  /** The score in one line: the questions' accuracy, missed chances (certain apart from
   * gambles), hasty declarations. */
  function summary(s) {
    const info = s.questions.length
      ? t("tg.review.info", { accuracy: pct(s.accuracy), loss: qs(s.loss), par: qs(s.par), count: s.questions.length })
      : t("tg.review.no_questions");
    const certain = s.missed.filter((m) => m.certain).length;
    const gambles = s.missed.filter((m) => !m.certain);
    const parts = [info, t("tg.review.missed_count", { count: certain })];
    if (gambles.length) {
      const odds = [...new Set(gambles.map((m) => pct(m.probability)))].sort((a, b) => a - b);
      const p = odds.length === 1 ? `${odds[0]}` : `${odds[0]}–${odds[odds.length - 1]}`;
      parts.push(t("tg.review.gamble_count", { count: gambles.length, p }));
    }
    parts.push(t("tg.review.hasty_count", { count: s.hasty }));
    return parts.join(t("tg.review.sep"));
  }

  function legend() {
    return h(
      "p",
      { class: "rv-legend muted" },
      ["best", "good", "inaccuracy", "mistake"].map((m) => h("span", { class: ["rv-tag", `rv-tag--${m}`] }, t(`tg.review.mark.${m}`))),
      " ",
      t("tg.review.legend", {
        rate: review.thresholds.bits_per_question,
        good: pct(1 - review.thresholds.good_share),
        mistake: pct(1 - review.thresholds.mistake_share),
        cost: review.thresholds.missed_cost,
        seconds: review.thresholds.reaction_seconds,
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
            q.settle >= 0.005 ? [" · ", t("tg.review.settles", { p: pct(q.settle) })] : null,
            best ? [" · ", t("tg.review.lost", { loss: qs(q.loss) }), " · ", t("tg.review.best_alt", { card: questionLabel(q.best.card, q.best.choice), bits: bits(q.best_bits) })] : null,
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
        const why = missedWhy(m);
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
