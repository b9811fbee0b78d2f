import { palette, type Random } from './random.ts';
import { type Size, sizeFromShortSide } from './size.ts';

/** Frames per second of every builtin video. */
export const FPS = 24;

// Sources render small and are scaled up: ffmpeg's generators cost per pixel, and at 4k
// the fractal alone would take minutes.
const SOURCE_SHORT_SIDE = 360;

const SCENES = ['gradients', 'mandelbrot', 'life', 'cellauto'] as const;
export type Scene = (typeof SCENES)[number];

// Places on the Mandelbrot set's edge where a zoom stays interesting.
const MANDELBROT_SPOTS: readonly [number, number][] = [
  [-0.743643887037151, 0.13182590420533],
  [-0.7453, 0.1127],
  [-1.25066, 0.02012],
  [-0.16, 1.0405],
  [0.2549, 0.0005],
  [-1.768778833, -0.001738996],
];

const CELLAUTO_RULES = [18, 30, 45, 73, 90, 105, 110, 150] as const;

/**
 * The ffmpeg filtergraph of a builtin video: a generator chosen and tuned by `random`,
 * coloured, hue-drifting and scaled to `size`, ending in the pad `[v]`. Expressions avoid
 * commas, which would split the graph.
 */
export function videoGraph(random: Random, size: Size, seconds: number): { graph: string; scene: Scene } {
  const ratio = { w: size.width, h: size.height };
  const source = sizeFromShortSide(ratio, Math.min(SOURCE_SHORT_SIDE, Math.min(size.width, size.height)));
  const colors = palette(random, 4);
  const scene = random.pick(SCENES);
  const seed = random.seed();
  const s = `${source.width}x${source.height}`;
  let generator: string;
  let scaleFlags = 'bicubic';
  switch (scene) {
    case 'gradients':
      generator =
        `gradients=s=${s}:r=${FPS}:d=${seconds}:n=4:seed=${seed}:speed=${random.range(0.01, 0.04).toFixed(3)}` +
        `:type=${random.int(0, 3)}:${colors.map((c, i) => `c${i}=0x${c.slice(1)}`).join(':')}`;
      break;
    case 'mandelbrot': {
      const [x, y] = random.pick(MANDELBROT_SPOTS);
      generator =
        `mandelbrot=s=${s}:r=${FPS}:start_x=${x}:start_y=${y}:start_scale=3` +
        `:end_scale=${random.range(0.005, 0.2).toFixed(4)}:end_pts=${seconds * FPS}:maxiter=${random.int(120, 300)}` +
        `:outer=normalized_iteration_count:inner=${random.pick(['black', 'period', 'convergence'])},format=rgb24`;
      break;
    }
    case 'life': {
      const cells = sizeFromShortSide(ratio, 90);
      generator =
        `life=s=${cells.width}x${cells.height}:r=${FPS}:seed=${seed}:ratio=${random.range(0.1, 0.4).toFixed(2)}` +
        `:mold=${random.int(5, 40)}:life_color=0x${colors[0]!.slice(1)}:death_color=0x${colors[1]!.slice(1)}` +
        `:mold_color=0x${colors[2]!.slice(1)},scale=${s}:flags=neighbor`;
      scaleFlags = 'neighbor';
      break;
    }
    case 'cellauto': {
      const cells = sizeFromShortSide(ratio, random.pick([60, 90, 120]));
      generator =
        `cellauto=s=${cells.width}x${cells.height}:r=${FPS}:seed=${seed}:rule=${random.pick(CELLAUTO_RULES)}` +
        `:ratio=${random.range(0.2, 0.6).toFixed(2)}:scroll=1:full=1,format=rgb24,${duotone(colors[0]!, colors[1]!)}` +
        `,scale=${s}:flags=neighbor`;
      scaleFlags = 'neighbor';
      break;
    }
  }
  const drift = random.range(-40, 40).toFixed(1);
  const graph =
    `${generator},trim=duration=${seconds},hue=h=${random.int(0, 359)}+${drift}*t:s=${random.range(0.9, 1.4).toFixed(2)}` +
    // BT.709 (HD video's colour matrix, as the file is tagged), limited range.
    `,scale=${size.width}:${size.height}:flags=${scaleFlags}:out_color_matrix=bt709:out_range=tv` +
    `,setsar=1,format=yuv420p[v]`;
  return { graph, scene };
}

/** A `curves` filter that paints black as `dark` and white as `light` (both `#rrggbb`). */
function duotone(dark: string, light: string): string {
  const channel = (i: number) => {
    const from = (Number.parseInt(dark.slice(1 + 2 * i, 3 + 2 * i), 16) / 255).toFixed(3);
    const to = (Number.parseInt(light.slice(1 + 2 * i, 3 + 2 * i), 16) / 255).toFixed(3);
    return `'0/${from} 1/${to}'`;
  };
  return `curves=r=${channel(0)}:g=${channel(1)}:b=${channel(2)}`;
}

/**
 * A stereo chord with a slow tremolo, its notes drawn by `random`, faded in and out, ending
 * in the pad `[a]`.
 */
export function audioGraph(random: Random, seconds: number): string {
  const root = 110 * 2 ** (random.int(0, 11) / 12);
  const third = random.pick([1.2, 1.25]);
  const voice = (f: number, amp: number, wobble: number) =>
    `${amp}*sin(2*PI*${f.toFixed(3)}*t)*(0.75+0.25*sin(2*PI*${wobble.toFixed(3)}*t))`;
  const left = [voice(root, 0.22, random.range(0.1, 0.5)), voice(root * third, 0.14, random.range(0.1, 0.5))];
  const right = [
    voice(root * 1.5, 0.16, random.range(0.1, 0.5)),
    voice(root * 2, 0.1, random.range(0.1, 0.5)),
  ];
  const fade = Math.min(0.5, seconds / 4);
  return (
    `aevalsrc=exprs=${left.join('+')}|${right.join('+')}:s=48000:d=${seconds}:c=stereo` +
    `,afade=t=in:d=${fade},afade=t=out:st=${seconds - fade}:d=${fade}[a]`
  );
}
