// The rules panel: Tagiron in short, as bodoge plays it (docs/rules/tagiron.md),
// for 2, 3 and 4 players with this table's count marked, the memo sheet, and
// what the marks on the question cards mean.

import { h, icon } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";
import { KIND_MARK } from "./explain.js";
import { rack } from "./tiles.js";

function list(keys, params = {}) {
  return h(
    "ul",
    { class: "tg-rules-list" },
    keys.filter(Boolean).map((k) => h("li", null, t(k, params))),
  );
}

/** One part of the rules for a player count; this table's part is marked. */
function byCount(counts, players, key, body) {
  const here = counts.includes(players);
  return h(
    "section",
    { class: ["tg-rules-count", here && "is-here"], dataset: { players: counts.join("-") } },
    h("h4", null, t(key), here ? h("span", { class: "badge badge--here" }, t("tg.rules.this_table")) : null),
    body,
  );
}

/** The panel's content for a table of `players` players; `bits`: the assistant shows them. */
export function rulesPanel(players, { bits = false } = {}) {
  return h(
    "div",
    { class: "tg-rules", dataset: { testid: "rules" } },
    h("p", { class: "tg-rules-lead" }, players === 2 ? t("tg.rules.goal2") : t("tg.rules.goal_group")),

    h("h3", null, t("tg.rules.tiles_title")),
    h("div", { class: "tg-rules-tiles" }, rack(["R0", "B0", "R1", "B1", "G5", "G5", "R9", "B9"], { size: "xs", positions: false, label: t("tg.rules.tiles_title") })),
    list(["tg.rules.tiles", "tg.rules.order"]),

    h("h3", null, t("tg.rules.setup_title")),
    byCount([2], players, "tg.rules.for2", list(["tg.rules.setup2"])),
    byCount([3], players, "tg.rules.for3", list(["tg.rules.setup3"])),
    byCount([4], players, "tg.rules.for4", list(["tg.rules.setup4", "tg.rules.setup4_cards"])),
    list(["tg.rules.setup_cards"]),

    h("h3", null, t("tg.rules.turn_title")),
    list(["tg.rules.turn_ask", "tg.rules.turn_refill", players === 4 ? "tg.rules.answer4" : players === 3 ? "tg.rules.answer3" : "tg.rules.answer2", "tg.rules.turn_shared"]),

    h("h3", null, t("tg.rules.declare_title")),
    byCount([2], players, "tg.rules.for2", list(["tg.rules.declare2", "tg.rules.declare2_wrong", "tg.rules.declare2_second", "tg.rules.declare2_first"])),
    byCount([3, 4], players, "tg.rules.for34", list(["tg.rules.declare34", "tg.rules.declare34_wrong", "tg.rules.declare34_right", "tg.rules.declare34_end"])),

    h("h3", null, t("tg.rules.cards_out_title")),
    list(["tg.rules.cards_out", players === 2 ? "tg.rules.cards_out2" : "tg.rules.cards_out34"]),

    h("h3", null, t("tg.rules.memo_title")),
    list(["tg.rules.memo_cells", "tg.rules.memo_column", "tg.rules.memo_mine", "tg.rules.memo_kept"]),

    h("h3", { id: "tg-legend" }, t("tg.rules.legend_title")),
    h(
      "dl",
      { class: "tg-legend", dataset: { testid: "legend" }, "aria-labelledby": "tg-legend" },
      Object.entries(KIND_MARK).map(([kind, mark]) => [
        h("dt", null, h("span", { class: ["qc-kind", `qc-kind--${kind}`], "aria-hidden": "true" }, mark), h("span", { class: "sr-only" }, mark)),
        h("dd", null, t(`tg.kind.${kind}`)),
      ]),
      h("dt", null, h("span", { class: "qc-shared" }, icon("share", "icon icon--xs"), t("tg.shared"))),
      h("dd", null, t("tg.shared_long")),
      h("dt", null, h("span", { class: "qc-choices" }, h("span", { class: "qc-num" }, "1"), h("span", { class: "qc-num" }, "2"))),
      h("dd", null, t("tg.rules.legend_choice")),
      bits ? [h("dt", null, h("span", { class: "qc-bits" }, t("tg.assist.bits", { bits: "1.50" }))), h("dd", { dataset: { testid: "bits-help" } }, t("tg.bits_help"))] : null,
    ),
    h("p", { class: "tg-rules-note muted" }, t("tg.rules.tips")),
  );
}
