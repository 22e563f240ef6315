// A view changed by a delta: the browser's half of gameroom/web/delta.py (the stored-game
// viewer sends each step's view as what changed since the step before). A delta is null
// (unchanged), ["=", value], ["{", {key: delta}, [removed keys]], ["[", start, end, [values]]
// (items start..end of the old list replaced) or ["[~", start, [delta or null, ...]] (items
// from start changed one by one). The value given is never changed: a new one is returned.

export function apply(before, delta) {
  if (delta === null || delta === undefined) return before;
  if (!Array.isArray(delta) || !delta.length) throw new Error(`not a delta: ${JSON.stringify(delta).slice(0, 80)}`);
  const [kind] = delta;
  if (kind === "=" && delta.length === 2) return delta[1];
  if (kind === "{" && delta.length === 3 && isObject(before) && isObject(delta[1])) {
    const removed = new Set(delta[2]);
    const out = {};
    for (const [key, value] of Object.entries(before)) if (!removed.has(key)) put(out, key, value);
    for (const [key, change] of Object.entries(delta[1])) {
      put(out, key, apply(Object.hasOwn(before, key) ? before[key] : undefined, change));
    }
    return out;
  }
  if (kind === "[" && delta.length === 4 && Array.isArray(before)) {
    const [, start, end, values] = delta;
    if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end && end <= before.length)) {
      throw new Error(`a list of ${before.length} items has no items ${start}..${end}`);
    }
    return [...before.slice(0, start), ...values, ...before.slice(end)];
  }
  if (kind === "[~" && delta.length === 3 && Array.isArray(before)) {
    const [, start, changes] = delta;
    if (!(Number.isInteger(start) && start >= 0 && start + changes.length <= before.length)) {
      throw new Error(`a list of ${before.length} items has no items ${start}..${start + changes.length}`);
    }
    const out = before.slice();
    changes.forEach((change, at) => { out[start + at] = apply(before[start + at], change); });
    return out;
  }
  throw new Error(`a delta ${JSON.stringify(delta).slice(0, 80)} does not fit the value`);
}

// a member named like Object's own ("__proto__") stays a member
function put(object, key, value) {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

function isObject(value) { return value !== null && typeof value === "object" && !Array.isArray(value); }
