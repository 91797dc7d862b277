// Illustori's options in the lobby's "new table" form: the language, the two
// bans, the 25-second vote limit, secret voting, the rules panel, and the
// deck — generated from a seed (random when left empty) or made of uploaded
// pictures.  The lobby (bodoge/web/static/js/lobby.js) loads this module for
// a game whose options go beyond the player count; see bodoge/web/README.md.

import { bearer } from "/static/js/conn.js";
import { fill, h, icon, loadStylesheet } from "/static/js/dom.js";
import { has, t } from "/static/js/i18n.js";
import { STRINGS } from "./strings.js";

export const strings = STRINGS;

// The form's own stylesheet, loaded before the module resolves (no jump).
await loadStylesheet(new URL("./options.css", import.meta.url).pathname);

const FLAGS = ["ban_same_ends", "ban_used_joints", "vote_limit", "secret_votes", "show_rules"];
const MAX_SEED = 2 ** 53 - 1;
const MIN_DECK = 30;
const ACCEPT = "image/png,image/jpeg,image/webp,.png,.jpg,.jpeg,.webp";
// Photos above this are shrunk in the browser before they are sent (the
// server redraws every picture at 768 px anyway).
const SHRINK_BYTES = 1_500_000;
const SHRINK_PIXELS = 1024;

/** The fewest cards a deck needs for `players` (as options.min_deck_size). */
export function minDeck(players) {
  return Math.max(MIN_DECK, players * (players >= 7 ? 4 : 5) + 1);
}

/**
 * The form part.  `ctx.defaults` are the game's defaults (GET /api/games),
 * `ctx.saved` what this browser chose last time, `ctx.save(values)` keeps
 * the choices, `ctx.players()` the player count chosen in the lobby.
 * Returns {el, draw(), options()}: options() gives the table options, or
 * {error} (a function giving the message) when the form is not ready.
 */
export function createOptions(ctx) {
  const d = ctx.defaults ?? {};
  const s = ctx.saved ?? {};
  const state = {
    language: s.language ?? d.language ?? "ja",
    deckMode: s.deckMode === "custom" ? "custom" : "generated",
    seed: typeof s.seed === "string" ? s.seed : "",
    custom: s.custom?.deck ? s.custom : null,
  };
  for (const f of FLAGS) state[f] = typeof s[f] === "boolean" ? s[f] : Boolean(d[f]);
  let uploading = false;
  let uploadError = null; // a function giving the message
  const el = h("div", { class: "il-opts", dataset: { testid: "game-options" } });

  function keep() {
    const { language, deckMode, seed, custom } = state;
    const flags = Object.fromEntries(FLAGS.map((f) => [f, state[f]]));
    ctx.save({ language, deckMode, seed, custom, ...flags });
  }

  function check(f) {
    return h(
      "label",
      { class: "check", for: `opt-${f}` },
      h("input", {
        type: "checkbox",
        id: `opt-${f}`,
        checked: state[f],
        dataset: { key: `opt-${f}`, testid: `opt-${f}` },
        onchange: (e) => {
          state[f] = e.target.checked;
          keep();
        },
      }),
      h("span", null, h("strong", null, t(`il.opt.${f}`)), h("small", null, t(`il.opt.${f}_help`))),
    );
  }

  function deckPart() {
    if (state.deckMode === "generated") {
      return h(
        "div",
        { class: "il-opts-deck" },
        h("label", { class: "field-label", for: "opt-seed" }, t("il.opt.seed")),
        h("input", {
          id: "opt-seed",
          inputmode: "numeric",
          autocomplete: "off",
          value: state.seed,
          placeholder: t("il.opt.seed_placeholder"),
          dataset: { key: "opt-seed", testid: "opt-seed" },
          oninput: (e) => {
            state.seed = e.target.value.trim();
            keep();
          },
        }),
      );
    }
    const status = uploading
      ? h("p", { class: "il-upload il-upload--busy", role: "status" }, t("il.upload.busy"))
      : uploadError
        ? h("p", { class: "il-upload il-upload--error", role: "alert", dataset: { testid: "upload-error" } }, uploadError())
        : state.custom
          ? h("p", { class: "il-upload il-upload--ok", role: "status", dataset: { testid: "upload-ok" } }, icon("check", "icon icon--sm"), t("il.upload.done", { count: state.custom.count }))
          : h("p", { class: "il-upload muted small" }, t("il.upload.help"));
    return h(
      "div",
      { class: "il-opts-deck" },
      h("label", { class: "field-label", for: "opt-files" }, t("il.upload.label")),
      h("input", {
        type: "file",
        id: "opt-files",
        multiple: true,
        accept: ACCEPT,
        disabled: uploading,
        dataset: { key: "opt-files", testid: "opt-files" },
        onchange: (e) => upload([...e.target.files]),
      }),
      status,
      state.custom ? h("div", { class: "il-upload-thumbs", "aria-hidden": "true" }, Array.from({ length: Math.min(state.custom.count, 8) }, (_, n) => h("img", { src: `/api/decks/${encodeURIComponent(state.custom.deck)}/${n}`, alt: "", width: 36, height: 36 }))) : null,
    );
  }

  function draw() {
    fill(
      el,
      h("span", { class: "field-label" }, t("il.opt.language")),
      h(
        "div",
        { class: "segmented", role: "radiogroup", "aria-label": t("il.opt.language") },
        ["ja", "en"].map((lg) =>
          h(
            "button",
            {
              type: "button",
              role: "radio",
              class: ["seg", state.language === lg && "seg--on"],
              "aria-checked": String(state.language === lg),
              dataset: { key: `opt-language-${lg}`, testid: `opt-language-${lg}` },
              onclick: () => {
                state.language = lg;
                keep();
                draw();
              },
            },
            t(`il.opt.language_${lg}`),
          ),
        ),
      ),
      h("p", { class: "muted small il-opts-note" }, t("il.opt.language_help")),
      FLAGS.map(check),
      h("span", { class: "field-label" }, t("il.opt.deck")),
      h(
        "div",
        { class: "segmented", role: "radiogroup", "aria-label": t("il.opt.deck") },
        ["generated", "custom"].map((mode) =>
          h(
            "button",
            {
              type: "button",
              role: "radio",
              class: ["seg", state.deckMode === mode && "seg--on"],
              "aria-checked": String(state.deckMode === mode),
              dataset: { key: `opt-deck-${mode}`, testid: `opt-deck-${mode}` },
              onclick: () => {
                state.deckMode = mode;
                keep();
                draw();
              },
            },
            t(`il.opt.deck_${mode}`),
          ),
        ),
      ),
      deckPart(),
    );
  }

  async function shrink(file) {
    if (typeof createImageBitmap !== "function") return file;
    try {
      const bitmap = await createImageBitmap(file);
      // Big in bytes, or in pixels: a small file may decode to a huge picture, which the
      // server counts against the upload's budget of pixels (docs/protocol.md, uploads).
      if (file.size <= SHRINK_BYTES && Math.max(bitmap.width, bitmap.height) <= SHRINK_PIXELS) {
        bitmap.close();
        return file;
      }
      const scale = Math.min(1, SHRINK_PIXELS / Math.max(bitmap.width, bitmap.height));
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(bitmap.width * scale);
      canvas.height = Math.round(bitmap.height * scale);
      canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      const blob = await new Promise((done) => canvas.toBlob(done, "image/webp", 0.9));
      return blob ? new File([blob], file.name.replace(/\.[^.]*$/, "") + ".webp", { type: "image/webp" }) : file;
    } catch {
      return file; // the server says what is wrong with it
    }
  }

  async function upload(files) {
    if (!files.length) return;
    uploading = true;
    uploadError = null;
    state.custom = null;
    draw();
    try {
      const body = new FormData();
      for (const file of await Promise.all(files.map(shrink))) body.append("files", file, file.name);
      // Only a player may upload: the token goes in a header (docs/protocol.md, HTTP).
      const res = await fetch("/api/decks", { method: "POST", body, headers: bearer() });
      const data = await res.json().catch(() => null);
      if (res.ok && data?.deck) {
        state.custom = { deck: data.deck, count: data.count };
      } else {
        const code = data?.error?.code ?? String(res.status);
        const detail = data?.error?.message ?? "";
        uploadError = () => (has(`il.upload.error.${code}`) ? t(`il.upload.error.${code}`, { detail }) : t("il.upload.error.unknown", { detail }));
      }
    } catch {
      uploadError = () => t("il.upload.error.network");
    } finally {
      uploading = false;
      keep();
      draw();
    }
  }

  function options() {
    const o = { language: state.language };
    for (const f of FLAGS) o[f] = state[f];
    if (state.deckMode === "custom") {
      if (uploading) return { error: () => t("il.upload.wait") };
      if (!state.custom) return { error: () => t("il.upload.needed") };
      o.custom_deck = state.custom.deck;
      o.deck_size = Math.min(200, Math.max(state.custom.count, minDeck(ctx.players())));
    } else if (state.seed !== "") {
      const seed = Number(state.seed);
      if (!/^\d+$/.test(state.seed) || !Number.isSafeInteger(seed) || seed > MAX_SEED) return { error: () => t("il.opt.seed_bad") };
      o.deck_seed = seed;
    }
    return o;
  }

  draw();
  return { el, draw, options };
}
