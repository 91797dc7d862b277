// A guided first game: from the lobby, a 2-player Tagiron game against the easy bot,
// the assistant on, and a coach (the game's own, see bodoge/web/README.md) that points
// at the parts of the table as the game reaches them.  Which table is the guided one,
// and whether the guide was finished or skipped, is kept in this browser only.

import { store } from "./store.js";

const KEY = "bodoge.firstGame";

/** The guide's state: `{table, state}`, state "on" (guiding), "done" or "skipped". */
function saved() {
  const value = store.get(KEY, null);
  return value && typeof value === "object" ? value : null;
}

/** Whether this browser has been through the guide (finished or skipped). */
export function firstGameSeen() {
  const state = saved()?.state;
  return state === "done" || state === "skipped";
}

/**
 * Make the guided game and start it: resolves to its table id.  Asking for it again
 * (from the lobby) guides again, even after the guide was done.
 */
export async function startFirstGame(conn) {
  const ack = await conn.request({
    type: "table.create",
    game: "tagiron",
    options: { players: 2 },
    // The assistant on (it would be anyway, alone against a bot), at a human pace.
    settings: { assistant: true, bot_pace: "normal", turn_seconds: null },
    bots: [{ seat: 1, level: "easy" }],
  });
  store.set(KEY, { table: ack.table, state: "on" });
  try {
    await conn.request({ type: "table.start", table: ack.table });
  } catch {
    // Not started (a lost connection): the waiting room's start button does it.
  }
  return ack.table;
}

/**
 * The coach's part of a renderer's context for `tableId`: `null` unless this is the
 * guided table and the guide is on; else `{step, setStep(id), finish(how)}` where
 * `step` is the last step the player dismissed (kept across reloads) and `how` is
 * "done" or "skipped".
 */
export function coachFor(tableId) {
  const value = saved();
  if (!value || value.table !== tableId || value.state !== "on") return null;
  return {
    get step() {
      return saved()?.step ?? null;
    },
    setStep(id) {
      const now = saved();
      if (now?.table === tableId) store.set(KEY, { ...now, step: id });
    },
    finish(how) {
      const now = saved();
      if (now?.table === tableId) store.set(KEY, { table: tableId, state: how === "skipped" ? "skipped" : "done" });
    },
  };
}
