/** `30d`, `12h`, `90m`, `45s` → milliseconds. */
export function parseDuration(v: string): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(v.trim());
  if (!m) throw new Error(`not a duration (like 30d, 12h, 90m): ${v}`);
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
}
