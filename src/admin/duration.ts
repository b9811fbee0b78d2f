/** `30d`, `12h`, `90m`, `45s` → milliseconds; a bare `0` is none. */
export function parseDuration(v: string): number {
  if (v.trim() === '0') return 0;
  const m = /^(\d+)(s|m|h|d)$/.exec(v.trim());
  if (!m) throw new Error(`not a duration (like 30d, 12h, 90m, or 0): ${v}`);
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
}

/** A key's lifetime: more than 0 (a key that lives 0 s has expired already; it does not live forever). */
export function parseLifetime(v: string): number {
  if (!/^\s*\d+(s|m|h|d)\s*$/.test(v) && v.trim() !== '0')
    throw new Error(`not a lifetime (like 30d, 12h or 90m): ${v}`);
  const ms = parseDuration(v);
  if (ms === 0)
    throw new Error(`a lifetime is more than 0: ${v} (leave --expires-in out for a key that never expires)`);
  return ms;
}
