// How seats, players and games are named on screen, the same everywhere.

import { h, icon, userText } from "./dom.js";
import { lang, t } from "./i18n.js";

/** A game's title in the current language (the server sends both). */
export function gameTitle(game) {
  const title = game?.title;
  if (!title) return game?.id ?? "";
  return title[lang()] ?? title.en ?? game.id;
}

/** The name shown for a seat: the player's own name, a bot, or an empty seat. */
export function seatLabel(seat) {
  if (!seat) return "";
  if (seat.kind === "human" && seat.player) return seat.player.name;
  if (seat.kind === "bot" && seat.left) return t("seat.left_label", { name: seat.left.name });
  if (seat.kind === "bot") {
    // Numbered by seat, so three bots at one table can be told apart.
    const n = seat.seat + 1;
    return seat.level ? t("seat.bot_level", { n, level: t(`bot.${seat.level}`) }) : t("seat.bot", { n });
  }
  return t("seat.empty");
}

/** The seat's name as a node: a person's own name is marked as user text; a bot's is short. */
export function seatNameNode(seat) {
  if (seat?.kind === "human" && seat.player) return userText(seat.player.name);
  // A player who left a running game keeps their name; a bot plays the seat.
  if (seat?.kind === "bot" && seat.left) return h("span", { class: "seat-left" }, userText(seat.left.name), h("small", { class: "seat-left-mark" }, t("seat.by_bot")));
  if (seat?.kind === "bot") return t("seat.bot", { n: seat.seat + 1 });
  return seatLabel(seat);
}

/**
 * A person's name as a link to their profile (/p/{id}); without an id, the name alone.
 * `key` (a data-key) lets the focus find the link again after a redraw.
 */
export function playerLink(player, cls = null, key = null) {
  if (!player?.id) return userText(player?.name ?? "", cls);
  return h(
    "a",
    { class: ["player-link", cls], href: `/p/${encodeURIComponent(player.id)}`, dataset: { link: "", testid: "player-link", key } },
    userText(player.name),
  );
}

/**
 * A seat's name plate: name, a bot or person mark, and a dot for the
 * connection (a bot is always there).  Used by the shell and by games.
 * With `link`, a person's name (also one who left, a bot playing on) links to
 * their profile; a bot has no profile and is not linked (its rating is on the
 * leaderboard).  `where` tells apart two plates of one seat on a page (a
 * board's and the result's), so the focus returns to the right one.
 */
export function seatChip(seat, { you = false, turn = false, link = false, where = "seat" } = {}) {
  const connected = seat.kind === "bot" || Boolean(seat.connected);
  const key = `${where}-name-${seat.seat}`;
  return h(
    "span",
    {
      class: ["seat-chip", `seat-chip--${seat.kind}`, turn && "seat-chip--turn", you && "seat-chip--you"],
      dataset: { seat: seat.seat },
    },
    h("span", {
      class: ["conn-dot", connected ? "conn-dot--on" : "conn-dot--off"],
      role: "img",
      "aria-label": seat.kind === "empty" ? t("seat.empty") : connected ? t("seat.online") : t("seat.offline"),
      title: seat.kind === "empty" ? t("seat.empty") : connected ? t("seat.online") : t("seat.offline"),
    }),
    seat.kind === "bot" ? icon("bot", "icon icon--sm") : null,
    h(
      "span",
      { class: "seat-chip-name" },
      seat.kind === "bot" && seat.left
        ? [link ? playerLink(seat.left, null, key) : userText(seat.left.name), h("small", { class: "seat-chip-level" }, t("seat.by_bot"))]
        : seat.kind === "bot"
          ? [t("seat.bot", { n: seat.seat + 1 }), seat.level ? h("small", { class: "seat-chip-level" }, t(`bot.${seat.level}`)) : null]
          : link && seat.player
            ? playerLink(seat.player, null, key)
            : seatNameNode(seat),
    ),
    you ? h("span", { class: "you-tag" }, t("seat.you")) : null,
  );
}

/**
 * The mark of a move the stand-in bot played because a seat's turn ran out:
 * "timed out — played for you" for that seat, a neutral "timed out" for the others.
 */
export function standInBadge(seat, you) {
  const mine = you !== null && you !== undefined && seat === you;
  const text = mine ? t("standin.you") : t("standin.other");
  return h(
    "span",
    { class: ["badge", "badge--standin", mine && "badge--standin-you"], dataset: { testid: "stand-in" }, title: t("standin.help") },
    icon("clock", "icon icon--xs"),
    text,
  );
}
