// "Your games" (/games): the tables where it is your turn, the one waiting longest first
// with the time left, then your other tables; one click opens a table.  Below, the
// vacation switch of turn-based play.  The header's badge counts the first list.
// GET /api/players/me/tables, GET/POST/DELETE /api/players/me/vacation (docs/protocol.md,
// "Turn-based tables").

import { bearer } from "./conn.js";
import { durationText, fill, h, moveTimeText, toast, userText } from "./dom.js";
import { lang, onLangChange, t } from "./i18n.js";
import { gameTitle } from "./seats.js";

async function call(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: { ...bearer(), ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw { code: data?.error?.code ?? `http_${response.status}` };
  return data;
}

/** The tables of the player of this browser (null: not known, e.g. no token yet). */
export async function myTables() {
  if (!bearer().Authorization) return null;
  try {
    return await call("GET", "/api/players/me/tables");
  } catch {
    return null;
  }
}

/**
 * The header's badge: how many games wait for this player, kept current by asking now
 * and then (and when `refresh()` is called: a page that saw a move).  `onChange(count)`.
 */
export function yourTurnWatch(onChange, everyMs = 30000) {
  let last = null;
  let timer = null;
  async function refresh() {
    const found = await myTables();
    const count = found ? found.your_turn_count : null;
    if (count !== last) {
      last = count;
      onChange(count);
    }
  }
  function start() {
    clearInterval(timer);
    timer = setInterval(refresh, everyMs);
    refresh();
  }
  return { start, refresh, count: () => last };
}

/**
 * The vacation switch of turn-based play (on Your games, and on one's own profile): the
 * vacation running and the days left this year; begin one of so many days, or end it.
 */
export function vacationPanel(app) {
  const el = h("section", { class: "panel vacation", "aria-labelledby": "vacation-title", dataset: { testid: "vacation" } });
  let vacation = null;
  let days = 7;

  function draw() {
    // A server whose operator allows no vacations (bodoge serve --vacation-days 0) offers none.
    const offered = vacation && (vacation.days_per_year > 0 || vacation.until !== null);
    el.hidden = !offered;
    if (!offered) {
      el.replaceChildren();
      return;
    }
    const running = vacation.until !== null;
    const date = running
      ? new Date(vacation.until).toLocaleString(lang() === "ja" ? "ja-JP" : "en-GB", { dateStyle: "medium", timeStyle: "short" })
      : null;
    const input = h("input", {
      id: "vacation-days",
      type: "number",
      min: "1",
      max: String(Math.max(1, vacation.days_left)),
      value: String(Math.min(days, Math.max(1, vacation.days_left))),
      dataset: { testid: "vacation-days" },
      oninput: (e) => {
        days = Number(e.target.value);
      },
    });
    fill(
      el,
      h("h2", { id: "vacation-title" }, t("vacation.title")),
      h("p", { class: "muted small" }, t("vacation.help", { days: vacation.days_per_year })),
      running ? h("p", { dataset: { testid: "vacation-until" } }, t("vacation.until", { date })) : null,
      h("p", { class: "small", dataset: { testid: "vacation-left" } }, t("vacation.left", { count: vacation.days_left })),
      running
        ? h("button", { type: "button", class: "btn", dataset: { testid: "vacation-end" }, onclick: () => change("DELETE") }, t("vacation.end"))
        : h(
            "div",
            { class: "field" },
            h("label", { class: "field-label", for: "vacation-days" }, t("vacation.days")),
            input,
            h(
              "button",
              {
                type: "button",
                class: "btn",
                disabled: vacation.days_left < 1,
                dataset: { testid: "vacation-start" },
                onclick: () => change("POST", { days: Math.floor(days) }),
              },
              t("vacation.start"),
            ),
          ),
    );
  }

  async function change(method, body) {
    try {
      vacation = await call(method, "/api/players/me/vacation", body);
      draw();
    } catch (err) {
      toast(() => app.errorText(err), "error");
    }
  }

  async function load() {
    vacation = await call("GET", "/api/players/me/vacation").catch(() => vacation);
    draw();
  }

  return { el, load, draw };
}

export function mountMyGames(root, app) {
  let data = null;
  let failed = false;
  const vacation = vacationPanel(app);
  const box = h("section", { class: "mygames", "aria-labelledby": "mygames-title" });
  root.append(box);

  function seatsText(row) {
    const names = row.seats
      .filter((s) => s.seat !== row.you)
      .map((s) => (s.kind === "human" ? userText(s.name ?? "?") : s.kind === "bot" ? t(`bot.${s.level}`) : t("lobby.seat_open")));
    const out = [];
    names.forEach((n, i) => out.push(i ? t("common.list_sep") : "", n));
    return out;
  }

  function card(row) {
    const game = app.gameInfo(row.game);
    const mode = row.turn_based ? t("mode.turn_based", { time: moveTimeText(row.turn_based) }) : t("mygames.realtime");
    return h(
      "li",
      { class: ["mygame", row.your_turn && "mygame--turn"], dataset: { table: row.id, testid: "mygame" } },
      h(
        "a",
        { class: "mygame-link", href: `/t/${row.id}`, dataset: { link: "", testid: `mygame-${row.id}` } },
        h("span", { class: "mygame-title" }, game ? gameTitle(game) : row.game),
        h("span", { class: "muted small" }, row.status === "waiting" ? t("status.waiting") : mode),
        h("span", { class: "mygame-seats small" }, seatsText(row)),
        row.your_turn && row.seconds_left !== null
          ? h("span", { class: "mygame-left", dataset: { testid: "time-left" } }, t("mygames.left", { time: durationText(row.seconds_left) }))
          : null,
      ),
    );
  }

  function draw() {
    const rows = data?.tables ?? [];
    const mine = rows.filter((r) => r.your_turn);
    const others = rows.filter((r) => !r.your_turn);
    fill(
      box,
      h("h1", { id: "mygames-title" }, t("mygames.title")),
      !data
        ? h("p", { class: "muted" }, failed ? t("error.generic", { code: "?" }) : t("common.loading"))
        : [
            h("h2", null, t("mygames.your_turn")),
            mine.length
              ? h("ul", { class: "mygame-list", dataset: { testid: "your-turn-list" } }, mine.map(card))
              : h("p", { class: "muted", dataset: { testid: "none-your-turn" } }, t("mygames.none_your_turn")),
            h("h2", null, t("mygames.others")),
            others.length
              ? h("ul", { class: "mygame-list", dataset: { testid: "other-list" } }, others.map(card))
              : h("p", { class: "muted" }, t("mygames.none")),
          ],
      vacation.el,
    );
    vacation.draw();
  }

  async function load() {
    const [found] = await Promise.all([myTables(), vacation.load()]);
    failed = found === null;
    data = found;
    draw();
  }

  draw();
  // Asked once this browser's player is known (a new player's token comes with welcome),
  // again after each reconnect, and every half minute.
  const offReady = app.conn.onReady(load);
  const timer = setInterval(load, 30000);
  const off = onLangChange(draw);
  return {
    title: () => t("mygames.title"),
    destroy: () => {
      clearInterval(timer);
      off?.();
      offReady();
    },
  };
}
