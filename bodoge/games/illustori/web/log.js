// The log: what happened at the table, newest last — first word, played words
// and their votes, penalties, exchanges, the final round, the end.
//
// Events arrive one move at a time, so the log is kept in this browser
// (ctx.storage, per table and seat) and survives a reload; a browser that
// arrives late starts it from the chain in its first view.

import { fill, h, icon, userText } from "/static/js/dom.js";
import { t, tn } from "/static/js/i18n.js";
import { card } from "./cards.js";

const KEEP = 400;

export function createLog(ctx) {
  const list = h("ol", { class: "il-log", dataset: { testid: "log" } });
  const el = h("div", { class: "il-log-wrap" }, list);
  let entries = ctx.storage.get("log", null);
  let seen = ctx.storage.get("log_n", -1);
  let view = null;
  let lis = []; // the <li> of each entry (null for none)
  let atEnd = true;
  el.addEventListener(
    "scroll",
    () => {
      atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    },
    { passive: true },
  );

  const name = (s) => ctx.seatNameNode(s);

  function fromEvent(e, n) {
    switch (e.type) {
      case "first_word":
        return { n, kind: "first", seat: e.seat, card: e.card, word: e.word };
      case "card_played":
        return { n, kind: "played", seat: e.seat, card: e.card, word: e.word, head: e.head, tail: e.tail };
      case "penalty":
        return { merge: "penalty", seat: e.seat, card: e.card, penalty: e.reason };
      case "vote_resolved":
        return { merge: "verdict", seat: e.seat, card: e.card, verdict: { passed: e.passed, ok: e.ok, ng: e.ng, timed_out: e.timed_out, votes: e.votes ?? null } };
      case "cards_exchanged":
        return { n, kind: "exchange", seat: e.seat, count: e.count };
      case "final_round":
        return { n, kind: "final", seat: e.seat, ends_after: e.ends_after };
      case "game_ended":
        return { n, kind: "end", winners: e.winners };
      case "deck_reshuffled":
        return { n, kind: "reshuffle", count: e.count };
      default:
        return null;
    }
  }

  function fromChain(v) {
    return v.chain.map((w, i) => (i === 0 ? { n: 0, kind: "first", seat: w.seat, card: w.card, word: w.word } : { n: 0, kind: "accepted", seat: w.seat, card: w.card, word: w.word }));
  }

  function line(e) {
    const deck = view?.deck;
    const thumb = e.card !== undefined && deck ? card(deck, e.card, { size: "xs" }) : null;
    const who = e.seat !== undefined && e.seat !== null ? name(e.seat) : "";
    let body;
    let cls = "";
    switch (e.kind) {
      case "first":
        body = tn("il.log.first", { name: who, word: userText(e.word) });
        break;
      case "accepted":
        body = tn("il.log.accepted", { name: who, word: userText(e.word) });
        cls = "lg-ok";
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
        body = tn("il.log.end", { names: h("span", null, e.winners.flatMap((s, i) => (i ? [t("common.list_sep"), name(s)] : [name(s)]))) });
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
    return h("li", { class: ["lg", `lg--${e.kind}`, cls], dataset: { testid: "log-entry", kind } }, thumb, h("p", { class: "lg-text" }, parts));
  }

  function draw() {
    lis = (entries ?? []).map(line);
    const items = lis.filter(Boolean);
    fill(list, items.length ? items : h("li", { class: "muted lg-empty" }, t("il.log.empty")));
    if (atEnd) requestAnimationFrame(() => (el.scrollTop = el.scrollHeight));
  }

  function save() {
    if (entries.length > KEEP) entries = entries.slice(-KEEP);
    ctx.storage.set("log", entries);
    ctx.storage.set("log_n", seen);
  }

  return {
    el,
    /** After every change: events of a new move are added; a snapshot may start the log. */
    update(v, change, n) {
      view = v;
      if (change.kind === "event" && change.msg && change.msg.n > seen) {
        entries ??= fromChain(v).slice(0, -1);
        const changed = new Set();
        for (const e of change.msg.events ?? []) {
          const entry = fromEvent(e, change.msg.n);
          if (!entry) continue;
          if (entry.merge) {
            // A verdict or a penalty completes the line of the word it is about.
            const i = entries.findLastIndex((x) => x.kind === "played" && x.card === entry.card && x.seat === entry.seat && !x.verdict && !x.penalty);
            if (i >= 0) {
              entries[i] = { ...entries[i], [entry.merge]: entry[entry.merge] };
              changed.add(i);
            }
            continue;
          }
          entries.push(entry);
          changed.add(entries.length - 1);
        }
        seen = change.msg.n;
        save();
        if (list.querySelector(".lg-empty") === null && lis.length) {
          // Only the new and completed lines are drawn (the rest stays as it is).
          for (const i of [...changed].sort((a, b) => a - b)) {
            const li = line(entries[i]);
            if (!li) continue;
            li.classList.add("lg--new");
            if (lis[i]) lis[i].replaceWith(li);
            else list.append(li);
            lis[i] = li;
          }
          if (atEnd) requestAnimationFrame(() => (el.scrollTop = el.scrollHeight));
          return;
        }
        draw();
        return;
      }
      if (change.kind === "snapshot" || change.kind === "replay") {
        if (change.kind === "replay" || entries === null || seen > n) {
          // A replay, a first visit, or a log from another game: start from the chain.
          entries = fromChain(v);
          seen = change.kind === "replay" ? -1 : n;
          if (change.kind !== "replay") save();
        }
        draw();
        return;
      }
      if (change.kind === "lang" || change.kind === "seats") draw();
    },
    redraw(v) {
      view = v ?? view;
      draw();
    },
  };
}
