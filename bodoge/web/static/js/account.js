// The account page (/account): keep my name (a password and/or a passkey), sign in on
// this device, passwords, passkeys, the devices signed in (ending any other one), sign out
// here or everywhere; notifications (notify.js).  The server's side is
// bodoge/server/services/accounts.py; the endpoints are in docs/protocol.md ("Accounts").
// Passkeys use the browser's own WebAuthn API: options and answers travel as JSON with
// base64url bytes, converted here (no third-party code).

import { bearer } from "./conn.js";
import { fill, h, icon, toast, userText } from "./dom.js";
import { lang, onLangChange, t } from "./i18n.js";
import { notifyPanel } from "./notify.js";
import { confirmDialog } from "./ui.js";

/** One JSON request to the account API; rejects with {code} on an error answer. */
async function api(method, path, body = undefined) {
  const response = await fetch(path, {
    method,
    headers: { ...bearer(), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch {
    /* not JSON: an error below */
  }
  if (!response.ok) throw { code: data?.error?.code ?? `http_${response.status}` };
  return data;
}

// --- WebAuthn: JSON options in, JSON credentials out ------------------------------------

function fromB64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  const raw = atob(b64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes.buffer;
}

function toB64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let raw = "";
  for (const b of bytes) raw += String.fromCharCode(b);
  return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function creationOptions(json) {
  return {
    ...json,
    challenge: fromB64url(json.challenge),
    user: { ...json.user, id: fromB64url(json.user.id) },
    excludeCredentials: (json.excludeCredentials ?? []).map((c) => ({ ...c, id: fromB64url(c.id) })),
  };
}

function requestOptions(json) {
  return {
    ...json,
    challenge: fromB64url(json.challenge),
    allowCredentials: (json.allowCredentials ?? []).map((c) => ({ ...c, id: fromB64url(c.id) })),
  };
}

function credentialJSON(cred) {
  const r = cred.response;
  const response = { clientDataJSON: toB64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64url(r.attestationObject);
    if (r.getTransports) response.transports = r.getTransports();
  } else {
    response.authenticatorData = toB64url(r.authenticatorData);
    response.signature = toB64url(r.signature);
    if (r.userHandle) response.userHandle = toB64url(r.userHandle);
  }
  return {
    id: cred.id,
    rawId: toB64url(cred.rawId),
    type: cred.type,
    response,
    clientExtensionResults: cred.getClientExtensionResults?.() ?? {},
  };
}

/** Why passkeys cannot work on this page (the i18n key saying so), or null when they can: a
 * browser refuses WebAuthn on an IP address (127.0.0.1 too: its relying party must be a
 * host name) and off a secure page (HTTPS, or http://localhost). */
function passkeyBlock() {
  const host = location.hostname;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":")) return "account.passkey_no_ip";
  if (!window.isSecureContext) return "account.passkey_no_https";
  if (!(window.PublicKeyCredential && navigator.credentials?.create)) return "account.no_webauthn";
  return null;
}
const passkeysWork = () => passkeyBlock() === null;

/** Why there is no passkey button here, and what to do about it. */
function passkeyWhy() {
  const key = passkeyBlock();
  const host = location.hostname;
  const loopback = /^127\./.test(host) || host === "[::1]";
  const here = `${location.protocol}//localhost${location.port ? `:${location.port}` : ""}${location.pathname}`;
  return h(
    "p",
    { class: "field-help passkey-why", dataset: { testid: "passkey-why" } },
    t(key, { host }),
    key === "account.passkey_no_ip"
      ? [" ", loopback ? [t("account.passkey_fix_local"), " ", h("a", { href: here }, here)] : t("account.passkey_fix_remote")]
      : null,
  );
}

async function makePasskey(name, label) {
  const options = await api("POST", "/api/account/passkeys/options", name ? { name } : {});
  let cred;
  try {
    cred = await navigator.credentials.create({ publicKey: creationOptions(options.publicKey) });
  } catch {
    throw { code: "passkey_cancelled" };
  }
  return api("POST", "/api/account/passkeys", { challenge: options.challenge, credential: credentialJSON(cred), label });
}

async function usePasskey() {
  const options = await api("POST", "/api/sign-in/passkey/options");
  let cred;
  try {
    cred = await navigator.credentials.get({ publicKey: requestOptions(options.publicKey) });
  } catch {
    throw { code: "passkey_cancelled" };
  }
  return api("POST", "/api/sign-in/passkey", { challenge: options.challenge, credential: credentialJSON(cred) });
}

/** A short name for a new passkey: the device as the browser describes itself. */
function deviceLabel() {
  const ua = navigator.userAgentData?.platform || navigator.platform || "";
  return (ua || "passkey").slice(0, 40);
}

// --- the page ------------------------------------------------------------------------------

export function mountAccount(root, app) {
  const conn = app.conn;
  const box = h("div", { class: "account" });
  root.append(box);
  let state = null; // the answer of GET /api/account, null while unknown (or no token)
  let busy = false;

  async function load() {
    if (!conn.token) {
      state = null;
      draw();
      return;
    }
    try {
      state = await api("GET", "/api/account");
      conn.setAccount(Boolean(state.account));
    } catch {
      state = null;
    }
    draw();
  }

  function failed(err) {
    toast(() => app.errorText(err), "error", 5000);
  }

  async function run(fn) {
    if (busy) return;
    busy = true;
    try {
      await fn();
    } catch (err) {
      failed(err);
    } finally {
      busy = false;
    }
  }

  function signedIn(answer, message) {
    conn.useToken(answer.token, answer.player);
    toast(() => t(message, { name: answer.player.name }), "info", 4000);
    app.navigate("/");
  }

  function input(id, props = {}) {
    return h("input", { id, name: id, dataset: { testid: id }, ...props });
  }

  function field(id, label, el) {
    return h("div", { class: "field" }, h("label", { class: "field-label", for: id }, label), el);
  }

  // --- a guest keeps their name ---
  function keepPanel() {
    const name = input("account-name", { value: state.player.name, maxlength: 24, required: true, autocomplete: "username" });
    const password = input("account-password", { type: "password", minlength: 8, maxlength: 256, autocomplete: "new-password" });
    return h(
      "section",
      { class: "panel account-panel", "aria-labelledby": "keep-title" },
      h("h2", { id: "keep-title" }, t("account.keep_title")),
      h("p", { class: "muted" }, t("account.keep_intro")),
      h(
        "form",
        {
          class: "account-form",
          onsubmit: (e) => {
            e.preventDefault();
            run(async () => {
              state = await api("POST", "/api/account", { name: name.value.trim(), password: password.value });
              conn.setAccount(true);
              toast(() => t("account.kept"), "info", 4000);
              draw();
            });
          },
        },
        field("account-name", t("account.name"), name),
        field("account-password", t("account.password_new"), password),
        h("p", { class: "field-help" }, t("account.password_help")),
        h(
          "div",
          { class: "row wrap" },
          h("button", { type: "submit", class: "btn btn--primary", dataset: { testid: "keep-password" } }, t("account.keep_password")),
          passkeysWork()
            ? h(
                "button",
                {
                  type: "button",
                  class: "btn",
                  dataset: { testid: "keep-passkey" },
                  onclick: () =>
                    run(async () => {
                      state = await makePasskey(name.value.trim(), deviceLabel());
                      conn.setAccount(true);
                      toast(() => t("account.kept"), "info", 4000);
                      draw();
                    }),
                },
                icon("spark", "icon icon--sm"),
                t("account.keep_passkey"),
              )
            : null,
        ),
        passkeysWork() ? null : passkeyWhy(),
      ),
    );
  }

  // --- an account: password, passkeys, signing out ---
  function accountPanels() {
    const account = state.account;
    const old = input("password-old", { type: "password", maxlength: 256, autocomplete: "current-password" });
    const fresh = input("password-new", { type: "password", minlength: 8, maxlength: 256, autocomplete: "new-password" });
    const passwordPanel = h(
      "section",
      { class: "panel account-panel", "aria-labelledby": "password-title" },
      h("h2", { id: "password-title" }, t(account.password ? "account.change_password" : "account.set_password")),
      h(
        "form",
        {
          class: "account-form",
          onsubmit: (e) => {
            e.preventDefault();
            run(async () => {
              state = await api("POST", "/api/account/password", { old: old.value, new: fresh.value });
              toast(() => t("account.password_saved"), "info", 4000);
              draw();
            });
          },
        },
        account.password ? field("password-old", t("account.password_old"), old) : null,
        field("password-new", t("account.password_new"), fresh),
        h("p", { class: "field-help" }, t("account.password_help")),
        h("div", { class: "row wrap" }, h("button", { type: "submit", class: "btn btn--primary", dataset: { testid: "password-save" } }, t("common.save"))),
      ),
    );
    const keys = account.passkeys.map((k) =>
      h(
        "li",
        { class: "passkey", dataset: { testid: "passkey" } },
        icon("spark", "icon icon--sm"),
        h("span", { class: "passkey-name" }, userText(k.name)),
        h("span", { class: "muted passkey-date" }, t("account.passkey_added", { date: new Date(k.created_at).toLocaleDateString(lang()) })),
        h(
          "button",
          {
            type: "button",
            class: "btn btn--sm btn--ghost",
            "aria-label": t("account.passkey_remove_named", { name: k.name }),
            dataset: { testid: "passkey-remove" },
            onclick: () =>
              run(async () => {
                state = await api("DELETE", `/api/account/passkeys/${encodeURIComponent(k.id)}`);
                draw();
              }),
          },
          t("account.passkey_remove"),
        ),
      ),
    );
    const passkeyPanel = h(
      "section",
      { class: "panel account-panel", "aria-labelledby": "passkeys-title" },
      h("h2", { id: "passkeys-title" }, t("account.passkeys")),
      keys.length ? h("ul", { class: "stack-list" }, keys) : h("p", { class: "muted" }, t("account.no_passkeys")),
      passkeysWork()
        ? h(
            "div",
            { class: "row wrap" },
            h(
              "button",
              {
                type: "button",
                class: "btn",
                dataset: { testid: "passkey-add" },
                onclick: () =>
                  run(async () => {
                    state = await makePasskey(null, deviceLabel());
                    toast(() => t("account.passkey_saved"), "info", 4000);
                    draw();
                  }),
              },
              t("account.passkey_add"),
            ),
          )
        : passkeyWhy(),
    );
    const outPanel = h(
      "section",
      { class: "panel account-panel", "aria-labelledby": "out-title" },
      h("h2", { id: "out-title" }, t("account.sign_out_title")),
      h("p", { class: "muted" }, t("account.sign_out_intro")),
      h(
        "div",
        { class: "row wrap" },
        h(
          "button",
          {
            type: "button",
            class: "btn",
            dataset: { testid: "sign-out" },
            onclick: () =>
              run(async () => {
                await api("POST", "/api/sign-out");
                conn.forget();
                toast(() => t("account.signed_out"), "info", 4000);
                app.navigate("/account");
              }),
          },
          icon("exit", "icon icon--sm"),
          t("account.sign_out"),
        ),
        h(
          "button",
          {
            type: "button",
            class: "btn btn--danger",
            dataset: { testid: "sign-out-everywhere" },
            onclick: () =>
              run(async () => {
                const sure = await confirmDialog({
                  title: t("account.sign_out_everywhere"),
                  message: t("account.sign_out_everywhere_confirm"),
                  ok: t("account.sign_out_everywhere"),
                  danger: true,
                });
                if (!sure) return;
                const answer = await api("POST", "/api/sign-out/everywhere");
                conn.useToken(answer.token, answer.player);
                toast(() => t("account.signed_out_everywhere"), "info", 4000);
                await load(); // the devices: this one alone
              }),
          },
          t("account.sign_out_everywhere"),
        ),
      ),
    );
    return [passwordPanel, passkeyPanel, devicesPanel(account.devices ?? [], account.session_days), outPanel];
  }

  /** The devices signed in to the account (its sign-ins), this one marked; any other ends. */
  function devicesPanel(devices, days) {
    const when = (ms) => new Date(ms).toLocaleString(lang(), { dateStyle: "medium", timeStyle: "short" });
    const named = (d) =>
      d.browser && d.system
        ? t("account.device_name", { browser: d.browser, system: d.system })
        : d.browser || d.system || t("account.device_unknown");
    const rows = devices.map((d) =>
      h(
        "li",
        { class: "device", dataset: { testid: "device", this: String(d.this) } },
        h(
          "div",
          { class: "device-what" },
          h("span", { class: "passkey-name", dataset: { testid: "device-name" } }, userText(named(d))),
          d.this ? h("span", { class: "badge badge--account", dataset: { testid: "this-device" } }, t("account.this_device")) : null,
        ),
        h(
          "div",
          { class: "muted device-when" },
          d.address ? h("span", {}, t("account.device_address", { address: d.address })) : null,
          h("span", {}, t("account.device_first", { date: when(d.first_seen) })),
          h("span", {}, t("account.device_last", { date: when(d.last_seen) })),
        ),
        d.this
          ? null
          : h(
              "button",
              {
                type: "button",
                class: "btn btn--sm btn--ghost",
                "aria-label": t("account.device_end_named", { name: named(d) }),
                dataset: { testid: "device-end" },
                onclick: () =>
                  run(async () => {
                    state = await api("DELETE", `/api/account/devices/${encodeURIComponent(d.id)}`);
                    toast(() => t("account.device_ended"), "info", 4000);
                    draw();
                  }),
              },
              t("account.device_end"),
            ),
      ),
    );
    return h(
      "section",
      { class: "panel account-panel", "aria-labelledby": "devices-title" },
      h("h2", { id: "devices-title" }, t("account.devices")),
      h("p", { class: "muted" }, t("account.devices_intro", { days })),
      h("ul", { class: "stack-list", dataset: { testid: "devices" } }, rows),
    );
  }

  // --- signing in on this device ---
  function signInPanel() {
    const name = input("sign-in-name", { maxlength: 24, required: true, autocomplete: "username" });
    const password = input("sign-in-password", { type: "password", required: true, maxlength: 256, autocomplete: "current-password" });
    return h(
      "section",
      { class: "panel account-panel", "aria-labelledby": "sign-in-title" },
      h("h2", { id: "sign-in-title" }, t("account.sign_in_title")),
      h("p", { class: "muted" }, t(state ? "account.sign_in_intro_guest" : "account.sign_in_intro")),
      h(
        "form",
        {
          class: "account-form",
          onsubmit: (e) => {
            e.preventDefault();
            run(async () => {
              const answer = await api("POST", "/api/sign-in", { name: name.value.trim(), password: password.value });
              signedIn(answer, "account.welcome_back");
            });
          },
        },
        field("sign-in-name", t("account.name"), name),
        field("sign-in-password", t("account.password"), password),
        h(
          "div",
          { class: "row wrap" },
          h("button", { type: "submit", class: "btn btn--primary", dataset: { testid: "sign-in" } }, t("account.sign_in")),
          passkeysWork()
            ? h(
                "button",
                {
                  type: "button",
                  class: "btn",
                  dataset: { testid: "sign-in-passkey" },
                  onclick: () => run(async () => signedIn(await usePasskey(), "account.welcome_back")),
                },
                icon("spark", "icon icon--sm"),
                t("account.sign_in_passkey"),
              )
            : null,
        ),
        passkeysWork() ? null : passkeyWhy(),
      ),
    );
  }

  function draw() {
    const account = state?.account;
    const head = h(
      "div",
      { class: "account-head" },
      h("h1", { class: "lobby-title" }, t("account.title")),
      state
        ? h(
            "p",
            { class: "account-status", dataset: { testid: "account-status" } },
            account
              ? [t("account.status_account"), " ", userText(account.name, "account-strong")]
              : [t("account.status_guest"), " ", userText(state.player.name, "account-strong")],
          )
        : null,
    );
    fill(box, head, ...(state ? (account ? [...accountPanels(), notifications(true)] : [keepPanel(), notifications(false), signInPanel()]) : [signInPanel()]));
  }

  // The notifications panel keeps its own state: made again only when the player becomes
  // an account (e-mail is for accounts), redrawn otherwise.
  let notify = null;
  function notifications(isAccount) {
    if (notify?.isAccount !== isAccount) notify = { isAccount, ...notifyPanel({ api, run, isAccount }) };
    else notify.redraw();
    return notify.element;
  }

  draw();
  const offs = [onLangChange(draw), conn.onReady(() => load())];
  if (!conn.token) load();
  return {
    title: () => t("account.page_title"),
    destroy() {
      for (const off of offs) off();
    },
  };
}
