// The front-end's entry point: header, connection, and the page router.
//   /            lobby
//   /t/{id}      a table (waiting room, game, end screen); ?replay for a replay
//   /account     keep my name, sign in and out, passwords and passkeys
//   /p/{id}      a player's profile;  /leaderboard  the leaderboards
//   /games       your games: where it is your turn first (and the vacation switch)
//   /puzzles     puzzles: the next one (?kind=), the daily one (?daily), one (?id=)

import { mountAccount } from "./account.js";
import { bearer, Connection } from "./conn.js";
import { fill, h, icon, refreshToasts, toast, userText } from "./dom.js";
import { guardFocus } from "./focus.js";
import { has, lang, LANGS, onLangChange, setLang, t } from "./i18n.js";
import { mountLobby, mountNickname } from "./lobby.js";
import { mountMyGames, yourTurnWatch } from "./mygames.js";
import { mountLeaderboard, mountProfile } from "./profile.js";
import { mountPuzzles } from "./puzzles.js";
import { mountReplay } from "./replay.js";
import { mountTable } from "./tablepage.js";
import { promptDialog } from "./ui.js";

const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
const conn = new Connection(wsUrl);
conn.lang = lang();

let games = [];
let gamesLoaded = null;
let page = null;

const header = h("header", { class: "app-bar" });
const main = h("main", { class: "app-main", id: "main", tabindex: "-1" });
document.body.replaceChildren(
  h("a", { class: "skip", href: "#main" }, ""),
  header,
  main,
);
guardFocus(main);

const app = {
  conn,
  navigate(path) {
    if (path !== location.pathname + location.search) history.pushState(null, "", path);
    route();
  },
  games() {
    gamesLoaded ??= fetch("/api/games")
      .then((r) => (r.ok ? r.json() : []))
      .catch(() => [])
      .then((list) => {
        games = Array.isArray(list) ? list : list.games ?? [];
        return games;
      });
    return gamesLoaded;
  },
  gameInfo(id) {
    return games.find((g) => g.id === id) ?? null;
  },
  errorText(err) {
    const code = err?.code;
    if (code && has(`error.${code}`)) return t(`error.${code}`);
    return t("error.generic", { code: code ?? "?" });
  },
};

// --- header -------------------------------------------------------------------

let netState = "idle";
// How many games wait for this player's move (the badge on every page); null: unknown.
let waiting = null;
const turns = yourTurnWatch((count) => {
  waiting = count;
  drawHeader();
});

function drawHeader() {
  const skip = document.querySelector(".skip");
  if (skip) skip.textContent = t("nav.skip");
  const name = conn.player?.name ?? conn.savedName;
  fill(
    header,
    h(
      "a",
      { class: "brand", href: "/", dataset: { link: "" } },
      h("span", { class: "brand-mark", "aria-hidden": "true" }, h("i", { class: "bm bm--R" }), h("i", { class: "bm bm--G" }), h("i", { class: "bm bm--B" })),
      h("span", { class: "brand-name" }, t("app.name")),
    ),
    h("span", { class: "spacer" }),
    h(
      "span",
      {
        class: ["net", `net--${netState}`],
        role: "status",
        dataset: { testid: "net" },
        title: t(`net.${netState}`),
      },
      h("span", { class: "net-dot" }),
      h("span", { class: "net-text" }, t(`net.${netState}`)),
    ),
    name
      ? h(
          "button",
          {
            type: "button",
            class: "user-chip",
            dataset: { testid: "me" },
            title: t("nav.rename"),
            "aria-label": `${t("nav.rename")}: ${name}`,
            onclick: rename,
          },
          icon("user", "icon icon--sm"),
          userText(name, "user-name"),
        )
      : null,
    conn.canHello
      ? h(
          "a",
          {
            class: ["account-link", "games-link", location.pathname === "/games" && "account-link--on"],
            href: "/games",
            dataset: { link: "", testid: "games-link" },
            // The name begins with what the link shows (WCAG 2.5.3); the title says it whole.
            "aria-label": waiting ? `${t("nav.my_games")} ${waiting}` : t("nav.my_games"),
            "aria-current": location.pathname === "/games" ? "page" : null,
            title: waiting ? t("nav.my_games_waiting", { count: waiting }) : null,
          },
          icon("clock", "icon icon--sm"),
          h("span", { class: "account-link-text" }, t("nav.my_games")),
          waiting ? " " : null,
          waiting ? h("span", { class: "turn-badge", dataset: { testid: "turn-badge" } }, String(waiting)) : null,
        )
      : null,
    h(
      "a",
      {
        class: ["account-link", location.pathname === "/account" && "account-link--on"],
        href: "/account",
        dataset: { link: "", testid: "account-link" },
        "aria-label": t(conn.isAccount ? "nav.account" : "nav.sign_in"),
        "aria-current": location.pathname === "/account" ? "page" : null,
      },
      icon("user", "icon icon--sm"),
      h("span", { class: "account-link-text" }, t(conn.isAccount ? "nav.account" : "nav.sign_in")),
    ),
    h(
      "div",
      { class: "lang-switch", role: "group", "aria-label": t("nav.language") },
      LANGS.map((l) =>
        h(
          "button",
          {
            type: "button",
            class: ["lang-btn", l === lang() && "lang-btn--on"],
            "aria-pressed": String(l === lang()),
            // The name begins with what the button shows (WCAG 2.5.3: say "JA" to press it).
            "aria-label": `${l.toUpperCase()} (${t(`lang.${l}`)})`,
            title: t(`lang.${l}`),
            dataset: { testid: `lang-${l}` },
            onclick: () => setLang(l),
          },
          l.toUpperCase(),
        ),
      ),
    ),
  );
}

async function rename() {
  const name = await promptDialog({
    title: t("nav.rename"),
    label: t("nick.label"),
    value: conn.player?.name ?? "",
    ok: t("common.save"),
    maxlength: 24,
  });
  if (name && name.trim()) conn.rename(name.trim());
}

conn.onState((state) => {
  netState = state === "ready" ? "online" : state === "idle" ? "idle" : "offline";
  drawHeader();
});
conn.on("welcome", () => {
  drawHeader();
  turns.start();
});
// A move somewhere may have made it this player's turn, or ended one: ask again soon.
let turnsSoon = null;
conn.on("event", () => {
  clearTimeout(turnsSoon);
  turnsSoon = setTimeout(() => turns.refresh(), 500);
});
conn.on("account", () => drawHeader());
// Whether this browser's player kept their name (the header's link, and what a token
// the server no longer knows means): asked once per connection.
conn.onReady(() => {
  fetch("/api/account", { headers: bearer() })
    .then((r) => (r.ok ? r.json() : null))
    .then((found) => {
      if (found && Boolean(found.account) !== conn.isAccount) conn.setAccount(Boolean(found.account));
    })
    .catch(() => {});
});
conn.on("signed_out", () => {
  toast(() => t("account.signed_out_elsewhere"), "info", 6000);
  route();
});
conn.on("error", (msg) => {
  if (msg.id === undefined && (msg.code === "bad_name" || msg.code === "rate_limited")) toast(() => app.errorText(msg), "error");
});
onLangChange((l) => {
  conn.lang = l;
  drawHeader();
  refreshToasts();
  if (page) document.title = page.title();
});

// --- routing ------------------------------------------------------------------

function route() {
  page?.destroy?.();
  page = null;
  main.replaceChildren();
  drawHeader();
  const profile = location.pathname.match(/^\/p\/(p_[a-z0-9]{4,30})\/?$/);
  if (location.pathname === "/account" && !conn.canHello) {
    page = mountAccount(main, app);
  } else if (profile) {
    if (conn.canHello) conn.start();
    page = mountProfile(main, app, profile[1]);
  } else if (location.pathname === "/leaderboard") {
    if (conn.canHello) conn.start();
    page = mountLeaderboard(main, app);
  } else if (!conn.canHello) {
    page = mountNickname(main, app, (name) => {
      conn.start(name);
      drawHeader();
      route();
    });
  } else {
    conn.start();
    const table = location.pathname.match(/^\/t\/([A-Za-z0-9_-]{1,64})\/?$/);
    if (location.pathname === "/account") {
      page = mountAccount(main, app);
    } else if (location.pathname === "/games") {
      page = mountMyGames(main, app);
      turns.refresh();
    } else if (location.pathname === "/puzzles") {
      page = mountPuzzles(main, app);
    } else if (table) {
      const replay = new URLSearchParams(location.search).has("replay");
      page = replay ? mountReplay(main, app, table[1]) : mountTable(main, app, table[1]);
    } else {
      page = mountLobby(main, app);
    }
  }
  document.title = page.title();
}

document.addEventListener("click", (e) => {
  const a = e.target.closest?.("a[data-link]");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  e.preventDefault();
  app.navigate(url.pathname + url.search);
});
window.addEventListener("popstate", route);

drawHeader();
app.games().then(route);

// The service worker (/sw.js): the shell kept for a quick start from the home screen, and
// Web Push notifications.  Browsers allow it on HTTPS and on localhost only.
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    /* refused (private mode, a policy): the page works without it */
  });
}

// Tests and the benchmark read these; nothing in the app depends on them.
window.bodoge = { app, conn };
