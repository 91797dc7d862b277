// Tagiron's table: opponents' screens, the centre, the question cards, your
// rack, the answer log, the memo sheet, declaring, and the assistant.  The
// shell (bodoge/web/static/js/tablepage.js) calls createTable(ctx) once and
// update(snapshot, change) after every change; see bodoge/web/README.md.

import { fill, h, icon, loadStylesheet, sections } from "/static/js/dom.js";
import { t, tn } from "/static/js/i18n.js";
import { confirmDialog } from "/static/js/ui.js";
import { bitsText, createAssistPanel, normalise } from "./assist.js";
import { CARDS } from "./cards.js";
import { createCoach } from "./coach.js";
import { declareDialog } from "./declare.js";
import { createCardTips, describeCard, KIND_MARK } from "./explain.js";
import { cardText, logEntry, questionLabel } from "./log.js";
import { createMemo } from "./memo.js";
import { createReviewPanel } from "./review.js";
import { rulesPanel } from "./rules.js";
import { STRINGS } from "./strings.js";
import { rack, sortTiles, tileName } from "./tiles.js";

export const strings = STRINGS;

// The table's own stylesheet, loaded before the module resolves so the first
// drawing is already styled (no jump).
await loadStylesheet(new URL("./tagiron.css", import.meta.url).pathname);

const ASSIST_DELAY_MS = 60;

export function createTable(ctx) {
  let snap = null;
  let view = null;
  let selected = null; // face-up card id being asked
  let asking = false;
  let analysis = null;
  let assistTimer = null;
  let assistN = -1;
  let assistFailed = false;
  let assistUnavailable = false;
  let loggedCount = 0;
  let newSlot = null;
  const section = sections();

  // --- the board's sections -----------------------------------------------------
  const resultBox = h("section", { class: "tg-result-box", "aria-live": "polite" });
  const opps = h("section", { class: "tg-opps" });
  const centre = h("div", { class: "tg-centre" });
  const cards = h("div", { class: "tg-cards", role: "group" });
  const deck = h("div", { class: "tg-deck" });
  const felt = h("section", { class: "tg-felt" }, centre, h("div", { class: "tg-cardrow" }, cards, deck));
  const meHead = h("header", { class: "tg-me-head" });
  const meRack = h("div", { class: "tg-me-rack", dataset: { testid: "my-tiles" } });
  const actions = h("div", { class: "tg-actions" });
  const me = h("section", { class: "tg-me" }, meHead, meRack, actions);
  const board = h("div", { class: "tg", dataset: { testid: "tagiron" } }, resultBox, opps, felt, me);

  // --- panels ----------------------------------------------------------------------
  const log = h("ol", { class: "tg-log", dataset: { testid: "log" } });
  const logWrap = h("div", { class: "tg-log-wrap" }, log);
  // Whether the reader is at the end of the log (then new entries keep it there).
  let logAtEnd = true;
  logWrap.addEventListener(
    "scroll",
    () => {
      logAtEnd = logWrap.scrollHeight - logWrap.scrollTop - logWrap.clientHeight < 40;
    },
    { passive: true },
  );
  const memo = createMemo({ storage: ctx.storage });
  const assist = createAssistPanel({
    errorText: ctx.errorText,
    onRun: () => requestAssist(true),
    onToggleShow: (v) => {
      memo.setShowAssist(v);
      assist.set({ show: v });
      paintBits();
    },
  });
  assist.set({ show: memo.showAssist });
  const memoWrap = h("div", { class: "tg-memo-wrap" }, assist.el, memo.el);
  const rules = h("div", { class: "tg-rules-wrap" });
  // A finished game's replay may show its review (ctx.loadReview: the replay page's).
  const review = ctx.loadReview
    ? createReviewPanel({ load: ctx.loadReview, goTo: (n) => ctx.goTo?.(n), seatNameNode: (s) => ctx.seatNameNode(s) })
    : null;
  if (review) {
    review.onReady = () => {
      if (view) drawLog({ kind: "replay" });
    };
  }
  // A replay has no memo sheet: the notes are a player's own, kept for a live game.
  const panels = [
    { id: "log", label: () => t("tg.log.title"), icon: "list", el: logWrap, column: "a" },
    ctx.readonly ? null : { id: "memo", label: () => t("tg.memo.title"), icon: "grid", el: memoWrap, column: "b" },
    // Under the memo on a wide screen the rules open on demand (the memo needs the room).
    review ? { id: "review", label: () => t("tg.review.title"), icon: "chart", el: review.el, column: "b" } : null,
    // (A replay shows the review there instead, and the rules on demand under it.)
    { id: "rules", label: () => t("tg.rules.title"), icon: "deck", el: rules, column: "b", collapsible: !ctx.readonly || Boolean(review) },
  ].filter(Boolean);
  // A guided first game (ctx.coach): steps pointing at the parts of the table.
  const coach =
    ctx.coach && !ctx.readonly
      ? createCoach(ctx.coach, {
          targets: {
            tiles: () => meRack,
            cards: () => cards,
            log: () => logWrap,
            memo: () => memoWrap,
            declare: () => actions.querySelector("[data-testid=declare]"),
          },
          showPanel: (id) => ctx.showPanel?.(id),
        })
      : null;
  // Each question card explains itself (hover, keyboard focus, long press).
  const tips = createCardTips(cards, { size: () => handSize() });
  board.append(tips.el);

  const you = () => view?.you ?? null;
  const handSize = () => (view?.players === 4 ? 4 : 5);
  const over = () => view?.phase === "ended";
  const assistAllowed = () =>
    !ctx.readonly && Boolean(ctx.table?.assistant) && you() !== null && !over();


  // --- opponents' screens and the centre -------------------------------------------

  function seatBadges(s) {
    const badges = [];
    const status = view.status?.[s];
    const place = view.result?.places?.[s];
    if (place) badges.push(h("span", { class: ["badge", `badge--place`, `badge--place${place}`] }, t("tg.result.place", { n: place })));
    if (view.players > 2 && status === "right" && !place) badges.push(h("span", { class: "badge badge--right" }, t("tg.status.right")));
    if (status === "eliminated") badges.push(h("span", { class: "badge badge--out" }, t("tg.status.eliminated")));
    if (view.first === s && view.players === 2) badges.push(h("span", { class: "badge badge--first" }, t("tg.first_player")));
    return badges;
  }

  function drawOpps() {
    const seats = [];
    for (let s = 0; s < view.players; s++) if (s !== you()) seats.push(s);
    const revealed = view.revealed?.hands;
    const seatInfo = seats.map((s) => {
      const seat = ctx.seat(s);
      return [s, seat?.kind, seat?.player?.name, seat?.level, seat?.connected];
    });
    section(opps, "opps", [seatInfo, view.turn, view.status, view.result, view.hand_counts, revealed, view.first, view.players], () =>
      fill(
        opps,
        seats.map((s) =>
          h(
            "article",
            {
              class: [
                "tg-screen",
                view.turn === s && !over() && "is-turn",
                view.status?.[s] === "right" && "is-right",
                view.status?.[s] === "eliminated" && "is-out",
              ],
              dataset: { seat: s, testid: `screen-${s}` },
            },
            h(
              "header",
              { class: "tg-screen-head" },
              ctx.seatChip(s, { turn: view.turn === s && !over() }),
              h("span", { class: "tg-badges" }, seatBadges(s), h("span", { class: "tg-count", dataset: { testid: "tile-count" } }, t("tg.tile_count", { count: view.hand_counts[s] }))),
            ),
            h(
              "div",
              { class: "tg-screen-panel" },
              revealed
                ? rack(revealed[s], { size: view.players === 2 ? "lg" : "md", label: ctx.seatName(s) })
                : rack(view.hand_counts[s], { size: view.players === 2 ? "lg" : "md", label: ctx.seatName(s) }),
            ),
          ),
        ),
      ),
    );
  }

  function drawCentre() {
    const shown = view.players > 2;
    centre.hidden = !shown;
    if (!shown) return;
    const tiles = view.revealed?.centre;
    section(centre, "centre", [view.centre_size, tiles], () =>
      fill(
        centre,
        h("div", { class: "tg-centre-label" }, h("strong", null, t("tg.centre")), h("small", null, t("tg.centre_hint"))),
        tiles && tiles.length
          ? rack(tiles, { size: "md", positions: false, label: t("tg.centre") })
          : rack(view.centre_size, { size: "md", positions: false, label: t("tg.centre") }),
      ),
    );
  }

  // --- question cards -----------------------------------------------------------------

  function bitsFor(card) {
    if (!analysis || !memo.showAssist) return null;
    const qs = analysis.questions.filter((q) => q.card === card);
    return qs.length ? qs : null;
  }

  /**
   * The assistant's bits on each card, updated in place: an analysis arriving
   * never rebuilds the cards (a click on one must not lose its target).
   */
  function paintBits() {
    const best = analysis?.questions?.length ? Math.max(...analysis.questions.map((q) => q.bits)) : 0;
    for (const el of cards.querySelectorAll(".qc[data-card]")) {
      const bits = bitsFor(el.dataset.card);
      const slot = el.querySelector(".qc-bits-slot");
      if (!slot) continue;
      if (!bits) {
        slot.replaceChildren();
        continue;
      }
      // A choice card shows its better number (the panel lists both).
      const top = bits.reduce((a, b) => (b.bits > a.bits ? b : a));
      fill(
        slot,
        h(
          "span",
          {
            class: ["qc-bits", best > 0 && top.bits === best && "qc-bits--best"],
            title: bits.map((q) => `${q.choice ?? ""} ${bitsText(q.bits)}`.trim()).join(" / "),
            dataset: { testid: "card-bits" },
          },
          top.choice !== null ? `${top.choice}: ` : "",
          bitsText(top.bits),
        ),
      );
    }
  }

  function drawCards() {
    const mayAsk = Boolean(view.may_ask) && !ctx.readonly && !asking;
    cards.setAttribute("aria-label", t("tg.cards"));
    section(cards, "cards", [view.face_up, mayAsk, selected, view.players, newSlot !== null ? view.face_up[newSlot] : null], () => {
      cards.setAttribute("aria-label", t("tg.cards"));
      const slots = [];
      for (let i = 0; i < 6; i++) {
        const id = view.face_up[i];
        if (!id) {
          slots.push(h("div", { class: "qc qc--empty", "aria-hidden": "true" }));
          continue;
        }
        const card = CARDS[id];
        const isSel = selected === id;
        slots.push(
          h(
            "div",
            {
              class: ["qc", card.shared && "qc--shared", card.choices && "qc--choice", isSel && "qc--selected", mayAsk && "qc--live", newSlot === i && "qc--new", `qc--${card.kind}`],
              dataset: { card: id, testid: `card-${id}` },
            },
            h(
              "button",
              {
                type: "button",
                class: "qc-face",
                // Focusable even when it may not be asked: it still explains itself.
                "aria-disabled": mayAsk ? null : "true",
                "aria-expanded": mayAsk ? String(isSel) : null,
                "aria-describedby": `qc-desc-${id}`,
                dataset: { key: `card-${id}` },
                onclick: () => {
                  if (!mayAsk) return;
                  selected = isSel ? null : id;
                  drawCards();
                  if (selected) cards.querySelector(`[data-key="ask-${id}"]`)?.focus();
                },
              },
              h(
                "span",
                { class: "qc-top" },
                h("span", { class: "qc-kind", "aria-hidden": "true" }, KIND_MARK[card.kind] ?? "?"),
                card.shared ? h("span", { class: "qc-shared", title: t("tg.shared_long") }, icon("share", "icon icon--xs"), t("tg.shared")) : null,
              ),
              qcText(cardText(id)),
              // Named by what it shows (WCAG 2.5.3), the shared card's meaning spelt out.
              card.shared ? h("span", { class: "sr-only" }, ` (${t("tg.shared_long")})`) : null,
              h(
                "span",
                { class: "qc-bottom" },
                card.choices ? h("span", { class: "qc-choices" }, card.choices.map((n) => h("span", { class: "qc-num" }, String(n)))) : h("span"),
                h("span", { class: "qc-bits-slot" }),
              ),
            ),
            h("span", { id: `qc-desc-${id}`, hidden: true }, describeCard(id, handSize())),
            isSel && mayAsk
              ? h(
                  "div",
                  {
                    class: "qc-ask",
                    onkeydown: (e) => {
                      if (e.key === "Escape") {
                        selected = null;
                        drawCards();
                        cards.querySelector(`[data-key="card-${id}"]`)?.focus();
                      }
                    },
                  },
                  card.choices
                    ? card.choices.map((n, k) =>
                        h(
                          "button",
                          { type: "button", class: "btn btn--primary btn--sm", dataset: { key: k === 0 ? `ask-${id}` : `ask-${id}-${n}`, testid: `ask-${id}-${n}` }, onclick: () => ask(id, n) },
                          t("tg.ask_about", { n }),
                        ),
                      )
                    : h("button", { type: "button", class: "btn btn--primary btn--sm", dataset: { key: `ask-${id}`, testid: `ask-${id}` }, onclick: () => ask(id, null) }, t("tg.ask")),
                  h(
                    "button",
                    {
                      type: "button",
                      class: "btn btn--ghost btn--sm qc-cancel",
                      dataset: { key: `cancel-${id}` },
                      onclick: () => {
                        selected = null;
                        drawCards();
                      },
                    },
                    t("tg.cancel"),
                  ),
                )
              : null,
          ),
        );
      }
      fill(cards, slots);
    });
    paintBits();
    section(deck, "deck", [view.deck_count, view.players], () =>
      fill(
        deck,
        h(
          "div",
          { class: ["tg-deck-pile", view.deck_count === 0 && "tg-deck-pile--empty"], dataset: { testid: "deck" } },
          view.deck_count > 0 ? [h("span", { class: "tg-deck-card" }), h("span", { class: "tg-deck-card" }), h("span", { class: "tg-deck-card" })] : null,
          h("span", { class: "tg-deck-count" }, view.deck_count > 0 ? String(view.deck_count) : "0"),
        ),
        h("span", { class: "tg-deck-label" }, view.deck_count > 0 ? t("tg.deck") : t("tg.deck_empty")),
        view.players === 4 ? h("small", { class: "tg-deck-note" }, t("tg.everyone_answers")) : null,
      ),
    );
  }

  /** A card's question, its bracketed note (how to ask a choice card) set smaller. */
  function qcText(text) {
    const m = text.match(/^(.*?)\s*([（(].*[）)])$/);
    return h("span", { class: "qc-text" }, m ? [h("span", null, m[1]), h("small", { class: "qc-note" }, m[2])] : h("span", null, text));
  }

  async function ask(card, choice) {
    if (asking) return;
    asking = true;
    selected = null;
    drawCards();
    drawActions();
    try {
      await ctx.send({ type: "ask", card, choice });
    } catch (err) {
      ctx.toast(() => ctx.errorText(err), "error");
    } finally {
      asking = false;
      if (view) {
        drawCards();
        drawActions();
      }
    }
  }

  // --- your rack and the actions ---------------------------------------------------------

  function drawMe() {
    const mine = view.hand;
    me.hidden = !mine;
    if (!mine) return;
    const seat = ctx.seat(you());
    section(meHead, "me-head", [view.turn, view.status?.[you()], view.result?.places?.[you()], seat?.player?.name, seat?.connected, view.first], () =>
      fill(
        meHead,
        h("h2", { class: "tg-me-title" }, t("tg.your_tiles")),
        ctx.seatChip(you(), { turn: view.turn === you() && !over() }),
        h("span", { class: "tg-badges" }, seatBadges(you())),
      ),
    );
    section(meRack, "me-rack", [mine], () => fill(meRack, rack(mine, { size: "xl", label: t("tg.your_tiles") })));
  }

  function hint() {
    if (ctx.readonly) return "";
    if (you() === null) return t("tg.hint.watch");
    if (over()) return "";
    const status = view.status?.[you()];
    if (status === "right" && view.players > 2) return t("tg.hint.done_right");
    if (status === "eliminated") return t("tg.hint.done_out");
    if (view.turn === you()) {
      if (view.phase === "final_declaration") return t("tg.hint.final");
      if (view.phase === "last_turns") return t("tg.hint.last");
      return t("tg.hint.ask");
    }
    if (view.players > 2 && view.may_declare) return t("tg.hint.declare_any");
    return view.turn !== null && view.turn !== undefined ? tn("tg.hint.wait", { name: ctx.seatNameNode(view.turn) }) : "";
  }

  function drawActions() {
    const mayDeclare = Boolean(view.may_declare) && !ctx.readonly && !asking;
    const mayPass = Boolean(view.may_pass) && !ctx.readonly && !asking;
    const visible = !ctx.readonly && you() !== null && !over();
    const hintNow = hint();
    const hintKey = Array.isArray(hintNow) ? hintNow.map((x) => (x instanceof Node ? x.textContent : x)).join("") : hintNow;
    section(actions, "actions", [hintKey, mayDeclare, mayPass, visible, asking], () => {
      actions.hidden = !visible;
      fill(
        actions,
        h("p", { class: "tg-hint", dataset: { testid: "hint" } }, asking ? t("tg.asking") : hintNow),
        h(
          "div",
          { class: "tg-buttons" },
          mayPass
            ? h("button", { type: "button", class: "btn", dataset: { key: "pass", testid: "pass" }, onclick: pass }, t("tg.pass"))
            : null,
          h(
            "button",
            { type: "button", class: "btn btn--declare", disabled: !mayDeclare, dataset: { key: "declare", testid: "declare" }, onclick: declare },
            icon("spark", "icon icon--sm"),
            t("tg.declare"),
          ),
        ),
      );
    });
  }

  function memoFill() {
    const key = view.players === 2 ? `s${1 - you()}` : "centre";
    const cells = memo.marks(key);
    const size = view.players === 2 ? view.hand_counts[1 - you()] : view.centre_size;
    const codes = [];
    for (let p = 1; p <= size; p++) {
      const marked = Object.entries(cells).filter(([k, v]) => v === "o" && k.startsWith(`${p}:`));
      if (marked.length !== 1) return null;
      codes.push(marked[0][0].split(":")[1]);
    }
    return sortTiles(codes);
  }

  async function declare() {
    const codes = await declareDialog({
      view,
      fromMemo: memoFill,
      fromAssist: () => (analysis?.count === 1 && analysis.top[0] ? sortTiles(analysis.top[0].tiles) : null),
    });
    if (!codes) return;
    try {
      await ctx.send({ type: "declare", tiles: codes });
    } catch (err) {
      ctx.toast(() => ctx.errorText(err), "error");
    }
  }

  async function pass() {
    const ok = await confirmDialog({ title: t("tg.pass"), message: h("p", null, hint()), ok: t("tg.pass") });
    if (!ok) return;
    try {
      await ctx.send({ type: "pass" });
    } catch (err) {
      ctx.toast(() => ctx.errorText(err), "error");
    }
  }

  // --- the end ----------------------------------------------------------------------

  function drawResult() {
    const result = view.result;
    resultBox.hidden = !result;
    if (!result) return;
    const seats = [];
    for (let s = 0; s < view.players; s++) seats.push(s);
    seats.sort((a, b) => (view.result.places[a] ?? 99) - (view.result.places[b] ?? 99));
    const draw = result.winners?.length === view.players || !result.winners?.length;
    section(resultBox, "result", [result, view.revealed, seats.map((s) => ctx.seatName(s))], () =>
      fill(
        resultBox,
        h(
          "div",
          { class: "tg-result", dataset: { testid: "result" } },
          h(
            "header",
            { class: "tg-result-head" },
            icon("trophy", "icon tg-trophy"),
            h(
              "div",
              null,
              h("h2", null, you() !== null && result.winners?.includes(you()) && !draw ? t("tg.result.you_won") : draw && view.players === 2 ? t("tg.result.draw") : t("tg.result.title")),
              h("p", { class: "muted" }, t(`tg.result.reason.${result.reason}`)),
            ),
          ),
          h(
            "ol",
            { class: "stack-list" },
            seats.map((s) =>
              h(
                "li",
                { class: ["tg-place", view.result.places[s] === 1 && "tg-place--first"] },
                h("span", { class: ["place-badge", view.result.places[s] && `place-badge--${view.result.places[s]}`] }, view.result.places[s] ? t("tg.result.place", { n: view.result.places[s] }) : t("tg.result.unranked")),
                ctx.seatChip(s, { where: "result" }),
                view.revealed ? rack(view.revealed.hands[s], { size: "sm", label: ctx.seatName(s) }) : null,
              ),
            ),
          ),
          view.players > 2 && view.revealed
            ? h("div", { class: "tg-result-centre" }, h("strong", null, t("tg.centre")), rack(view.revealed.centre, { size: "sm", positions: false }))
            : null,
        ),
      ),
    );
  }

  // --- the log ---------------------------------------------------------------------

  /** Scroll the log to its end in the next frame (reading sizes now would force a layout). */
  function logToEnd() {
    requestAnimationFrame(() => {
      logWrap.scrollTop = logWrap.scrollHeight;
    });
  }

  function drawLog(change) {
    const near = logAtEnd;
    const entries = view.log ?? [];
    const incremental = change?.kind === "event" && loggedCount > 0 && entries.length >= loggedCount;
    if (!incremental) {
      fill(log, entries.length ? entries.map((e, i) => reviewed(logEntry(e, i, view, ctx), i)) : h("li", { class: "tg-log-empty muted" }, t("tg.log.empty")));
      loggedCount = entries.length;
      logToEnd();
      return;
    }
    if (entries.length > loggedCount) {
      if (loggedCount === 0) log.replaceChildren();
      for (let i = loggedCount; i < entries.length; i++) {
        const li = logEntry(entries[i], i, view, ctx);
        li.classList.add("lg--new");
        log.append(li);
      }
      loggedCount = entries.length;
      if (near) logToEnd();
    }
  }

  /** A log entry with the review's notes on it, once the review is shown. */
  function reviewed(li, i) {
    const notes = review?.note(i);
    if (notes) li.append(notes);
    return li;
  }

  // --- the assistant ---------------------------------------------------------------

  function requestAssist(now = false) {
    if (!assistAllowed() || (assistFailed && !now)) return;
    if (now) assistFailed = false;
    clearTimeout(assistTimer);
    assistTimer = setTimeout(
      () => {
        assistN = snap.n;
        assist.set({ loading: true });
        ctx.requestAssist().catch((err) => {
          // Shown in the panel, not as a toast: it may repeat after every move.
          assistFailed = true;
          if (err.code === "no_assistant") {
            assistUnavailable = true;
            assist.el.hidden = true;
          }
          assist.set({ loading: false, error: err });
        });
      },
      now ? 0 : ASSIST_DELAY_MS,
    );
  }

  function applyAssist(raw, n) {
    analysis = normalise(raw, view);
    assist.set({ analysis, error: null, loading: n !== undefined && n < snap.n });
    memo.update(view, ctx, { assist: analysis?.hands ?? {}, assistEnabled: true });
    paintBits();
    if (n !== undefined && n < snap.n && assistN < snap.n) requestAssist();
  }

  // --- update ---------------------------------------------------------------------

  function announce(events) {
    for (const e of events ?? []) {
      if (e.type === "declaration") {
        if (e.seat === you()) ctx.toast(() => (e.right ? t("tg.declare.you_right") : t("tg.declare.you_wrong")), e.right ? "ok" : "error", 4500);
        else ctx.toast(() => tn(e.right ? "tg.declare.someone_right" : "tg.declare.someone_wrong", { name: ctx.seatNameNode(e.seat) }), "info", 4000);
      }
    }
  }

  function update(next, change = { kind: "snapshot" }) {
    snap = next;
    if (change.kind === "assist") {
      if (view) applyAssist(change.analysis, change.n);
      return;
    }
    view = next.view;
    if (!view) return;
    if (change.kind === "lang" || change.kind === "snapshot" || change.kind === "replay") {
      section.reset();
    }
    if (review && change.kind === "replay") review.setStep(next.n);
    if (review && change.kind === "lang") review.redraw();
    if (change.kind === "event") {
      const revealed = (change.msg?.events ?? []).find((e) => e.type === "card_revealed");
      newSlot = revealed ? revealed.slot : null;
      if (selected && !view.face_up.includes(selected)) selected = null;
    } else {
      newSlot = null;
    }
    if (!view.may_ask) selected = null;
    if (ctx.readonly && change.final?.revealed && !view.revealed) {
      // A replay may show everything: the hands never change in Tagiron.
      view = { ...view, revealed: { ...change.final.revealed, replay: true } };
    }
    // Where the game stands, for tests and styling; never read by the renderer.
    Object.assign(board.dataset, { n: String(next.n), phase: view.phase, turn: String(view.turn ?? "") });
    drawResult();
    drawOpps();
    drawCentre();
    drawCards();
    tips.refresh();
    drawMe();
    drawActions();
    drawLog(change);
    section(rules, "rules", [view.players, assistAllowed()], () => fill(rules, rulesPanel(view.players, { bits: assistAllowed() })));
    memo.update(view, ctx, { force: change.kind === "lang", assistEnabled: assistAllowed() || Boolean(analysis) });
    if (assistAllowed() && (change.kind === "snapshot" || change.kind === "event")) requestAssist();
    // The panel shows while the assistant may be used (and its last analysis
    // stays at the end), unless the server has no assistant for this game.
    assist.el.hidden = assistUnavailable || !(assistAllowed() || analysis);
    if (change.kind === "lang") assist.set({});
    if (change.kind === "event") announce(change.msg?.events);
    coach?.update(view, next.n, change);
  }

  return {
    board,
    panels,
    update,
    turnText(s) {
      const v = s.view;
      if (!v || v.phase === "ended" || v.turn === null || v.turn === undefined) return null;
      const yours = v.turn === v.you;
      const name = ctx.seatNameNode(v.turn);
      if (v.phase === "final_declaration") return { text: yours ? t("tg.turn.final_yours") : tn("tg.turn.final_theirs", { name }), mine: yours };
      if (v.phase === "last_turns") return { text: yours ? t("tg.turn.last_yours") : tn("tg.turn.last_theirs", { name }), mine: yours };
      return { text: yours ? t("tg.turn.yours") : tn("tg.turn.theirs", { name }), mine: yours };
    },
    openReview() {
      review?.open();
    },
    describeMove(move) {
      if (move?.type === "ask") {
        return move.choice === null || move.choice === undefined
          ? t("tg.move.ask", { card: questionLabel(move.card, null) })
          : t("tg.move.ask_choice", { card: t(`tg.card.${move.card}`), n: move.choice });
      }
      if (move?.type === "declare") return t("tg.move.declare", { tiles: (move.tiles ?? []).map(tileName).join(t("common.list_sep")) });
      if (move?.type === "pass") return t("tg.move.pass");
      return "";
    },
    destroy() {
      coach?.destroy();
      tips.destroy();
      clearTimeout(assistTimer);
      memo.flush();
    },
  };
}
