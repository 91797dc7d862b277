// The service worker (served as /sw.js, so its scope is the whole site): it keeps the page's
// shell for a quick start from the home screen, and shows Web Push notifications.
//
// The shell: a page (/, /t/…, /account, …: one HTML file) and /static/… files are fetched
// from the network first and kept; when the network is slow or gone, the kept copy answers.
// Network first, not cache first: a cached old script beside a new one from the server would
// mix two versions of the front-end in one page.  The API and the WebSocket are never
// touched.
//
// A push carries JSON {title, body, url, tag, kind} (bodoge/server/services/notify.py);
// its notification, clicked, focuses a tab of the site on that table or opens one.
//
// A push service may renew a subscription on its own (keys rotated, the old one expired):
// the browser then fires "pushsubscriptionchange" here, with no page open.  The worker
// subscribes again with the server's VAPID key and tells the server, which keeps the new
// subscription in place of the old one.  What it needs for that — the key, the player's
// token and language, the endpoint the server knows — the account page hands it when it
// turns push on or shows it on (a "bodoge.push-keep" message), kept in IndexedDB.

const CACHE = "bodoge-shell-v1";
const SHELL = ["/", "/static/css/app.css", "/static/js/main.js", "/static/icons/icon-192.png"];
// A page or file the network has not brought in this long comes from the cache.
const PATIENCE_MS = 2500;
const PAGES = /^\/($|t\/|account$|p\/|leaderboard$)/;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

/** The network's answer (kept for later), or the kept copy if the network is slow or gone. */
async function networkFirst(request, key) {
  const cache = await caches.open(CACHE);
  const fresh = fetch(request).then(async (response) => {
    if (response.ok && response.type === "basic") await cache.put(key, response.clone());
    return response;
  });
  const late = new Promise((resolve) => setTimeout(resolve, PATIENCE_MS, null));
  try {
    const first = await Promise.race([fresh, late]);
    if (first) return first;
  } catch {
    /* offline: the kept copy below */
  }
  const kept = await cache.match(key);
  if (kept) return kept;
  return fresh; // nothing kept: wait for the network after all
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && PAGES.test(url.pathname)) {
    // Every page is the one HTML file: kept once, under "/".
    event.respondWith(networkFirst(request, "/"));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(networkFirst(request, request));
  }
});

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const title = typeof data.title === "string" ? data.title : "bodoge";
  const url = typeof data.url === "string" && data.url.startsWith("/") ? data.url : "/";
  const shown = self.registration.showNotification(title, {
    body: typeof data.body === "string" ? data.body : "",
    tag: typeof data.tag === "string" ? data.tag : undefined,
    // A newer turn at the same table replaces the older notification, and says so.
    renotify: typeof data.tag === "string",
    icon: "/static/icons/icon-192.png",
    badge: "/static/icons/icon-192.png",
    data: { url },
  });
  // Open tabs hear of it too (a page may refresh what it shows), once it shows: a tab told
  // of a push finds its notification among the registration's.  (Told also if it could not
  // show, e.g. without the permission.)
  const told = shown
    .catch(() => null)
    .then(() => self.clients.matchAll({ type: "window", includeUncontrolled: true }))
    .then((tabs) => tabs.forEach((tab) => tab.postMessage({ type: "bodoge.push", url, kind: data.kind ?? null })));
  event.waitUntil(Promise.all([shown, told]));
});

/** Focus a tab already on ``url``, else bring another tab of the site there, else open one. */
async function openTable(url) {
  const target = new URL(url, self.location.origin).href;
  const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const same = tabs.find((tab) => tab.url === target);
  if (same) return same.focus();
  const any = tabs.find((tab) => new URL(tab.url).origin === self.location.origin && "navigate" in tab);
  if (any) {
    const moved = await any.navigate(target).catch(() => null);
    if (moved) return moved.focus();
  }
  return self.clients.openWindow(target);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data?.url ?? "/";
  event.waitUntil(openTable(url));
});

// --- renewing a subscription -------------------------------------------------------------

const KEEP_DB = "bodoge-push";
const KEEP_STORE = "keep";

/** Run `act` on the kept record's store; resolves with what its request returned. */
function withKept(mode, act) {
  return new Promise((resolve, reject) => {
    const opened = indexedDB.open(KEEP_DB, 1);
    opened.onupgradeneeded = () => opened.result.createObjectStore(KEEP_STORE);
    opened.onerror = () => reject(opened.error);
    opened.onsuccess = () => {
      const db = opened.result;
      const tx = db.transaction(KEEP_STORE, mode);
      const request = act(tx.objectStore(KEEP_STORE));
      tx.oncomplete = () => {
        db.close();
        resolve(request.result);
      };
      tx.onerror = () => {
        db.close();
        reject(tx.error);
      };
    };
  });
}

/** What renewing needs: {key, token, lang, endpoint}, or null. */
const readKept = () => withKept("readonly", (store) => store.get("push")).then((v) => v ?? null);
const keep = (value) =>
  withKept("readwrite", (store) => (value ? store.put(value, "push") : store.delete("push")));

self.addEventListener("message", (event) => {
  const data = event.data;
  if (!data || data.type !== "bodoge.push-keep") return;
  const value = data.value;
  const valid =
    value === null ||
    (typeof value === "object" &&
      typeof value.key === "string" &&
      typeof value.token === "string" &&
      typeof value.endpoint === "string");
  if (!valid || event.origin !== self.location.origin) return;
  event.waitUntil(
    keep(value).then(
      () => event.ports[0]?.postMessage(true),
      () => event.ports[0]?.postMessage(false),
    ),
  );
});

function keyBytes(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/**
 * Subscribe again (unless the browser already did: `renewed`) and tell the server: the new
 * subscription replaces the old one (`old`, or the endpoint kept when the browser does not
 * say); if the server does not know the old one any more, the new one is added.
 */
async function renew(old, renewed) {
  const kept = await readKept();
  if (!kept) return; // push was never turned on here, or turned off
  const fresh =
    renewed ??
    (await self.registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(kept.key),
    }));
  const body = { ...fresh.toJSON(), lang: kept.lang };
  const headers = { "Content-Type": "application/json", Authorization: `Bearer ${kept.token}` };
  const oldEndpoint = old?.endpoint ?? kept.endpoint;
  let answer = null;
  if (oldEndpoint && oldEndpoint !== fresh.endpoint) {
    answer = await fetch("/api/push/subscriptions/replace", {
      method: "POST",
      headers,
      body: JSON.stringify({ ...body, old_endpoint: oldEndpoint }),
    });
  }
  if (!answer || answer.status === 404) {
    answer = await fetch("/api/push/subscriptions", { method: "POST", headers, body: JSON.stringify(body) });
  }
  // Refused (a token signed out since): the old subscription lapses at the push service,
  // and the server drops it at the next push (410).
  if (answer.ok) await keep({ ...kept, endpoint: fresh.endpoint });
}

self.addEventListener("pushsubscriptionchange", (event) => {
  event.waitUntil(renew(event.oldSubscription ?? null, event.newSubscription ?? null));
});
