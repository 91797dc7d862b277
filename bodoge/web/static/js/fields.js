// What a table shows of its options and settings, as its game declares them
// (GET /api/games: `fields.options`, `fields.settings`; bodoge/core/game.py
// OptionField and bodoge/server/settings.py SETTING_FIELDS).  The shell names
// no game here: each field brings its label's i18n key and a kind that says
// how its value reads.

import { h } from "./dom.js";
import { has, t } from "./i18n.js";

/** A declared field's label (its i18n key; the key itself while the game's strings load). */
export function fieldLabel(field) {
  return has(field.label) ? t(field.label) : field.key;
}

/** A value in words, by the field's kind; `table` is the summary (for what follows the seats). */
export function fieldValue(field, value, table = null) {
  switch (field.kind) {
    case "players":
      return t("lobby.n_players", { count: value });
    case "flag":
      return value ? t("common.yes") : t("common.no");
    case "seconds":
      return value ? t("lobby.seconds", { n: value }) : t("lobby.no_timer");
    case "bot":
      return value ? t(`bot.${value}`) : t("common.no");
    case "assistant": {
      if (value === true || value === false) return value ? t("common.yes") : t("common.no");
      // Left to the seats: say what it is now, and why.
      const on = Boolean(table?.assistant);
      const why = on ? t("lobby.assistant_auto_why_on") : t("lobby.assistant_auto_why_off");
      return t("lobby.assistant_auto_now", { state: on ? t("common.yes") : t("common.no"), why });
    }
    default: {
      // "choice", and any kind this page does not know yet: the value's own string.
      if (value === null || value === undefined) return t("common.no");
      if (typeof value === "boolean") return value ? t("common.yes") : t("common.no");
      // A field may name where its values' strings are (`values`: "pace." gives pace.fast).
      const key = field.values ? `${field.values}${value}` : `${field.label}_${value}`;
      return has(key) ? t(key) : String(value);
    }
  }
}

/** The assistant's three values as a select's values and back. */
const MODES = { auto: null, on: true, off: false };
const modeOf = (value) => (value === true ? "on" : value === false ? "off" : "auto");

/**
 * A <dl> of every declared option and setting of the table `table` (a summary)
 * of the game `game` (from GET /api/games).  Without the game's declaration,
 * the player count alone.  `edit(key, value)`, given to the host while the
 * table waits, makes the settings it can change (the assistant) a control.
 */
export function tableFields(game, table, { edit = null, ...attrs } = {}) {
  const fields = game?.fields ?? { options: [{ key: "players", kind: "players", label: "lobby.players" }], settings: [] };
  const rows = [];
  const row = (field, value) => {
    const id = `field-edit-${field.key}`;
    if (edit && field.kind === "assistant") {
      const select = h(
        "select",
        {
          id,
          dataset: { key: id, testid: id },
          onchange: (e) => edit(field.key, MODES[e.target.value]),
        },
        h("option", { value: "auto" }, fieldValue(field, null, table)),
        h("option", { value: "on" }, t("common.yes")),
        h("option", { value: "off" }, t("common.no")),
      );
      select.value = modeOf(value);
      rows.push(
        h("dt", null, h("label", { for: id }, fieldLabel(field))),
        h("dd", { dataset: { testid: `field-${field.key}` } }, select),
      );
      return;
    }
    rows.push(
      h("dt", null, fieldLabel(field)),
      h("dd", { dataset: { testid: `field-${field.key}` } }, fieldValue(field, value, table)),
    );
  };
  for (const f of fields.options ?? []) {
    row(f, f.key === "players" ? table.options?.players ?? table.seats?.length : table.options?.[f.key]);
  }
  for (const f of fields.settings ?? []) row(f, table.settings?.[f.key] ?? null);
  return h("dl", { class: "wr-settings", ...attrs }, rows);
}
