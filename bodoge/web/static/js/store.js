// localStorage that never throws (private windows, full quota) and keeps JSON.

export const store = {
  get(key, fallback = null) {
    try {
      const raw = localStorage.getItem(key);
      return raw === null ? fallback : JSON.parse(raw);
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    try {
      if (value === null || value === undefined) localStorage.removeItem(key);
      else localStorage.setItem(key, JSON.stringify(value));
    } catch {
      /* not kept; the page still works */
    }
  },
};

/** A store whose keys all start with `prefix` (a game's memo for one table and seat). */
export function scopedStore(prefix) {
  return {
    get: (key, fallback = null) => store.get(`${prefix}.${key}`, fallback),
    set: (key, value) => store.set(`${prefix}.${key}`, value),
  };
}
