// The table page, whatever the game: waiting room, the top bar (turn, timer),
// chat, seats, and a frame in which the game's own renderer draws the board
// and its panels.  The renderer is loaded from /static/games/{game}/table.js;
// its contract is described in bodoge/web/README.md.

import { createAlerts } from "./alerts.js";
import { createChat } from "./chat.js";
import { coachFor } from "./firstgame.js";
import { createFrame } from "./frame.js";
import { tableFields } from "./fields.js";
import { clockText, dismissToasts, fill, h, icon, keepFocus, toast } from "./dom.js";
import { addStrings, onLangChange, t, tn } from "./i18n.js";
import { gameTitle, seatChip, seatLabel, seatNameNode, standInBadge } from "./seats.js";
import { scopedStore } from "./store.js";
import { applyPatch, PatchError } from "./patch.js";
import { confirmDialog } from "./ui.js";

const loaded = new Map();
const stringsLoaded = new Set();

/** The game's renderer module, loaded once per page. */
export function loadRenderer(game) {
  if (!loaded.has(game)) {
    loaded.set(
      game,
      import(`/static/games/${encodeURIComponent(game)}/table.js`).then((mod) => {
        if (mod.strings) addStrings(mod.strings);
        return mod;
      }),
    );
  }
  return loaded.get(game);
}

export function mountTable(root, app, tableId) {
  const snap = {
    table: null, // the summary
    you: null,
    n: 0,
    view: null,
    to_act: [],
    deadlines: [],
    clock: null,
    may_act: false,
    result: null,
    timed_out: [], // the moves the stand-in bot played for a late seat
  };
  let chatLine = null; // the last chat line number seen, for catching up
  let renderer = null;
  let rendererFor = null;
  let mode = null; // "waiting" | "game"
  let game = null;
  let destroyed = false;
  let timerHandle = null;
  let missing = false;
  let openSentAt = null;

  const bar = h("header", { class: "tp-bar" });
  const body = h("div", { class: "tp-body" });
  const page = h("div", { class: "tp", dataset: { testid: "table-page" } }, bar, body);
  root.append(page);

  const baseTitle = () => {
    const g = snap.table && app.gameInfo(snap.table.game);
    return snap.table ? `${g ? gameTitle(g) : snap.table.game} · ${t("app.name")}` : t("table.page_title");
  };
  const alerts = createAlerts({ baseTitle, state: () => alertState(), onChange: () => drawBar() });

  const chat = createChat({
    send: (text) => app.conn.request({ type: "chat", table: tableId, text }),
    errorText: app.errorText,
    onUnread: () => drawTabs(),
    me: () => app.conn.player?.id ?? null,
  });

  function seatOf(n) {
    return snap.table?.seats.find((s) => s.seat === n) ?? null;
  }

  function mySeat() {
    return snap.you === null || snap.you === undefined ? null : seatOf(snap.you);
  }

  function seated() {
    const me = app.conn.player?.id;
    return snap.table?.seats.find((s) => s.player?.id === me) ?? null;
  }

  // --- the top bar ---------------------------------------------------------

  function turnLine() {
    const status = snap.table?.status;
    if (status === "waiting") {
      if (snap.table.seats.some((s) => s.kind === "empty")) return { text: t("table.waiting_for_players"), mine: false };
      // Every seat is taken: only the start is awaited, and a seated player may press it.
      return { text: seated() ? t("table.ready_you_start") : t("table.ready"), mine: false };
    }
    if (snap.result?.reason === "abandoned") return { text: t("table.abandoned"), mine: false };
    if (status === "finished" || (snap.result && status !== "waiting")) return { text: t("table.finished"), mine: false };
    const custom = renderer?.turnText?.(snap);
    if (custom) return custom;
    const acting = snap.to_act ?? [];
    if (snap.you !== null && acting.includes(snap.you)) return { text: t("table.your_turn"), mine: true };
    if (!acting.length) return { text: "", mine: false };
    const names = acting.flatMap((s, i) => (i ? [t("common.list_sep"), seatNameNode(seatOf(s))] : [seatNameNode(seatOf(s))]));
    return { text: tn("table.their_turn", { name: h("span", null, names) }), mine: false };
  }

  function drawBar() {
    const g = app.gameInfo(snap.table?.game);
    const line = turnLine();
    const me = seated();
    const actions = [];
    if (snap.table?.status === "finished") {
      actions.push(
        h(
          "a",
          {
            class: "btn btn--sm",
            href: `/t/${tableId}?replay`,
            title: t("table.replay"),
            "aria-label": t("table.replay"),
            dataset: { link: "", testid: "replay-link" },
          },
          icon("play"),
          // On a phone the rematch button needs the room: the replay keeps its icon.
          h("span", { class: me ? "hide-narrow" : null }, t("table.replay")),
        ),
      );
      const rematch = snap.table.rematch;
      if (me) {
        // Same seats, options and bots, a new deal; the others confirm with the same button.
        actions.push(
          h(
            "button",
            {
              type: "button",
              class: ["btn btn--sm", "btn--primary"],
              dataset: { key: "rematch", testid: "rematch" },
              onclick: askRematch,
            },
            icon("again"),
            rematch ? t("table.rematch_join") : t("table.rematch"),
          ),
        );
      } else if (rematch) {
        actions.push(
          h("a", { class: "btn btn--sm", href: `/t/${rematch}`, dataset: { link: "", testid: "rematch-watch" } }, icon("eye"), t("table.rematch_watch")),
        );
      }
    }
    actions.push(
      h(
        "button",
        {
          type: "button",
          class: "btn btn--sm btn--ghost",
          dataset: { key: "invite", testid: "invite" },
          title: t("table.copy_invite"),
          "aria-label": t("table.copy_invite"),
          onclick: copyInvite,
        },
        icon("link"),
        h("span", { class: "hide-narrow" }, t("table.invite")),
      ),
    );
    if (me && snap.table?.status !== "finished") actions.push(...alerts.controls());
    if (me && snap.table?.status !== "finished") {
      actions.push(
        h(
          "button",
          { type: "button", class: "btn btn--sm btn--ghost", "aria-label": t("table.leave"), title: t("table.leave"), dataset: { key: "leave", testid: "leave" }, onclick: leave },
          icon("exit"),
          h("span", { class: "hide-narrow" }, t("table.leave")),
        ),
      );
    }
    keepFocus(bar, () =>
      fill(
        bar,
        h(
          "div",
          { class: "tp-title" },
          h("a", { href: "/", class: "back", dataset: { link: "" }, "aria-label": t("nav.lobby"), title: t("nav.lobby") }, "‹"),
          h("h1", { class: "tp-name" }, g ? gameTitle(g) : snap.table?.game ?? ""),
          snap.you === null && snap.table ? h("span", { class: "badge badge--watch" }, icon("eye", "icon icon--sm"), t("table.watching")) : null,
        ),
        h(
          "div",
          { class: ["tp-turn", line.mine && "tp-turn--mine"], role: "status", "aria-live": "polite", dataset: { testid: "turn" } },
          h("span", { class: "tp-turn-text" }, line.text),
        ),
        h(
          "div",
          { class: "tp-clock", dataset: { testid: "clock" } },
          // Only a game in play has a clock: not the waiting room, not a finished game.
          (snap.table?.settings?.turn_seconds || snap.table?.settings?.turn_based) && snap.table.status === "playing" && !snap.result
            ? [icon("clock", "icon icon--sm"), h("span", { class: "tp-clock-text" }, "")]
            : null,
        ),
        h("div", { class: "tp-actions" }, actions),
      ),
    );
    tickClock();
  }

  /** Whether this seat is awaited now (its turn, its vote…), and until when. */
  function alertState() {
    const line = turnLine();
    const awaited = snap.table?.status === "playing" && !snap.result && snap.you !== null && (snap.to_act ?? []).includes(snap.you);
    const text = [line.text].flat().map((x) => (x instanceof Node ? x.textContent : String(x ?? ""))).join("");
    return { awaited, deadline: (snap.you !== null && snap.deadlines?.[snap.you]) || (awaited ? snap.clock : null), text };
  }

  function tickClock() {
    alerts.refresh();
    const el = bar.querySelector(".tp-clock-text");
    if (!el) return;
    const clock = bar.querySelector(".tp-clock");
    const deadline = nextDeadline();
    if (!deadline || snap.table?.status !== "playing") {
      const limit = snap.table?.settings?.turn_based ?? snap.table?.settings?.turn_seconds;
      el.textContent = limit ? clockText(limit) : "";
      clock.classList.remove("tp-clock--low");
      clock.classList.add("tp-clock--idle");
      return;
    }
    const left = (Date.parse(deadline) - Date.now()) / 1000;
    el.textContent = clockText(left);
    clock.classList.toggle("tp-clock--low", left <= 10);
    clock.classList.remove("tp-clock--idle");
  }

  /** The time limit that runs out first: your own turn's, else the soonest awaited one, or the game's clock. */
  function nextDeadline() {
    const mine = snap.you !== null ? snap.deadlines?.[snap.you] : null;
    if (mine) return mine;
    const times = (snap.to_act ?? []).map((s) => snap.deadlines?.[s]).filter(Boolean);
    if (snap.clock) times.push(snap.clock);
    return times.sort((a, b) => Date.parse(a) - Date.parse(b))[0] ?? null;
  }

  async function copyInvite() {
    const url = `${location.origin}/t/${tableId}`;
    try {
      await navigator.clipboard.writeText(url);
      toast(() => t("table.invite_copied"), "ok");
    } catch {
      toast(url, "info", 8000);
    }
  }

  let rematchMine = false;

  async function askRematch() {
    rematchMine = true;
    try {
      const ack = await app.conn.request({ type: "table.rematch", table: tableId });
      app.navigate(`/t/${ack.table}`);
    } catch (err) {
      rematchMine = false;
      toast(() => app.errorText(err), "error");
    }
  }

  async function leave() {
    const playing = snap.table?.status === "playing";
    if (playing && !(await confirmDialog({ title: t("table.leave"), message: t("table.leave_confirm"), ok: t("table.leave"), danger: true }))) return;
    try {
      await app.conn.request({ type: "table.leave", table: tableId });
      app.navigate("/");
    } catch (err) {
      toast(() => app.errorText(err), "error");
    }
  }

  // --- the waiting room ------------------------------------------------------

  const waitingSeats = h("section", { class: "panel wr-seats", "aria-labelledby": "wr-title" });
  const waitingInfo = h("section", { class: "panel wr-info" });
  const waitingChat = h("section", { class: "panel wr-chat" });

  function drawWaiting() {
    const table = snap.table;
    const g = app.gameInfo(table.game);
    const levels = g?.bot_levels ?? ["easy", "normal", "expert"];
    const me = seated();
    const full = table.seats.every((s) => s.kind !== "empty");
    keepFocus(waitingSeats, () =>
      fill(
        waitingSeats,
        h("h2", { id: "wr-title" }, t("wr.seats")),
        h(
          "ol",
          { class: "wr-list", dataset: { testid: "seats" } },
          table.seats.map((s) => {
            const controls = [];
            if (s.kind === "empty") {
              if (!me) {
                controls.push(
                  h(
                    "button",
                    {
                      type: "button",
                      class: "btn btn--sm btn--primary",
                      dataset: { key: `sit-${s.seat}`, testid: `sit-${s.seat}` },
                      onclick: () => act({ type: "table.join", table: tableId, seat: s.seat }),
                    },
                    t("wr.sit_here"),
                  ),
                );
              }
              if (me) {
                const pick = h(
                  "select",
                  { "aria-label": t("wr.bot_level"), dataset: { key: `lvl-${s.seat}`, testid: `bot-level-${s.seat}` } },
                  levels.map((lv) => h("option", { value: lv }, t(`bot.${lv}`))),
                );
                controls.push(
                  pick,
                  h(
                    "button",
                    {
                      type: "button",
                      class: "btn btn--sm",
                      dataset: { key: `addbot-${s.seat}`, testid: `add-bot-${s.seat}` },
                      onclick: () => act({ type: "table.add_bot", table: tableId, seat: s.seat, level: pick.value }),
                    },
                    icon("bot", "icon icon--sm"),
                    t("wr.add_bot"),
                  ),
                );
              }
            } else if (s.kind === "human" && table.host === app.conn.player?.id && s.player?.id !== table.host) {
              controls.push(
                h(
                  "button",
                  {
                    type: "button",
                    class: "btn btn--sm btn--ghost",
                    dataset: { key: `rm-${s.seat}`, testid: `remove-player-${s.seat}` },
                    onclick: async () => {
                      const sure = await confirmDialog({
                        title: t("wr.remove_player"),
                        message: t("wr.remove_player_confirm", { name: s.player?.name ?? "" }),
                        ok: t("wr.remove_player"),
                        danger: true,
                      });
                      if (sure) act({ type: "table.remove_player", table: tableId, seat: s.seat });
                    },
                  },
                  t("wr.remove_player"),
                ),
              );
            } else if (s.kind === "bot" && me) {
              controls.push(
                h(
                  "button",
                  {
                    type: "button",
                    class: "btn btn--sm btn--ghost",
                    dataset: { key: `rmbot-${s.seat}`, testid: `remove-bot-${s.seat}` },
                    onclick: () => act({ type: "table.remove_bot", table: tableId, seat: s.seat }),
                  },
                  t("wr.remove_bot"),
                ),
              );
            }
            return h(
              "li",
              { class: ["wr-seat", `wr-seat--${s.kind}`], dataset: { seat: s.seat } },
              h("span", { class: "wr-no" }, String(s.seat + 1)),
              seatChip(s, { you: s.player?.id === app.conn.player?.id, link: true }),
              s.player?.id === table.host ? h("span", { class: "badge badge--host" }, t("wr.host")) : null,
              h("span", { class: "wr-controls" }, controls),
            );
          }),
        ),
      ),
    );
    if (!stringsLoaded.has(table.game)) {
      // The labels of the game's options are in its strings, which come with its renderer.
      stringsLoaded.add(table.game);
      loadRenderer(table.game)
        .then(() => {
          if (!destroyed && mode === "waiting") drawWaiting();
        })
        .catch(() => {});
    }
    keepFocus(waitingInfo, () =>
      fill(
        waitingInfo,
        h("h2", null, g ? gameTitle(g) : table.game),
        // The game's own options and the table's settings, as the game declares them.
        tableFields(g, table, {
          "aria-label": t("wr.settings"),
          dataset: { testid: "table-fields" },
          // The host may change every option but the player count before the game; everyone
          // gets the table again (a snapshot), and a refused change draws it as it was.
          edit: me && me.player?.id === table.host ? editField : null,
        }),
        h(
          "div",
          { class: "invite-box" },
          h("label", { class: "field-label", for: "invite-url" }, t("wr.invite_label")),
          h(
            "div",
            { class: "row" },
            h("input", { id: "invite-url", readonly: true, value: `${location.origin}/t/${tableId}`, onfocus: (e) => e.target.select() }),
            h("button", { type: "button", class: "btn", onclick: copyInvite }, t("wr.copy")),
          ),
        ),
        me
          ? h(
              "button",
              {
                type: "button",
                class: "btn btn--primary btn--wide",
                disabled: !full,
                dataset: { key: "start", testid: "start" },
                onclick: () => act({ type: "table.start", table: tableId }),
              },
              t("wr.start"),
            )
          : null,
        me && !full ? h("p", { class: "muted small center" }, t("wr.fill_seats")) : null,
      ),
    );
  }

  async function act(msg) {
    try {
      await app.conn.request(msg);
      return true;
    } catch (err) {
      toast(() => app.errorText(err), "error");
      return false;
    }
  }

  async function editField(group, key, value) {
    const done = await act({ type: "table.settings", table: tableId, [group]: { [key]: value } });
    if (!done && !destroyed && mode === "waiting") drawWaiting();
  }

  // --- the game frame ----------------------------------------------------------

  let frame = null;
  const gameBox = h("div", { class: "tp-game-box" });

  function setMode(next) {
    if (mode === next) return;
    mode = next;
    if (next === "waiting") {
      fill(waitingChat, h("h2", null, t("chat.title")), chat.el);
      fill(body, h("div", { class: "waiting" }, waitingSeats, waitingInfo, waitingChat));
    } else {
      fill(body, gameBox);
    }
  }

  async function ensureRenderer() {
    if (rendererFor === snap.table.game) return renderer;
    rendererFor = snap.table.game;
    const mod = await loadRenderer(snap.table.game);
    if (destroyed) return null;
    const storeKey = `bodoge.${snap.table.game}.${tableId}.${snap.you ?? "watch"}`;
    renderer = mod.createTable({
      tableId,
      get you() {
        return snap.you;
      },
      get table() {
        return snap.table;
      },
      readonly: false,
      send: (move) => app.conn.request({ type: "move", table: tableId, move }),
      requestAssist: () =>
        app.conn.request({ type: "assist", table: tableId }).catch((err) => {
          // The analysis comes as its own `assist` message: only a real error counts.
          if (err.code !== "timeout") throw err;
        }),
      seat: seatOf,
      seatName: (n) => seatLabel(seatOf(n)),
      seatNameNode: (n) => seatNameNode(seatOf(n)),
      seatChip: (n, opts = {}) => {
        const s = seatOf(n);
        // Every person's name at the table links to their profile.
        return s ? seatChip(s, { you: n === snap.you, link: true, ...opts }) : h("span");
      },
      standIn: (n, seat) => (snap.timed_out.includes(n) ? standInBadge(seat, snap.you) : null),
      storage: scopedStore(storeKey),
      toast,
      errorText: app.errorText,
      // The guided first game's coach (js/firstgame.js), for its player only.
      coach: snap.you !== null ? coachFor(tableId) : null,
      showPanel: (id) => frame?.show(id),
    });
    frame?.destroy();
    frame = createFrame(
      renderer,
      [{ id: "chat", label: () => t("chat.title"), icon: "chat", el: chat.el, column: "a" }],
      {
        badge: (id) => (id === "chat" ? chat.unread : 0),
        onShow: (id, visible) => {
          if (id === "chat") chat.setVisible(visible);
        },
      },
    );
    gameBox.replaceChildren(frame.el);
    return renderer;
  }

  function drawTabs() {
    frame?.draw();
  }

  /** Forget the renderer (another game, or this browser's seat changed). */
  function dropRenderer() {
    renderer?.destroy?.();
    renderer = null;
    rendererFor = null;
  }

  // --- drawing -----------------------------------------------------------------

  async function draw(change) {
    if (!snap.table) return;
    alerts.refresh();
    if (snap.table.status === "waiting") {
      setMode("waiting");
      drawBar();
      drawWaiting();
      return;
    }
    if (!snap.view) {
      // Started while we looked at the waiting room: fetch the first snapshot.
      reopen(false);
      drawBar();
      return;
    }
    setMode("game");
    if (!renderer) await ensureRenderer();
    if (!renderer || destroyed) return;
    renderer.update(snap, change);
    drawBar();
    alerts.refresh();
  }

  /**
   * Ask for the table again (after a reconnect, a gap in move numbers, or the
   * start).  One request at a time: a second one waits until the first is
   * answered (or looks lost).
   */
  function reopen(withSince = true) {
    const now = performance.now();
    if (openSentAt !== null && now - openSentAt < 2000) return;
    openSentAt = now;
    const msg = { type: "table.open", table: tableId };
    const catchUp = withSince && snap.view !== null;
    if (catchUp) msg.since = snap.n;
    if (chatLine !== null) msg.chat_since = chatLine;
    const seatBefore = snap.you;
    app.conn
      .request(msg)
      .then((reply) => {
        openSentAt = null;
        // Caught up by events: if our seat changed meanwhile, start afresh.
        if (reply.type === "ack" && catchUp && (reply.you ?? null) !== seatBefore) {
          snap.view = null;
          dropRenderer();
          reopen(false);
        }
      })
      .catch(() => {
        openSentAt = null;
      });
  }

  // --- messages ------------------------------------------------------------------

  const mine = (msg) => msg.table === tableId || msg.table?.id === tableId;

  const offs = [
    app.conn.onReady(() => {
      openSentAt = null;
      reopen(true);
    }),
    app.conn.on("table", (msg) => {
      if (!mine(msg)) return;
      missing = false;
      openSentAt = null;
      const youBefore = snap.you;
      Object.assign(snap, {
        table: msg.table,
        you: msg.you ?? null,
        n: msg.n ?? 0,
        view: msg.view ?? null,
        to_act: msg.to_act ?? [],
        deadlines: msg.deadlines ?? [],
        clock: msg.clock ?? null,
        may_act: Boolean(msg.may_act),
        result: msg.result ?? null,
        timed_out: msg.timed_out ?? [],
      });
      chat.reset(msg.chat ?? []);
      chatLine = (msg.chat ?? []).reduce((m, c) => Math.max(m, c.line ?? 0), chatLine ?? 0);
      if (renderer && (snap.table.game !== rendererFor || snap.you !== youBefore)) dropRenderer();
      draw({ kind: "snapshot" });
    }),
    app.conn.on("event", (msg) => {
      if (!mine(msg) || !snap.view) return;
      if (msg.n <= snap.n) return;
      openSentAt = null;
      if (msg.n !== snap.n + 1) {
        reopen(true);
        return;
      }
      try {
        snap.view = applyPatch(snap.view, msg.patch ?? [], msg.events ?? []);
      } catch (err) {
        if (!(err instanceof PatchError)) throw err;
        snap.view = null; // the view we had is not the one the patch expects: start afresh
        reopen(false);
        return;
      }
      snap.n = msg.n;
      if (msg.timed_out) {
        snap.timed_out = [...snap.timed_out, msg.n];
        if (msg.seat === snap.you && snap.you !== null) toast(() => t("standin.toast"), "info", 6000);
      }
      // Facts come only when they changed.
      for (const key of ["to_act", "may_act", "deadlines", "clock", "result"]) {
        if (key in msg) snap[key] = msg[key];
      }
      if (snap.result && snap.table.status === "playing") {
        snap.table = { ...snap.table, status: "finished" };
        // What the toasts said of the play (a final round, a vote) is over with it.
        dismissToasts();
      }
      draw({ kind: "event", msg });
      measure(msg.n);
    }),
    app.conn.on("table.seats", (msg) => {
      if (!mine(msg) || !snap.table) return;
      const was = snap.table.status;
      const proposed = msg.rematch && msg.rematch !== snap.table.rematch && !rematchMine;
      snap.table = {
        ...snap.table,
        seats: msg.seats,
        status: msg.status ?? snap.table.status,
        assistant: msg.assistant ?? snap.table.assistant,
        rematch: msg.rematch ?? snap.table.rematch ?? null,
      };
      if (proposed && seated()) toast(() => t("table.rematch_proposed"), "info", 8000);
      if (was === "waiting" && snap.table.status === "playing") {
        snap.view = null;
        reopen(false);
      }
      draw({ kind: "seats" });
    }),
    app.conn.on("chat", (msg) => {
      if (!mine(msg)) return;
      if (msg.line !== undefined && chatLine !== null && msg.line <= chatLine) return; // seen
      if (msg.line !== undefined) chatLine = msg.line;
      chat.add(msg);
    }),
    app.conn.on("table.removed", (msg) => {
      if (!mine(msg)) return;
      toast(() => t("table.removed"), "info");
      app.navigate("/");
    }),
    app.conn.on("assist", (msg) => {
      if (mine(msg) && renderer) renderer.update(snap, { kind: "assist", analysis: msg.analysis, n: msg.n });
    }),
    app.conn.on("error", (msg) => {
      if (msg.id !== undefined) return; // a request's own error: its caller shows it
      if (msg.code === "unknown_table") {
        missing = true;
        fill(body, h("div", { class: "panel empty-page" }, h("h1", null, t("table.not_found")), h("a", { class: "btn btn--primary", href: "/", dataset: { link: "" } }, t("nav.lobby"))));
        fill(bar);
        return;
      }
      if (!missing) toast(() => app.errorText(msg), "error");
    }),
    onLangChange(() => {
      if (!snap.table) return;
      if (mode === "waiting") fill(waitingChat, h("h2", null, t("chat.title")), chat.el);
      chat.redraw();
      drawTabs();
      draw({ kind: "lang" });
    }),
  ];

  timerHandle = setInterval(tickClock, 250);
  fill(body, h("div", { class: "loading" }, t("common.loading")));

  // Tests compare what the page holds, kept current from event frames alone, with a
  // fresh snapshot; nothing in the app reads it.
  app.shownTable = { id: tableId, snap };

  return {
    title: () => alerts.title(),
    destroy() {
      destroyed = true;
      alerts.destroy();
      if (app.shownTable?.snap === snap) app.shownTable = null;
      clearInterval(timerHandle);
      frame?.destroy();
      for (const off of offs) off();
      renderer?.destroy?.();
      app.conn.send({ type: "table.close", table: tableId });
    },
  };
}

/**
 * Arrival of a game event (marked in conn.js) to the frame after it was
 * drawn: the figure the benchmark test reads.
 */
function measure(n) {
  const start = `ws-event-${n}`;
  if (!performance.getEntriesByName(start).length) return;
  performance.mark(`applied-${n}`);
  performance.measure(`event-applied-${n}`, start, `applied-${n}`);
  requestAnimationFrame(() => {
    performance.mark(`drawn-${n}`);
    performance.measure(`event-drawn-${n}`, start, `drawn-${n}`);
  });
}

