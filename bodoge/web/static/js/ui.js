// Modal dialogs built on <dialog>: the browser traps focus, Escape closes.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/**
 * An empty <dialog> for a promise: `close(value)` closes it, takes it off the
 * page and resolves with `value`.  Escape calls `onEscape` (a dialog with steps
 * may go back one) and otherwise closes with `null`; the browser's own close on
 * Escape is always prevented, so the promise is resolved exactly once.
 */
export function dialogShell({ resolve, className = "", testid = null, onEscape = null }) {
  const dialog = h("dialog", { class: ["dialog", className], dataset: { testid } });
  const close = (value) => {
    dialog.close();
    dialog.remove();
    resolve(value);
  };
  dialog.addEventListener("cancel", (e) => {
    e.preventDefault();
    if (onEscape) onEscape();
    else close(null);
  });
  return { dialog, close };
}

/**
 * Show a modal dialog whose body is `content` and resolve with the value the
 * chosen button carries (`null` when closed with Escape or Cancel).
 */
export function modal({ title, content, buttons, className = "", testid = null, onOpen = null }) {
  return new Promise((resolve) => {
    const { dialog, close } = dialogShell({ resolve, className, testid });
    const choose = (b) => {
      const value = typeof b.value === "function" ? b.value() : b.value;
      if (value !== undefined) close(value);
    };
    // A submit button is answered from the form's submit event, never from its click:
    // closing (and removing) the dialog on click would leave the browser a form
    // submission on a detached form ("Form submission canceled…" in the console).
    const chosen = new Map();
    const buttonEls = buttons.map((b) => {
      const el = h(
        "button",
        {
          type: b.submit ? "submit" : "button",
          class: ["btn", b.primary && "btn--primary", b.danger && "btn--danger"],
          dataset: { testid: b.testid },
          onclick: b.submit ? null : () => choose(b),
        },
        b.label,
      );
      chosen.set(el, b);
      return el;
    });
    dialog.append(
      h(
        "form",
        {
          method: "dialog",
          class: "dialog-form",
          onsubmit: (e) => {
            e.preventDefault();
            const b = chosen.get(e.submitter) ?? buttons.find((x) => x.submit);
            if (b) choose(b);
          },
        },
        h("h2", { class: "dialog-title" }, title),
        h("div", { class: "dialog-body" }, content),
        h("div", { class: "dialog-buttons" }, buttonEls),
      ),
    );
    document.body.append(dialog);
    dialog.showModal();
    onOpen?.(dialog, close);
  });
}

export function confirmDialog({ title, message, ok, cancel = null, danger = false, testid = "confirm" }) {
  return modal({
    title,
    content: typeof message === "string" ? h("p", null, message) : message,
    testid,
    buttons: [
      { label: cancel ?? t("common.cancel"), value: false, testid: `${testid}-cancel` },
      { label: ok, value: true, primary: !danger, danger, submit: true, testid: `${testid}-ok` },
    ],
  });
}

export function promptDialog({ title, label, value = "", ok, maxlength = 100 }) {
  const input = h("input", { value, maxlength, required: true, id: "prompt-input", dataset: { testid: "prompt-input" } });
  return modal({
    title,
    testid: "prompt",
    content: h("div", { class: "field" }, h("label", { class: "field-label", for: "prompt-input" }, label), input),
    buttons: [
      { label: t("common.cancel"), value: null },
      { label: ok, value: () => input.value, primary: true, submit: true, testid: "prompt-ok" },
    ],
    onOpen: () => input.select(),
  });
}
