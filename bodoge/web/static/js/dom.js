// Building DOM without markup strings: every text goes in through text nodes,
// so names and chat lines can never become markup.

import { t } from "./i18n.js";

/**
 * Create an element.
 *
 *   h("button", {class: "btn", onclick: go, "aria-label": t("x")}, t("start"))
 *
 * props: `class` (string or array, falsy items dropped), `dataset` (object),
 * `style` (object of CSS properties, custom properties allowed), `on<event>`
 * (listeners), `text`, boolean attributes (`disabled: true`), and any other
 * attribute.  Children: nodes, strings (text nodes), numbers, arrays; null,
 * undefined and false are skipped.
 */
export function h(tag, props = null, ...children) {
  const el = tag.includes(":")
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.split(":")[1])
    : document.createElement(tag);
  if (props) setProps(el, props);
  append(el, children);
  return el;
}

export function svg(tag, props = null, ...children) {
  return h(`svg:${tag}`, props, ...children);
}

function setProps(el, props) {
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") {
      const names = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
      if (names) el.setAttribute("class", names);
    } else if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null) el.dataset[k] = v;
    } else if (key === "style") {
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined || v === null) continue;
        if (k.startsWith("--")) el.style.setProperty(k, String(v));
        else el.style[k] = v;
      }
    } else if (key === "text") {
      el.textContent = String(value);
    } else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "value" && "value" in el) {
      el.value = value;
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false || child === true) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replace an element's children (the one way pages redraw a section). */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/**
 * Redraw inside `root` without losing the keyboard focus: the focused element's
 * `data-key` is remembered and the element with the same key gets focus back.
 */
export function keepFocus(root, redraw) {
  const active = document.activeElement;
  const key = active && root.contains(active) ? active.dataset?.key : null;
  redraw();
  if (key && !root.contains(active)) {
    const again = root.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
}

/**
 * Text a user wrote (a name, a chat line), marked so tests can tell it from the
 * interface's own strings; <bdi> keeps mixed-direction names from reordering.
 */
export function userText(text, cls = null) {
  return h("bdi", { class: cls, "data-user": "" }, String(text ?? ""));
}

/** A small icon drawn with SVG paths (no icon font, no external file). */
const ICONS = {
  globe:
    "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm6.9 6h-3a15.6 15.6 0 0 0-1.4-4 8 8 0 0 1 4.4 4ZM12 4c.8 1.2 1.5 2.5 1.9 4h-3.8c.4-1.5 1.1-2.8 1.9-4ZM4.3 14a8 8 0 0 1 0-4h3.4a16 16 0 0 0 0 4H4.3Zm.8 2h3a15.6 15.6 0 0 0 1.4 4 8 8 0 0 1-4.4-4Zm3-8h-3a8 8 0 0 1 4.4-4 15.6 15.6 0 0 0-1.4 4ZM12 20c-.8-1.2-1.5-2.5-1.9-4h3.8c-.4 1.5-1.1 2.8-1.9 4Zm2.3-6H9.7a14 14 0 0 1 0-4h4.6a14 14 0 0 1 0 4Zm.3 5.9c.6-1.2 1.1-2.5 1.4-3.9h3a8 8 0 0 1-4.4 3.9Zm1.7-5.9a16 16 0 0 0 0-4h3.4a8 8 0 0 1 0 4h-3.4Z",
  user: "M12 12a4.5 4.5 0 1 0 0-9 4.5 4.5 0 0 0 0 9Zm0 2c-4.4 0-8 2.2-8 5v2h16v-2c0-2.8-3.6-5-8-5Z",
  bot: "M11 2h2v2h4a3 3 0 0 1 3 3v9a3 3 0 0 1-3 3H7a3 3 0 0 1-3-3V7a3 3 0 0 1 3-3h4V2Zm-2 8a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3Zm6 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3Zm-6 5v1.5h6V15H9ZM1 9h2v5H1V9Zm20 0h2v5h-2V9Z",
  clock: "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm1 10.4 3.2 3.2-1.4 1.4L11 13.2V6h2v6.4Z",
  spark: "M12 2l2.2 6.3L20.5 10l-6.3 2.2L12 18.5l-2.2-6.3L3.5 10l6.3-1.7L12 2Zm7 13 1 2.6 2.5 1-2.5 1-1 2.4-1-2.4-2.5-1 2.5-1 1-2.6Z",
  link: "M10.6 13.4a1 1 0 0 1 0-1.4l3.5-3.5a1 1 0 1 1 1.4 1.4L12 13.4a1 1 0 0 1-1.4 0ZM8.5 20a4.5 4.5 0 0 1-3.2-7.7l2.1-2.1 1.4 1.4-2.1 2.1a2.5 2.5 0 0 0 3.5 3.5l2.1-2.1 1.4 1.4-2.1 2.1A4.5 4.5 0 0 1 8.5 20Zm8.1-6.2-1.4-1.4 2.1-2.1a2.5 2.5 0 0 0-3.5-3.5l-2.1 2.1-1.4-1.4 2.1-2.1a4.5 4.5 0 0 1 6.4 6.4l-2.2 2Z",
  eye: "M12 5c-5 0-9 4.5-10 7 1 2.5 5 7 10 7s9-4.5 10-7c-1-2.5-5-7-10-7Zm0 11a4 4 0 1 1 0-8 4 4 0 0 1 0 8Zm0-2a2 2 0 1 0 0-4 2 2 0 0 0 0 4Z",
  play: "M8 5v14l11-7L8 5Z",
  again: "M12 5V2L7 6l5 4V7a5 5 0 1 1-5 5H5a7 7 0 1 0 7-7Z",
  pause: "M6 5h4v14H6V5Zm8 0h4v14h-4V5Z",
  prev: "M15.4 6.4 14 5l-7 7 7 7 1.4-1.4L9.8 12l5.6-5.6Z",
  next: "M8.6 17.6 10 19l7-7-7-7-1.4 1.4 5.6 5.6-5.6 5.6Z",
  first: "M6 5h2v14H6V5Zm11.4 1.4L16 5l-7 7 7 7 1.4-1.4L11.8 12l5.6-5.6Z",
  last: "M16 5h2v14h-2V5ZM6.6 17.6 8 19l7-7-7-7-1.4 1.4 5.6 5.6-5.6 5.6Z",
  send: "M3 20.5 21 12 3 3.5v6.6l12 1.9-12 1.9v6.6Z",
  check: "M9.5 16.2 5.3 12l-1.4 1.4 5.6 5.6 11-11-1.4-1.4-9.6 9.6Z",
  cross: "M18.3 7.1 16.9 5.7 12 10.6 7.1 5.7 5.7 7.1l4.9 4.9-4.9 4.9 1.4 1.4 4.9-4.9 4.9 4.9 1.4-1.4-4.9-4.9 4.9-4.9Z",
  trophy: "M7 3h10v2h4v3a5 5 0 0 1-4.4 5A5 5 0 0 1 13 16.9V19h4v2H7v-2h4v-2.1A5 5 0 0 1 7.4 13 5 5 0 0 1 3 8V5h4V3Zm10 4v4a3 3 0 0 0 2-3V7h-2ZM5 7v1a3 3 0 0 0 2 3V7H5Z",
  chat: "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2Z",
  list: "M4 6h2v2H4V6Zm4 0h12v2H8V6Zm-4 5h2v2H4v-2Zm4 0h12v2H8v-2Zm-4 5h2v2H4v-2Zm4 0h12v2H8v-2Z",
  grid: "M3 3h8v8H3V3Zm2 2v4h4V5H5Zm8-2h8v8h-8V3Zm2 2v4h4V5h-4ZM3 13h8v8H3v-8Zm2 2v4h4v-4H5Zm8-2h8v8h-8v-8Zm2 2v4h4v-4h-4Z",
  deck: "M6 2h12a2 2 0 0 1 2 2v16a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2Zm0 2v16h12V4H6Z",
  share: "M18 16a3 3 0 0 0-2.4 1.2l-6.7-3.4a3 3 0 0 0 0-1.6l6.7-3.4A3 3 0 1 0 15 7c0 .3 0 .5.1.8L8.4 11.2a3 3 0 1 0 0 3.6l6.7 3.4A3 3 0 1 0 18 16Z",
  exit: "M10 3H5a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h5v-2H5V5h5V3Zm6.6 4.6L15.2 9l2 2H9v2h8.2l-2 2 1.4 1.4L21 12l-4.4-4.4Z",
  sound: "M4 9h4l5-4v14l-5-4H4V9Zm12.5 3a4.5 4.5 0 0 0-2.5-4v8a4.5 4.5 0 0 0 2.5-4ZM14 3.2v2.1a7 7 0 0 1 0 13.4v2.1a9 9 0 0 0 0-17.6Z",
  mute: "M4 9h4l5-4v14l-5-4H4V9Zm11.6.6L17 8.2l2 2 2-2 1.4 1.4-2 2 2 2-1.4 1.4-2-2-2 2-1.4-1.4 2-2-2-2Z",
  bell: "M12 22a2.5 2.5 0 0 0 2.5-2.5h-5A2.5 2.5 0 0 0 12 22Zm7-6v-5a7 7 0 0 0-5.5-6.8V3a1.5 1.5 0 0 0-3 0v1.2A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z",
  "bell-off": "M12 22a2.5 2.5 0 0 0 2.5-2.5h-5A2.5 2.5 0 0 0 12 22Zm7-6v-5a7 7 0 0 0-5.5-6.8V3a1.5 1.5 0 0 0-3 0v1.2c-.8.2-1.6.5-2.2 1L19 16.9V16ZM3.3 2.3 2 3.7l3.3 3.3A7 7 0 0 0 5 11v5l-2 2v1h14.3l3 3 1.4-1.4L3.3 2.3Z",
  chart: "M3 3h2v16h16v2H3V3Zm4 12 4-5 3 3 5-7 1.6 1.2-6.4 9-3-3-3.6 4.4L7 15Z",
  wifi: "M12 18a2 2 0 1 0 0 4 2 2 0 0 0 0-4ZM2 8.8l1.6 1.6a12 12 0 0 1 16.8 0L22 8.8a14.2 14.2 0 0 0-20 0Zm4 4 1.6 1.6a6.4 6.4 0 0 1 8.8 0l1.6-1.6a8.7 8.7 0 0 0-12 0Z",
};

export function icon(name, cls = "icon") {
  return svg(
    "svg",
    { class: cls, viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false", dataset: { icon: name } },
    svg("path", { d: ICONS[name] ?? "" }),
  );
}

const liveToasts = new Map();

/**
 * A short-lived message at the top of the screen, under the header (also read out by
 * screen readers), never over the cards, the hand or the chat's input at the bottom.
 * One at a time: a new one replaces the one shown, a click dismisses it.  `content` is
 * a function returning the text (or nodes), so a language switch while it shows
 * redraws it: see refreshToasts().
 */
export function toast(content, kind = "info", ms = 3200) {
  let host = document.getElementById("toasts");
  if (!host) {
    host = h("div", { id: "toasts", class: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(host);
  }
  for (const old of [...host.children]) {
    old.remove();
    liveToasts.delete(old);
  }
  const make = typeof content === "function" ? content : () => content;
  const el = h("div", { class: ["toast", `toast--${kind}`], dataset: { testid: "toast" }, onclick: () => dismiss(el) }, make());
  liveToasts.set(el, make);
  host.append(el);
  setTimeout(() => dismiss(el), ms);
  return el;
}

function dismiss(el) {
  if (!liveToasts.delete(el)) return;
  el.classList.add("toast--out");
  setTimeout(() => el.remove(), 300);
}

/** Take every toast away (what they said is over: the game ended, the page changed). */
export function dismissToasts() {
  for (const el of [...liveToasts.keys()]) dismiss(el);
}

/** Redraw the toasts on screen (after a language switch). */
export function refreshToasts() {
  for (const [el, make] of liveToasts) fill(el, make());
}

/** Format a number of seconds as m:ss. */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  // A turn-based table's hours and days read as such, not as thousands of minutes.
  if (s >= 3600) return durationText(s);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A long time left in words: "2 d 3 h", "5 h 12 min". */
export function durationText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  if (d) return t("time.d_h", { d, h: hours });
  return t("time.h_m", { h: hours, m: Math.floor((s % 3600) / 60) });
}

/** A time per move (a turn-based table's) in words: "12 hours", "3 days". */
export function moveTimeText(seconds) {
  return seconds % 86400 === 0 ? t("time.days", { count: seconds / 86400 }) : t("time.hours", { count: seconds / 3600 });
}

/**
 * Load a stylesheet once and resolve when it has applied (or failed), so a module
 * that awaits it draws its first frame already styled: no layout jump.
 */
export function loadStylesheet(href) {
  return new Promise((resolve) => {
    if (document.querySelector(`link[href="${href}"]`)) return resolve();
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    link.onload = resolve;
    link.onerror = resolve;
    document.head.append(link);
  });
}

/**
 * A drawer that redraws a part of the page only when what it shows changed, keeping
 * focus and typing: `section(el, id, key, draw)`. `section.reset()` forgets every key.
 */
export function sections() {
  let keys = {};
  const section = (el, id, key, draw) => {
    const k = JSON.stringify(key);
    if (keys[id] === k) return;
    keys[id] = k;
    keepFocus(el, draw);
  };
  section.reset = () => {
    keys = {};
  };
  return section;
}
