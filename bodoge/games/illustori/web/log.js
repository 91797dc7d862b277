// The log: what happened at the table, newest last — first word, played words
// and their votes, penalties, exchanges, reshuffles, the final round, the end.
//
// It is drawn from the view's `log` alone, which the server keeps for the
// whole game and shows the same to every seat and spectator
// (docs/rules/illustori.md, "Views and events"): a reload, a second device, a
// late spectator and the replay read the same lines as a player who saw them
// happen.  Only the lines that changed are drawn again.

import { fill, h, icon, userText } from "/static/js/dom.js";
import { t, tn } from "/static/js/i18n.js";
import { card } from "./cards.js";

/** The view's log as lines: a verdict or a penalty completes the line of its word. */
export function logLines(log) {
  const lines = [];
  for (const e of log ?? []) {
    switch (e.type) {
      case "first_word":
        lines.push({ kind: "first", seat: e.seat, card: e.card, word: e.word });
        break;
      case "card_played":
        lines.push({ kind: "played", seat: e.seat, card: e.card, word: e.word, head: e.head, tail: e.tail });
        break;
      case "penalty":
      case "vote_resolved": {
        const i = lines.findLastIndex((x) => x.kind === "played" && x.card === e.card && x.seat === e.seat && !x.verdict && !x.penalty);
        if (i < 0) break;
        lines[i] = e.type === "penalty" ? { ...lines[i], penalty: e.reason } : { ...lines[i], verdict: { passed: e.passed, ok: e.ok, ng: e.ng, timed_out: e.timed_out, votes: e.votes ?? null } };
        break;
      }
      case "cards_exchanged":
        lines.push({ kind: "exchange", seat: e.seat, count: e.count });
        break;
      case "final_round":
        lines.push({ kind: "final", seat: e.seat, ends_after: e.ends_after });
        break;
      case "game_ended":
        lines.push({ kind: "end", winners: e.winners, reason: e.reason, cards: e.cards });
        break;
      case "deck_reshuffled":
        lines.push({ kind: "reshuffle", count: e.count });
        break;
      default:
        break;
    }
  }
  return lines;
}

export function createLog(ctx) {
  const list = h("ol", { class: "il-log", dataset: { testid: "log" } });
  const el = h("div", { class: "il-log-wrap" }, list);
  let view = null;
  let drawn = []; // [{key, li}] for each line on the page
  // The lines of moves the stand-in bot played, seen as they happened (an event frame with
  // timed_out): a word by its card (a played card never comes back), an exchange by its line.
  const standIns = new Map(); // key -> move number
  let atEnd = true;
  el.addEventListener(
    "scroll",
    () => {
      atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    },
    { passive: true },
  );

  const name = (s) => ctx.seatNameNode(s);
  const names = (seats) => h("span", null, seats.flatMap((s, i) => (i ? [t("common.list_sep"), name(s)] : [name(s)])));

  function standInKey(e, i) {
    if (e.kind === "first" || e.kind === "played") return `p:${e.seat}:${e.card}`;
    return e.kind === "exchange" ? `x:${i}` : null;
  }

  /** In a replay: the lines of the moves the history says the stand-in played. */
  function noteReplayStandIns(moves) {
    const lines = logLines(view?.log); // this step's log: a prefix of the game's
    const first = lines.find((x) => x.kind === "first");
    const exchanges = new Map(); // seat -> how many exchanges so far
    for (const m of moves) {
      const type = m.move?.type;
      if (type === "exchange") exchanges.set(m.seat, (exchanges.get(m.seat) ?? 0) + 1);
      if (m.actor !== "timeout") continue;
      if (type === "first_word" && first) standIns.set(`p:${first.seat}:${first.card}`, m.n);
      if (type === "play") standIns.set(`p:${m.seat}:${m.move.card}`, m.n);
      if (type === "exchange") {
        // The seat's k-th exchange is its k-th exchange line.
        let k = exchanges.get(m.seat);
        const i = lines.findIndex((x) => x.kind === "exchange" && x.seat === m.seat && --k === 0);
        if (i >= 0) standIns.set(`x:${i}`, m.n);
      }
    }
  }

  function line(e, i) {
    const deck = view?.deck;
    const thumb = e.card !== undefined && deck ? card(deck, e.card, { size: "xs" }) : null;
    const who = e.seat !== undefined && e.seat !== null ? name(e.seat) : "";
    let body;
    let cls = "";
    switch (e.kind) {
      case "first":
        body = tn("il.log.first", { name: who, word: userText(e.word) });
        break;
      case "played":
        if (e.penalty) {
          body = [tn("il.log.word", { name: who, word: userText(e.word) }), h("span", { class: "lg-verdict" }, icon("cross", "icon icon--xs"), t("il.log.penalty", { reason: t(`il.penalty.${e.penalty}`) }))];
          cls = "lg-bad";
        } else if (e.verdict) {
          const v = e.verdict;
          body = [
            tn("il.log.word", { name: who, word: userText(e.word) }),
            h(
              "span",
              { class: "lg-verdict" },
              v.passed ? icon("check", "icon icon--xs") : icon("cross", "icon icon--xs"),
              v.passed ? t("il.log.passed") : t("il.log.failed"),
              h("span", { class: "lg-count" }, t("il.last.count", { ok: v.ok, ng: v.ng }), v.timed_out ? ` · ${t("il.last.timed_out", { count: v.timed_out })}` : ""),
            ),
            v.votes ? h("span", { class: "lg-votes" }, v.votes.map((x) => h("span", { class: ["il-chipvote", x.ok ? "il-chipvote--ok" : "il-chipvote--ng"] }, name(x.seat), " ", x.ok ? t("il.vote.ok") : t("il.vote.ng")))) : null,
          ];
          cls = v.passed ? "lg-ok" : "lg-bad";
        } else {
          body = [tn("il.log.word", { name: who, word: userText(e.word) }), h("span", { class: "lg-verdict muted" }, t("il.log.voting"))];
        }
        break;
      case "exchange":
        body = tn("il.log.exchange", { name: who, count: e.count });
        break;
      case "final":
        body = tn("il.log.final", { name: who, giver: name(e.ends_after) });
        cls = "lg-final";
        break;
      case "end":
        body = tn(e.reason === "stalled" ? "il.log.end_stalled" : "il.log.end", { names: names(e.winners), count: e.cards?.[e.winners[0]] ?? 0 });
        cls = "lg-final";
        break;
      case "reshuffle":
        body = t("il.log.reshuffle", { count: e.count });
        break;
      default:
        return null;
    }
    const kind = e.kind === "played" ? (e.penalty ? "penalty" : e.verdict ? (e.verdict.passed ? "passed" : "failed") : "voting") : e.kind;
    // Each part is one flex item: a sentence with names and words in it stays one.
    const parts = (Array.isArray(body) && e.kind === "played" ? body : [body]).map((part) => (Array.isArray(part) || typeof part === "string" ? h("span", null, part) : part));
    const n = standIns.get(standInKey(e, i));
    const standIn = n ? ctx.standIn?.(n, e.seat) ?? null : null;
    return h("li", { class: ["lg", `lg--${e.kind}`, cls], dataset: { testid: "log-entry", kind } }, thumb, h("p", { class: "lg-text" }, parts, standIn));
  }

  /** A move the stand-in bot played: remember the line it made. */
  function noteStandIn(msg) {
    const lines = logLines(view?.log);
    for (const e of msg.events ?? []) {
      if (e.type === "first_word" || e.type === "card_played") standIns.set(`p:${e.seat}:${e.card}`, msg.n);
      if (e.type === "cards_exchanged") {
        const i = lines.findLastIndex((x) => x.kind === "exchange" && x.seat === e.seat);
        if (i >= 0) standIns.set(`x:${i}`, msg.n);
      }
    }
  }

  /** Draw the view's log; with `fresh`, lines that are new or changed are marked as new. */
  function draw(fresh) {
    const lines = logLines(view?.log);
    if (!lines.length) {
      drawn = [];
      fill(list, h("li", { class: "muted lg-empty" }, t("il.log.empty")));
      return;
    }
    if (!fresh || !drawn.length) {
      drawn = lines.map((x, i) => ({ key: JSON.stringify(x) + (standIns.has(standInKey(x, i)) ? "*" : ""), li: line(x, i) }));
      fill(list, drawn.map((d) => d.li));
    } else {
      lines.forEach((x, i) => {
        const key = JSON.stringify(x) + (standIns.has(standInKey(x, i)) ? "*" : "");
        if (drawn[i]?.key === key) return;
        const li = line(x, i);
        li.classList.add("lg--new");
        if (drawn[i]) drawn[i].li.replaceWith(li);
        else list.append(li);
        drawn[i] = { key, li };
      });
      for (const d of drawn.splice(lines.length)) d.li.remove();
    }
    if (atEnd) requestAnimationFrame(() => (el.scrollTop = el.scrollHeight));
  }

  return {
    el,
    /** After every change: a move's event adds or completes lines; anything else draws them all. */
    update(v, change) {
      view = v;
      if (change.kind === "event" && change.msg?.timed_out) noteStandIn(change.msg);
      if (change.kind === "replay" && ctx.moves) noteReplayStandIns(ctx.moves());
      draw(change.kind === "event");
    },
    redraw(v) {
      view = v ?? view;
      draw(false);
    },
  };
}
