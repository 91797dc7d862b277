// One WebSocket per tab (see docs/protocol.md): says hello, keeps the token,
// matches replies to requests by id, reconnects with back-off and lets pages
// re-subscribe after every reconnect.

import { store } from "./store.js";

const TOKEN_KEY = "bodoge.token";
const NAME_KEY = "bodoge.name";
// Set while this browser's player is an account: a token the server no longer knows
// then means "signed out" (not "the server was wiped": become a new guest).
const ACCOUNT_KEY = "bodoge.account";
const BACKOFF_MS = [300, 800, 1500, 3000, 5000];
const REQUEST_TIMEOUT_MS = 15000;
const PING_MS = 25000;

/** The header that names this browser's player to an HTTP request (uploads): a header,
 * not a cookie, so that another site cannot make the browser send it. */
export function bearer() {
  const token = store.get(TOKEN_KEY);
  return token ? { Authorization: `Bearer ${token}` } : {};
}

export class RequestError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

export class Connection {
  constructor(url) {
    this.url = url;
    this.ws = null;
    this.state = "idle"; // idle | connecting | ready | closed
    this.player = null;
    // Request ids are unique per page, not only per connection: the server answers a
    // state-changing request it already answered with the first reply (a retry), so a
    // reloaded page must not reuse the ids of the page before it.
    this.idPrefix = Math.random().toString(36).slice(2, 10);
    this.nextId = 1;
    this.pending = new Map();
    this.handlers = new Map();
    this.readyHandlers = new Set();
    this.stateHandlers = new Set();
    this.attempt = 0;
    this.pingTimer = null;
    this.lang = "ja";
    this.stopped = false;
    this.sentToken = null;
  }

  get isAccount() {
    return Boolean(store.get(ACCOUNT_KEY));
  }

  setAccount(yes) {
    store.set(ACCOUNT_KEY, yes ? true : null);
    for (const fn of [...(this.handlers.get("account") ?? [])]) fn(yes);
  }

  /** Become the player of `token` (a sign-in): reconnect with it. */
  useToken(token, player) {
    store.set(TOKEN_KEY, token);
    store.set(NAME_KEY, player.name);
    this.setAccount(true);
    this.reconnect();
  }

  /** Forget this browser's player (signed out): no token, no name, no connection. */
  forget() {
    store.set(TOKEN_KEY, null);
    store.set(NAME_KEY, null);
    this.setAccount(false);
    this.player = null;
    this.stopped = true;
    const ws = this.ws;
    this.ws = null;
    clearInterval(this.pingTimer);
    ws?.close();
    this.setState("idle");
  }

  reconnect() {
    this.stopped = false;
    this.attempt = 0;
    const ws = this.ws;
    if (ws) ws.close(); // the close handler opens again, with the stored token
    else if (this.state !== "connecting") this.open();
  }

  get token() {
    return store.get(TOKEN_KEY);
  }

  get savedName() {
    return store.get(NAME_KEY);
  }

  /** Whether this browser can say hello (a token from before, or a chosen name). */
  get canHello() {
    return Boolean(this.token || this.savedName);
  }

  start(name = null) {
    if (name) store.set(NAME_KEY, name);
    this.stopped = false;
    if (this.state === "connecting" || this.state === "ready") return;
    this.open();
  }

  open() {
    this.setState("connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.sentToken = this.token ?? null;
      ws.send(
        JSON.stringify({
          type: "hello",
          token: this.token ?? null,
          name: this.savedName ?? null,
          lang: this.lang,
        }),
      );
    });
    ws.addEventListener("message", (e) => this.receive(e.data));
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer);
        reject(new RequestError("disconnected", "connection lost"));
      }
      this.pending.clear();
      if (this.stopped) return;
      this.setState("closed");
      const wait = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
      this.attempt += 1;
      setTimeout(() => {
        if (!this.stopped && !this.ws) this.open();
      }, wait);
    });
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    // Marks let the benchmark measure arrival-to-drawn for game events.
    if (msg.type === "event") performance.mark(`ws-event-${msg.n}`);
    if (msg.type === "welcome") {
      this.player = msg.player;
      store.set(TOKEN_KEY, msg.token);
      store.set(NAME_KEY, msg.player.name);
      if (this.state !== "ready") {
        this.attempt = 0;
        this.setState("ready");
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_MS);
        for (const fn of [...this.readyHandlers]) fn(this.player);
      }
    }
    // A direct reply (ack, error, or a reply of its own type such as `assist`)
    // echoes the request's id.
    if (msg.id !== undefined && this.pending.has(msg.id)) {
      const waiting = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      clearTimeout(waiting.timer);
      if (msg.type === "error") waiting.reject(new RequestError(msg.code, msg.message));
      else waiting.resolve(msg);
    }
    if (msg.type === "error" && msg.code === "bad_token" && this.state !== "ready") {
      if (this.token && this.token !== this.sentToken) {
        // Signed in (or out everywhere) meanwhile: say hello with the new token.
        this.sentToken = this.token;
        this.send({ type: "hello", token: this.token, name: null, lang: this.lang });
        return;
      }
      if (this.isAccount) {
        // An account's token that was ended (signed out elsewhere): not a new guest.
        this.forget();
        for (const fn of [...(this.handlers.get("signed_out") ?? [])]) fn(msg);
        return;
      }
      // A token this server never gave (its data was wiped): become a new player.
      store.set(TOKEN_KEY, null);
      this.send({ type: "hello", token: null, name: this.savedName ?? null, lang: this.lang });
      return;
    }
    for (const fn of [...(this.handlers.get(msg.type) ?? [])]) fn(msg);
    for (const fn of [...(this.handlers.get("*") ?? [])]) fn(msg);
  }

  setState(state) {
    this.state = state;
    for (const fn of [...this.stateHandlers]) fn(state);
  }

  /** Listen to one message type ("*": all); returns the function that stops it. */
  on(type, fn) {
    if (!this.handlers.has(type)) this.handlers.set(type, new Set());
    this.handlers.get(type).add(fn);
    return () => this.handlers.get(type).delete(fn);
  }

  /** Run `fn` now if ready and after every (re)connect; returns the stop function. */
  onReady(fn) {
    this.readyHandlers.add(fn);
    if (this.state === "ready") fn(this.player);
    return () => this.readyHandlers.delete(fn);
  }

  onState(fn) {
    this.stateHandlers.add(fn);
    fn(this.state);
    return () => this.stateHandlers.delete(fn);
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  /** Send a request and wait for its reply (resolves) or `error` (rejects). */
  request(msg) {
    const id = `${this.idPrefix}-${this.nextId++}`;
    return new Promise((resolve, reject) => {
      if (!this.send({ ...msg, id })) {
        reject(new RequestError("disconnected", "not connected"));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RequestError("timeout", "no reply"));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
    });
  }

  rename(name) {
    store.set(NAME_KEY, name);
    this.send({ type: "rename", name });
  }
}
