// Tagiron's puzzles on the puzzle page (bodoge/web/static/js/puzzles.js): the position as
// the seat saw it (its tiles, the face-up cards, the log), the question of the puzzle's
// kind with a form to answer it, and the explanation from the solver afterwards.
// The page calls createPuzzle(puzzle, { submit }) and then result(answered).

import { h, icon, loadStylesheet } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";
import { CARDS } from "./cards.js";
import { answerView, cardText, logEntry, questionLabel } from "./log.js";
import { STRINGS } from "./strings.js";
import { rack, sortTiles, tile, TILE_CODES, tileName } from "./tiles.js";

export const strings = STRINGS;

await loadStylesheet(new URL("./tagiron.css", import.meta.url).pathname);

const handSize = (players) => (players === 4 ? 4 : 5);

/** What the hidden hand is called: the opponent's hand, or the centre. */
function hiddenName(players) {
  return players === 2 ? t("tg.pz.opponent") : t("tg.pz.centre");
}

function seatName(position, s) {
  return s === position.seat ? t("tg.you") : t("tg.pz.seat", { n: s + 1 });
}

function logView(position) {
  const k = handSize(position.players);
  const view = { you: position.seat, players: position.players, hand_counts: Array(position.players).fill(k) };
  const ctx = { seatNameNode: (s) => seatName(position, s) };
  return h(
    "ol",
    { class: "log pz-log", "aria-label": t("tg.pz.log") },
    position.log.map((entry, i) => logEntry(entry, i, view, ctx)),
  );
}

/** The position: who you are, your tiles, the face-up cards and the log. */
function positionView(position) {
  return h(
    "div",
    { class: "pz-position" },
    h(
      "p",
      { class: "pz-who" },
      t("tg.pz.setting", { players: position.players, seat: position.seat + 1 }),
      " ",
      t(position.players === 2 ? "tg.pz.target_two" : "tg.pz.target_group"),
    ),
    h(
      "div",
      { class: "pz-row" },
      h("div", { class: "pz-block" }, h("h2", { class: "pz-sub" }, t("tg.your_tiles")), rack(position.hand, { size: "md", label: t("tg.your_tiles") })),
      h(
        "div",
        { class: "pz-block" },
        h("h2", { class: "pz-sub" }, t("tg.pz.face_up")),
        position.face_up.length
          ? h(
              "ul",
              { class: "pz-cards" },
              position.face_up.map((c) => h("li", { class: ["pz-card", CARDS[c]?.shared && "pz-card--shared"], title: cardText(c) }, questionLabel(c, null))),
            )
          : h("p", { class: "muted" }, t("tg.pz.no_cards")),
      ),
    ),
    h("h2", { class: "pz-sub" }, t("tg.pz.log")),
    position.log.length ? logView(position) : h("p", { class: "muted" }, t("tg.pz.empty_log")),
  );
}

/** A palette of the 19 tile codes: toggles (several) or radios (one). */
function palette({ chosen, many, disabled, onPick, label }) {
  return h(
    "div",
    { class: "pz-palette", role: many ? "group" : "radiogroup", "aria-label": label },
    TILE_CODES.map((code) => {
      const count = chosen.filter((c) => c === code).length;
      const on = count > 0;
      return h(
        "button",
        {
          type: "button",
          class: ["pz-pick", on && "pz-pick--on"],
          role: many ? null : "radio",
          "aria-pressed": many ? String(on) : null,
          "aria-checked": many ? null : String(on),
          "aria-label": count > 1 ? `${tileName(code)} ×${count}` : tileName(code),
          disabled: disabled(code) && !on ? true : null,
          dataset: { testid: `pick-${code}` },
          onclick: () => onPick(code),
        },
        tile(code, { size: "sm", label: false }),
        count > 1 ? h("span", { class: "pz-pick-count", "aria-hidden": "true" }, `×${count}`) : null,
      );
    }),
  );
}

/**
 * The puzzle: `submit(answer)` sends the answer (the page disables the form meanwhile).
 * Returns { el, busy(flag) }.
 */
export function createPuzzle(puzzle, { submit }) {
  const position = puzzle.position;
  const k = handSize(puzzle.players);
  const el = h("div", { class: "pz-game" });
  let chosen = [];
  let option = null;
  let count = "";
  let busy = false;
  const mine = new Map();
  for (const c of position.hand) mine.set(c, (mine.get(c) ?? 0) + 1);
  const copies = (code) => (code === "G5" ? 2 : 1) - (mine.get(code) ?? 0);

  function ready() {
    if (puzzle.kind === "declare") return chosen.length === k;
    if (puzzle.kind === "question") return option !== null;
    if (puzzle.kind === "count") return /^[0-9]{1,6}$/.test(count.trim());
    return chosen.length === 1;
  }

  function answer() {
    if (puzzle.kind === "declare") return { tiles: sortTiles(chosen) };
    if (puzzle.kind === "question") return { card: option.card, choice: option.choice };
    if (puzzle.kind === "count") return { count: Number(count.trim()) };
    return { tile: chosen[0] };
  }

  function form() {
    const prompt = {
      declare: t("tg.pz.ask_declare", { hidden: hiddenName(puzzle.players), k }),
      question: t("tg.pz.ask_question"),
      count: t("tg.pz.ask_count", { hidden: hiddenName(puzzle.players), tolerance: Math.round(100 * (puzzle.ask.tolerance ?? 0)) }),
      tile: t("tg.pz.ask_tile", { hidden: hiddenName(puzzle.players), slot: puzzle.ask.slot }),
    }[puzzle.kind];
    let input;
    if (puzzle.kind === "declare") {
      input = [
        palette({
          chosen,
          many: true,
          label: t("tg.pz.palette"),
          disabled: (code) => busy || chosen.length >= k || chosen.filter((c) => c === code).length >= copies(code),
          // a tile is added while there are copies of it left and room; then it comes off
          onPick: (code) => {
            const held = chosen.filter((c) => c === code).length;
            if (held < copies(code) && chosen.length < k) chosen.push(code);
            else if (held > 0) chosen.splice(chosen.indexOf(code), 1);
            draw("pick-" + code);
          },
        }),
        h(
          "div",
          { class: "pz-chosen", "aria-live": "polite" },
          h("span", { class: "muted small" }, t("tg.pz.chosen", { n: chosen.length, k })),
          chosen.length ? rack(sortTiles(chosen), { size: "sm", label: t("tg.pz.chosen_label") }) : null,
          chosen.length
            ? h("button", { type: "button", class: "btn btn--sm btn--ghost", disabled: busy || null, dataset: { testid: "pz-clear" }, onclick: () => { chosen = []; draw("pz-clear-gone"); } }, t("tg.pz.clear"))
            : null,
        ),
      ];
    } else if (puzzle.kind === "tile") {
      input = palette({
        chosen,
        many: false,
        label: t("tg.pz.palette_one"),
        disabled: (code) => busy || copies(code) <= 0,
        onPick: (code) => {
          chosen = [code];
          draw("pick-" + code);
        },
      });
    } else if (puzzle.kind === "question") {
      input = h(
        "fieldset",
        { class: "pz-options" },
        h("legend", { class: "sr-only" }, t("tg.pz.ask_question")),
        puzzle.ask.options.map((o, i) =>
          h(
            "label",
            { class: ["pz-option", option === o && "pz-option--on"] },
            h("input", {
              type: "radio",
              name: `pz-option-${puzzle.id}`,
              value: String(i),
              checked: option === o || null,
              disabled: busy || null,
              dataset: { testid: `option-${o.card}${o.choice ?? ""}` },
              onchange: () => {
                option = o;
                draw(`option-${o.card}${o.choice ?? ""}`);
              },
            }),
            h("span", { class: "pz-option-name" }, questionLabel(o.card, o.choice)),
            h("span", { class: "pz-option-text muted small" }, cardText(o.card)),
          ),
        ),
      );
    } else {
      input = h(
        "label",
        { class: "pz-count" },
        h("span", null, t("tg.pz.count_label")),
        h("input", {
          type: "number",
          inputmode: "numeric",
          min: "1",
          max: "100000",
          value: count,
          disabled: busy || null,
          dataset: { testid: "pz-count" },
          oninput: (e) => {
            count = e.target.value;
            submitButton.disabled = busy || !ready();
          },
        }),
      );
    }
    const submitButton = h(
      "button",
      { type: "submit", class: "btn btn--primary", disabled: busy || !ready() || null, dataset: { testid: "pz-submit" } },
      icon("check", "icon icon--sm"),
      t("tg.pz.submit"),
    );
    return h(
      "form",
      {
        class: "pz-form",
        "aria-labelledby": `pz-prompt-${puzzle.id}`,
        onsubmit: (e) => {
          e.preventDefault();
          if (!busy && ready()) submit(answer());
        },
      },
      h("h2", { class: "pz-prompt", id: `pz-prompt-${puzzle.id}` }, prompt),
      input,
      h("div", { class: "pz-actions" }, submitButton),
    );
  }

  function draw(focusTestid = null) {
    el.replaceChildren(positionView(position), form());
    if (focusTestid) {
      const again = el.querySelector(`[data-testid="${focusTestid}"]`) ?? el.querySelector('[data-testid="pz-submit"]');
      again?.focus();
    }
  }

  draw();
  return {
    el,
    busy(flag) {
      busy = flag;
      draw();
    },
    redraw: () => draw(),
  };
}

// --- the solution and the explanation ------------------------------------------------------

function solutionView(puzzle, solution) {
  if (puzzle.kind === "declare") return rack(solution.tiles, { size: "md", label: t("tg.pz.solution") });
  if (puzzle.kind === "question") return h("span", { class: "pz-solution-q" }, questionLabel(solution.card, solution.choice), " — ", cardText(solution.card));
  if (puzzle.kind === "count") {
    return h(
      "span",
      null,
      t("tg.pz.count_is", { count: solution.count }),
      solution.low !== solution.high ? [" ", h("span", { class: "muted" }, t("tg.pz.count_band", { low: solution.low, high: solution.high }))] : null,
    );
  }
  return h("span", { class: "pz-solution-tile" }, tile(solution.tile, { size: "md" }), " ", tileName(solution.tile));
}

function stepsView(puzzle, explanation) {
  const k = handSize(puzzle.players);
  const entry = (n) => puzzle.position.log[n - 1];
  return h(
    "ol",
    { class: "pz-steps" },
    (explanation.steps ?? []).map((step) => {
      const e = entry(step.entry);
      const what = e?.type === "question" ? questionLabel(e.card, e.choice) : t("tg.pz.a_declaration");
      if (puzzle.kind === "tile") {
        return h(
          "li",
          { class: "pz-step", dataset: { testid: "pz-step" } },
          h("span", { class: "pz-step-head" }, t("tg.pz.step_tiles", { n: step.entry, what, slot: explanation.slot })),
          h("span", { class: "pz-step-tiles" }, step.tiles.map((c) => tile(c, { size: "xs" }))),
        );
      }
      return h(
        "li",
        { class: "pz-step", dataset: { testid: "pz-step" } },
        h("span", { class: "pz-step-head" }, t("tg.pz.step", { n: step.entry, what, count: step.ruled_out, left: step.left })),
        h(
          "ul",
          { class: "pz-examples" },
          step.examples.map((ex) =>
            h(
              "li",
              { class: "pz-example" },
              rack(ex.tiles, { size: "xs", positions: false, label: t("tg.pz.ruled_out_hand") }),
              ex.answer !== undefined && e?.type === "question"
                ? h("span", { class: "pz-would" }, t("tg.pz.would_answer"), " ", answerView(e.card, e.choice, ex.answer, k))
                : null,
            ),
          ),
          step.ruled_out > step.examples.length ? h("li", { class: "muted small" }, t("tg.pz.and_more", { count: step.ruled_out - step.examples.length })) : null,
        ),
      );
    }),
  );
}

function percentText(share) {
  return `${Math.round(100 * share)}%`;
}

function optionsView(puzzle, explanation, chosen) {
  const k = handSize(puzzle.players);
  return h(
    "ol",
    { class: "pz-compare" },
    explanation.options.map((o, i) =>
      h(
        "li",
        { class: ["pz-compare-item", i === 0 && "pz-compare-item--best", chosen && chosen.card === o.card && chosen.choice === o.choice && "pz-compare-item--yours"], dataset: { testid: "pz-compare" } },
        h(
          "div",
          { class: "pz-compare-head" },
          h("span", { class: "pz-compare-name" }, questionLabel(o.card, o.choice)),
          i === 0 ? h("span", { class: "badge badge--best" }, t("tg.pz.best")) : null,
          chosen && chosen.card === o.card && chosen.choice === o.choice ? h("span", { class: "badge" }, t("tg.pz.your_pick")) : null,
          h("span", { class: "pz-compare-figures muted small" }, t("tg.pz.figures", { value: o.value.toFixed(2), bits: o.bits.toFixed(2), left: o.expected_left, settle: percentText(o.settle) })),
        ),
        h(
          "details",
          { class: "pz-splits", open: i === 0 || null },
          h("summary", null, t("tg.pz.splits")),
          h(
            "ul",
            null,
            o.splits.map((s) =>
              h(
                "li",
                { class: "pz-split" },
                h(
                  "span",
                  { class: "pz-split-answers" },
                  Object.entries(s.answers).map(([seat, v]) => h("span", { class: "pz-split-answer" }, h("span", { class: "muted small" }, seatName(puzzle.position, Number(seat))), " ", answerView(o.card, o.choice, v, k))),
                ),
                h("span", { class: "pz-split-figures" }, t("tg.pz.split", { share: percentText(s.share), left: s.left })),
              ),
            ),
            o.more > 0 ? h("li", { class: "muted small" }, t("tg.pz.more_answers", { share: percentText(o.more) })) : null,
          ),
        ),
      ),
    ),
  );
}

/** The position again beside the explanation (its log entries are numbered as it names them). */
export function explainPosition(puzzle) {
  return positionView(puzzle.position);
}

/** The solution and why it is right, for a puzzle answered (`answered`: the answer's reply). */
export function explain(puzzle, { solution, explanation }, given = null) {
  const parts = [h("p", { class: "pz-solution", dataset: { testid: "pz-solution" } }, h("strong", null, t("tg.pz.solution")), " ", solutionView(puzzle, solution))];
  if (puzzle.kind === "question") {
    parts.push(h("p", null, t("tg.pz.why_question", { count: explanation.candidates })), optionsView(puzzle, explanation, given));
  } else if (puzzle.kind === "tile") {
    parts.push(h("p", null, t("tg.pz.why_tile", { slot: explanation.slot, start: explanation.start.length, count: explanation.count })), stepsView(puzzle, explanation));
  } else {
    parts.push(h("p", null, t(puzzle.kind === "declare" ? "tg.pz.why_declare" : "tg.pz.why_count", { start: explanation.start, count: explanation.count ?? 1 })), stepsView(puzzle, explanation));
    if (puzzle.kind === "count" && explanation.candidates?.length) {
      parts.push(
        h("h3", null, t("tg.pz.all_fitting")),
        h("ul", { class: "pz-fitting" }, explanation.candidates.map((c) => h("li", null, rack(c, { size: "xs", positions: false, label: t("tg.pz.fitting_hand") })))),
      );
    }
  }
  return h("div", { class: "pz-explain", dataset: { testid: "pz-explain" } }, parts);
}
