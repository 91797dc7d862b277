// The lobby: create a table, see open and running tables live, join or watch.

import { bearer } from "./conn.js";
import { clockText, fill, h, icon, keepFocus, moveTimeText, toast } from "./dom.js";
import { addStrings, lang, onLangChange, t } from "./i18n.js";
import { store } from "./store.js";
import { gameTitle, playerLink, seatLabel, seatNameNode } from "./seats.js";
import { TIMER_CHOICES } from "./fields.js";
import { firstGameSeen, startFirstGame } from "./firstgame.js";

const FORM_KEY = "bodoge.createForm";
const PACES = ["fast", "normal", "slow"];

export function mountLobby(root, app) {
  const tables = new Map();
  let filter = "open";
  let games = [];
  const form = {
    game: "tagiron",
    players: 2,
    seats: {}, // seat -> "open" | bot level
    turn_seconds: null,
    turn_based: null, // null: real time; else a time per move in seconds
    timeout_bot: "normal",
    bot_pace: "normal",
    assistant_mode: "auto", // "auto" (follows the seats) | "on" | "off"
    extra: {},
    ...store.get(FORM_KEY, {}),
  };
  if (!["auto", "on", "off"].includes(form.assistant_mode)) form.assistant_mode = "auto";
  delete form.assistant; // an older form's checkbox, on by default: the default is fair now
  let finished = null; // this player's finished games (GET /api/players/me/games), once loaded
  let finishedError = false;

  // A game whose options go beyond the player count ships web/options.js, which
  // draws them (see bodoge/web/README.md): game id -> {mod, form} once loaded.
  const optionForms = new Map();

  const createBox = h("section", { class: "panel create", "aria-labelledby": "create-title" });
  const listBox = h("section", { class: "panel tables", "aria-labelledby": "tables-title" });
  const hero = h("div", { class: "lobby-hero" });
  root.append(h("div", { class: "lobby" }, hero, h("div", { class: "lobby-grid" }, createBox, listBox)));

  function drawHero() {
    // The guided first game, while the server has Tagiron (a quieter button once seen).
    const seen = firstGameSeen();
    const first = games.some((g) => g.id === "tagiron")
      ? h(
          "div",
          { class: ["first-game", seen && "first-game--seen"] },
          h(
            "button",
            {
              type: "button",
              class: ["btn", seen ? "btn--ghost" : "btn--primary"],
              "aria-describedby": "first-game-help",
              dataset: { key: "first-game", testid: "first-game" },
              onclick: firstGame,
            },
            icon("play", "icon icon--sm"),
            seen ? t("lobby.first_game_again") : t("lobby.first_game"),
          ),
          h("span", { id: "first-game-help", class: "first-game-help" }, t("lobby.first_game_help")),
        )
      : null;
    keepFocus(hero, () =>
      fill(
        hero,
        h("h1", { class: "lobby-title" }, t("lobby.title")),
        h(
          "p",
          { class: "lobby-sub" },
          t("lobby.subtitle"),
          " ",
          h("a", { href: "/leaderboard", dataset: { link: "", testid: "leaderboard-link" } }, t("lobby.leaderboard")),
          t("common.list_sep"),
          h("a", { href: "/puzzles", dataset: { link: "", testid: "puzzles-link" } }, t("lobby.puzzles")),
        ),
        first,
      ),
    );
  }

  let starting = false;

  async function firstGame() {
    if (starting) return;
    starting = true;
    try {
      app.navigate(`/t/${await startFirstGame(app.conn)}`);
    } catch (err) {
      toast(() => app.errorText(err), "error");
    } finally {
      starting = false;
    }
  }

  function game() {
    return games.find((g) => g.id === form.game) ?? games[0];
  }

  function save() {
    store.set(FORM_KEY, form);
  }

  /** The game's own options form, loaded on first use (null: none, or not yet). */
  function optionsForm(g) {
    if (!Object.keys(g.defaults ?? {}).some((k) => k !== "players")) return null;
    if (!optionForms.has(g.id)) {
      optionForms.set(g.id, null);
      import(`/static/games/${encodeURIComponent(g.id)}/options.js`)
        .then((mod) => {
          if (mod.strings) addStrings(mod.strings);
          const part = mod.createOptions({
            defaults: g.defaults,
            saved: form.extra?.[g.id] ?? {},
            save: (values) => {
              form.extra = { ...form.extra, [g.id]: values };
              save();
            },
            players: () => form.players,
          });
          optionForms.set(g.id, { mod, form: part });
          drawCreate();
        })
        .catch(() => {}); // no form: the game's defaults are used
    }
    return optionForms.get(g.id);
  }

  function drawCreate() {
    keepFocus(createBox, () => {
      const g = game();
      if (!g) {
        fill(createBox, h("h2", { id: "create-title" }, t("lobby.create")), h("p", { class: "muted" }, t("common.loading")));
        return;
      }
      form.players = Math.min(Math.max(form.players, g.min_seats), g.max_seats);
      const levels = g.bot_levels ?? [];
      if (!levels.includes(form.timeout_bot)) form.timeout_bot = levels[Math.floor(levels.length / 2)] ?? null;
      const gameForm = optionsForm(g);
      gameForm?.form.draw();
      const hasAssistant = hasSetting(g, "assistant");

      const gameChoice = h(
        "div",
        { class: "segmented", role: "radiogroup", "aria-label": t("lobby.game") },
        games.map((x) =>
          h(
            "button",
            {
              type: "button",
              role: "radio",
              class: ["seg", x.id === g.id && "seg--on"],
              "aria-checked": String(x.id === g.id),
              dataset: { key: `game-${x.id}` },
              onclick: () => {
                form.game = x.id;
                save();
                drawCreate();
              },
            },
            gameTitle(x),
          ),
        ),
      );

      const counts = [];
      for (let n = g.min_seats; n <= g.max_seats; n++) counts.push(n);
      const playerChoice = h(
        "div",
        { class: "segmented", role: "radiogroup", "aria-label": t("lobby.players") },
        counts.map((n) =>
          h(
            "button",
            {
              type: "button",
              role: "radio",
              class: ["seg", n === form.players && "seg--on"],
              "aria-checked": String(n === form.players),
              dataset: { key: `players-${n}`, testid: `players-${n}` },
              onclick: () => {
                form.players = n;
                save();
                drawCreate();
              },
            },
            t("lobby.n_players", { count: n }),
          ),
        ),
      );

      const seatRows = [];
      seatRows.push(
        h(
          "li",
          { class: "seat-setup" },
          h("span", { class: "seat-no" }, t("seat.number", { n: 1 })),
          h("span", { class: "seat-you" }, icon("user"), t("lobby.you")),
        ),
      );
      for (let s = 1; s < form.players; s++) {
        const value = form.seats[s] ?? "open";
        const select = h(
          "select",
          {
            id: `seat-kind-${s}`,
            dataset: { key: `seat-kind-${s}`, testid: `seat-kind-${s}` },
            onchange: (e) => {
              form.seats[s] = e.target.value;
              save();
            },
          },
          h("option", { value: "open" }, t("lobby.seat_open")),
          levels.map((lv) => h("option", { value: lv }, t("lobby.seat_bot", { level: t(`bot.${lv}`) }))),
        );
        select.value = levels.includes(value) ? value : "open";
        seatRows.push(
          h(
            "li",
            { class: "seat-setup" },
            h("label", { class: "seat-no", for: `seat-kind-${s}` }, t("seat.number", { n: s + 1 })),
            select,
          ),
        );
      }

      // A turn limit needs a bot to play late turns: games without bots get none.
      if (!levels.length) form.turn_seconds = null;
      const moveTimes = g.fields?.settings?.find((f) => f.key === "turn_based")?.choices ?? [];
      if (!moveTimes.includes(form.turn_based)) form.turn_based = null;
      const mode = moveTimes.length
        ? h(
            "select",
            {
              id: "turn-based",
              "aria-describedby": "turn-based-help",
              dataset: { key: "turn-based", testid: "turn-based" },
              onchange: (e) => {
                form.turn_based = moveTimes[e.target.selectedIndex];
                save();
                drawCreate();
              },
            },
            moveTimes.map((sec) =>
              h("option", { value: sec ?? "" }, sec === null ? t("mode.realtime") : t("mode.turn_based", { time: moveTimeText(sec) })),
            ),
          )
        : null;
      if (mode) mode.selectedIndex = Math.max(0, moveTimes.indexOf(form.turn_based));
      const turnBased = form.turn_based !== null;
      const timer = h(
        "select",
        {
          id: "turn-seconds",
          dataset: { key: "turn-seconds", testid: "turn-seconds" },
          onchange: (e) => {
            form.turn_seconds = e.target.value === "" ? null : Number(e.target.value);
            save();
          },
        },
        TIMER_CHOICES.map((sec) =>
          h("option", { value: sec ?? "" }, sec === null ? t("lobby.no_timer") : t("lobby.seconds", { n: sec })),
        ),
      );
      timer.value = form.turn_seconds ?? "";

      const timeoutBot = levels.length
        ? h(
            "select",
            {
              id: "timeout-bot",
              dataset: { key: "timeout-bot" },
              onchange: (e) => {
                form.timeout_bot = e.target.value;
                save();
              },
            },
            levels.map((lv) => h("option", { value: lv }, t(`bot.${lv}`))),
          )
        : null;
      if (timeoutBot) timeoutBot.value = form.timeout_bot;

      if (!PACES.includes(form.bot_pace)) form.bot_pace = "normal";
      const pace = levels.length
        ? h(
            "select",
            {
              id: "bot-pace",
              dataset: { key: "bot-pace", testid: "bot-pace" },
              onchange: (e) => {
                form.bot_pace = e.target.value;
                save();
              },
            },
            PACES.map((p) => h("option", { value: p }, t(`pace.${p}`))),
          )
        : null;
      if (pace) pace.value = form.bot_pace;

      const assistant = h(
        "select",
        {
          id: "assistant",
          "aria-describedby": "assistant-help",
          dataset: { key: "assistant", testid: "assistant" },
          onchange: (e) => {
            form.assistant_mode = e.target.value;
            save();
          },
        },
        h("option", { value: "auto" }, t("lobby.assistant_auto")),
        h("option", { value: "on" }, t("common.yes")),
        h("option", { value: "off" }, t("common.no")),
      );
      assistant.value = form.assistant_mode;

      fill(
        createBox,
        h("h2", { id: "create-title" }, t("lobby.create")),
        h(
          "form",
          {
            class: "create-form",
            onsubmit: (e) => {
              e.preventDefault();
              create();
            },
          },
          field(t("lobby.game"), gameChoice),
          field(t("lobby.players"), playerChoice),
          field(t("lobby.seats"), h("ul", { class: "stack-list" }, seatRows)),
          gameForm ? field(t("lobby.options"), gameForm.form.el) : null,
          mode
            ? h(
                "div",
                { class: "field" },
                h("label", { class: "field-label", for: "turn-based" }, t("lobby.mode")),
                mode,
                h("small", { id: "turn-based-help", class: "muted small" }, t("lobby.mode_help")),
              )
            : null,
          h(
            "div",
            { class: "form-row2" },
            levels.length && !turnBased ? field(t("lobby.turn_timer"), timer, "turn-seconds") : null,
            timeoutBot && field(t("lobby.timeout_bot"), timeoutBot, "timeout-bot"),
          ),
          pace && !turnBased ? field(t("lobby.bot_pace"), pace, "bot-pace") : null,
          hasAssistant
            ? h(
                "div",
                { class: "field" },
                h("label", { class: "field-label", for: "assistant" }, t("lobby.assistant")),
                assistant,
                h("small", { id: "assistant-help", class: "muted small" }, t("lobby.assistant_help")),
              )
            : null,
          hasSetting(g, "rated")
            ? h(
                "label",
                { class: "check", for: "rated" },
                h("input", {
                  type: "checkbox",
                  id: "rated",
                  checked: Boolean(form.rated),
                  "aria-describedby": "rated-help",
                  dataset: { key: "rated", testid: "rated" },
                  onchange: (e) => {
                    form.rated = e.target.checked;
                    save();
                  },
                }),
                h("span", null, h("span", { class: "field-label" }, t("lobby.rated")), h("small", { id: "rated-help", class: "muted small rated-help" }, t("lobby.rated_help"))),
              )
            : null,
          h(
            "button",
            { type: "submit", class: "btn btn--primary btn--wide", dataset: { key: "create", testid: "create-table" } },
            t("lobby.create_button"),
          ),
        ),
      );
    });
  }

  /** Whether the game's tables have this setting (GET /api/games: fields.settings). */
  function hasSetting(g, key) {
    return Boolean(g?.fields?.settings?.some((f) => f.key === key));
  }

  function field(label, control, forId = null) {
    return h(
      "div",
      { class: "field" },
      forId ? h("label", { class: "field-label", for: forId }, label) : h("span", { class: "field-label" }, label),
      control,
    );
  }

  async function create() {
    const g = game();
    const bots = [];
    for (let s = 1; s < form.players; s++) {
      const v = form.seats[s] ?? "open";
      if (v !== "open" && (g.bot_levels ?? []).includes(v)) bots.push({ seat: s, level: v });
    }
    const gameForm = optionForms.get(g.id);
    const extra = gameForm?.form.options() ?? {};
    if (extra.error) {
      toast(extra.error, "error");
      return;
    }
    const options = { ...(g.defaults ?? {}), ...extra, players: form.players };
    const levels = g.bot_levels ?? [];
    const turnBased = levels.length && hasSetting(g, "turn_based") ? form.turn_based : null;
    const settings = { turn_seconds: levels.length && turnBased === null ? form.turn_seconds : null };
    if (turnBased !== null) settings.turn_based = turnBased;
    // Left to the seats unless the host chose: on only for one person against bots.
    if (hasSetting(g, "assistant") && form.assistant_mode !== "auto") settings.assistant = form.assistant_mode === "on";
    if (levels.includes(form.timeout_bot)) settings.timeout_bot = form.timeout_bot;
    if (levels.length) settings.bot_pace = PACES.includes(form.bot_pace) ? form.bot_pace : "normal";
    if (hasSetting(g, "rated") && form.rated) settings.rated = true;
    try {
      const ack = await app.conn.request({ type: "table.create", game: g.id, options, settings, bots });
      app.navigate(`/t/${ack.table}`);
    } catch (err) {
      toast(() => app.errorText(err), "error");
    }
  }

  function drawList() {
    keepFocus(listBox, () => {
      const me = app.conn.player?.id;
      const all = [...tables.values()].sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
      const mine = (x) => x.seats.some((s) => s.player?.id === me);
      // Open: tables one can join (or is in); running: those one can watch.
      const open = all.filter((x) => x.status === "waiting" && (mine(x) || x.seats.some((s) => s.kind === "empty")));
      const running = all.filter((x) => !open.includes(x));
      const tabs = h(
        "div",
        { class: "tabs", role: "tablist" },
        [
          ["open", t("lobby.open_tables"), open.length],
          ["running", t("lobby.running_tables"), running.length],
          ["finished", t("lobby.finished_tables"), finished?.length ?? null],
        ].map(([id, label, n]) =>
          h(
            "button",
            {
              type: "button",
              role: "tab",
              class: ["tab", filter === id && "tab--on"],
              "aria-selected": String(filter === id),
              dataset: { key: `filter-${id}`, testid: `filter-${id}` },
              onclick: () => {
                filter = id;
                if (id === "finished") loadFinished();
                drawList();
              },
            },
            label,
            n === null ? null : h("span", { class: "count" }, String(n)),
          ),
        ),
      );
      let content;
      if (filter === "finished") {
        content = finished?.length
          ? h("ul", { class: "table-list", dataset: { testid: "finished-list" } }, finished.map(finishedCard))
          : h(
              "div",
              { class: "empty" },
              h("p", null, finishedError ? t("lobby.my_games_error") : finished ? t("lobby.no_finished") : t("common.loading")),
            );
      } else {
        const shown = filter === "open" ? open : running;
        content = shown.length
          ? h("ul", { class: "table-list", dataset: { testid: "table-list" } }, shown.map(tableCard))
          : h("div", { class: "empty" }, h("p", null, filter === "open" ? t("lobby.no_open") : t("lobby.no_running")));
      }
      fill(listBox, h("div", { class: "tables-head" }, h("h2", { id: "tables-title" }, t("lobby.tables")), tabs), content);
    });
  }

  /** This player's finished games, newest first (GET /api/players/me/games). */
  async function loadFinished() {
    try {
      const res = await fetch("/api/players/me/games", { headers: bearer() });
      if (!res.ok) throw new Error(String(res.status));
      finished = (await res.json()).games ?? [];
      finishedError = false;
    } catch {
      finishedError = true;
    }
    drawList();
  }

  function resultText(game) {
    const result = game.result ?? {};
    if (result.reason === "abandoned") return t("lobby.abandoned");
    const place = result.places?.[game.you];
    const winners = result.winners ?? [];
    if (winners.length === 0 || winners.length === (result.places ?? []).length) return t("lobby.draw");
    if (game.seats.length > 2 && place) return t("lobby.place", { n: place });
    return winners.includes(game.you) ? t("lobby.won") : t("lobby.lost");
  }

  function finishedCard(game) {
    const g = games.find((x) => x.id === game.game);
    const when = game.finished_at ? new Date(game.finished_at) : null;
    const date = when
      ? when.toLocaleString(lang() === "ja" ? "ja-JP" : "en-GB", { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" })
      : "";
    const won = (game.result?.winners ?? []).includes(game.you);
    return h(
      "li",
      { class: "table-card", dataset: { table: game.id, testid: "finished-game" } },
      h(
        "div",
        { class: "table-card-head" },
        h("span", { class: "table-game" }, g ? gameTitle(g) : game.game),
        h("span", { class: ["badge", won ? "badge--won" : "badge--finished"], dataset: { testid: "finished-result" } }, resultText(game)),
        h("time", { class: "muted small", datetime: game.finished_at ?? "" }, date),
      ),
      h(
        "ul",
        { class: "seat-chips" },
        game.seats.map((s) =>
          h(
            "li",
            { class: ["chip", `chip--${s.kind}`, s.seat === game.you && "chip--you"] },
            s.name ? icon("user") : icon("bot"),
            h("span", { class: "chip-name" }, s.name ? playerLink({ id: s.player, name: s.name }) : seatLabel({ kind: s.kind, level: s.level, seat: s.seat })),
          ),
        ),
      ),
      h(
        "div",
        { class: "table-card-foot" },
        h("span", { class: "muted small" }, t("lobby.n_players", { count: game.seats.length })),
        h(
          "a",
          { class: "btn", href: `/t/${game.id}?replay`, dataset: { key: `replay-${game.id}`, link: "", testid: "finished-replay" } },
          icon("play"),
          t("lobby.replay"),
        ),
      ),
    );
  }

  function tableCard(summary) {
    const me = app.conn.player?.id;
    const g = games.find((x) => x.id === summary.game);
    const mine = summary.seats.some((s) => s.player?.id === me);
    const free = summary.seats.filter((s) => s.kind === "empty").length;
    let action;
    if (mine) {
      action = h("a", { class: "btn btn--primary", href: `/t/${summary.id}`, dataset: { key: `open-${summary.id}`, link: "" } }, t("lobby.open"));
    } else if (summary.status === "waiting" && free > 0) {
      action = h(
        "button",
        {
          type: "button",
          class: "btn btn--primary",
          dataset: { key: `join-${summary.id}`, testid: "join" },
          onclick: () => join(summary.id),
        },
        t("lobby.join"),
      );
    } else {
      action = h(
        "a",
        { class: "btn", href: `/t/${summary.id}`, dataset: { key: `watch-${summary.id}`, link: "" } },
        icon("eye"),
        t("lobby.watch"),
      );
    }
    const settings = summary.settings ?? {};
    const meta = [t("lobby.n_players", { count: summary.seats.length })];
    if (settings.turn_based) meta.push(t("lobby.turn_based_meta", { time: moveTimeText(settings.turn_based) }));
    else meta.push(settings.turn_seconds ? t("lobby.timer_meta", { time: clockText(settings.turn_seconds) }) : t("lobby.no_timer"));
    if (summary.assistant) meta.push(t("lobby.assistant_on"));
    return h(
      "li",
      { class: "table-card", dataset: { table: summary.id } },
      h(
        "div",
        { class: "table-card-head" },
        h("span", { class: "table-game" }, g ? gameTitle(g) : summary.game),
        h(
          "span",
          { class: ["badge", `badge--${summary.status}`] },
          summary.status === "waiting" ? t("status.waiting") : t("status.playing"),
        ),
        summary.status === "waiting" && free > 0 && h("span", { class: "muted small" }, t("lobby.seats_free", { count: free })),
        // How many people have the table open now, on any process of a cluster.
        summary.online > 0 &&
          h("span", { class: "muted small table-online", dataset: { testid: "table-online" } }, icon("user", "icon icon--xs"), t("lobby.online", { count: summary.online })),
      ),
      h(
        "ul",
        { class: "seat-chips" },
        summary.seats.map((s) =>
          h(
            "li",
            { class: ["chip", `chip--${s.kind}`, s.kind !== "empty" && !s.connected && "chip--away"] },
            s.kind === "bot" ? icon("bot") : s.kind === "human" ? icon("user") : null,
            h("span", { class: "chip-name" }, s.kind === "human" ? playerLink(s.player) : s.left ? seatNameNode(s) : seatLabel(s)),
          ),
        ),
      ),
      h("div", { class: "table-card-foot" }, h("span", { class: "muted small" }, meta.join(" · ")), action),
    );
  }

  async function join(id) {
    try {
      await app.conn.request({ type: "table.join", table: id });
      app.navigate(`/t/${id}`);
    } catch (err) {
      toast(() => app.errorText(err), "error");
    }
  }

  const offs = [
    app.conn.on("lobby", (msg) => {
      tables.clear();
      for (const x of msg.tables) tables.set(x.id, x);
      drawList();
    }),
    // The lobby's changes come gathered, at most a few updates a second: each one is
    // applied whole, then the list is drawn once.
    app.conn.on("lobby.update", (msg) => {
      for (const x of msg.tables) {
        if (x.status === "finished") tables.delete(x.id);
        else tables.set(x.id, x);
      }
      for (const id of msg.removed) tables.delete(id);
      drawList();
    }),
    app.conn.onReady(() => {
      app.conn.send({ type: "lobby.subscribe" });
      loadFinished();
    }),
    onLangChange(() => {
      drawHero();
      drawCreate();
      drawList();
    }),
  ];

  drawHero();
  drawCreate();
  drawList();
  app.games().then((list) => {
    games = list;
    drawHero();
    drawCreate();
    drawList();
  });

  return {
    title: () => t("lobby.page_title"),
    destroy() {
      for (const off of offs) off();
      app.conn.send({ type: "lobby.unsubscribe" });
    },
  };
}

export function mountNickname(root, app, done) {
  const box = h("section", { class: "panel welcome" });
  root.append(h("div", { class: "welcome-wrap" }, box));
  function draw() {
    const input = h("input", {
      id: "nickname",
      name: "nickname",
      maxlength: 24,
      required: true,
      autocomplete: "nickname",
      placeholder: t("nick.placeholder"),
      dataset: { testid: "nickname" },
    });
    fill(
      box,
      h("div", { class: "welcome-tiles", "aria-hidden": "true" }, ["R", "B", "G", "R", "B"].map((c, i) => h("span", { class: `mini-tile mini-tile--${c}` }, String([1, 3, 5, 7, 9][i])))),
      h("h1", null, t("nick.title")),
      h("p", { class: "muted" }, t("nick.intro")),
      h(
        "form",
        {
          class: "nick-form",
          onsubmit: (e) => {
            e.preventDefault();
            const name = input.value.trim();
            if (!name) return;
            done(name);
          },
        },
        h("label", { class: "field-label", for: "nickname" }, t("nick.label")),
        h("div", { class: "row" }, input, h("button", { type: "submit", class: "btn btn--primary", dataset: { testid: "nickname-ok" } }, t("nick.start"))),
      ),
      h("p", { class: "muted" }, t("nick.have_account"), " ", h("a", { href: "/account", dataset: { link: "", testid: "nick-sign-in" } }, t("nick.sign_in"))),
    );
    input.focus();
  }
  draw();
  const off = onLangChange(draw);
  return { title: () => t("nick.title"), destroy: off };
}

