// The account page's notifications panel: what to be told of (my turn, a game ended, an
// invitation; a daily digest instead of one e-mail each), the e-mail address (accounts only:
// a link sent to it verifies it), and Web Push on this device (any player).  The server's
// side is bodoge/server/services/notify.py; the endpoints are in docs/protocol.md
// ("Notifications").  The service worker that shows a push is /sw.js.

import { bearer } from "./conn.js";
import { fill, h, toast } from "./dom.js";
import { lang, t } from "./i18n.js";

const CHOICES = ["my_turn", "game_ended", "invited", "digest"];

function keyBytes(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

const pushSupported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window && window.isSecureContext;

/** This browser's service worker registration, or null if there is none within a while. */
async function registration() {
  const late = new Promise((resolve) => setTimeout(resolve, 5000, null));
  return Promise.race([navigator.serviceWorker.ready, late]);
}

/**
 * Hand the service worker what it needs to renew this browser's subscription by itself when
 * the push service changes it (sw.js, "pushsubscriptionchange"): the server's key, this
 * player's token and language, the endpoint the server knows.  `null`: forget them.
 */
async function keepForWorker(value) {
  const reg = await registration();
  const worker = reg?.active;
  if (!worker) return false;
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (e) => resolve(e.data === true);
    worker.postMessage({ type: "bodoge.push-keep", value }, [channel.port2]);
    setTimeout(resolve, 5000, false);
  });
}

function kept(key, subscription) {
  const token = (bearer().Authorization ?? "").replace(/^Bearer /, "");
  return { key, token, lang: lang(), endpoint: subscription.endpoint };
}

/**
 * The panel: a section that fills itself once the settings are read.
 * `api` and `run` are the account page's (JSON requests; one action at a time, errors as
 * toasts); `isAccount` says whether e-mail can be offered.
 */
export function notifyPanel({ api, run, isAccount }) {
  const box = h("section", { class: "panel account-panel", "aria-labelledby": "notify-title", dataset: { testid: "notify-panel" } });
  let state = null;
  let subscription = null; // this browser's PushSubscription, if any

  async function load() {
    state = await api("GET", "/api/account/notifications");
    if (pushSupported() && state.push.key) {
      const reg = await registration();
      subscription = reg ? await reg.pushManager.getSubscription() : null;
      // Kept fresh each time (a sign-in since changed the token).
      if (subscription) keepForWorker(kept(state.push.key, subscription)).catch(() => {});
    }
    draw();
  }

  function choice(name) {
    const id = `notify-${name}`;
    const box = h("input", {
      type: "checkbox",
      id,
      dataset: { testid: id },
      checked: state.choices[name],
      onchange: (e) =>
        run(async () => {
          state = await api("POST", "/api/account/notifications", { [name]: e.target.checked, lang: lang() });
          draw();
        }),
    });
    return h("label", { class: "check", for: id }, box, h("span", {}, t(`notify.${name}`)));
  }

  function emailPart() {
    if (!isAccount) return h("p", { class: "muted" }, t("notify.email_accounts_only"));
    if (!state.mail) return h("p", { class: "muted" }, t("notify.mail_off"));
    const address = h("input", { id: "notify-email", type: "email", maxlength: 254, autocomplete: "email", value: state.email ?? "", dataset: { testid: "notify-email" } });
    const status = state.email
      ? t(state.verified ? "notify.email_verified" : "notify.email_pending", { email: state.email })
      : t("notify.email_none");
    return h(
      "form",
      {
        class: "account-form",
        onsubmit: (e) => {
          e.preventDefault();
          run(async () => {
            state = await api("POST", "/api/account/email", { email: address.value.trim(), lang: lang() });
            toast(() => t(state.verified ? "notify.email_saved" : "notify.email_sent"), "info", 5000);
            draw();
          });
        },
      },
      h("p", { class: "muted", dataset: { testid: "notify-email-status" } }, status),
      h("div", { class: "field" }, h("label", { class: "field-label", for: "notify-email" }, t("notify.email")), address),
      h(
        "div",
        { class: "row wrap" },
        h("button", { type: "submit", class: "btn btn--primary", dataset: { testid: "notify-email-save" } }, t("notify.email_send")),
        state.email
          ? h(
              "button",
              {
                type: "button",
                class: "btn btn--ghost",
                dataset: { testid: "notify-email-remove" },
                onclick: () =>
                  run(async () => {
                    state = await api("DELETE", "/api/account/email");
                    draw();
                  }),
              },
              t("notify.email_remove"),
            )
          : null,
      ),
    );
  }

  function pushPart() {
    if (!state.push.key) return h("p", { class: "muted" }, t("notify.push_off"));
    if (!pushSupported()) return h("p", { class: "muted" }, t("notify.push_unsupported"));
    const on = async () => {
      if ((await Notification.requestPermission()) !== "granted") throw { code: "push_denied" };
      const reg = await registration();
      if (!reg) throw { code: "push_unsupported" };
      try {
        subscription = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(state.push.key) });
      } catch {
        throw { code: "push_unreachable" };
      }
      state = await api("POST", "/api/push/subscriptions", { ...subscription.toJSON(), lang: lang() });
      await keepForWorker(kept(state.push.key, subscription)).catch(() => {});
      toast(() => t("notify.push_on_done"), "info", 4000);
    };
    const off = async () => {
      const endpoint = subscription.endpoint;
      await subscription.unsubscribe().catch(() => null);
      subscription = null;
      await keepForWorker(null).catch(() => {});
      try {
        state = await api("DELETE", "/api/push/subscriptions", { endpoint });
      } catch (err) {
        if (err.code !== "unknown_subscription") throw err;
      }
    };
    return h(
      "div",
      { class: "row wrap" },
      h("span", { class: "muted", dataset: { testid: "notify-push-status" } }, t(subscription ? "notify.push_here_on" : "notify.push_here_off", { count: state.push.devices })),
      h(
        "button",
        {
          type: "button",
          class: "btn",
          dataset: { testid: "notify-push-toggle" },
          onclick: () => run(async () => (subscription ? off() : on()).finally(draw)),
        },
        t(subscription ? "notify.push_turn_off" : "notify.push_turn_on"),
      ),
    );
  }

  function draw() {
    if (!state) {
      fill(box, h("h2", { id: "notify-title" }, t("notify.title")), h("p", { class: "muted" }, t("common.loading")));
      return;
    }
    fill(
      box,
      h("h2", { id: "notify-title" }, t("notify.title")),
      h("p", { class: "muted" }, t("notify.intro")),
      h("fieldset", { class: "notify-choices" }, h("legend", {}, t("notify.what")), CHOICES.map(choice)),
      h("h3", {}, t("notify.email_title")),
      emailPart(),
      h("h3", {}, t("notify.push_title")),
      pushPart(),
    );
  }

  draw();
  load().catch(() => fill(box, h("h2", { id: "notify-title" }, t("notify.title")), h("p", { class: "muted" }, t("notify.load_failed"))));
  return { element: box, redraw: () => state && draw() };
}
