// The game frame shared by the live table and the replay: the renderer's board
// and its side panels.  Wide screens show every panel in two columns; narrower
// ones show one panel at a time under a tab bar (no layout jumps: the panels
// keep their size and only the active one is shown).

import { fill, h, icon, keepFocus } from "./dom.js";
import { t } from "./i18n.js";
import { store } from "./store.js";

const WIDE = "(min-width: 1280px)";

export function createFrame(renderer, extraPanels = [], { onShow = null, badge = null } = {}) {
  const tabs = h("div", { class: "tp-tabs", role: "tablist" });
  const colA = h("div", { class: "tp-col tp-col--a" });
  const colB = h("div", { class: "tp-col tp-col--b" });
  // The board scrolls on its own when the window is short: reachable by keyboard, named.
  const board = h("div", { class: "tp-board", tabindex: "0", role: "region" }, renderer.board);
  const side = h("aside", { class: "tp-side" }, tabs, colA, colB);
  const el = h("div", { class: "tp-game" }, board, side);
  const panels = [...(renderer.panels ?? []), ...extraPanels];
  let active = panels[0]?.id ?? null;

  for (const p of panels) {
    p.title = h("span", null, p.label());
    // A game's panel scrolls by itself: reachable by keyboard, named by its title.
    if (renderer.panels?.includes(p) && !p.el.hasAttribute("tabindex")) {
      p.el.setAttribute("tabindex", "0");
      p.el.setAttribute("role", "region");
      p.el.setAttribute("aria-labelledby", `panel-title-${p.id}`);
    }
    // A collapsible panel shares its column on wide screens: its title opens and
    // closes it (remembered); under tabs it is a tab like any other.
    const head = p.collapsible
      ? h(
          "button",
          {
            type: "button",
            class: "tp-panel-toggle",
            "aria-controls": `panel-${p.id}`,
            dataset: { key: `panel-toggle-${p.id}`, testid: `panel-toggle-${p.id}` },
            onclick: () => {
              store.set(`bodoge.panel.${p.id}.open`, !isOpen(p));
              draw();
            },
          },
          icon(p.icon ?? "list", "icon icon--sm"),
          p.title,
          h("span", { class: "tp-panel-chevron", "aria-hidden": "true" }),
        )
      : [icon(p.icon ?? "list", "icon icon--sm"), p.title];
    p.wrap = h(
      "section",
      { class: ["tp-panel", `tp-panel--${p.id}`], dataset: { panel: p.id }, role: "tabpanel", id: `panel-${p.id}` },
      h("h2", { class: "tp-panel-title", id: `panel-title-${p.id}` }, head),
      p.el,
    );
    (p.column === "b" ? colB : colA).append(p.wrap);
  }

  function draw() {
    tabs.setAttribute("aria-label", t("table.panels"));
    board.setAttribute("aria-label", t("table.board"));
    keepFocus(tabs, () =>
      fill(
        tabs,
        panels.map((p) => {
          const count = badge?.(p.id) ?? 0;
          return h(
            "button",
            {
              type: "button",
              role: "tab",
              class: ["tp-tab", p.id === active && "tp-tab--on"],
              "aria-selected": String(p.id === active),
              "aria-controls": `panel-${p.id}`,
              dataset: { key: `tab-${p.id}`, testid: `tab-${p.id}` },
              onclick: () => show(p.id),
            },
            icon(p.icon ?? "list", "icon icon--sm"),
            h("span", null, p.label()),
            count ? h("span", { class: "unread" }, String(count)) : null,
          );
        }),
      ),
    );
    for (const p of panels) {
      p.wrap.classList.toggle("is-active", p.id === active);
      p.title.textContent = p.label();
      if (p.collapsible) {
        p.wrap.classList.toggle("is-collapsed", !isOpen(p));
        p.wrap.querySelector(".tp-panel-toggle").setAttribute("aria-expanded", String(isOpen(p)));
      }
    }
    for (const p of panels) onShow?.(p.id, isVisible(p.id));
  }

  function isOpen(p) {
    return store.get(`bodoge.panel.${p.id}.open`, p.open ?? false) === true;
  }

  function isVisible(id) {
    return id === active || window.matchMedia(WIDE).matches;
  }

  function show(id) {
    active = id;
    draw();
  }

  const onResize = () => draw();
  window.addEventListener("resize", onResize);
  draw();

  return {
    el,
    draw,
    show,
    isVisible,
    destroy() {
      window.removeEventListener("resize", onResize);
    },
  };
}
