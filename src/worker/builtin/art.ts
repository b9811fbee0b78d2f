import { palette, type Random } from './random.ts';
import type { Size } from './size.ts';

/**
 * A procedural picture in two SVG layers: a background (gradient sky, glow and the shapes
 * that will be blurred) and a foreground (crisp shapes and the prompt as a caption). The
 * painter blurs the background and adds grain with libvips, because librsvg's own filters
 * take tens of seconds at 4k. Everything is drawn in units of the frame, so one prompt and
 * seed give the same composition at every size and proportion.
 */
export interface Art {
  /** SVG of the background, rendered at `scale` times the frame size (its long side at most 1024 px). */
  background: string;
  scale: number;
  /** SVG of the foreground at the full frame size, transparent where the background shows. */
  foreground: string;
  /** Gaussian blur of the background, in pixels of the full frame. */
  blur: number;
  /** Opacity of the grain laid over the picture, 0..1. */
  grain: number;
}

const BACKGROUND_LONG_SIDE = 1024;

export function composeArt(random: Random, size: Size, caption: string): Art {
  const { width: w, height: h } = size;
  const scale = Math.min(1, BACKGROUND_LONG_SIDE / Math.max(w, h));
  const colors = palette(random, 5);
  const angle = random.range(0, 360);
  const shapes = Array.from({ length: random.int(14, 36) }, () => shape(random, size, random.pick(colors)));
  const soft = shapes.length >> 1;
  const background = `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.round(w * scale)}" height="${Math.round(h * scale)}" viewBox="0 0 ${w} ${h}" preserveAspectRatio="none">
<defs>
<linearGradient id="sky" gradientTransform="rotate(${angle.toFixed(1)} 0.5 0.5)">
<stop offset="0" stop-color="${colors[0]}"/><stop offset="0.55" stop-color="${colors[1]}"/><stop offset="1" stop-color="${colors[2]}"/>
</linearGradient>
<radialGradient id="glow" cx="${random.range(0.2, 0.8).toFixed(3)}" cy="${random.range(0.2, 0.8).toFixed(3)}" r="0.6">
<stop offset="0" stop-color="${colors[3]}" stop-opacity="0.7"/><stop offset="1" stop-color="${colors[3]}" stop-opacity="0"/>
</radialGradient>
</defs>
<rect width="${w}" height="${h}" fill="url(#sky)"/>
<rect width="${w}" height="${h}" fill="url(#glow)"/>
${shapes.slice(0, soft).join('')}
</svg>`;
  const foreground = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">
${shapes.slice(soft).join('')}
${captionSvg(caption, size)}
</svg>`;
  return {
    background,
    scale,
    foreground,
    blur: Math.max(w, h) * random.range(0.002, 0.012),
    grain: random.range(0.06, 0.18),
  };
}

function shape(random: Random, { width: w, height: h }: Size, color: string): string {
  const unit = Math.max(w, h);
  const x = random.range(-0.1, 1.1) * w;
  const y = random.range(-0.1, 1.1) * h;
  const r = random.range(0.02, 0.25) * unit;
  const style = `fill="${color}" fill-opacity="${random.range(0.25, 0.85).toFixed(2)}"`;
  const rotate = `transform="rotate(${random.range(0, 360).toFixed(1)} ${x.toFixed(1)} ${y.toFixed(1)})"`;
  switch (random.int(0, 4)) {
    case 0:
      return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${r.toFixed(1)}" ${style}/>`;
    case 1:
      return `<ellipse cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" rx="${r.toFixed(1)}" ry="${(r * random.range(0.2, 0.7)).toFixed(1)}" ${rotate} ${style}/>`;
    case 2:
      return `<rect x="${(x - r).toFixed(1)}" y="${(y - r / 2).toFixed(1)}" width="${(2 * r).toFixed(1)}" height="${r.toFixed(1)}" rx="${(r * random.range(0, 0.3)).toFixed(1)}" ${rotate} ${style}/>`;
    case 3: {
      const points = Array.from({ length: 3 }, () => {
        const a = random.range(0, 2 * Math.PI);
        return `${(x + Math.cos(a) * r).toFixed(1)},${(y + Math.sin(a) * r).toFixed(1)}`;
      });
      return `<polygon points="${points.join(' ')}" ${style}/>`;
    }
    default: {
      const wave = Array.from({ length: 4 }, (_, i) => {
        const px = (x + ((i + 1) * r) / 2).toFixed(1);
        const py = (y + random.range(-r, r)).toFixed(1);
        return `${px},${py}`;
      });
      const stroke = (unit * random.range(0.003, 0.012)).toFixed(1);
      return `<path d="M${x.toFixed(1)},${y.toFixed(1)} C${wave.slice(0, 3).join(' ')} S${wave.slice(2).join(' ')}" fill="none" stroke="${color}" stroke-width="${stroke}" stroke-linecap="round" stroke-opacity="0.8"/>`;
    }
  }
}

const CAPTION_MAX_CHARS = 90;

/**
 * The prompt as a caption on a dark band along the bottom of the frame, as SVG elements;
 * '' for an empty prompt. Fonts differ between machines, but one machine always renders
 * the same caption the same way.
 */
export function captionSvg(caption: string, { width: w, height: h }: Size): string {
  const text = xmlText(caption);
  if (text.trim() === '') return '';
  const size = Math.max(12, Math.round(Math.min(w, h) * 0.035));
  const band = size * 2.2;
  return `<rect y="${(h - band).toFixed(1)}" width="${w}" height="${band.toFixed(1)}" fill="#000" fill-opacity="0.35"/>
<text x="${(size * 0.8).toFixed(1)}" y="${(h - band / 2).toFixed(1)}" dominant-baseline="middle" font-family="DejaVu Sans, sans-serif" font-size="${size}" fill="#fff">${text}</text>`;
}

// Characters XML 1.0 forbids would make the whole SVG unreadable, so they go; the cut is
// made on code points and before escaping, so it never splits a character or an entity.
function xmlText(text: string): string {
  const clean = text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/\s+/g, ' ');
  const chars = Array.from(clean);
  const cut = chars.length > CAPTION_MAX_CHARS ? `${chars.slice(0, CAPTION_MAX_CHARS - 1).join('')}…` : clean;
  return cut.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
