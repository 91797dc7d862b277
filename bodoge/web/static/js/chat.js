// The table chat: lines are always text, never markup.

import { fill, h, icon, toast, userText } from "./dom.js";
import { lang, t } from "./i18n.js";

const MAX_LINES = 200;

export function createChat({ send, errorText, onUnread }) {
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

  function line(msg) {
    return h(
      "li",
      { class: "chat-line" },
      h("span", { class: "chat-time" }, time(msg.at)),
      userText(msg.from?.name ?? "", "chat-from"),
      userText(msg.text ?? "", "chat-text"),
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
      if (!visible) {
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
