/**
 * Text scenes for the embedded sample, a text detector: each scene is a plan (a gradient, a few soft
 * shapes, lines of words in several fonts, sizes, colours and slants) that the page draws on a
 * canvas. A text detector needs text to be calibrated and judged on (on photos without text its
 * output map is nearly empty and every comparison meaningless), and the product may ship nothing
 * but what it makes itself: so the images are drawn, not downloaded or copied from fixtures.
 *
 * Plans are pure data from a seed (core/seededRandom): the same set and count give the same scenes
 * in every runtime. The calibration set and the held-out set draw their words from two disjoint
 * vocabularies and their layouts from different seeds, so the evaluation never sees a line the
 * calibration saw. Drawing (fonts, anti-aliasing) belongs to the page; nothing here knows a canvas.
 */
import { seededRandom } from '../seededRandom.ts';

export type Rgb = readonly [number, number, number];

export interface SceneLine {
  text: string;
  /** Left end of the baseline, in pixels. */
  x: number;
  y: number;
  /** Font size in pixels; the renderer shrinks it when the line would leave the scene. */
  size: number;
  /** A CSS generic family, present in every browser. */
  family: 'sans-serif' | 'serif' | 'monospace';
  weight: 400 | 700;
  color: Rgb;
  /** Slant in radians about the line's start (small: signs and labels are rarely level). */
  angle: number;
}

export interface SceneShape {
  kind: 'rect' | 'ellipse';
  x: number;
  y: number;
  w: number;
  h: number;
  color: Rgb;
  /** 0–1; kept low so the text keeps its contrast. */
  alpha: number;
}

export interface TextScene {
  width: number;
  height: number;
  /** A linear gradient across the scene at `angle` (radians), with its colour stops. */
  background: { angle: number; stops: { at: number; color: Rgb }[] };
  shapes: SceneShape[];
  lines: SceneLine[];
}

/** Which set: calibration scenes or held-out (evaluation) scenes; they share no word and no seed. */
export type SceneSet = 'calibration' | 'heldOut';

// Two disjoint vocabularies: shop signs, labels, notices, numbers (Latin script: the generic fonts of
// every browser have it; CJK glyphs may be missing and would draw as boxes).
const WORDS: Record<SceneSet, readonly string[]> = {
  calibration: [
    'OPEN',
    'Bakery',
    'Coffee',
    'SALE',
    'Station',
    'North',
    'Exit',
    'Platform 4',
    'Tickets',
    'Hotel',
    'Pharmacy',
    'Books',
    'Market',
    'Fresh',
    'Bread',
    'Daily',
    'Parking',
    'Museum',
    'Garden',
    'River',
    'Road',
    'Avenue',
    'No. 27',
    '12:45',
    '€3.50',
    'Quality',
    'Service',
    'Welcome',
    'Library',
    'Studio',
    'Print',
    'Repair',
    'Bicycle',
    'Tea',
    'Kitchen',
    'Menu',
  ],
  heldOut: [
    'CLOSED',
    'Florist',
    'Cinema',
    'Harbour',
    'South',
    'Entrance',
    'Gate 9',
    'Bus',
    'Hostel',
    'Clinic',
    'Music',
    'Shoes',
    'Bazaar',
    'Organic',
    'Cheese',
    'Weekly',
    'Taxi',
    'Gallery',
    'Park',
    'Lake',
    'Street',
    'Lane',
    'Room 108',
    '08:15',
    '$7.99',
    'Vintage',
    'Support',
    'Goodbye',
    'Archive',
    'Theatre',
    'Copy',
    'Tailor',
    'Scooter',
    'Juice',
    'Bistro',
    'Prices',
  ],
};

const SEEDS: Record<SceneSet, number> = { calibration: 0x5eed_0001, heldOut: 0x5eed_0002 };
const FAMILIES = ['sans-serif', 'serif', 'monospace'] as const;

/** The words a set's scenes are made of (for tests and the page's description). */
export function sceneWords(set: SceneSet): readonly string[] {
  return WORDS[set];
}

/** Relative luminance 0–1 of an sRGB colour (Rec. 709 weights on the 8-bit values, no gamma: a contrast heuristic). */
export function luminance([r, g, b]: Rgb): number {
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

function hsl(h: number, s: number, l: number): Rgb {
  // HSL → RGB (CSS Color 4 §7), h in turns, s and l in 0–1.
  const f = (n: number) => {
    const k = (n + h * 12) % 12;
    return Math.round(255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

function scene(random: () => number, words: readonly string[], width: number, height: number): TextScene {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const between = (lo: number, hi: number) => lo + (hi - lo) * random();

  // Background: dark or light, so the text can take the other side.
  const dark = random() < 0.5;
  const hue = random();
  const stops = [0, 0.5 + between(-0.2, 0.2), 1].map((at, i) => ({
    at,
    color: hsl((hue + i * between(0.03, 0.2)) % 1, between(0.2, 0.8), dark ? between(0.08, 0.3) : between(0.7, 0.92)),
  }));
  const background = { angle: between(0, Math.PI), stops };

  const shapes: SceneShape[] = [];
  for (let i = 0, n = 2 + Math.floor(random() * 5); i < n; i++) {
    const w = between(0.1, 0.5) * width;
    const h = between(0.1, 0.5) * height;
    shapes.push({
      kind: random() < 0.5 ? 'rect' : 'ellipse',
      x: between(-0.1, 0.9) * width,
      y: between(-0.1, 0.9) * height,
      w,
      h,
      color: hsl(random(), between(0.2, 0.9), dark ? between(0.1, 0.4) : between(0.6, 0.95)),
      alpha: between(0.15, 0.35),
    });
  }

  // Lines in horizontal bands, top to bottom, so they do not overlap.
  const lines: SceneLine[] = [];
  const count = 3 + Math.floor(random() * 5);
  const band = height / count;
  for (let i = 0; i < count; i++) {
    const wordCount = 1 + Math.floor(random() * 3);
    const text = Array.from({ length: wordCount }, () => pick(words)).join(' ');
    const size = Math.round(Math.min(band * 0.7, between(0.03, 0.09) * height));
    const estimated = 0.6 * size * text.length;
    lines.push({
      text,
      x: Math.round(between(0.03, 0.03 + Math.max(0, 0.94 - estimated / width)) * width),
      y: Math.round(band * i + band * 0.5 + size * 0.35 + between(-0.15, 0.15) * band),
      size,
      family: pick(FAMILIES),
      weight: random() < 0.4 ? 700 : 400,
      color: hsl(random(), between(0, 0.7), dark ? between(0.82, 0.98) : between(0.03, 0.22)),
      angle: random() < 0.6 ? 0 : between(-0.12, 0.12),
    });
  }
  return { width, height, background, shapes, lines };
}

/** `count` scenes of a set, each `width` × `height`; the same arguments give the same scenes. */
export function textScenes(
  set: SceneSet,
  count: number,
  size: { width: number; height: number } = { width: 640, height: 640 },
): TextScene[] {
  const random = seededRandom(SEEDS[set]);
  return Array.from({ length: count }, () => scene(random, WORDS[set], size.width, size.height));
}
