// The coach of a guided first game: a few short steps, each pointing at one part of the
// table when the game reaches it (your tiles, the question cards, the answers in the
// log, the memo sheet, declaring).  Each can be dismissed; "end the guide" skips the
// rest.  What was dismissed is kept by the shell (ctx.coach, js/firstgame.js), so a
// reload goes on where it was.

import { h } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";

/** The steps in order: when each may show (the view, the number of moves) and where it points. */
const STEPS = [
  { id: "tiles", target: "tiles", when: () => true, title: () => t("tg.coach.tiles_title"), text: () => t("tg.coach.tiles") },
  { id: "cards", target: "cards", when: (v) => Boolean(v.may_ask), title: () => t("tg.coach.cards_title"), text: () => t("tg.coach.cards") },
  { id: "log", target: "log", panel: "log", when: (v, n) => n >= 1, title: () => t("tg.coach.log_title"), text: () => t("tg.coach.log") },
  { id: "memo", target: "memo", panel: "memo", when: (v, n) => n >= 2, title: () => t("tg.coach.memo_title"), text: () => t("tg.coach.memo") },
  {
    id: "declare",
    target: "declare",
    when: (v, n) => n >= 3 && Boolean(v.may_declare),
    title: () => t("tg.coach.declare_title"),
    text: () => t("tg.coach.declare"),
  },
];

const NARROW = "(max-width: 720px)";

/**
 * `coach` is the shell's `ctx.coach`; `targets[name]()` gives the element a step points
 * at; `showPanel(id)` brings a side panel into view (a tab on a narrow screen).
 */
export function createCoach(coach, { targets, showPanel }) {
  let current = null; // the step shown
  let pointed = null; // the element it points at
  let frame = 0;
  const el = h("div", {
    class: "coach",
    role: "dialog",
    "aria-modal": "false",
    "aria-labelledby": "coach-title",
    "aria-describedby": "coach-text",
    dataset: { testid: "coach" },
    hidden: true,
  });
  document.body.append(el);

  /** The index of the last step dismissed (-1: none yet). */
  const dismissed = () => STEPS.findIndex((s) => s.id === coach.step);

  function draw() {
    if (!current) {
      el.hidden = true;
      return;
    }
    const index = STEPS.indexOf(current);
    // A redraw (another language) keeps the focus on the button that had it.
    const focused = el.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
    el.dataset.step = current.id;
    el.replaceChildren(
      h("p", { class: "coach-count" }, t("tg.coach.count", { n: index + 1, total: STEPS.length })),
      h("h2", { id: "coach-title", class: "coach-title" }, current.title()),
      h("p", { id: "coach-text", class: "coach-text" }, current.text()),
      h(
        "div",
        { class: "coach-buttons" },
        h("button", { type: "button", class: "btn btn--sm btn--ghost", dataset: { testid: "coach-skip" }, onclick: skip }, t("tg.coach.skip")),
        h(
          "button",
          { type: "button", class: "btn btn--sm btn--primary", dataset: { testid: "coach-next" }, onclick: next },
          index === STEPS.length - 1 ? t("tg.coach.finish") : t("tg.coach.next"),
        ),
      ),
    );
    el.hidden = false;
    if (focused) el.querySelector(`[data-testid=${focused}]`)?.focus({ preventScroll: true });
    place();
  }

  /** Beside what the step points at (below it, else above); a sheet at the bottom on a phone. */
  function place() {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      if (!current || !pointed) return;
      const narrow = window.matchMedia(NARROW).matches;
      el.classList.toggle("coach--sheet", narrow);
      if (narrow) {
        el.style.left = el.style.top = "";
        return;
      }
      const r = pointed.getBoundingClientRect();
      const w = el.offsetWidth;
      const hgt = el.offsetHeight;
      const gap = 12;
      let top = r.bottom + gap;
      if (top + hgt > window.innerHeight - 8) top = Math.max(8, r.top - hgt - gap);
      const left = Math.min(Math.max(8, r.left), window.innerWidth - w - 8);
      el.style.left = `${Math.round(left)}px`;
      el.style.top = `${Math.round(top)}px`;
    });
  }

  function point(step) {
    pointed?.classList.remove("coach-target");
    pointed = null;
    if (!step) return;
    if (step.panel) showPanel(step.panel);
    pointed = targets[step.target]?.() ?? null;
    if (!pointed) return;
    pointed.classList.add("coach-target");
    pointed.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function show(step) {
    if (step === current) return;
    current = step;
    point(step);
    draw();
    // The coach speaks now: its button takes the focus (it gives it back to the table).
    if (step) el.querySelector("[data-testid=coach-next]")?.focus({ preventScroll: true });
  }

  function next() {
    const was = pointed;
    coach.setStep(current.id);
    if (current === STEPS[STEPS.length - 1]) end("done");
    show(null);
    refresh();
    if (!current) focusIn(was);
  }

  function skip() {
    const was = pointed;
    end("skipped");
    show(null);
    focusIn(was);
  }

  function end(how) {
    over = true;
    coach.finish(how);
  }

  /** Back to the table: the first control of what the step pointed at, or its region. */
  function focusIn(target) {
    const control = target?.querySelector?.("button:not([disabled]), [tabindex='0']") ?? (target?.matches?.("button, [tabindex]") ? target : null);
    (control ?? target?.closest?.("[tabindex]"))?.focus({ preventScroll: true });
  }

  let view = null;
  let moves = 0;
  let over = false;

  /** The first step not yet dismissed, once the game has reached it. */
  function refresh() {
    if (!view || over) return;
    if (view.phase === "ended") {
      end("done");
      show(null);
      return;
    }
    const step = STEPS[dismissed() + 1];
    show(step && step.when(view, moves) ? step : null);
  }

  const onMove = () => place();
  window.addEventListener("resize", onMove);
  window.addEventListener("scroll", onMove, { passive: true, capture: true });

  return {
    el,
    update(nextView, n, change) {
      view = nextView;
      moves = n;
      if (change?.kind === "lang" && current) draw();
      // A redraw may have replaced what the step points at.
      if (current && (!pointed || !pointed.isConnected)) point(current);
      refresh();
      place();
    },
    destroy() {
      cancelAnimationFrame(frame);
      window.removeEventListener("resize", onMove);
      window.removeEventListener("scroll", onMove, { capture: true });
      pointed?.classList.remove("coach-target");
      el.remove();
    },
  };
}
