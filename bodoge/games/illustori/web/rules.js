// The rules panel (shown when the table's `show_rules` option is on): how to
// play, in short, and which variants this table plays with.

import { h } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";

function list(keys) {
  return h(
    "ul",
    { class: "il-rules-list" },
    keys.map((k) => h("li", null, t(k))),
  );
}

/** The panel's content for the table's options (`view.options`). */
export function rulesPanel(view) {
  const o = view.options;
  const en = o.language === "en";
  const variants = [
    [t("il.opt.language"), en ? t("il.opt.language_en") : t("il.opt.language_ja")],
    [t("il.opt.ban_same_ends"), o.ban_same_ends ? t("common.yes") : t("common.no")],
    [t("il.opt.ban_used_joints"), o.ban_used_joints ? t("common.yes") : t("common.no")],
    [t("il.opt.vote_limit"), o.vote_limit ? t("common.yes") : t("common.no")],
    [t("il.opt.secret_votes"), o.secret_votes ? t("common.yes") : t("common.no")],
  ];
  return h(
    "div",
    { class: "il-rules", dataset: { testid: "rules" } },
    h("p", { class: "il-rules-lead" }, t("il.rules.goal")),
    h("h3", null, t("il.rules.turn_title")),
    list(["il.rules.turn_play", "il.rules.turn_exchange"]),
    h("h3", null, t("il.rules.words_title")),
    list(
      en
        ? ["il.rules.words_free", "il.rules.en_link", "il.rules.en_letters"]
        : ["il.rules.words_free", "il.rules.ja_link", "il.rules.ja_small", "il.rules.ja_dakuten", "il.rules.ja_long", "il.rules.ja_kanji", "il.rules.ja_n"],
    ),
    h("h3", null, t("il.rules.vote_title")),
    list(["il.rules.vote_half", "il.rules.vote_fail", o.vote_limit ? "il.rules.vote_limit" : null, o.secret_votes ? "il.rules.vote_secret" : null].filter(Boolean)),
    o.ban_same_ends || o.ban_used_joints
      ? [h("h3", null, t("il.rules.bans_title")), list([o.ban_same_ends ? "il.rules.ban_same_ends" : null, o.ban_used_joints ? "il.rules.ban_used_joints" : null].filter(Boolean))]
      : null,
    h("h3", null, t("il.rules.end_title")),
    list(["il.rules.end_final", "il.rules.end_win", "il.rules.end_stalled"]),
    h("h3", null, t("il.rules.table_title")),
    h(
      "dl",
      { class: "il-variants" },
      variants.map(([k, v]) => [h("dt", null, k), h("dd", null, v)]),
    ),
  );
}
