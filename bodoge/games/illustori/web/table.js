// Illustori's table: everyone's hand counts, the chain of pictures and words,
// the vote, your hand (play a card with a word, or exchange cards), the log,
// the rules.  The shell (bodoge/web/static/js/tablepage.js) calls
// createTable(ctx) once and update(snapshot, change) after every change; see
// bodoge/web/README.md.  The view and events it draws are described in
// docs/rules/illustori.md.

import { clockText, fill, h, icon, loadStylesheet, sections, userText } from "/static/js/dom.js";
import { t, tn } from "/static/js/i18n.js";
import { confirmDialog } from "/static/js/ui.js";
import { card, loadAlt } from "./cards.js";
import { MAX_WORD, PENALTIES, REFUSED, check, ends } from "./kana.js";
import { createLog } from "./log.js";
import { rulesPanel } from "./rules.js";
import { STRINGS } from "./strings.js";

export const strings = STRINGS;

// The table's own stylesheet, loaded before the module resolves so the first
// drawing is already styled (no jump).
await loadStylesheet(new URL("./illustori.css", import.meta.url).pathname);

const OPENMOJI_URL = "https://openmoji.org/";
const LICENSE_URL = "https://creativecommons.org/licenses/by-sa/4.0/";

export function createTable(ctx) {
  let snap = null;
  let view = null;
  // What the player has typed, and the card it names, survive a reload (kept per table and seat).
  const saved = ctx.readonly ? null : ctx.storage.get("draft", null);
  const text = (v) => (typeof v === "string" ? v : "");
  let selected = Number.isInteger(saved?.card) ? saved.card : null; // the hand card chosen to play
  let exchanging = false; // choosing cards to exchange
  const swap = new Set();
  let busy = false;
  const draft = { word: text(saved?.word), head: text(saved?.head), tail: text(saved?.tail) };
  const section = sections();

  // --- the board --------------------------------------------------------------------
  const resultBox = h("section", { class: "il-result-box", "aria-live": "polite" });
  const notice = h("div", { class: "il-notice", role: "status" });
  const seatsBox = h("section", { class: "il-seats", "aria-label": t("il.players") });
  const chainList = h("ol", { class: "il-chain", dataset: { testid: "chain" } });
  const chainWrap = h("div", { class: "il-chain-wrap", tabindex: "0" }, chainList);
  const nextBox = h("div", { class: "il-next" });
  const chainBox = h("section", { class: "il-chain-box" }, chainWrap, nextBox);
  const stage = h("section", { class: "il-stage" });
  const handHead = h("header", { class: "il-hand-head" });
  const handCards = h("div", { class: "il-hand", role: "group", dataset: { testid: "hand" } });
  const actions = h("div", { class: "il-actions" });
  const handBox = h("section", { class: "il-hand-box" }, handHead, handCards, actions);
  const credit = h("footer", { class: "il-credit" });
  const board = h("div", { class: "il", dataset: { testid: "illustori" } }, resultBox, notice, seatsBox, stage, chainBox, handBox, credit);

  // Whether the reader is at the end of the chain (then new words keep it there).
  let chainAtEnd = true;
  chainWrap.addEventListener(
    "scroll",
    () => {
      chainAtEnd = chainWrap.scrollWidth - chainWrap.scrollLeft - chainWrap.clientWidth < 60;
    },
    { passive: true },
  );

  // A narrower screen (a phone turned, a window resized) keeps the newest word in view.
  const resized = new ResizeObserver(() => {
    if (chainAtEnd) chainWrap.scrollLeft = chainWrap.scrollWidth;
  });
  resized.observe(chainWrap);

  const log = createLog(ctx);
  const rules = h("div", { class: "il-rules-wrap" });
  const panels = [{ id: "log", label: () => t("il.log.title"), icon: "list", el: log.el, column: "a" }];
  // The rules show only when the table's options ask for them (the first view tells).
  const rulesEntry = { id: "rules", label: () => t("il.rules.title"), icon: "deck", el: rules, column: "b" };
  if (ctx.table?.options?.show_rules !== false) panels.push(rulesEntry);

  const you = () => (view && view.you !== undefined ? view.you : null);
  const language = () => view?.options?.language ?? "ja";
  const over = () => view?.phase === "ended";
  const myTurn = () => !ctx.readonly && view?.phase === "play" && view.turn === you() && you() !== null;
  const isGiver = () => !ctx.readonly && view?.phase === "first_word" && view.first_word_giver === you();
  const isVoter = () => view?.phase === "vote" && you() !== null && view.pending && view.pending.seat !== you();
  const name = (s) => ctx.seatNameNode(s);

  function keepDraft() {
    if (ctx.readonly) return;
    const any = draft.word || draft.head || draft.tail || selected !== null;
    ctx.storage.set("draft", any ? { ...draft, card: selected } : null);
  }


  // --- everyone: hand counts, turn, giver, who has voted -----------------------------

  function voteMark(s) {
    if (view.phase !== "vote" || !view.votes) return null;
    if (view.pending?.seat === s) return h("span", { class: "il-mark il-mark--author" }, t("il.seat.author"));
    if (s === you() && view.votes.yours !== null) return h("span", { class: "il-mark il-mark--voted" }, icon("check", "icon icon--xs"), t("il.seat.voted"));
    if (!view.votes.voted) return null; // secret: nobody's status is shown
    if (view.votes.voted.includes(s)) return h("span", { class: "il-mark il-mark--voted", dataset: { testid: `voted-${s}` } }, icon("check", "icon icon--xs"), t("il.seat.voted"));
    return h("span", { class: "il-mark il-mark--waiting" }, t("il.seat.voting"));
  }

  function active(s) {
    if (view.phase === "first_word") return view.first_word_giver === s;
    if (view.phase === "play") return view.turn === s;
    if (view.phase === "vote") return (view.votes?.awaited ?? []).includes(s) || (s === you() && isVoter() && view.votes?.yours === null);
    return false;
  }

  function drawSeats() {
    const seats = [];
    for (let s = 0; s < view.players; s++) seats.push(s);
    const who = seats.map((s) => {
      const seat = ctx.seat(s);
      return [seat?.kind, seat?.player?.name, seat?.level, seat?.connected];
    });
    const winners = view.result?.winners ?? [];
    section(seatsBox, "seats", [who, view.hand_counts, view.phase, view.turn, view.first_word_giver, view.votes, winners, view.pending?.seat, you()], () => {
      seatsBox.setAttribute("aria-label", t("il.players"));
      fill(
        seatsBox,
        h(
          "ol",
          { class: "il-seat-list" },
          seats.map((s) =>
            h(
              "li",
              { class: ["il-seat", active(s) && !over() && "is-active", s === you() && "is-you", winners.includes(s) && "is-winner"], dataset: { seat: s, testid: `seat-${s}` } },
              ctx.seatChip(s, { turn: active(s) && !over() }),
              h(
                "span",
                { class: "il-seat-info" },
                h(
                  "span",
                  { class: "il-count", title: t("il.seat.cards", { count: view.hand_counts[s] }), dataset: { testid: "hand-count" } },
                  h("span", { class: "il-backs", "aria-hidden": "true" }, Array.from({ length: Math.min(view.hand_counts[s], 5) }, () => h("span", { class: "il-back" }))),
                  h("span", { class: "il-count-n" }, t("il.seat.cards", { count: view.hand_counts[s] })),
                ),
                view.first_word_giver === s ? h("span", { class: "il-mark il-mark--giver", title: t("il.seat.giver_long") }, t("il.seat.giver")) : null,
                winners.includes(s) ? h("span", { class: "il-mark il-mark--win" }, icon("trophy", "icon icon--xs"), t("il.seat.winner")) : null,
                voteMark(s),
              ),
            ),
          ),
        ),
      );
    });
  }

  // --- the chain ------------------------------------------------------------------------

  /** How a word in kanji (or anything but kana) begins and ends, as its player stated. */
  function reading(w) {
    if (language() !== "ja") return null;
    const own = ends(w.word, "ja");
    if (own.head && own.tail) return null;
    return h("small", { class: "il-reading", lang: "ja" }, `${w.head}…${w.tail}`);
  }

  function drawChain() {
    const chain = view.chain;
    chainBox.hidden = view.phase === "first_word";
    const names = chain.map((w) => ctx.seatName(w.seat));
    section(chainList, "chain", [chain, names, view.deck, language()], () => {
      const near = chainAtEnd;
      fill(
        chainList,
        chain.length
          ? chain.map((w, i) => {
              const newest = i === chain.length - 1;
              return h(
                "li",
                { class: ["il-link", newest && "il-link--newest"], dataset: { testid: "chain-word", index: i } },
                i > 0 ? h("span", { class: "il-joint", title: t("il.chain.joint") }, h("span", { class: "il-joint-char", lang: language() }, w.head)) : null,
                card(view.deck, w.card, {
                  size: newest ? "lg" : "sm",
                  word: w.word,
                  who: [reading(w), h("small", { class: "il-who" }, name(w.seat))],
                }),
              );
            })
          : h("li", { class: "il-chain-empty muted" }, t("il.chain.empty")),
      );
      if (near || chain.length <= 1) {
        requestAnimationFrame(() => {
          chainWrap.scrollLeft = chainWrap.scrollWidth;
        });
      }
    });
    chainWrap.setAttribute("aria-label", t("il.chain.title"));
    const bans = view.options.ban_used_joints;
    section(nextBox, "next", [view.next_heads, view.used_joints, bans, view.options.ban_same_ends, view.phase, view.deck_count, view.discard_count, language()], () =>
      fill(
        nextBox,
        view.next_heads.length && !over()
          ? h(
              "p",
              { class: "il-next-line", dataset: { testid: "next-heads" } },
              h("span", { class: "il-next-label" }, t("il.next.label")),
              h("span", { class: "il-heads" }, view.next_heads.map((c) => h("span", { class: "il-head", lang: language() }, c))),
            )
          : h("p", { class: "il-next-line muted" }, view.phase === "first_word" ? t("il.next.first") : ""),
        bans
          ? h(
              "p",
              { class: "il-joints", dataset: { testid: "used-joints" } },
              h("span", { class: "il-next-label" }, t("il.joints.label")),
              view.used_joints.length
                ? view.used_joints.map((c) => h("span", { class: "il-used", lang: language() }, c))
                : h("span", { class: "muted" }, t("il.joints.none")),
            )
          : null,
        view.options.ban_same_ends ? h("p", { class: "il-ban muted small" }, t("il.rules.ban_same_ends_short")) : null,
        h(
          "p",
          { class: "il-piles muted small" },
          icon("deck", "icon icon--xs"),
          t("il.piles", { deck: view.deck_count, discards: view.discard_count }),
        ),
      ),
    );
  }

  // --- the stage: the first card, the vote, the last vote's outcome ---------------------

  function countdown() {
    if (view.phase !== "vote" || !view.vote_seconds) return null;
    return h(
      "div",
      { class: "il-countdown", dataset: { testid: "countdown" } },
      h("span", { class: "il-countdown-text" }, ""),
      h("span", { class: "il-countdown-bar", "aria-hidden": "true" }, h("span", { class: "il-countdown-fill" })),
      h("small", { class: "muted" }, t("il.vote.limit_note")),
    );
  }

  function tick() {
    const el = stage.querySelector(".il-countdown");
    if (!el || !snap?.clock) return;
    const left = Math.max(0, (Date.parse(snap.clock) - Date.now()) / 1000);
    el.querySelector(".il-countdown-text").textContent = t("il.vote.left", { time: clockText(left) });
    el.querySelector(".il-countdown-fill").style.width = `${Math.min(100, (left / view.vote_seconds) * 100)}%`;
    el.classList.toggle("il-countdown--low", left <= 8);
  }

  function voteButtons() {
    if (ctx.readonly || you() === null) return null;
    if (view.pending.seat === you()) return h("p", { class: "il-vote-note" }, t("il.vote.yours_wait"));
    const mine = view.votes?.yours;
    if (mine !== null && mine !== undefined) {
      return h(
        "p",
        { class: ["il-vote-note", mine ? "il-vote-note--ok" : "il-vote-note--ng"], dataset: { testid: "my-vote" } },
        mine ? t("il.vote.you_ok") : t("il.vote.you_ng"),
      );
    }
    return h(
      "div",
      { class: "il-vote-buttons" },
      h("button", { type: "button", class: "btn il-btn-ok", disabled: busy, dataset: { key: "vote-ok", testid: "vote-ok" }, onclick: () => vote(true) }, icon("check", "icon"), t("il.vote.ok")),
      h("button", { type: "button", class: "btn il-btn-ng", disabled: busy, dataset: { key: "vote-ng", testid: "vote-ng" }, onclick: () => vote(false) }, icon("cross", "icon"), t("il.vote.ng")),
    );
  }

  function voterStatus() {
    const votes = view.votes;
    if (!votes) return null;
    if (!votes.voted) {
      return h(
        "p",
        { class: "il-tally", dataset: { testid: "vote-count" } },
        h("span", { class: "il-pips", "aria-hidden": "true" }, Array.from({ length: votes.voters }, (_, i) => h("span", { class: ["il-pip", i < votes.cast && "il-pip--on"] }))),
        t("il.vote.count", { cast: votes.cast, voters: votes.voters }),
        h("small", { class: "muted" }, t("il.vote.secret_note")),
      );
    }
    return h(
      "ul",
      { class: "il-voters", dataset: { testid: "voters" } },
      [...votes.voted.map((s) => [s, true]), ...votes.awaited.map((s) => [s, false])]
        .sort((a, b) => a[0] - b[0])
        .map(([s, done]) =>
          h(
            "li",
            { class: ["il-voter", done && "il-voter--done"] },
            done ? icon("check", "icon icon--xs") : h("span", { class: "il-dots", "aria-hidden": "true" }, "…"),
            h("span", null, name(s)),
            h("span", { class: "sr-only" }, done ? t("il.seat.voted") : t("il.seat.voting")),
          ),
        ),
    );
  }

  function lastVote() {
    const last = view.last_vote;
    if (!last || view.phase === "vote" || over()) return null;
    const play = last.play;
    return h(
      "div",
      { class: ["il-last", last.passed ? "il-last--passed" : "il-last--failed"], dataset: { testid: "last-vote" } },
      card(view.deck, play.card, { size: "sm" }),
      h(
        "div",
        { class: "il-last-text" },
        h("p", { class: "il-last-head" }, last.passed ? icon("check", "icon icon--sm") : icon("cross", "icon icon--sm"), h("span", null, tn(last.passed ? "il.last.passed" : "il.last.failed", { word: userText(play.word) }))),
        h(
          "p",
          { class: "muted small" },
          tn("il.last.by", { name: name(play.seat) }),
          " · ",
          t("il.last.count", { ok: last.ok, ng: last.ng }),
          last.timed_out ? ` · ${t("il.last.timed_out", { count: last.timed_out })}` : "",
        ),
        last.votes
          ? h(
              "p",
              { class: "il-last-votes" },
              last.votes.map((v) => h("span", { class: ["il-chipvote", v.ok ? "il-chipvote--ok" : "il-chipvote--ng"] }, name(v.seat), " ", v.ok ? t("il.vote.ok") : t("il.vote.ng"))),
            )
          : null,
      ),
    );
  }

  function drawStage() {
    const names = [];
    for (let s = 0; s < view.players; s++) names.push(ctx.seatName(s));
    const key = [view.phase, view.pending, view.votes, view.last_vote, view.first_card, view.first_word_giver, you(), busy, names, view.deck, language(), isGiver() && selected];
    section(stage, "stage", key, () => {
      if (view.phase === "first_word") {
        fill(
          stage,
          h(
            "div",
            { class: "il-first", dataset: { testid: "first-card" } },
            card(view.deck, view.first_card, { size: "xl" }),
            h(
              "div",
              { class: "il-first-text" },
              h("h2", null, t("il.first.title")),
              isGiver() ? h("p", null, t("il.first.yours")) : h("p", null, tn("il.first.theirs", { name: name(view.first_word_giver) })),
              isGiver() ? wordForm(true) : null,
            ),
          ),
        );
        return;
      }
      if (view.phase === "vote" && view.pending) {
        const p = view.pending;
        fill(
          stage,
          h(
            "div",
            { class: ["il-vote", isVoter() && view.votes?.yours === null && "il-vote--mine"], dataset: { testid: "vote" } },
            h("h2", { class: "il-vote-title" }, tn("il.vote.title", { name: name(p.seat) })),
            h(
              "div",
              { class: "il-vote-body" },
              card(view.deck, p.card, { size: "xl" }),
              h(
                "div",
                { class: "il-vote-side" },
                h("p", { class: "il-vote-word", dataset: { testid: "vote-word" } }, userText(p.word)),
                h("p", { class: "il-vote-ends", lang: language() }, h("span", { class: "il-head" }, p.head), h("span", { class: "il-ends-dots" }, "…"), h("span", { class: "il-head" }, p.tail)),
                h("p", { class: "muted small" }, t("il.vote.question")),
                voteButtons(),
                voterStatus(),
                countdown(),
              ),
            ),
          ),
        );
        tick();
        return;
      }
      fill(stage, lastVote());
    });
  }

  // --- your hand and what you can do with it -------------------------------------------

  function handKey() {
    return [view.hand, selected, exchanging, [...swap], myTurn(), busy, view.deck, language(), view.phase];
  }

  function drawHand() {
    const hand = view.hand;
    handBox.hidden = !hand || (over() && !hand.length);
    if (!hand) return;
    if (selected !== null && !hand.includes(selected)) selected = null;
    for (const c of [...swap]) if (!hand.includes(c)) swap.delete(c);
    if (!myTurn()) {
      exchanging = false;
      swap.clear();
    }
    section(handHead, "hand-head", [hand.length, myTurn(), exchanging, language(), view.phase], () =>
      fill(
        handHead,
        h("h2", { class: "il-hand-title" }, t("il.hand.title"), h("span", { class: "il-hand-n" }, t("il.seat.cards", { count: hand.length }))),
        myTurn()
          ? h(
              "div",
              { class: "segmented il-mode", role: "radiogroup", "aria-label": t("il.hand.mode") },
              [
                [false, t("il.hand.play")],
                [true, t("il.hand.exchange")],
              ].map(([mode, label]) =>
                h(
                  "button",
                  {
                    type: "button",
                    role: "radio",
                    class: ["seg", exchanging === mode && "seg--on"],
                    "aria-checked": String(exchanging === mode),
                    dataset: { key: `mode-${mode ? "exchange" : "play"}`, testid: `mode-${mode ? "exchange" : "play"}` },
                    onclick: () => {
                      exchanging = mode;
                      selected = null;
                      keepDraft();
                      swap.clear();
                      drawHand();
                    },
                  },
                  label,
                ),
              ),
            )
          : null,
      ),
    );
    section(handCards, "hand", handKey(), () => {
      handCards.setAttribute("aria-label", t("il.hand.title"));
      const live = myTurn() && !busy;
      fill(
        handCards,
        hand.length
          ? hand.map((c) => {
              const on = exchanging ? swap.has(c) : selected === c;
              return card(view.deck, c, {
                size: "hand",
                tag: "button",
                props: {
                  type: "button",
                  class: ["ic--pick", on && "ic--on", exchanging && "ic--swap", !live && "ic--idle"],
                  disabled: !live,
                  "aria-pressed": String(on),
                  dataset: { key: `hand-${c}`, testid: `hand-${c}` },
                  onclick: () => pick(c),
                },
                extra: exchanging ? h("span", { class: "ic-tick", "aria-hidden": "true" }, on ? icon("check", "icon icon--sm") : null) : null,
              });
            })
          : h("p", { class: "muted il-hand-empty" }, t("il.hand.empty")),
      );
    });
    drawActions();
  }

  function pick(c) {
    if (exchanging) {
      if (swap.has(c)) swap.delete(c);
      else swap.add(c);
      drawHand();
      return;
    }
    selected = selected === c ? null : c;
    keepDraft();
    drawHand();
    if (selected !== null) actions.querySelector("[data-key=word]")?.focus();
  }

  function hint() {
    if (ctx.readonly) return "";
    if (you() === null) return t("il.hint.watch");
    if (over()) return "";
    if (view.phase === "first_word") return view.first_word_giver === you() ? "" : tn("il.hint.first_wait", { name: name(view.first_word_giver) });
    if (view.phase === "vote") return view.pending?.seat === you() ? t("il.hint.wait_votes") : view.votes?.yours === null ? t("il.hint.vote") : t("il.hint.wait_others");
    if (myTurn()) return exchanging ? t("il.hint.exchange") : selected === null ? t("il.hint.pick") : "";
    return tn("il.hint.wait", { name: name(view.turn) });
  }

  function drawActions() {
    const h0 = hint();
    const hintKey = Array.isArray(h0) ? h0.map((x) => (x instanceof Node ? x.textContent : x)).join("") : h0;
    section(actions, "actions", [hintKey, selected, exchanging, [...swap], myTurn(), busy, view.next_heads, view.used_joints, language()], () => {
      const parts = [];
      if (hintKey) parts.push(h("p", { class: "il-hint", dataset: { testid: "hint" } }, h0));
      if (myTurn() && exchanging) {
        parts.push(
          h(
            "div",
            { class: "il-buttons" },
            h(
              "button",
              { type: "button", class: "btn btn--primary", disabled: !swap.size || busy, dataset: { key: "exchange", testid: "exchange" }, onclick: exchange },
              t("il.hand.exchange_n", { count: swap.size }),
            ),
            h(
              "button",
              {
                type: "button",
                class: "btn btn--ghost",
                dataset: { key: "exchange-cancel" },
                onclick: () => {
                  exchanging = false;
                  swap.clear();
                  drawHand();
                },
              },
              t("common.cancel"),
            ),
          ),
        );
      } else if (myTurn() && selected !== null) {
        parts.push(wordForm(false));
      }
      fill(actions, parts);
    });
  }

  // --- the word form ---------------------------------------------------------------------

  /** The form that names a card: the word, and in Japanese its first and last kana. */
  function wordForm(first) {
    const ja = language() === "ja";
    const heads = first ? null : view.next_heads;
    const word = h("input", {
      id: "il-word",
      class: "il-word-input",
      value: draft.word,
      maxlength: MAX_WORD + 20,
      autocomplete: "off",
      spellcheck: "false",
      enterkeyhint: "send",
      lang: language(),
      placeholder: heads ? t("il.form.placeholder_from", { heads: heads.join(t("il.or")) }) : t("il.form.placeholder"),
      "aria-describedby": "il-flag",
      dataset: { key: "word", testid: "word" },
      oninput: (e) => {
        draft.word = e.target.value;
        keepDraft();
        refresh();
      },
      onkeydown: (e) => {
        if (e.key === "Escape") cancel();
      },
    });
    const end = (which) =>
      h("input", {
        id: `il-${which}`,
        class: "il-kana-input",
        value: draft[which],
        maxlength: 8,
        autocomplete: "off",
        lang: "ja",
        placeholder: t("il.form.kana"),
        dataset: { key: which, testid: which },
        oninput: (e) => {
          if (!e.target.readOnly) draft[which] = e.target.value;
          keepDraft();
          refresh();
        },
        onkeydown: (e) => {
          if (e.key === "Escape") cancel();
        },
      });
    const headInput = ja ? end("head") : null;
    const tailInput = ja ? end("tail") : null;
    const flag = h("p", { id: "il-flag", class: "il-flag", "aria-live": "polite", dataset: { testid: "flag" } });
    const send = h("button", { type: "submit", class: "btn btn--primary il-send", dataset: { key: "send", testid: "send" } });
    const form = h(
      "form",
      {
        class: "il-form",
        dataset: { testid: "word-form" },
        onsubmit: (e) => {
          e.preventDefault();
          submit(first, judgement());
        },
      },
      heads
        ? h(
            "p",
            { class: "il-need", dataset: { testid: "need" } },
            t("il.form.need"),
            h("span", { class: "il-heads" }, heads.map((c) => h("span", { class: "il-head il-head--sm", lang: language() }, c))),
          )
        : null,
      h("label", { class: "field-label", for: "il-word" }, first ? t("il.form.first_word") : t("il.form.word")),
      h("div", { class: "il-word-row" }, word, send),
      ja
        ? h(
            "div",
            { class: "il-ends" },
            h("label", { class: "il-end", for: "il-head" }, h("span", null, t("il.form.head")), headInput),
            h("span", { class: "il-end-arrow", "aria-hidden": "true" }, "…"),
            h("label", { class: "il-end", for: "il-tail" }, h("span", null, t("il.form.tail")), tailInput),
            h("small", { class: "muted il-ends-help" }, t("il.form.ends_help")),
          )
        : null,
      flag,
      first ? null : h("button", { type: "button", class: "btn btn--ghost btn--sm il-cancel", dataset: { key: "cancel" }, onclick: cancel }, t("il.form.other_card")),
    );

    function judgement() {
      return check({
        word: draft.word,
        language: language(),
        nextHeads: heads,
        head: ja ? draft.head : null,
        tail: ja ? draft.tail : null,
        banSameEnds: view.options.ban_same_ends,
        usedJoints: view.options.ban_used_joints ? view.used_joints : null,
      });
    }

    function refresh() {
      const j = judgement();
      if (ja) {
        for (const [input, own, which] of [
          [headInput, j.ownHead, "head"],
          [tailInput, j.ownTail, "tail"],
        ]) {
          const auto = Boolean(own);
          input.readOnly = auto;
          input.classList.toggle("is-auto", auto);
          input.value = auto ? own : draft[which];
          input.required = !auto && draft.word.trim() !== "";
          input.setAttribute("aria-label", auto ? t("il.form.auto", { kana: own }) : t(`il.form.${which}`));
        }
      }
      const refused = REFUSED.has(j.reason) || (first && PENALTIES.has(j.reason));
      const penalty = !first && PENALTIES.has(j.reason);
      flag.className = ["il-flag", j.reason === "ok" ? "il-flag--ok" : penalty ? "il-flag--warn" : draft.word.trim() ? "il-flag--bad" : ""].join(" ");
      flag.dataset.reason = j.reason;
      fill(flag, draft.word.trim() || j.reason !== "empty" ? flagText(j, heads, first) : "");
      send.disabled = refused || busy;
      fill(send, icon("send", "icon icon--sm"), penalty ? t("il.form.send_anyway") : first ? t("il.form.send_first") : t("il.form.send"));
    }

    refresh();
    return form;
  }

  function flagText(j, heads, first) {
    if (j.reason === "ok") return [icon("check", "icon icon--xs"), t(first ? "il.flag.ok_first" : "il.flag.ok")];
    const params = { heads: (heads ?? []).join(t("il.or")), tail: j.tail ?? "", max: MAX_WORD };
    if (first && PENALTIES.has(j.reason)) return t(`il.flag.first_${j.reason}`, params);
    return t(`il.flag.${j.reason}`, params);
  }

  function cancel() {
    selected = null;
    keepDraft();
    drawHand();
    handCards.querySelector("button:not([disabled])")?.focus();
  }

  async function submit(first, j) {
    if (busy) return;
    const ja = language() === "ja";
    if (REFUSED.has(j.reason) || (first && PENALTIES.has(j.reason))) return;
    if (!first && PENALTIES.has(j.reason)) {
      const ok = await confirmDialog({
        title: t("il.penalty.confirm_title"),
        message: t(`il.flag.${j.reason}`, { tail: j.tail ?? "", heads: "", max: MAX_WORD }),
        ok: t("il.form.send_anyway"),
        danger: true,
        testid: "penalty-confirm",
      });
      if (!ok) return;
    }
    const move = first ? { type: "first_word", word: draft.word.trim() } : { type: "play", card: selected, word: draft.word.trim() };
    if (ja && !j.ownHead) move.head = draft.head.trim();
    if (ja && !j.ownTail) move.tail = draft.tail.trim();
    await act(move, () => {
      draft.word = draft.head = draft.tail = "";
      selected = null;
      keepDraft();
    });
  }

  async function exchange() {
    if (!swap.size) return;
    const cards = [...swap];
    await act({ type: "exchange", cards }, () => {
      exchanging = false;
      swap.clear();
    });
  }

  async function vote(ok) {
    await act({ type: "vote", ok });
  }

  /** Send a move; `done` runs once the server accepted it. */
  async function act(move, done = null) {
    busy = true;
    redraw();
    try {
      await ctx.send(move);
      done?.();
    } catch (err) {
      ctx.toast(() => ctx.errorText(err), "error");
    } finally {
      busy = false;
      if (view) redraw();
    }
  }

  // --- the end, the notices, the credit ---------------------------------------------------

  function drawResult() {
    const result = view.result;
    resultBox.hidden = !result;
    if (!result) return;
    const names = [];
    for (let s = 0; s < view.players; s++) names.push(ctx.seatName(s));
    section(resultBox, "result", [result, view.hand_counts, names, you()], () => {
      const winners = result.winners ?? [];
      const youWon = you() !== null && winners.includes(you());
      const order = names.map((_, s) => s).sort((a, b) => (result.places[a] ?? 99) - (result.places[b] ?? 99) || a - b);
      const title = youWon ? (winners.length > 1 ? t("il.result.you_share") : t("il.result.you_won")) : winners.length > 1 ? t("il.result.shared") : t("il.result.title");
      fill(
        resultBox,
        h(
          "div",
          { class: "il-result", dataset: { testid: "result" } },
          h(
            "header",
            { class: "il-result-head" },
            icon("trophy", "icon il-trophy"),
            h(
              "div",
              null,
              h("h2", null, title),
              h("p", { class: "il-winners", dataset: { testid: "winners" } }, tn("il.result.winners", { names: h("span", null, winners.flatMap((s, i) => (i ? [t("common.list_sep"), name(s)] : [name(s)]))) })),
              result.reason === "stalled" ? h("p", { class: "muted small", dataset: { testid: "stalled" } }, t("il.result.stalled")) : null,
            ),
          ),
          h(
            "ol",
            { class: "il-places" },
            order.map((s) =>
              h(
                "li",
                { class: ["il-place", result.places[s] === 1 && "il-place--first"] },
                h("span", { class: ["place-badge", `place-badge--${result.places[s]}`] }, result.places[s] === 1 ? t("il.result.won") : t("il.result.place", { n: result.places[s] })),
                ctx.seatChip(s, { where: "result" }),
                h("span", { class: "muted small" }, t("il.result.left", { count: view.hand_counts[s] })),
              ),
            ),
          ),
        ),
      );
    });
  }

  function drawNotice() {
    const show = view.final_round && !over();
    // A round without a word: tell everyone how close the table is to ending, stalled.
    const idle = view.idle_turns ?? 0;
    const stalling = !over() && !view.final_round && view.stall_turns && idle >= view.players;
    notice.hidden = !show && !stalling;
    section(notice, "notice", [show, stalling, idle, view.first_word_giver, ctx.seatName(view.first_word_giver), you()], () =>
      fill(
        notice,
        show
          ? h(
              "p",
              { class: "il-final", dataset: { testid: "final-round" } },
              h("strong", null, t("il.final.title")),
              " ",
              view.first_word_giver === you() ? t("il.final.ends_you") : tn("il.final.ends", { name: name(view.first_word_giver) }),
            )
          : null,
        stalling ? h("p", { class: "il-stall", dataset: { testid: "stall" } }, t("il.stall.note", { turns: idle, count: view.stall_turns - idle })) : null,
      ),
    );
  }

  function drawCredit() {
    const generated = !view.deck?.custom;
    section(credit, "credit", [generated, language(), t("il.credit.text")], () =>
      fill(
        credit,
        generated
          ? h(
              "p",
              { dataset: { testid: "attribution" } },
              t("il.credit.before"),
              h("a", { href: OPENMOJI_URL, target: "_blank", rel: "noopener" }, "OpenMoji"),
              t("il.credit.middle"),
              h("a", { href: LICENSE_URL, target: "_blank", rel: "noopener" }, "CC BY-SA 4.0"),
              t("il.credit.after"),
            )
          : h("p", null, t("il.credit.custom")),
      ),
    );
  }

  // --- update ------------------------------------------------------------------------------

  function redraw() {
    if (!view) return;
    // Where the game stands, for tests and styling; never read by the renderer.
    Object.assign(board.dataset, { n: String(snap?.n ?? 0), phase: view.phase, turn: String(view.turn ?? ""), giver: String(view.first_word_giver) });
    drawResult();
    drawNotice();
    drawSeats();
    drawStage();
    drawChain();
    drawHand();
    drawCredit();
  }

  function announce(events) {
    for (const e of events ?? []) {
      if (e.type === "penalty") {
        const reason = t(`il.penalty.${e.reason}`);
        if (e.seat === you()) ctx.toast(() => t("il.toast.penalty_you", { reason: t(`il.penalty.${e.reason}`) }), "error", 5000);
        else ctx.toast(() => tn("il.toast.penalty", { name: name(e.seat), reason }), "info", 4500);
      } else if (e.type === "vote_resolved" && (e.seat === you() || !e.passed)) {
        // Your own word's fate, and anyone's word turned down; the rest is in the log.
        const mine = e.seat === you();
        const key = e.passed ? "il.toast.passed_you" : mine ? "il.toast.failed_you" : "il.toast.failed";
        ctx.toast(() => tn(key, { name: name(e.seat), ok: e.ok, ng: e.ng }), e.passed ? "ok" : mine ? "error" : "info", 3500);
      } else if (e.type === "final_round" && !over()) {
        ctx.toast(() => tn("il.toast.final", { name: name(e.seat) }), "info", 5000);
      }
    }
  }

  const timer = setInterval(tick, 250);

  function update(next, change = { kind: "snapshot" }) {
    snap = next;
    if (change.kind === "assist") return;
    view = next.view;
    if (!view) return;
    if (change.kind === "lang" || change.kind === "snapshot" || change.kind === "replay" || change.kind === "seats") {
      section.reset();
    }
    loadAlt(view.deck, () => {
      section.reset();
      redraw();
      log.redraw(view);
    });
    if (view.options.show_rules) section(rules, "rules", [view.options], () => fill(rules, rulesPanel(view)));
    redraw();
    log.update(view, change);
    if (change.kind === "event") announce(change.msg?.events);
  }

  return {
    board,
    panels,
    update,
    turnText(s) {
      const v = s.view;
      if (!v || v.phase === "ended") return null;
      const me = v.you;
      if (v.phase === "first_word") {
        const yours = v.first_word_giver === me;
        return { text: yours ? t("il.turn.first_yours") : tn("il.turn.first_theirs", { name: name(v.first_word_giver) }), mine: yours };
      }
      if (v.phase === "vote") {
        const voter = me !== null && v.pending && v.pending.seat !== me;
        if (voter && v.votes?.yours === null) return { text: t("il.turn.vote_yours"), mine: true };
        return { text: t("il.turn.voting", { cast: v.votes?.cast ?? 0, voters: v.votes?.voters ?? 0 }), mine: false };
      }
      const yours = v.turn === me;
      const text = yours ? t("il.turn.yours") : tn("il.turn.theirs", { name: name(v.turn) });
      return { text: v.final_round ? [t("il.turn.final_prefix"), ...[text].flat()] : text, mine: yours };
    },
    describeMove(move) {
      if (!move) return t("il.move.hidden");
      if (move.type === "first_word") return t("il.move.first_word", { word: move.word });
      if (move.type === "play") return t("il.move.play", { word: move.word });
      if (move.type === "exchange") return t("il.move.exchange", { count: move.cards?.length ?? move.count ?? 0 });
      if (move.type === "vote") return move.ok ? t("il.move.vote_ok") : t("il.move.vote_ng");
      if (move.type === "vote_timeout") return t("il.move.vote_timeout");
      return "";
    },
    destroy() {
      clearInterval(timer);
      resized.disconnect();
    },
  };
}
