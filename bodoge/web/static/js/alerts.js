// Turn alerts: while this tab is hidden and this seat is awaited (a Tagiron turn
// or final declaration, an Illustori turn or vote — whatever the table's
// `to_act` says), the tab's title and icon say so, a short sound plays (Web
// Audio, with a mute switch the browser remembers) and, if the player allowed
// it once, a desktop notification appears.  Seeing the tab again clears it all.

import { h, icon } from "./dom.js";
import { t } from "./i18n.js";
import { store } from "./store.js";

const SOUND_KEY = "bodoge.alerts.sound";
const NOTIFY_KEY = "bodoge.alerts.notify";
const ICON = "/static/favicon.svg";
const ICON_ALERT = "/static/favicon-alert.svg";
const LOW_SECONDS = 10;

// One AudioContext per page, made on the first gesture: a context made earlier
// would be refused by the browser's autoplay policy (and warn in the console).
let audio = null;
function unlockAudio() {
  try {
    audio ??= new AudioContext();
    if (audio.state === "suspended") audio.resume().catch(() => {});
  } catch {
    /* no Web Audio: no sound */
  }
}
for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, unlockAudio, { capture: true, passive: true });

/** Two soft rising notes, about a third of a second. */
export function chime() {
  if (!audio) return false;
  const start = audio.currentTime + 0.02;
  [
    [660, 0],
    [990, 0.14],
  ].forEach(([freq, at]) => {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, start + at);
    gain.gain.exponentialRampToValueAtTime(0.18, start + at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + at + 0.18);
    osc.connect(gain).connect(audio.destination);
    osc.start(start + at);
    osc.stop(start + at + 0.2);
  });
  return true;
}

const notifications = () => (typeof Notification === "function" ? Notification : null);

export function soundOn() {
  return store.get(SOUND_KEY, true) !== false;
}

/**
 * The alerts of one table page.  `state()` says whether the seat is awaited, until
 * when, and what the top bar says in words: `{awaited, deadline, text}`;
 * `refresh()` reads it (after every change, and every so often for the seconds in
 * the title).  `title()` is the page's title, `controls()` the bar's sound and
 * notification switches.
 */
export function createAlerts({ baseTitle, state, onChange }) {
  let awaited = false;
  let deadline = null;
  let text = "";
  let note = null;

  const hidden = () => document.visibilityState === "hidden";

  function setIcon(alerting) {
    const link = document.querySelector("link[rel=icon]");
    const href = alerting ? ICON_ALERT : ICON;
    if (link && link.getAttribute("href") !== href) link.setAttribute("href", href);
  }

  function secondsLeft() {
    if (!deadline) return null;
    return Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000));
  }

  function title() {
    const base = baseTitle();
    if (!showing()) return base;
    const left = secondsLeft();
    const low = left !== null && left < LOW_SECONDS ? t("alert.seconds_left", { n: left }) : "";
    return `● ${t("alert.your_turn")}${low} · ${base}`;
  }

  // The title and the icon tell it whenever the seat is awaited and nobody looks.
  const showing = () => awaited && hidden();

  function paint() {
    const next = title();
    if (document.title !== next) document.title = next;
    setIcon(showing());
  }

  function notify() {
    const N = notifications();
    if (!N || N.permission !== "granted" || store.get(NOTIFY_KEY, true) === false) return;
    try {
      note = new N(t("alert.notify_title", { game: baseTitle() }), { body: text, tag: "bodoge-turn", icon: ICON });
      note.onclick = () => {
        window.focus();
        note?.close();
      };
    } catch {
      note = null; // some browsers allow notifications only from a service worker
    }
  }

  function closeNote() {
    note?.close();
    note = null;
  }

  function onVisibility() {
    if (!hidden()) closeNote();
    paint();
  }
  document.addEventListener("visibilitychange", onVisibility);

  return {
    refresh() {
      const next = state();
      const began = next.awaited && !awaited;
      awaited = Boolean(next.awaited);
      deadline = next.deadline ?? null;
      text = next.text ?? "";
      // The sound and the notification are for news: the seat became awaited while
      // nobody looked (not when a player leaves the tab on their own turn).
      if (began && hidden()) {
        if (soundOn()) chime();
        notify();
      }
      if (!awaited) closeNote();
      paint();
    },
    title,
    /** The bar's switches: the sound, and desktop notifications (asking once). */
    controls() {
      const on = soundOn();
      const parts = [
        h(
          "button",
          {
            type: "button",
            class: "btn btn--sm btn--ghost btn--icon",
            "aria-pressed": String(on),
            "aria-label": t("alert.sound"),
            title: on ? t("alert.sound_on") : t("alert.sound_off"),
            dataset: { key: "alert-sound", testid: "alert-sound" },
            onclick: () => {
              store.set(SOUND_KEY, !soundOn());
              unlockAudio();
              onChange?.();
            },
          },
          icon(on ? "sound" : "mute"),
        ),
      ];
      const N = notifications();
      if (N) {
        const state = N.permission;
        const enabled = state === "granted" && store.get(NOTIFY_KEY, true) !== false;
        parts.push(
          h(
            "button",
            {
              type: "button",
              class: "btn btn--sm btn--ghost btn--icon",
              "aria-pressed": state === "granted" ? String(enabled) : null,
              "aria-label": state === "default" ? t("alert.notify_allow") : t("alert.notify"),
              title: state === "denied" ? t("alert.notify_denied") : state === "default" ? t("alert.notify_allow") : enabled ? t("alert.notify_on") : t("alert.notify_off"),
              "aria-disabled": state === "denied" ? "true" : null,
              dataset: { key: "alert-notify", testid: "alert-notify" },
              onclick: async () => {
                if (N.permission === "default") {
                  // Asked once, on a click: the browser remembers the answer.
                  await N.requestPermission();
                  store.set(NOTIFY_KEY, true);
                } else if (N.permission === "granted") {
                  store.set(NOTIFY_KEY, store.get(NOTIFY_KEY, true) === false);
                }
                onChange?.();
              },
            },
            icon(enabled ? "bell" : "bell-off"),
          ),
        );
      }
      return parts;
    },
    destroy() {
      document.removeEventListener("visibilitychange", onVisibility);
      awaited = false;
      closeNote();
      paint();
    },
  };
}
