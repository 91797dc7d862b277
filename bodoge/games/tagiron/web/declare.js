// Declaring: pick the tiles (the opponent's in hand order with 2 players, the
// centre set with 3–4), review them, confirm.  The palette shows all twenty
// physical tiles, red above blue, the two green 5s in the middle; tiles in
// your own hand cannot be the answer and are greyed out.

import { fill, h, icon } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";
import { dialogShell } from "/static/js/ui.js";
import { number, rack, sortTiles, tile, tileName } from "./tiles.js";

const PHYSICAL = [];
for (const row of ["R", "B"]) {
  for (let n = 0; n <= 9; n++) {
    PHYSICAL.push(n === 5 ? { id: `G5${row === "R" ? "a" : "b"}`, code: "G5" } : { id: `${row}${n}`, code: `${row}${n}` });
  }
}

/** Physical tiles matching codes, taking a green 5 from `a` first. */
function physicalFor(codes, exclude = new Set()) {
  const taken = new Set(exclude);
  const ids = [];
  for (const code of codes) {
    const found = PHYSICAL.find((p) => p.code === code && !taken.has(p.id));
    if (!found) return null;
    taken.add(found.id);
    ids.push(found.id);
  }
  return ids;
}

/**
 * Open the declaration dialog; resolves with the declared codes (in hand order)
 * or null.  `fromMemo()` and `fromAssist()` may return codes to fill in.
 */
export function declareDialog({ view, fromMemo, fromAssist }) {
  const two = view.players === 2;
  const size = two ? view.hand_counts[1 - view.you] : view.centre_size;
  const mine = new Set(physicalFor(view.hand ?? []) ?? []);
  let chosen = [];
  let step = "pick";

  return new Promise((resolve) => {
    // Escape on the review step goes back to the picking, not out.
    const { dialog, close } = dialogShell({
      resolve,
      className: "dialog--declare",
      testid: "declare-dialog",
      onEscape: () => {
        if (step === "confirm") {
          step = "pick";
          draw();
        } else close(null);
      },
    });

    const codes = () => sortTiles(chosen.map((id) => PHYSICAL.find((p) => p.id === id).code));

    function setChosen(list) {
      const ids = list && list.length === size ? physicalFor(list, mine) : null;
      if (ids) {
        chosen = ids;
        draw();
      }
    }

    function slots() {
      const list = codes();
      const cells = [];
      for (let i = 0; i < size; i++) {
        const code = list[i];
        cells.push(
          h(
            "button",
            {
              type: "button",
              class: ["decl-slot", code && "decl-slot--full"],
              "aria-label": code ? t("tg.declare.remove", { tile: tileName(code) }) : t("tg.declare.slot_empty", { n: i + 1 }),
              dataset: { testid: `decl-slot-${i + 1}` },
              disabled: !code,
              onclick: () => {
                const id = chosen.find((x) => PHYSICAL.find((p) => p.id === x).code === code);
                chosen = chosen.filter((x) => x !== id);
                draw(`decl-slot-${i + 1}`);
              },
            },
            code ? tile(code, { size: "lg", label: false }) : h("span", { class: "decl-empty" }),
            two ? h("span", { class: "decl-pos" }, String(i + 1)) : null,
          ),
        );
      }
      return h("div", { class: "decl-slots", role: "group", "aria-label": t("tg.declare.slots") }, cells);
    }

    function palette() {
      return h(
        "div",
        { class: "decl-palette", role: "group", "aria-label": t("tg.declare.palette") },
        PHYSICAL.map((p) => {
          const isMine = mine.has(p.id);
          const on = chosen.includes(p.id);
          return h(
            "button",
            {
              type: "button",
              class: ["decl-tile", on && "decl-tile--on", isMine && "decl-tile--mine"],
              "aria-pressed": String(on),
              "aria-label": on ? t("tg.declare.remove", { tile: tileName(p.code) }) : t("tg.declare.add", { tile: tileName(p.code) }),
              disabled: isMine || (!on && chosen.length >= size),
              dataset: { testid: `decl-tile-${p.id}`, code: p.code, n: number(p.code) },
              onclick: () => {
                chosen = on ? chosen.filter((x) => x !== p.id) : [...chosen, p.id];
                draw(`decl-tile-${p.id}`);
              },
            },
            tile(p.code, { size: "md", label: false }),
          );
        }),
      );
    }

    function draw(focusTestid = null) {
      const memo = fromMemo?.();
      const assist = fromAssist?.();
      const body =
        step === "pick"
          ? [
              h("p", { class: "decl-help" }, two ? t("tg.declare.help2") : t("tg.declare.help_group")),
              slots(),
              palette(),
              h(
                "div",
                { class: "decl-fill" },
                h("button", { type: "button", class: "btn btn--sm", disabled: !(memo && memo.length === size), dataset: { testid: "decl-from-memo" }, onclick: () => setChosen(memo) }, t("tg.declare.from_memo")),
                assist
                  ? h("button", { type: "button", class: "btn btn--sm", disabled: assist.length !== size, dataset: { testid: "decl-from-assist" }, onclick: () => setChosen(assist) }, t("tg.declare.from_assist"))
                  : null,
                h("button", { type: "button", class: "btn btn--sm btn--ghost", disabled: !chosen.length, onclick: () => { chosen = []; draw(); } }, t("tg.declare.clear")),
              ),
            ]
          : [
              h("p", { class: "decl-warning" }, icon("spark", "icon icon--sm"), two ? t("tg.declare.sure2") : t("tg.declare.sure_group")),
              h("div", { class: "decl-review" }, rack(codes(), { size: "xl", positions: two })),
            ];
      const buttons =
        step === "pick"
          ? [
              h("button", { type: "button", class: "btn", dataset: { testid: "decl-cancel" }, onclick: () => close(null) }, t("common.cancel")),
              h(
                "button",
                {
                  type: "button",
                  class: "btn btn--primary",
                  disabled: chosen.length !== size,
                  dataset: { testid: "decl-next" },
                  onclick: () => {
                    step = "confirm";
                    draw("decl-ok");
                  },
                },
                t("tg.declare.next"),
              ),
            ]
          : [
              h("button", { type: "button", class: "btn", dataset: { testid: "decl-back" }, onclick: () => { step = "pick"; draw(); } }, t("tg.declare.back")),
              h("button", { type: "button", class: "btn btn--danger", dataset: { testid: "decl-ok" }, onclick: () => close(codes()) }, t("tg.declare.ok")),
            ];
      fill(
        dialog,
        h("h2", { class: "dialog-title" }, step === "pick" ? (two ? t("tg.declare.title2") : t("tg.declare.title_group")) : t("tg.declare.sure_title")),
        h("div", { class: "dialog-body" }, body),
        h("div", { class: "dialog-buttons" }, buttons),
      );
      const again = focusTestid && dialog.querySelector(`[data-testid="${focusTestid}"]:not([disabled])`);
      (again || dialog.querySelector(".decl-tile:not([disabled]), .btn--primary:not([disabled]), .btn--danger"))?.focus();
    }

    document.body.append(dialog);
    draw();
    dialog.showModal();
    draw();
  });
}
