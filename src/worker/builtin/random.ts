import { createHash } from 'node:crypto';

/**
 * A deterministic pseudo-random source seeded from a hash of whatever makes an output
 * unique (prompt, seed, capability). The same parts give the same sequence on every
 * machine, which is what makes the builtin generator reproducible.
 */
export class Random {
  readonly #state: Uint32Array;

  constructor(...parts: unknown[]) {
    const digest = createHash('sha256').update(JSON.stringify(parts)).digest();
    this.#state = new Uint32Array(4);
    for (let i = 0; i < 4; i++) this.#state[i] = digest.readUInt32LE(i * 4);
    // sfc32 wants its first outputs discarded so that similar seeds diverge.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A float in [0, 1). sfc32: small, fast and good enough for pictures. */
  next(): number {
    const s = this.#state;
    const a = s[0]!;
    const b = s[1]!;
    const c = s[2]!;
    const d = s[3]!;
    const t = (((a + b) >>> 0) + d) >>> 0;
    s[3] = (d + 1) >>> 0;
    s[0] = b ^ (b >>> 9);
    s[1] = (c + (c << 3)) >>> 0;
    s[2] = (((c << 21) | (c >>> 11)) + t) >>> 0;
    return t / 4294967296;
  }

  /** A float in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return Math.floor(this.range(min, max + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** An unsigned 31-bit integer, for tools that take a seed of their own (ffmpeg sources). */
  seed(): number {
    return Math.floor(this.next() * 0x7fffffff);
  }
}

/** An `#rrggbb` colour from hue (degrees), saturation and lightness (0..1). */
export function hsl(hue: number, saturation: number, lightness: number): string {
  const h = (((hue % 360) + 360) % 360) / 60;
  const c = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const x = c * (1 - Math.abs((h % 2) - 1));
  const m = lightness - c / 2;
  const [r, g, b] =
    h < 1
      ? [c, x, 0]
      : h < 2
        ? [x, c, 0]
        : h < 3
          ? [0, c, x]
          : h < 4
            ? [0, x, c]
            : h < 5
              ? [x, 0, c]
              : [c, 0, x];
  const hex = (v: number) =>
    Math.round((v + m) * 255)
      .toString(16)
      .padStart(2, '0');
  return `#${hex(r)}${hex(g)}${hex(b)}`;
}

/** A harmonious palette: a base hue and a few related hues, as `#rrggbb`. */
export function palette(random: Random, count: number): string[] {
  const base = random.range(0, 360);
  const spread = random.pick([30, 60, 120, 150, 180]);
  return Array.from({ length: count }, (_, i) =>
    hsl(base + spread * i + random.range(-15, 15), random.range(0.45, 0.9), random.range(0.3, 0.7)),
  );
}
