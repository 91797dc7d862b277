// A player's profile (/p/{id}) and the leaderboards (/leaderboard): ratings with their
// history (an SVG the server draws), statistics per game, recent games with replays.
// GET /api/players/{id}, /api/players/{id}/ratings/{game}.svg, /api/leaderboard/{game}
// (docs/protocol.md, "Ratings and profiles").

import { fill, h, icon, userText } from "./dom.js";
import { addStrings, has, lang, onLangChange, t } from "./i18n.js";
import { vacationPanel } from "./mygames.js";
import { gameTitle, playerLink } from "./seats.js";

async function getJSON(url) {
  const response = await fetch(url);
  const data = await response.json().catch(() => null);
  if (!response.ok) throw { code: data?.error?.code ?? `http_${response.status}` };
  return data;
}

/** A rating as one number, with its provisional mark. */
export function ratingBadge(r) {
  return h(
    "span",
    { class: ["rating", r.provisional && "rating--provisional"], title: r.provisional ? t("profile.provisional_help") : null },
    String(r.rating),
    r.provisional ? h("span", { class: "rating-mark", "aria-label": t("profile.provisional") }, "?") : null,
  );
}

function placeText(game) {
  const result = game.result ?? {};
  if (result.reason === "abandoned") return t("lobby.abandoned");
  const places = result.places ?? [];
  const winners = result.winners ?? [];
  if (winners.length === 0 || winners.length === places.length) return t("lobby.draw");
  const place = places[game.you];
  if (game.seats.length > 2 && place) return t("lobby.place", { n: place });
  return winners.includes(game.you) ? t("lobby.won") : t("lobby.lost");
}

/** A game's own figure (Game.stat_fields: a count, a mean or a share), as the page shows it. */
function figureText(f) {
  if (f.value === null || f.value === undefined) return "—";
  const locale = lang() === "ja" ? "ja-JP" : "en-GB";
  if (f.kind === "share") return `${Math.round(100 * f.value)}%`;
  if (f.kind === "mean") return f.value.toLocaleString(locale, { maximumFractionDigits: 1 });
  return f.value.toLocaleString(locale);
}

/** The labels of a game's figures are in its own strings (web/strings.js), loaded on demand. */
const gameStrings = new Map();
function loadGameStrings(ids, redraw) {
  for (const id of ids) {
    if (gameStrings.has(id)) continue;
    gameStrings.set(
      id,
      import(`/static/games/${encodeURIComponent(id)}/strings.js`)
        .then((mod) => {
          if (mod.STRINGS) addStrings(mod.STRINGS);
          redraw();
        })
        .catch(() => {}), // no strings: the keys stand in
    );
  }
}

export function mountProfile(root, app, playerId) {
  const box = h("div", { class: "profile" });
  root.append(box);
  let data = null;
  let puzzles = null; // GET /api/players/{id}/puzzles
  let failed = null;

  function draw() {
    if (failed) {
      fill(box, h("div", { class: "empty-page" }, h("h1", null, t("profile.title")), h("p", null, app.errorText(failed))));
      return;
    }
    if (!data) {
      fill(box, h("p", { class: "loading" }, t("common.loading")));
      return;
    }
    const games = (id) => app.gameInfo(id);
    const ratings = h(
      "section",
      { class: "panel", "aria-labelledby": "ratings-title" },
      h("h2", { id: "ratings-title" }, t("profile.ratings")),
      data.ratings.length
        ? h(
            "ul",
            { class: "profile-ratings" },
            data.ratings.map((r) =>
              h(
                "li",
                { class: "profile-rating", dataset: { testid: `rating-${r.game}` } },
                h("div", { class: "profile-rating-head" }, h("span", { class: "table-game" }, gameTitle(games(r.game) ?? { id: r.game })), ratingBadge(r), h("span", { class: "muted small" }, t("profile.rated_games", { count: r.games }))),
                h("img", {
                  class: "rating-chart",
                  src: `/api/players/${encodeURIComponent(playerId)}/ratings/${encodeURIComponent(r.game)}.svg?n=${r.games}`,
                  alt: t("profile.chart_alt", { game: gameTitle(games(r.game) ?? { id: r.game }) }),
                  width: 320,
                  height: 120,
                }),
              ),
            ),
          )
        : h("p", { class: "muted" }, t("profile.no_ratings")),
    );
    const stats = h(
      "section",
      { class: "panel", "aria-labelledby": "stats-title" },
      h("h2", { id: "stats-title" }, t("profile.stats")),
      data.stats.length
        ? h(
            "table",
            { class: "profile-stats" },
            h("thead", null, h("tr", null, ["profile.game", "profile.games", "profile.wins", "profile.draws", "profile.win_rate", "profile.rated"].map((k) => h("th", { scope: "col" }, t(k))))),
            h(
              "tbody",
              null,
              data.stats.map((s) =>
                h(
                  "tr",
                  { dataset: { testid: `stats-${s.game}` } },
                  h("th", { scope: "row" }, gameTitle(games(s.game) ?? { id: s.game })),
                  h("td", null, String(s.games)),
                  h("td", { dataset: { testid: "stats-wins" } }, String(s.wins)),
                  h("td", { dataset: { testid: "stats-draws" } }, String(s.draws ?? 0)),
                  // The server's rate: wins over the games played to an end (no draw is a win).
                  h("td", { dataset: { testid: "stats-win-rate" } }, s.win_rate === null || s.win_rate === undefined ? "—" : `${Math.round(100 * s.win_rate)}%`),
                  h("td", null, String(s.rated)),
                ),
              ),
            ),
          )
        : h("p", { class: "muted" }, t("profile.no_games")),
      data.stats
        .filter((s) => s.figures?.length)
        .map((s) =>
          h(
            "div",
            { class: "profile-figures", dataset: { testid: `figures-${s.game}` } },
            h("h3", null, gameTitle(games(s.game) ?? { id: s.game })),
            h(
              "dl",
              null,
              s.figures.map((f) => h("div", { class: "profile-figure", dataset: { testid: `figure-${f.key}` } }, h("dt", null, has(f.label) ? t(f.label) : f.key), h("dd", null, figureText(f)))),
            ),
            s.counted < s.games ? h("p", { class: "muted small" }, t("profile.counted", { n: s.counted, games: s.games })) : null,
          ),
        ),
    );
    const recent = h(
      "section",
      { class: "panel", "aria-labelledby": "recent-title" },
      h("h2", { id: "recent-title" }, t("profile.recent")),
      data.games.length
        ? h(
            "ul",
            { class: "profile-games" },
            data.games.map((g) =>
              h(
                "li",
                { class: "profile-game", dataset: { testid: "profile-game" } },
                h("span", { class: "table-game" }, gameTitle(games(g.game) ?? { id: g.game })),
                h("span", { class: "badge badge--finished" }, placeText(g)),
                g.rated ? h("span", { class: "badge" }, t("lobby.rated")) : null,
                h(
                  "span",
                  { class: "profile-game-seats" },
                  g.seats.map((s, i) => [i ? t("common.list_sep") : null, s.name ? playerLink({ id: s.player, name: s.name }) : t(`bot.${s.level}`)]),
                ),
                h("a", { class: "btn btn--sm btn--ghost", href: `/t/${g.id}?replay`, dataset: { link: "", testid: "replay-link" } }, icon("play", "icon icon--sm"), t("lobby.replay")),
              ),
            ),
          )
        : h("p", { class: "muted" }, t("profile.no_games")),
    );
    const puzzleBox = h(
      "section",
      { class: "panel", "aria-labelledby": "puzzles-title", dataset: { testid: "profile-puzzles" } },
      h("h2", { id: "puzzles-title" }, t("profile.puzzles")),
      puzzles && (puzzles.ratings.length || puzzles.recent.length)
        ? [
            puzzles.ratings.map((r) =>
              h(
                "p",
                { class: "profile-rating-head", dataset: { testid: `puzzle-rating-${r.game}` } },
                h("span", { class: "table-game" }, gameTitle(games(r.game) ?? { id: r.game })),
                h("span", { class: "rating" }, String(r.rating)),
                h("span", { class: "muted small" }, t("profile.puzzle_summary", { rating: r.rating, solved: r.solved, attempts: r.attempts, best: r.best_streak })),
              ),
            ),
            h(
              "ul",
              { class: "profile-games" },
              puzzles.recent.map((a) =>
                h(
                  "li",
                  { class: "profile-game", dataset: { testid: "profile-puzzle" } },
                  h("span", { class: ["badge", a.right ? "badge--won" : "badge--finished"] }, t(a.right ? "profile.puzzle_right" : "profile.puzzle_wrong")),
                  h("span", null, t(`pz.kind.${a.kind}`)),
                  h("span", { class: "muted small" }, `${a.change > 0 ? "+" : ""}${a.change} → ${a.rating}`),
                  a.daily ? h("span", { class: "badge" }, t("profile.puzzle_daily", { day: a.daily })) : null,
                  h("a", { class: "btn btn--sm btn--ghost", href: `/puzzles?id=${encodeURIComponent(a.puzzle)}`, dataset: { link: "", testid: "puzzle-link" } }, t("pz.puzzle")),
                ),
              ),
            ),
          ]
        : h("p", { class: "muted" }, t("profile.no_puzzles")),
    );
    fill(
      box,
      h(
        "div",
        { class: "profile-head" },
        h("h1", { class: "lobby-title" }, userText(data.player.name)),
        h("span", { class: ["badge", data.account ? "badge--account" : "badge--guest"] }, t(data.account ? "profile.account" : "profile.guest")),
        h("a", { class: "head-link", href: "/leaderboard", dataset: { link: "" } }, t("lobby.leaderboard")),
      ),
      ratings,
      stats,
      puzzleBox,
      recent,
      // One's own profile has the vacation switch of turn-based play (not shown to others).
      own(),
      h("p", { class: "muted small" }, t("profile.public_note")),
    );
  }

  let vacation = null;
  function own() {
    if (app.conn.player?.id !== playerId) return null;
    if (!vacation) {
      vacation = vacationPanel(app);
      vacation.load();
    }
    vacation.draw();
    return vacation.el;
  }

  draw();
  Promise.all([
    app.games(),
    getJSON(`/api/players/${encodeURIComponent(playerId)}`),
    // the puzzles are a part of their own: without them the rest still shows
    getJSON(`/api/players/${encodeURIComponent(playerId)}/puzzles`).catch(() => null),
  ])
    .then(([, found, solved]) => {
      puzzles = solved;
      data = found;
      loadGameStrings(
        data.stats.filter((s) => s.figures?.length).map((s) => s.game),
        draw,
      );
      draw();
      document.title = t("profile.page_title", { name: data.player.name });
    })
    .catch((err) => {
      failed = err;
      draw();
    });
  const off = onLangChange(draw);
  // Whose page this is is known once the connection said who this browser is.
  const offReady = app.conn.onReady(() => data && draw());
  return {
    title: () => (data ? t("profile.page_title", { name: data.player.name }) : t("profile.title")),
    destroy: () => {
      off();
      offReady();
    },
  };
}

export function mountLeaderboard(root, app) {
  const box = h("div", { class: "profile" });
  root.append(box);
  let games = [];
  let chosen = null;
  const boards = new Map();

  function load(game) {
    if (boards.has(game)) return;
    boards.set(game, null);
    getJSON(`/api/leaderboard/${encodeURIComponent(game)}`)
      .then((board) => boards.set(game, board))
      .catch(() => boards.set(game, { players: [], bots: [], failed: true }))
      .finally(draw);
  }

  function draw() {
    const board = chosen ? boards.get(chosen) : null;
    const tabs = h(
      "div",
      { class: "segmented", role: "radiogroup", "aria-label": t("lobby.game") },
      games.map((g) =>
        h(
          "button",
          {
            type: "button",
            role: "radio",
            class: ["seg", g.id === chosen && "seg--on"],
            "aria-checked": String(g.id === chosen),
            dataset: { key: `board-${g.id}`, testid: `board-${g.id}` },
            onclick: () => {
              chosen = g.id;
              load(g.id);
              draw();
            },
          },
          gameTitle(g),
        ),
      ),
    );
    let body;
    if (!board) body = h("p", { class: "loading" }, t("common.loading"));
    else {
      const rows = board.players.map((p) =>
        h(
          "tr",
          { dataset: { testid: "board-row" } },
          h("td", null, String(p.rank)),
          h("th", { scope: "row" }, playerLink(p.player)),
          h("td", null, ratingBadge(p)),
          h("td", null, String(p.games)),
        ),
      );
      const bots = board.bots.map((b) =>
        h(
          "tr",
          { class: "board-bot" },
          h("td", null, ""),
          h("th", { scope: "row" }, icon("bot", "icon icon--sm"), " ", t(`bot.${b.level}`), b.anchor ? h("small", { class: "muted" }, ` (${t("board.anchor")})`) : null),
          h("td", null, ratingBadge(b)),
          h("td", null, b.anchor ? "—" : String(b.games)),
        ),
      );
      body = [
        rows.length ? null : h("p", { class: "muted" }, t("board.empty", { n: board.min_games ?? 3 })),
        h(
          "table",
          { class: "profile-stats board", dataset: { testid: "board" } },
          h("thead", null, h("tr", null, ["board.rank", "board.player", "board.rating", "profile.games"].map((k) => h("th", { scope: "col" }, t(k))))),
          h("tbody", null, rows, bots),
        ),
        h("p", { class: "muted small" }, t("board.help")),
      ];
    }
    fill(box, h("div", { class: "profile-head" }, h("h1", { class: "lobby-title" }, t("board.title"))), h("section", { class: "panel board-panel" }, tabs, body));
  }

  draw();
  app.games().then((list) => {
    games = list;
    chosen = games[0]?.id ?? null;
    if (chosen) load(chosen);
    draw();
  });
  const off = onLangChange(draw);
  return { title: () => t("board.page_title"), destroy: off };
}
