/**
 * What the page remembers in localStorage, under `lumin.*` keys: the identity's token and
 * name, sound settings, private room codes, muted users. Storage failures (private browsing,
 * quota) fall back to memory for the page's life.
 */

const memory = new Map<string, string>();

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(`lumin.${key}`);
  } catch {
    return memory.get(key) ?? null;
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(`lumin.${key}`);
    else window.localStorage.setItem(`lumin.${key}`, value);
  } catch {
    if (value === null) memory.delete(key);
    else memory.set(key, value);
  }
}

export const storage = {
  get: read,
  set: write,
  /** A JSON value, or the fallback when absent or unreadable. */
  json<T>(key: string, fallback: T): T {
    const text = read(key);
    if (text === null) return fallback;
    try {
      return JSON.parse(text) as T;
    } catch {
      return fallback;
    }
  },
  setJson(key: string, value: unknown): void {
    write(key, JSON.stringify(value));
  },
};
