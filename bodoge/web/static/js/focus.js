// The keyboard focus never falls to <body> because what held it went away.
//
// Pages redraw parts of themselves after every action (a card asked, a vote
// cast, a seat taken): the button that had the focus is removed or disabled,
// and the browser drops the focus to <body>, so a keyboard or screen-reader
// user starts again from the top.  keepFocus() (dom.js) already moves the focus
// to the redrawn element with the same `data-key`; when there is none, the
// guard below moves it to the nearest part of the page that is still there
// (the question cards, the vote, the seats), which a screen reader then reads.

/** Whether `el` can take the focus now (in the page, shown, not disabled). */
function usable(el) {
  return Boolean(el?.isConnected && !el.disabled && el.checkVisibility?.({ visibilityProperty: true }) !== false);
}

/**
 * Watch `root` (the page's main element).  Returns the function that stops
 * watching.
 */
export function guardFocus(root) {
  let last = null; // the element last focused inside root
  let chain = []; // its ancestors up to root, nearest first, as they were then

  const onFocusIn = (e) => {
    if (!root.contains(e.target) || e.target === root) return;
    last = e.target;
    chain = [];
    for (let el = e.target.parentElement; el && el !== root; el = el.parentElement) chain.push(el);
    chain.push(root);
  };

  function rescue() {
    const active = document.activeElement;
    const lost = !active || active === document.body || (root.contains(active) && active.disabled);
    if (!lost || !last || usable(last)) return; // focus is fine, or the player moved it away
    const key = last.dataset?.key;
    const again = key ? root.querySelector(`[data-key="${CSS.escape(key)}"]`) : null;
    const target = usable(again) ? again : chain.find((el) => el.isConnected && root.contains(el) && usable(el));
    if (!target) return;
    if (!target.matches("a[href], button, input, select, textarea, [tabindex]")) target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
  }

  // A redraw removes or disables the focused element: look right after it (a
  // microtask, once the redraw that may have refocused something is done), and
  // once more a little later: an element the redraw left empty may stop being
  // rendered (`:empty { display: none }`), and the browser drops its focus only
  // when it next computes styles.
  let later = null;
  const check = () => {
    rescue();
    clearTimeout(later);
    later = setTimeout(rescue, 120);
  };
  const observer = new MutationObserver(check);
  observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ["disabled", "hidden"] });
  // A dialog (a child of <body>) that closes gives the focus back to its opener; if
  // the opener was redrawn meanwhile, the focus would land on <body>.
  const dialogs = new MutationObserver(check);
  dialogs.observe(document.body, { childList: true });
  document.addEventListener("focusin", onFocusIn);

  return () => {
    observer.disconnect();
    dialogs.disconnect();
    clearTimeout(later);
    document.removeEventListener("focusin", onFocusIn);
  };
}
