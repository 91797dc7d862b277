// The puzzle page (/puzzles): the next puzzle near my rating (?kind= one kind), the daily
// puzzle (?daily), or one puzzle (?id=); my puzzle rating and streak; after an answer, right
// or wrong, the rating change and the explanation.  The game draws its own puzzles
// (/static/games/{game}/puzzle.js: createPuzzle, explain).  GET /api/puzzles/{game}/next,
// /daily, /{id}; POST /api/puzzles/{game}/{id}/answer (docs/protocol.md, "Puzzles").

import { bearer } from "./conn.js";
import { fill, h, icon } from "./dom.js";
import { addStrings, onLangChange, t } from "./i18n.js";

const GAME = "tagiron";
const KINDS = ["declare", "question", "count", "tile"];

async function call(url, options = {}) {
  const response = await fetch(url, { ...options, headers: { ...bearer(), ...(options.headers ?? {}) } });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw { code: data?.error?.code ?? `http_${response.status}` };
  return data;
}

/** Resolves once this browser's player has a token (a first visit says hello first). */
function whenPlayer(conn) {
  return new Promise((resolve) => {
    if (conn.token && conn.state === "ready") return resolve();
    let stop = null;
    let done = false;
    stop = conn.onReady(() => {
      done = true;
      stop?.();
      resolve();
    });
    if (done) stop();
  });
}

const modules = new Map();
function gameModule(game) {
  if (!modules.has(game)) {
    modules.set(
      game,
      import(`/static/games/${encodeURIComponent(game)}/puzzle.js`).then((mod) => {
        if (mod.strings) addStrings(mod.strings);
        return mod;
      }),
    );
  }
  return modules.get(game);
}

export function mountPuzzles(root, app) {
  const params = new URLSearchParams(location.search);
  const mode = params.has("daily") ? "daily" : params.get("id") ? "id" : "next";
  const kind = KINDS.includes(params.get("kind")) ? params.get("kind") : "";
  const box = h("div", { class: "puzzles", dataset: { testid: "puzzles" } });
  root.append(box);
  let data = null; // the puzzle as GET gave it: {puzzle, me, answered?, day?}
  let result = null; // the answer's reply, or the earlier answer of a puzzle answered
  let given = null; // what was answered (a question's pick is marked in the explanation)
  let failed = null;
  let mod = null;
  let view = null; // the game's puzzle form
  let gone = false;
  const stopLang = onLangChange(() => draw());

  async function load() {
    data = result = given = failed = null;
    view = null;
    draw();
    try {
      [mod] = await Promise.all([gameModule(GAME), whenPlayer(app.conn)]);
      const base = `/api/puzzles/${GAME}`;
      const url =
        mode === "daily" ? `${base}/daily` : mode === "id" ? `${base}/${encodeURIComponent(params.get("id"))}` : `${base}/next${kind ? `?kind=${kind}` : ""}`;
      data = await call(url);
      if (gone) return;
      if (data.answered) result = { ...data.answered, earlier: true };
    } catch (err) {
      failed = err;
    }
    if (!gone) draw();
  }

  async function submit(answer) {
    view?.busy(true);
    try {
      const reply = await call(`/api/puzzles/${GAME}/${encodeURIComponent(data.puzzle.id)}/answer`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ answer }),
      });
      given = answer;
      result = reply;
      data.me = reply.me;
      draw();
      box.querySelector("#pz-verdict")?.focus();
    } catch (err) {
      view?.busy(false);
      failed = null;
      const note = box.querySelector('[data-testid="pz-error"]');
      if (note) note.textContent = app.errorText(err);
    }
  }

  function navLink(href, label, on, testid) {
    return h("a", { class: ["btn", "btn--sm", on ? "btn--primary" : "btn--ghost"], href, "aria-current": on ? "page" : null, dataset: { link: "", testid } }, label);
  }

  function meBar(me) {
    const item = (label, value, testid) => h("div", { class: "pz-stat" }, h("dt", null, label), h("dd", { dataset: { testid } }, String(value)));
    return h(
      "dl",
      { class: "pz-me", "aria-label": t("pz.me") },
      item(t("pz.rating"), me.rating, "pz-rating"),
      item(t("pz.streak"), me.streak, "pz-streak"),
      item(t("pz.best_streak"), me.best_streak, "pz-best"),
      item(t("pz.solved"), t("pz.solved_of", { solved: me.solved, attempts: me.attempts }), "pz-solved"),
    );
  }

  function controls() {
    return h(
      "nav",
      { class: "pz-nav", "aria-label": t("pz.nav") },
      navLink(`/puzzles${kind ? `?kind=${kind}` : ""}`, t("pz.next"), mode === "next", "pz-next"),
      navLink("/puzzles?daily", t("pz.daily"), mode === "daily", "pz-daily"),
      h(
        "label",
        { class: "pz-kind" },
        h("span", null, t("pz.kind_label")),
        h(
          "select",
          {
            dataset: { testid: "pz-kind" },
            onchange: (e) => app.navigate(`/puzzles${e.target.value ? `?kind=${e.target.value}` : ""}`),
          },
          ["", ...KINDS].map((k) => h("option", { value: k, selected: k === kind && mode === "next" ? true : null }, t(k ? `pz.kind.${k}` : "pz.kind.all"))),
        ),
      ),
    );
  }

  function resultView() {
    const right = result.right;
    const change = result.rating?.change ?? result.change;
    const signed = change > 0 ? `+${change}` : String(change);
    return h(
      "section",
      { class: ["panel", "pz-result", right ? "pz-result--right" : "pz-result--wrong"], "aria-labelledby": "pz-verdict", dataset: { testid: "pz-result" } },
      h(
        "h2",
        { id: "pz-verdict", tabindex: "-1", class: "pz-verdict", dataset: { testid: "pz-verdict", right: String(right) } },
        icon(right ? "check" : "cross", "icon"),
        result.earlier ? t(right ? "pz.earlier_right" : "pz.earlier_wrong") : t(right ? "pz.right" : "pz.wrong"),
      ),
      h(
        "p",
        { class: "pz-change", role: "status" },
        t("pz.rating_change", { change: signed, rating: String(result.rating?.after ?? result.rating) }),
        result.puzzle_rating ? [" ", t("pz.puzzle_change", { before: result.puzzle_rating.before, after: result.puzzle_rating.after })] : null,
        result.me ? [" ", t("pz.streak_now", { count: result.me.streak })] : null,
      ),
      mod.explain(data.puzzle, result, given),
      h("div", { class: "pz-actions" }, navLink(`/puzzles${kind ? `?kind=${kind}` : ""}`, t("pz.another"), true, "pz-another")),
    );
  }

  function draw() {
    const head = h(
      "div",
      { class: "pz-head" },
      h("h1", { class: "lobby-title" }, mode === "daily" && data?.day ? t("pz.daily_of", { day: data.day }) : t("pz.title")),
      h("p", { class: "lobby-sub" }, t("pz.subtitle")),
      controls(),
      data ? meBar(data.me) : null,
    );
    if (failed) {
      fill(box, head, h("section", { class: "panel" }, h("p", { dataset: { testid: "pz-failed" } }, app.errorText(failed))));
      return;
    }
    if (!data || !mod) {
      fill(box, head, h("p", { class: "loading" }, t("common.loading")));
      return;
    }
    const p = data.puzzle;
    const meta = h(
      "p",
      { class: "pz-meta muted", dataset: { testid: "pz-meta", kind: p.kind, puzzle: p.id } },
      h("span", { class: "badge" }, t(`pz.kind.${p.kind}`)),
      " ",
      t("pz.meta", { players: p.players, rating: p.rating, solved: p.solved, plays: p.plays }),
    );
    if (!view && !result) view = mod.createPuzzle(p, { submit });
    const game = result ? mod.explainPosition(p) : view.el;
    if (!result) view.redraw();
    fill(
      box,
      head,
      h(
        "section",
        { class: "panel pz-panel", "aria-label": t("pz.puzzle") },
        meta,
        game,
        result ? null : h("p", { class: "pz-error", role: "alert", dataset: { testid: "pz-error" } }),
      ),
      result ? resultView() : null,
    );
  }

  load();
  return {
    title: () => t("pz.page_title"),
    destroy() {
      gone = true;
      stopLang();
    },
  };
}
