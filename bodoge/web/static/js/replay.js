// Replay of a finished game, one move at a time, from GET /api/tables/{id}/history.

import { fill, h, icon } from "./dom.js";
import { num, onLangChange, t, tn } from "./i18n.js";
import { createFrame } from "./frame.js";
import { gameTitle, seatChip, seatLabel, seatNameNode, standInBadge } from "./seats.js";
import { loadRenderer } from "./tablepage.js";

const AUTOPLAY_MS = 1200;

export function mountReplay(root, app, tableId) {
  let history = null;
  let renderer = null;
  let frame = null;
  let step = 0;
  let playing = null;
  let destroyed = false;

  const bar = h("header", { class: "tp-bar" });
  const controls = h("div", { class: "replay-controls", role: "group" });
  const body = h("div", { class: "tp-body" }, h("div", { class: "loading" }, t("common.loading")));
  root.append(h("div", { class: "tp tp--replay", dataset: { testid: "replay-page" } }, bar, controls, body));

  const seatOf = (n) => history?.table?.seats?.find((s) => s.seat === n) ?? null;
  const last = () => (history ? history.views.length - 1 : 0);

  function drawBar() {
    const g = app.gameInfo(history?.table?.game);
    fill(
      bar,
      h(
        "div",
        { class: "tp-title" },
        h("a", { href: `/t/${tableId}`, class: "back", dataset: { link: "" }, "aria-label": t("replay.back"), title: t("replay.back") }, "‹"),
        h("h1", { class: "tp-name" }, g ? gameTitle(g) : ""),
        h("span", { class: "badge badge--replay" }, t("replay.title")),
      ),
      h("div", { class: "tp-turn" }, h("span", { class: "tp-turn-text" }, caption())),
    );
  }

  function caption() {
    if (!history) return "";
    if (step === 0) return t("replay.start");
    const move = history.moves[step - 1];
    const who = move.seat === null || move.seat === undefined ? t("replay.table_move") : seatNameNode(seatOf(move.seat));
    const what = renderer?.describeMove?.(move.move, move.seat) ?? move.move?.type ?? "";
    return tn("replay.caption", { who: who instanceof Node ? who : h("span", null, who), what });
  }

  function button(name, label, testid, onclick, disabled) {
    return h(
      "button",
      { type: "button", class: "btn btn--icon", "aria-label": label, title: label, dataset: { testid, key: testid }, onclick, disabled },
      icon(name),
    );
  }

  function drawControls() {
    if (!history) return;
    const slider = h("input", {
      type: "range",
      min: 0,
      max: last(),
      value: step,
      "aria-label": t("replay.position"),
      dataset: { testid: "replay-slider" },
      oninput: (e) => go(Number(e.target.value)),
    });
    const focused = document.activeElement?.dataset?.testid;
    fill(
      controls,
      button("first", t("replay.first"), "replay-first", () => go(0), step === 0),
      button("prev", t("replay.prev"), "replay-prev", () => go(step - 1), step === 0),
      button(playing ? "pause" : "play", playing ? t("replay.pause") : t("replay.play"), "replay-play", toggle, false),
      button("next", t("replay.next"), "replay-next", () => go(step + 1), step === last()),
      button("last", t("replay.last"), "replay-last", () => go(last()), step === last()),
      slider,
      h("span", { class: "replay-step", dataset: { testid: "replay-step" } }, t("replay.step", { n: num(step), total: num(last()) })),
    );
    if (focused) controls.querySelector(`[data-testid="${focused}"]`)?.focus();
  }

  function go(k) {
    if (!history) return;
    step = Math.max(0, Math.min(last(), k));
    if (step === last()) stop();
    draw();
  }

  function toggle() {
    if (playing) stop();
    else {
      if (step === last()) step = 0;
      playing = setInterval(() => go(step + 1), AUTOPLAY_MS);
    }
    drawControls();
  }

  function stop() {
    clearInterval(playing);
    playing = null;
  }

  function snapshot() {
    const final = step === last();
    return {
      table: { ...history.table, status: final ? "finished" : "playing" },
      you: null,
      n: step,
      view: history.views[step],
      to_act: [],
      deadline: null,
      result: final ? history.views[step]?.result ?? history.table?.result ?? null : null,
    };
  }

  function draw() {
    if (!renderer) return;
    renderer.update(snapshot(), {
      kind: "replay",
      move: step ? history.moves[step - 1] : null,
      final: history.views[last()],
    });
    drawBar();
    drawControls();
  }

  function onKey(e) {
    if (e.target.closest?.("input, textarea, select, dialog")) return;
    if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(last());
    else return;
    e.preventDefault();
  }

  async function load() {
    try {
      const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/history`);
      if (!res.ok) {
        fill(
          body,
          h(
            "div",
            { class: "panel empty-page" },
            h("h1", null, res.status === 409 ? t("replay.not_finished") : t("table.not_found")),
            h("a", { class: "btn btn--primary", href: `/t/${tableId}`, dataset: { link: "" } }, t("replay.back")),
          ),
        );
        return;
      }
      history = await res.json();
    } catch {
      fill(body, h("div", { class: "panel empty-page" }, h("h1", null, t("error.generic", { code: "network" }))));
      return;
    }
    const mod = await loadRenderer(history.table.game);
    if (destroyed) return;
    renderer = mod.createTable({
      tableId,
      you: null,
      get table() {
        return history.table;
      },
      readonly: true,
      send: async () => {},
      requestAssist: async () => {},
      seat: seatOf,
      seatName: (n) => seatLabel(seatOf(n)),
      seatNameNode: (n) => seatNameNode(seatOf(n)),
      seatChip: (n, opts = {}) => {
        const s = seatOf(n);
        return s ? seatChip({ ...s, connected: true }, { link: true, ...opts }) : h("span");
      },
      standIn: (n, seat) => (history.moves[n - 1]?.actor === "timeout" ? standInBadge(seat, history.seat ?? null) : null),
      storage: { get: (_k, fallback = null) => fallback, set: () => {} },
      // A game's review of the finished game, if it has one (its renderer shows it).
      loadReview: async () => {
        const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/review`);
        if (!res.ok) throw new Error(`review ${res.status}`);
        return res.json();
      },
      goTo: (n) => {
        stop();
        go(n);
      },
      toast: () => {},
      errorText: app.errorText,
    });
    frame = createFrame(renderer);
    fill(body, frame.el);
    step = last();
    draw();
    // ?replay&review opens the review at once (the review panel, if the game has one).
    if (new URLSearchParams(location.search).has("review") && renderer.panels?.some((p) => p.id === "review")) {
      frame.show("review");
      renderer.openReview?.();
    }
    document.title = `${t("replay.title")} · ${gameTitle(app.gameInfo(history.table.game))}`;
  }

  const offs = [
    onLangChange(() => {
      frame?.draw();
      draw();
      if (!history) drawBar();
    }),
  ];
  document.addEventListener("keydown", onKey);
  drawBar();
  load();

  return {
    title: () => t("replay.title"),
    destroy() {
      destroyed = true;
      stop();
      frame?.destroy();
      renderer?.destroy?.();
      document.removeEventListener("keydown", onKey);
      for (const off of offs) off();
    },
  };
}
