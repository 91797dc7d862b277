// The table chat: lines are always text, never markup.

import { fill, h, icon, toast, userText } from "./dom.js";
import { lang, t } from "./i18n.js";
import { store } from "./store.js";

const MAX_LINES = 200;
// The players this browser muted (their ids): their lines show folded, for this
// browser only; nobody else is told.
const MUTED_KEY = "bodoge.muted";
const MAX_MUTED = 500;

export function mutedPlayers() {
  const list = store.get(MUTED_KEY, []);
  return new Set(Array.isArray(list) ? list : []);
}

function setMuted(playerId, on) {
  const muted = mutedPlayers();
  if (on) muted.add(playerId);
  else muted.delete(playerId);
  store.set(MUTED_KEY, [...muted].slice(-MAX_MUTED));
}

export function createChat({ send, errorText, onUnread, me = () => null }) {
  let lines = [];
  let unread = 0;
  let visible = true;

  const list = h("ol", { class: "chat-lines", "aria-live": "polite", dataset: { testid: "chat-lines" } });
  const input = h("input", {
    class: "chat-input",
    maxlength: 300,
    autocomplete: "off",
    dataset: { testid: "chat-input" },
  });
  const button = h("button", { type: "submit", class: "btn btn--icon", dataset: { testid: "chat-send" } }, icon("send"));
  const form = h(
    "form",
    {
      class: "chat-form",
      onsubmit: async (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        button.disabled = true;
        try {
          await send(text);
          input.value = "";
        } catch (err) {
          toast(() => errorText(err), "error");
        } finally {
          button.disabled = false;
          input.focus();
        }
      },
    },
    input,
    button,
  );
  const el = h("div", { class: "chat" }, list, form);

  function time(at) {
    const d = new Date(at);
    if (Number.isNaN(d.getTime())) return "";
    return d.toLocaleTimeString(lang() === "ja" ? "ja-JP" : "en-GB", { hour: "2-digit", minute: "2-digit" });
  }

  function muteButton(msg, muted) {
    const who = msg.from?.id;
    if (!who || who === me()) return null;
    const label = t(muted ? "chat.unmute_named" : "chat.mute_named", { name: msg.from.name });
    return h(
      "button",
      {
        type: "button",
        class: "btn btn--icon btn--ghost chat-mute",
        "aria-label": label,
        title: label,
        dataset: { key: `mute-${msg.line ?? ""}`, testid: muted ? "chat-unmute" : "chat-mute" },
        onclick: () => {
          setMuted(who, !muted);
          redraw();
        },
      },
      icon(muted ? "sound" : "mute", "icon icon--sm"),
    );
  }

  function line(msg) {
    const muted = Boolean(msg.from?.id) && mutedPlayers().has(msg.from.id);
    return h(
      "li",
      { class: ["chat-line", muted && "chat-line--muted"], dataset: { testid: muted ? "chat-muted" : "chat-line" } },
      h("span", { class: "chat-time" }, time(msg.at)),
      userText(msg.from?.name ?? "", "chat-from"),
      muted ? h("span", { class: "chat-text muted" }, t("chat.muted")) : userText(msg.text ?? "", "chat-text"),
      muteButton(msg, muted),
    );
  }

  function atBottom() {
    return list.scrollHeight - list.scrollTop - list.clientHeight < 24;
  }

  function labels() {
    input.placeholder = t("chat.placeholder");
    input.setAttribute("aria-label", t("chat.placeholder"));
    button.setAttribute("aria-label", t("chat.send"));
    button.title = t("chat.send");
  }

  function redraw() {
    labels();
    fill(list, lines.length ? lines.map(line) : h("li", { class: "chat-empty muted" }, t("chat.empty")));
    list.scrollTop = list.scrollHeight;
  }

  labels();
  redraw();

  return {
    el,
    get unread() {
      return unread;
    },
    reset(history) {
      lines = history.slice(-MAX_LINES);
      unread = 0;
      redraw();
    },
    add(msg) {
      const stick = atBottom();
      if (!lines.length) list.replaceChildren();
      lines.push(msg);
      list.append(line(msg));
      if (lines.length > MAX_LINES) {
        lines.shift();
        list.firstElementChild?.remove();
      }
      if (stick) list.scrollTop = list.scrollHeight;
      if (!visible && !(msg.from?.id && mutedPlayers().has(msg.from.id))) {
        unread += 1;
        onUnread?.();
      }
    },
    markRead() {
      unread = 0;
    },
    setVisible(v) {
      visible = v;
      if (v && unread) {
        unread = 0;
        onUnread?.();
      }
    },
    redraw,
  };
}
