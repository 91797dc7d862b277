// Tagiron's tiles drawn as tiles: red, blue and green 5 with white numbers,
// and face-down backs.  Codes are the engine's (tiles.py): R0..R9, B0..B9
// without R5/B5, and G5 twice.

import { h } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";

const ORDER = { R: 0, G: 1, B: 2 };

/** The 19 distinct codes in hand order. */
export const TILE_CODES = [];
for (let n = 0; n <= 9; n++) {
  if (n === 5) TILE_CODES.push("G5");
  else TILE_CODES.push(`R${n}`, `B${n}`);
}

export const COPIES = Object.fromEntries(TILE_CODES.map((c) => [c, c === "G5" ? 2 : 1]));

export const number = (code) => Number(code[1]);
export const colour = (code) => code[0];

export function sortTiles(codes) {
  return [...codes].sort((a, b) => number(a) - number(b) || ORDER[colour(a)] - ORDER[colour(b)]);
}

/** "red 3" / "赤の3": a tile named in words, for screen readers and titles. */
export function tileName(code) {
  return t(`tg.tile.${colour(code)}`, { n: number(code) });
}

/**
 * One tile.  size: "xl" | "lg" | "md" | "sm" | "xs".  With `pos`, the position
 * number is written under it.
 */
export function tile(code, { size = "md", pos = null, cls = null, label = true } = {}) {
  const el = h(
    "span",
    {
      class: ["tt", `tt--${colour(code)}`, `tt--${size}`, cls],
      role: label ? "img" : null,
      "aria-label": label ? tileName(code) : null,
      dataset: { tile: code },
    },
    h("span", { class: "tt-num", "aria-hidden": "true" }, String(number(code))),
  );
  return pos === null ? el : h("span", { class: "tt-slot" }, el, h("span", { class: "tt-pos", "aria-hidden": "true" }, String(pos)));
}

/** A face-down tile. */
export function tileBack({ size = "md", pos = null, cls = null } = {}) {
  const el = h("span", { class: ["tt", "tt--back", `tt--${size}`, cls], role: "img", "aria-label": t("tg.tile.back") });
  return pos === null ? el : h("span", { class: "tt-slot" }, el, h("span", { class: "tt-pos", "aria-hidden": "true" }, String(pos)));
}

/** A rack: tiles (codes) or backs (a number), with positions 1..n under them. */
export function rack(tiles, { size = "md", positions = true, cls = null, label = null } = {}) {
  const items = typeof tiles === "number" ? Array.from({ length: tiles }, () => null) : tiles;
  return h(
    "span",
    { class: ["rack", `rack--${size}`, cls], role: "group", "aria-label": label },
    items.map((code, i) =>
      code === null
        ? tileBack({ size, pos: positions ? i + 1 : null })
        : tile(code, { size, pos: positions ? i + 1 : null }),
    ),
  );
}
