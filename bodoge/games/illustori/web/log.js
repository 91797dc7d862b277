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

/**
 * The view's log as lines: a verdict or a penalty completes the line of its word.  A line a
 * move made (a word, an exchange) keeps that move's number `n`, from the view's `log_moves`.
 */
export function logLines(log, moves = []) {
  const lines = [];
  (log ?? []).forEach((e, i) => {
    const n = moves[i];
    switch (e.type) {
      case "first_word":
        lines.push({ kind: "first", seat: e.seat, card: e.card, word: e.word, n });
        break;
      case "card_played":
        lines.push({ kind: "played", seat: e.seat, card: e.card, word: e.word, head: e.head, tail: e.tail, n });
        break;
      case "penalty":
      case "vote_resolved": {
        const i = lines.findLastIndex((x) => x.kind === "played" && x.card === e.card && x.seat === e.seat && !x.verdict && !x.penalty);
        if (i < 0) break;
        lines[i] = e.type === "penalty" ? { ...lines[i], penalty: e.reason } : { ...lines[i], verdict: { passed: e.passed, ok: e.ok, ng: e.ng, timed_out: e.timed_out, votes: e.votes ?? null } };
        break;
      }
      case "cards_exchanged":
        lines.push({ kind: "exchange", seat: e.seat, count: e.count, n });
        break;
      case "final_round":
        lines.push({ kind: "final", seat: e.seat, ends_after: e.ends_after });
        break;
      case "game_ended":
        // Every game's game_ended: the result, and what Illustori shows beside it (the hand counts).
        lines.push({ kind: "end", winners: e.result.winners, reason: e.result.reason, cards: e.revealed?.hand_counts });
        break;
      case "deck_reshuffled":
        lines.push({ kind: "reshuffle", count: e.count });
        break;
      default:
        break;
    }
  });
  return lines;
}

export function createLog(ctx) {
  const list = h("ol", { class: "il-log", dataset: { testid: "log" } });
  const el = h("div", { class: "il-log-wrap" }, list);
  let view = null;
  let drawn = []; // [{key, li}] for each line on the page
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
    const standIn = standInOf(e);
    return h("li", { class: ["lg", `lg--${e.kind}`, cls], dataset: { testid: "log-entry", kind } }, thumb, h("p", { class: "lg-text" }, parts, standIn));
  }

  /** The mark of a line the stand-in bot made (a word or an exchange), or null. */
  function standInOf(e) {
    return e.n ? ctx.standIn?.(e.n, e.seat) ?? null : null;
  }

  /** What a line shows: it is drawn again when this changes. */
  function keyOf(e) {
    return JSON.stringify(e) + (standInOf(e) ? "*" : "");
  }

  /** Draw the view's log; with `fresh`, lines that are new or changed are marked as new. */
  function draw(fresh) {
    const lines = logLines(view?.log, view?.log_moves);
    if (!lines.length) {
      drawn = [];
      fill(list, h("li", { class: "muted lg-empty" }, t("il.log.empty")));
      return;
    }
    if (!fresh || !drawn.length) {
      drawn = lines.map((x, i) => ({ key: keyOf(x), li: line(x, i) }));
      fill(list, drawn.map((d) => d.li));
    } else {
      lines.forEach((x, i) => {
        const key = keyOf(x);
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
      draw(change.kind === "event");
    },
    redraw(v) {
      view = v ?? view;
      draw(false);
    },
  };
}
