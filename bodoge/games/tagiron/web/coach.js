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

  /**
   * Beside what the step points at, never over it: below it, else above, else to its
   * right or left; a full-width sheet on a phone, below or above it.  A target out of
   * sight (not scrolled to during your turn) leaves the bubble at the nearest edge.
   */
  function place() {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      if (!current || !pointed) return;
      const narrow = window.matchMedia(NARROW).matches;
      el.classList.toggle("coach--sheet", narrow);
      const r = pointed.getBoundingClientRect();
      const w = el.offsetWidth;
      const hgt = el.offsetHeight;
      const gap = 12;
      const edge = 8;
      // Under the site's header: the bubble never hides the way back to the lobby.
      const ceiling = (document.querySelector("header")?.getBoundingClientRect().bottom ?? 0) + edge;
      const floor = window.innerHeight - edge;
      const clampLeft = (x) => Math.min(Math.max(edge, x), window.innerWidth - w - edge);
      const clampTop = (y) => Math.min(Math.max(ceiling, y), floor - hgt);
      const free = (x, y) => x >= r.right || x + w <= r.left || y >= r.bottom || y + hgt <= r.top;
      const spots = [
        [narrow ? edge : clampLeft(r.left), r.bottom + gap],
        [narrow ? edge : clampLeft(r.left), r.top - gap - hgt],
        [r.right + gap, clampTop(r.top)],
        [r.left - gap - w, clampTop(r.top)],
        [narrow ? edge : clampLeft(r.left), floor - hgt],
        [narrow ? edge : clampLeft(r.left), ceiling],
      ];
      const fits = ([x, y]) => x >= edge && x + w <= window.innerWidth - edge && y >= ceiling && y + hgt <= floor;
      let [left, top] = spots.find((spot) => fits(spot) && free(...spot)) ?? [];
      if (left === undefined) {
        // Nowhere clear of it (a target as tall as the screen): the edge farther from its middle.
        const middle = (r.top + r.bottom) / 2;
        [left, top] = middle > window.innerHeight / 2 ? spots[5] : spots[4];
      }
      el.style.left = narrow ? "" : `${Math.round(left)}px`;
      el.style.top = `${Math.round(top)}px`;
    });
  }

  function point(step) {
    pointed?.classList.remove("coach-target");
    pointed = null;
    if (!step) return;
    // Under tabs (a narrow screen) a side panel's step points at its tab: the coach
    // neither switches the tab nor scrolls the board away, least of all during your turn.
    const tab = step.panel ? document.querySelector(`[data-testid=tab-${step.panel}]`) : null;
    if (tab?.checkVisibility?.({ visibilityProperty: true })) pointed = tab;
    else {
      if (step.panel) showPanel(step.panel);
      pointed = targets[step.target]?.() ?? null;
    }
    if (!pointed) return;
    pointed.classList.add("coach-target");
    if (!view?.may_ask || !step.panel) pointed.scrollIntoView({ block: "nearest", inline: "nearest" });
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
  // Escape closes the guide, as its "close" button does (unless a dialog or a card's
  // help has the key: they close first).
  const onKey = (e) => {
    if (e.key !== "Escape" || !current || e.defaultPrevented) return;
    if (document.querySelector("dialog[open], .qc-tip:popover-open") || e.target.closest?.(".qc-ask, input, textarea, select")) return;
    e.preventDefault();
    skip();
  };
  document.addEventListener("keydown", onKey);

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
      document.removeEventListener("keydown", onKey);
      pointed?.classList.remove("coach-target");
      el.remove();
    },
  };
}
