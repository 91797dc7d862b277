// Applies the view patch of an `event` frame (docs/protocol.md): JSON Patch operations
// (add, remove, replace) where an operation may name one of the frame's events instead of
// carrying its value. The document is not changed: the result shares every part that no
// operation touched, so a renderer can tell changed parts by identity. The server's
// counterpart is bodoge/server/runtime/viewdiff.py.

export class PatchError extends Error {}

const unescape = (token) => token.replace(/~1/g, "/").replace(/~0/g, "~");

function set(node, tokens, op, value) {
  if (tokens.length === 0) {
    if (op === "remove") throw new PatchError("cannot remove the whole document");
    return value;
  }
  const [head, ...rest] = tokens;
  if (Array.isArray(node)) {
    const copy = node.slice();
    if (head === "-") {
      if (rest.length || op !== "add") throw new PatchError("'-' only appends");
      copy.push(value);
      return copy;
    }
    const index = Number(head);
    if (!Number.isInteger(index) || index < 0 || index > node.length) throw new PatchError(`bad index ${head}`);
    if (!rest.length && op === "remove") copy.splice(index, 1);
    else if (!rest.length && op === "add") copy.splice(index, 0, value);
    else copy[index] = set(node[index], rest, op, value);
    return copy;
  }
  if (node !== null && typeof node === "object") {
    const copy = { ...node };
    if (!rest.length && op === "remove") delete copy[head];
    else if (!rest.length) copy[head] = value;
    else if (!(head in node)) throw new PatchError(`no ${head}`);
    else copy[head] = set(node[head], rest, op, value);
    return copy;
  }
  throw new PatchError(`no ${head} in ${typeof node}`);
}

/** `doc` with `ops` applied; throws PatchError when they do not fit (then resync). */
export function applyPatch(doc, ops, events = []) {
  let out = doc;
  for (const op of ops) {
    const value = "event" in op ? events[op.event] : op.value;
    const tokens = op.path.split("/").slice(1).map(unescape);
    out = set(out, tokens, op.op, value);
  }
  return out;
}
