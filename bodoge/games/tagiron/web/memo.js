// The memo sheet: for each opponent (and the centre with 3–4 players) a grid
// of positions × tiles that the player strikes out and marks, like the paper
// notes players keep.  Kept in localStorage per table and seat, so a reload
// brings it back.  With the assistant on, tile probabilities tint the cells and
// show as percentages, on every target's page (each opponent's and the centre).

import { fill, h, keepFocus } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";
import { confirmDialog } from "/static/js/ui.js";
import { colour, number, TILE_CODES, tile, tileName } from "./tiles.js";

const NEXT = { "": "x", x: "o", o: "" };
const SYMBOL = { x: "✕", o: "○", "": "" };

/** The memo's targets for a view: whose tiles can be deduced. */
export function memoTargets(view, ctx) {
  const seats = [];
  for (let s = 0; s < view.players; s++) if (s !== view.you) seats.push(s);
  const targets = seats.map((s) => ({ key: `s${s}`, seat: s, label: ctx.seatName(s), node: () => ctx.seatNameNode(s), size: view.hand_counts[s] }));
  // With 3–4 players the centre is what one declares: it comes first.
  if (view.players > 2) targets.unshift({ key: "centre", seat: null, label: t("tg.centre"), node: () => t("tg.centre"), size: view.centre_size });
  return targets;
}

/** A probability as a whole percentage: never 0 or 100 unless it is certain. */
export function percent(p) {
  if (p <= 0) return 0;
  if (p >= 1) return 100;
  return Math.min(99, Math.max(1, Math.round(p * 100)));
}

export function createMemo({ storage, requestAssist }) {
  const data = storage.get("memo", null) ?? { active: null, targets: {}, showAssist: true };
  data.targets ??= {};
  let targets = [];
  let probs = null; // key -> [pos][code] probability, from the assistant
  let focusCell = { pos: 1, code: TILE_CODES[0] };
  let saveTimer = null;
  let myHand = [];
  let assistOn = false;

  const picker = h("div", { class: "memo-targets" });
  const assistBox = h("div", { class: "memo-assist" });
  const gridBox = h("div", { class: "memo-grid-box" });
  const foot = h("div", { class: "memo-foot" });
  const el = h("div", { class: "memo", dataset: { testid: "memo" } }, picker, assistBox, gridBox, foot);

  function save() {
    clearTimeout(saveTimer);
    saveTimer = null;
    storage.set("memo", data);
  }

  function sheet(key) {
    data.targets[key] ??= { cells: {}, notes: "" };
    return data.targets[key];
  }

  function active() {
    return targets.find((x) => x.key === data.active) ?? targets[0];
  }

  function drawPicker() {
    // A tab list only when there is a choice (else a line saying whose notes these are).
    if (targets.length > 1) picker.setAttribute("role", "tablist");
    else picker.removeAttribute("role");
    keepFocus(picker, () =>
      fill(
        picker,
        targets.length > 1
          ? targets.map((x) =>
              h(
                "button",
                {
                  type: "button",
                  role: "tab",
                  class: ["seg", x.key === active()?.key && "seg--on"],
                  "aria-selected": String(x.key === active()?.key),
                  dataset: { key: `memo-target-${x.key}`, testid: `memo-target-${x.key}` },
                  onclick: () => {
                    data.active = x.key;
                    save();
                    drawAll();
                  },
                },
                x.node(),
              ),
            )
          : h("span", { class: "memo-for" }, t("tg.memo.for"), " ", h("strong", null, targets[0]?.node() ?? "")),
      ),
    );
  }

  function cellLabel(pos, code, mark) {
    return `${t("tg.memo.cell", { pos, tile: tileName(code) })}: ${t(`tg.memo.mark.${mark || "empty"}`)}`;
  }

  function paintCell(btn, pos, code) {
    const target = active();
    const mark = sheet(target.key).cells[`${pos}:${code}`] ?? "";
    // A position's probabilities list only the tiles still possible there.
    const slot = data.showAssist && assistOn ? probs?.[target.key]?.[pos - 1] : undefined;
    const p = slot ? slot[code] ?? 0 : undefined;
    btn.className = ["mc", `mc--${colour(code)}`, mark && `mc--${mark}`, p !== undefined && "mc--p", p === 0 && "mc--p0", p === 1 && "mc--p1"]
      .filter(Boolean)
      .join(" ");
    if (p !== undefined) btn.style.setProperty("--p", String(p));
    else btn.style.removeProperty("--p");
    const pct = p === undefined ? "" : `${percent(p)}%`;
    btn.textContent = mark ? SYMBOL[mark] : p > 0 && p < 1 ? pct : "";
    // The name begins with what the cell shows (WCAG 2.5.3: "33%" is said to press it), and
    // says the chance where the cell shows a mark or nothing.
    const shown = btn.textContent;
    const chance = pct && shown !== pct ? ` (${pct})` : "";
    btn.setAttribute("aria-label", (shown ? `${shown}, ` : "") + cellLabel(pos, code, mark) + chance);
    btn.dataset.mark = mark;
  }

  // Tiles are rows and positions columns: 19 rows of at most 5 cells fit a side
  // column with every cell a comfortable target (at least 24×24 px, WCAG 2.5.8).
  function drawGrid() {
    const target = active();
    if (!target) {
      gridBox.replaceChildren();
      return;
    }
    const positions = [];
    for (let pos = 1; pos <= target.size; pos++) positions.push(pos);
    const head = h(
      "tr",
      null,
      h("th", { class: "memo-corner", scope: "col" }, h("span", { class: "sr-only" }, t("tg.memo.tile"))),
      positions.map((pos) => h("th", { scope: "col", class: "memo-pos", title: t("tg.position_label", { n: pos }) }, String(pos))),
    );
    const rows = TILE_CODES.map((code) =>
      h(
        "tr",
        { class: number(code) % 2 === 1 ? "memo-odd" : null },
        h(
          "th",
          { scope: "row", class: ["memo-row", `memo-row--${colour(code)}`] },
          h(
            "button",
            {
              type: "button",
              class: "memo-rowbtn",
              title: t("tg.memo.column", { tile: tileName(code) }),
              "aria-label": t("tg.memo.column", { tile: tileName(code) }),
              dataset: { key: `memo-col-${code}` },
              onclick: () => strikeColumn(code),
            },
            tile(code, { size: "xs", label: false }),
          ),
        ),
        positions.map((pos) => {
          const focusable = pos === focusCell.pos && code === focusCell.code;
          const btn = h("button", {
            type: "button",
            tabindex: focusable ? "0" : "-1",
            dataset: { key: `mc-${pos}-${code}`, pos, code, testid: `memo-cell-${pos}-${code}` },
            onclick: () => toggle(btn, pos, code),
            onfocus: () => {
              focusCell = { pos, code };
            },
          });
          paintCell(btn, pos, code);
          return h("td", null, btn);
        }),
      ),
    );
    keepFocus(gridBox, () =>
      fill(
        gridBox,
        h(
          "table",
          { class: "memo-grid", role: "grid", "aria-label": `${t("tg.memo.title")}: ${target.label}`, onkeydown: onGridKey },
          h("thead", null, head),
          h("tbody", null, rows),
        ),
        target.key === "centre" ? h("p", { class: "memo-note" }, t("tg.memo.centre_note")) : null,
      ),
    );
  }

  /** Arrow keys move inside the grid (one tab stop): left and right along the positions, up and down the tiles. */
  function onGridKey(e) {
    const btn = e.target.closest?.("button.mc");
    if (!btn) return;
    const pos = Number(btn.dataset.pos);
    const ci = TILE_CODES.indexOf(btn.dataset.code);
    const size = active().size;
    let np = pos;
    let nc = ci;
    if (e.key === "ArrowRight") np = Math.min(size, pos + 1);
    else if (e.key === "ArrowLeft") np = Math.max(1, pos - 1);
    else if (e.key === "ArrowDown") nc = Math.min(TILE_CODES.length - 1, ci + 1);
    else if (e.key === "ArrowUp") nc = Math.max(0, ci - 1);
    else if (e.key === "Home") np = 1;
    else if (e.key === "End") np = size;
    else return;
    e.preventDefault();
    const next = gridBox.querySelector(`[data-key="mc-${np}-${TILE_CODES[nc]}"]`);
    if (next) {
      btn.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    }
  }

  function toggle(btn, pos, code) {
    const cells = sheet(active().key).cells;
    const key = `${pos}:${code}`;
    const mark = NEXT[cells[key] ?? ""];
    if (mark) cells[key] = mark;
    else delete cells[key];
    save();
    paintCell(btn, pos, code);
  }

  function strikeColumn(code) {
    const target = active();
    const cells = sheet(target.key).cells;
    let all = true;
    for (let p = 1; p <= target.size; p++) if (cells[`${p}:${code}`] !== "x") all = false;
    for (let p = 1; p <= target.size; p++) {
      if (all) delete cells[`${p}:${code}`];
      else cells[`${p}:${code}`] = "x";
    }
    save();
    drawGrid();
  }

  function strikeMine() {
    // A red or blue tile I hold cannot be anyone else's; a green 5 only if I hold both.
    const greens = myHand.filter((c) => c === "G5").length;
    const codes = new Set(myHand.filter((c) => c !== "G5"));
    if (greens === 2) codes.add("G5");
    for (const target of targets) {
      const cells = sheet(target.key).cells;
      for (const code of codes) for (let p = 1; p <= target.size; p++) cells[`${p}:${code}`] = "x";
    }
    save();
    drawGrid();
  }

  async function clearSheet() {
    const target = active();
    const ok = await confirmDialog({ title: t("tg.memo.clear"), message: t("tg.memo.clear_confirm"), ok: t("tg.memo.clear"), danger: true });
    if (!ok) return;
    data.targets[target.key] = { cells: {}, notes: "" };
    save();
    drawAll();
  }

  function drawFoot() {
    const target = active();
    if (!target) return foot.replaceChildren();
    const notes = h("textarea", {
      class: "memo-notes",
      id: "memo-notes",
      rows: 3,
      maxlength: 2000,
      placeholder: t("tg.memo.notes_placeholder"),
      dataset: { key: "memo-notes", testid: "memo-notes" },
      oninput: (e) => {
        // Saved at once (a small write), so a reload right after typing keeps it.
        sheet(target.key).notes = e.target.value;
        save();
      },
    });
    notes.value = sheet(target.key).notes ?? "";
    keepFocus(foot, () =>
      fill(
        foot,
        h("p", { class: "memo-legend" }, t("tg.memo.legend")),
        h(
          "div",
          { class: "memo-buttons" },
          myHand.length
            ? h("button", { type: "button", class: "btn btn--sm", dataset: { key: "strike-mine", testid: "strike-mine" }, onclick: strikeMine }, t("tg.memo.strike_mine"))
            : null,
          h("button", { type: "button", class: "btn btn--sm btn--ghost", dataset: { key: "memo-clear" }, onclick: clearSheet }, t("tg.memo.clear")),
        ),
        h("label", { class: "field-label", for: "memo-notes" }, t("tg.memo.notes")),
        notes,
      ),
    );
  }

  function drawAll() {
    drawPicker();
    drawGrid();
    drawFoot();
  }

  let lastKey = "";

  return {
    el,
    assistBox,
    get showAssist() {
      return data.showAssist;
    },
    setShowAssist(v) {
      data.showAssist = v;
      save();
      drawGrid();
    },
    /** The sheet of one target, for filling a declaration from the ○ marks. */
    marks(key) {
      return sheet(key).cells;
    },
    activeKey() {
      return active()?.key;
    },
    update(view, ctx, { force = false, assist = null, assistEnabled = false } = {}) {
      targets = memoTargets(view, ctx);
      myHand = view.hand ?? [];
      assistOn = assistEnabled;
      if (assist !== null) probs = assist;
      const key = JSON.stringify([targets.map((x) => [x.key, x.label, x.size]), myHand.length, assistOn]);
      if (force || key !== lastKey || assist !== null) {
        lastKey = key;
        drawAll();
      }
    },
    flush: save,
  };
}
