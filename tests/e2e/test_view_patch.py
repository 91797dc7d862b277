"""The browser applies a view patch exactly as the server means it.

The server diffs a seat's view (``bodoge/server/runtime/viewdiff.py``); the page applies
the patch (``web/static/js/patch.js``).  Random pairs of documents, diffed in
Python and applied in the page, must give the new document, leave the old one
untouched and share what did not change.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bodoge.server.runtime import viewdiff

APPLY_JS = """
async ([doc, ops, events]) => {
  const { applyPatch } = await import("/static/js/patch.js");
  const before = JSON.stringify(doc);
  const out = applyPatch(doc, ops, events);
  const untouched = JSON.stringify(doc) === before;
  // Parts no operation touched keep their identity.
  const shared = Object.keys(out ?? {}).filter(
    (k) => out && doc && typeof out[k] === "object" && out[k] !== null && out[k] === doc[k]
  );
  return { out, untouched, shared };
}
"""

keys = st.text(alphabet="ab/~_", min_size=1, max_size=3)
scalars = st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=4)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=20,
)
# Views with a log most of the time, as both games' views have.
views = st.builds(
    lambda rest, log: {**rest, **log},
    st.dictionaries(keys, documents, max_size=6),
    st.fixed_dictionaries({}, optional={"log": st.lists(documents, max_size=4)}),
)


def _grown(doc: dict) -> st.SearchStrategy[dict]:
    """A document like ``doc`` with a few changes, as views change after a move."""
    extra = {"log": st.lists(documents, max_size=3), "new": documents}
    return st.fixed_dictionaries(
        {k: st.just(v) | documents for k, v in doc.items()},
        optional={k: v for k, v in extra.items() if k not in doc},
    )


def test_random_patches_apply_in_the_browser_as_in_python(open_page) -> None:
    page, _ = open_page("/")

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data(), old=views, events=st.lists(documents, max_size=2))
    def check(data: st.DataObject, old: dict, events: list) -> None:
        new = data.draw(_grown(old))
        if "log" in old and isinstance(old["log"], list) and data.draw(st.booleans()):
            entry = data.draw(st.dictionaries(keys, documents, min_size=1, max_size=3))
            new["log"] = [*old["log"], entry]
            events = [*events, entry]  # a log entry that is the move's event, as in the games
        ops = viewdiff.diff(old, new, events)
        referred.extend(op for op in ops if "event" in op)
        assert viewdiff.apply(old, ops, events) == new
        result = page.evaluate(APPLY_JS, [old, ops, events])
        assert result["out"] == new
        assert result["untouched"]
        unchanged = {k for k, v in old.items() if isinstance(v, dict | list) and new.get(k) is v}
        assert set(result["shared"]) >= {k for k in unchanged if old[k]}

    referred: list[dict] = []
    check()
    assert referred, "no patch named an event: the test missed a case"
