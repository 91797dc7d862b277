// What a table shows of its options and settings, as its game declares them
// (GET /api/games: `fields.options`, `fields.settings`; bodoge/core/game.py
// OptionField and bodoge/server/runtime/settings.py SETTING_FIELDS).  The shell names
// no game here: each field brings its label's i18n key and a kind that says
// how its value reads.

import { h, moveTimeText } from "./dom.js";
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
    case "move_time":
      return value ? t("mode.turn_based", { time: moveTimeText(value) }) : t("mode.realtime");
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

/** The turn limits a host picks from (the create form's), and any other one the table has. */
export const TIMER_CHOICES = [null, 30, 60, 120, 300];

/**
 * The control that changes one field in the waiting room, or null for a field that
 * cannot change there (the player count: the seats are made for it).  `change(value)`
 * sends the new value; the table's next snapshot redraws the control.
 */
function control(field, value, table, game, id, change) {
  const attrs = { id, dataset: { key: id, testid: id } };
  // Read back by index: a value may be null or a number, which an option's value is not.
  const select = (values, text, current, toValue = (v) => v) => {
    const el = h(
      "select",
      { ...attrs, onchange: (e) => change(toValue(values[e.target.selectedIndex])) },
      values.map((v) => h("option", { value: v === null ? "" : String(v) }, text(v))),
    );
    el.selectedIndex = Math.max(0, values.indexOf(current));
    return el;
  };
  switch (field.kind) {
    case "assistant": {
      const modes = ["auto", "on", "off"];
      const text = (m) => (m === "auto" ? fieldValue(field, null, table) : m === "on" ? t("common.yes") : t("common.no"));
      return select(modes, text, modeOf(value), (m) => MODES[m]);
    }
    case "flag":
      return h("input", { ...attrs, type: "checkbox", checked: Boolean(value), onchange: (e) => change(e.target.checked) });
    case "seconds": {
      const values = TIMER_CHOICES.includes(value) ? TIMER_CHOICES : [...TIMER_CHOICES, value];
      return select(values, (v) => fieldValue(field, v, table), value);
    }
    case "bot": {
      const levels = game?.bot_levels ?? [];
      if (!levels.length) return null;
      return select(levels, (v) => fieldValue(field, v, table), value);
    }
    case "move_time":
      // Real time or a time per move: the host may still switch before the game starts.
      if (!field.choices?.length) return null;
      return select(field.choices, (v) => fieldValue(field, v, table), value);
    case "choice":
      if (!field.choices?.length) return null;
      return select(field.choices, (v) => fieldValue(field, v, table), value);
    default:
      return null; // "players", and kinds this page does not know
  }
}

/**
 * A <dl> of every declared option and setting of the table `table` (a summary)
 * of the game `game` (from GET /api/games).  Without the game's declaration,
 * the player count alone.  `edit(group, key, value)`, given to the host while
 * the table waits, makes every field but the player count a control; `group`
 * is "options" (the game's) or "settings" (the table's), as `table.settings`
 * takes them.
 */
export function tableFields(game, table, { edit = null, ...attrs } = {}) {
  const fields = game?.fields ?? { options: [{ key: "players", kind: "players", label: "lobby.players" }], settings: [] };
  const rows = [];
  const row = (group, field, value) => {
    const id = `field-edit-${field.key}`;
    const input = edit ? control(field, value, table, game, id, (v) => edit(group, field.key, v)) : null;
    if (input) {
      rows.push(
        h("dt", null, h("label", { for: id }, fieldLabel(field))),
        h("dd", { dataset: { testid: `field-${field.key}` } }, input),
      );
      return;
    }
    rows.push(
      h("dt", null, fieldLabel(field)),
      h("dd", { dataset: { testid: `field-${field.key}` } }, fieldValue(field, value, table)),
    );
  };
  for (const f of fields.options ?? []) {
    row("options", f, f.key === "players" ? table.options?.players ?? table.seats?.length : table.options?.[f.key]);
  }
  for (const f of fields.settings ?? []) row("settings", f, table.settings?.[f.key] ?? null);
  return h("dl", { class: ["wr-settings", edit && "wr-settings--edit"], ...attrs }, rows);
}
