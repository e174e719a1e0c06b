/**
 * Labels from what the user gives, one file or many (a folder, a drop of several files): the one reader the
 * CLI's --labels <file|dir> and the page's labels drop both call. Each side only lists its files (a relative
 * path and a way to read the bytes) and decodes PNG masks to RGBA; which kind of labels the files are, and
 * every check, is decided here: COCO JSON, YOLO txt (one per image), an image,class CSV or a folder per class,
 * PNG masks (grayscale class values or palette indices), a recognizer's text lines, with its dictionary
 * recognised among the files (the CLI's --dict).
 */
import type { TensorSummary } from '../onnx/modelSummary.ts';
import { TaskLabelError } from './errors.ts';
import { headClassCount } from './headClasses.ts';
import type { TaskHead } from './heads.ts';
import { readLabelFile } from './labelFile.ts';
import {
  baseName,
  checkMaskLabel,
  readClassLabels,
  readYoloLabels,
  type ImageSizeByName,
  type LabelSet,
} from './labels.ts';
import { paletteIndices, pngPalette } from './pngPalette.ts';
import { textDictionary } from './textLabels.ts';

/** One file given as labels: its path relative to what was given ("3/cat.png" in a folder per class). */
export interface LabelSourceFile {
  readonly path: string;
  read(): Promise<Uint8Array>;
}

/** A decoded PNG mask: RGBA pixels, as the side's image decoder gives them (no colour conversion). */
export interface DecodedMask {
  readonly width: number;
  readonly height: number;
  readonly data: ArrayLike<number>;
}

export type DecodeMask = (path: string, bytes: Uint8Array) => Promise<DecodedMask> | DecodedMask;

export interface ReadLabels {
  readonly labels: LabelSet;
  /** The head, with the recognizer's dictionary when one came among the files. */
  readonly head: TaskHead;
  /** What was read, in a few words ("COCO JSON", "4 YOLO .txt files", …). */
  readonly kind: string;
}

const TEXT_FILE = /\.(txt|tsv|csv|json)$/i;
const decoder = new TextDecoder();
const text = async (f: LabelSourceFile) => decoder.decode(await f.read());
const stem = (name: string) => baseName(name).replace(/\.[^.]+$/, '');
/** The folder holding a file ("3" for "digits/3/a.png"), or null at the top. */
const parentFolder = (p: string) => p.split(/[\\/]/).slice(-2, -1)[0] ?? null;

/** The recognizer's dictionary among text files: lines of one character each, as many as the model's classes fit. */
function dictionaryOf(texts: readonly { path: string; text: string }[], classCount: number | null) {
  if (classCount === null) return null;
  for (const t of texts) {
    const lines = t.text.split(/\r?\n/);
    if (lines.some((l) => l.includes('\t') || [...l].length > 1)) continue;
    try {
      return { path: t.path, dictionary: textDictionary(baseName(t.path), lines, classCount) };
    } catch {
      continue;
    }
  }
  return null;
}

/**
 * The labels of `images` from `files` (given as `source`), for `head`; a TaskLabelError names what does not
 * fit (an image the labels name that is not in the data, a class out of range, a box outside its image, a mask
 * of another size, files that are no labels of this head's kind).
 */
export async function readLabelSource(
  source: string,
  files: readonly LabelSourceFile[],
  head: TaskHead,
  outputs: readonly TensorSummary[],
  images: readonly ImageSizeByName[],
  decodeMask: DecodeMask,
): Promise<ReadLabels> {
  if (!files.length) throw new TaskLabelError(`${source}: no files`);
  if (head.task === 'text') {
    const texts = await Promise.all(
      files.filter((f) => /\.(txt|tsv|csv)$/i.test(f.path)).map(async (f) => ({ path: f.path, text: await text(f) })),
    );
    const classes = outputs.find((o) => o.name === head.output)?.shape?.at(-1);
    const found = head.dictionary ? null : dictionaryOf(texts, typeof classes === 'number' ? classes : null);
    const withDictionary: TaskHead = found ? { ...head, dictionary: found.dictionary } : head;
    const rest = texts.filter((t) => t.path !== found?.path);
    if (rest.length !== 1)
      throw new TaskLabelError(
        rest.length
          ? `${source}: ${rest.length} text files (${rest.map((t) => baseName(t.path)).join(', ')}): give one lines file (image<TAB>text), with the recognizer's dictionary beside it`
          : `${source}: no lines file (image<TAB>text) for the recognizer${found ? ` beside its dictionary ${baseName(found.path)}` : ''}`,
      );
    if (withDictionary.task === 'text' && !withDictionary.dictionary)
      throw new TaskLabelError(
        `text labels are compared as characters: give the recognizer's dictionary with --dict <keys.txt>, or its keys .txt (one character a line${typeof classes === 'number' ? `, ${classes - 2} or ${classes - 1} lines` : ''}) among the labels files`,
      );
    const labels = readLabelFile(baseName(rest[0].path), rest[0].text, withDictionary, outputs, images);
    return {
      labels,
      head: withDictionary,
      kind: found ? `text lines, dictionary ${baseName(found.path)}` : 'text lines',
    };
  }
  const textFiles = files.filter((f) => TEXT_FILE.test(f.path));
  if (files.length === 1 && textFiles.length === 1) {
    const one = files[0];
    if (!(head.task === 'detect' && /\.txt$/i.test(one.path)))
      return {
        labels: readLabelFile(baseName(one.path), await text(one), head, outputs, images),
        head,
        kind: /\.json$/i.test(one.path) ? 'COCO JSON' : 'a CSV',
      };
  }
  const classCount = headClassCount(head, outputs);
  if (classCount === null)
    throw new TaskLabelError(
      `${source}: the model's class count is not fixed in its output shape, so labels cannot be checked`,
    );
  const names = head.classNames;
  if (head.task === 'detect') {
    const json = files.filter((f) => /\.json$/i.test(f.path));
    if (json.length === 1 && files.length === 1)
      return readLabelSource(source, json, head, outputs, images, decodeMask);
    // YOLO's classes.txt names the classes; it is no image's labels.
    const txt = files.filter((f) => /\.txt$/i.test(f.path) && !/^classes\.txt$/i.test(baseName(f.path)));
    if (!txt.length || json.length)
      throw new TaskLabelError(
        `${source}: boxes are one COCO .json, or YOLO .txt files (one per image, "class cx cy w h")`,
      );
    const byName = new Map<string, string>();
    for (const f of txt) {
      const name = baseName(f.path);
      if (byName.has(name)) throw new TaskLabelError(`${source}: two label files are named ${name}`);
      byName.set(name, await text(f));
    }
    return {
      labels: readYoloLabels(source, byName, images, names, classCount),
      head,
      kind: `${txt.length} YOLO .txt file${txt.length === 1 ? '' : 's'}`,
    };
  }
  if (head.task === 'classify') {
    const csv = files.filter((f) => /\.csv$/i.test(f.path));
    if (csv.length === 1 && files.length === 1) return readLabelSource(source, csv, head, outputs, images, decodeMask);
    const loose = files.filter((f) => parentFolder(f.path) === null);
    if (loose.length)
      throw new TaskLabelError(
        `${source}: classes are a CSV (image,class) or a folder per class holding its images; ${baseName(loose[0].path)} is in no class folder`,
      );
    const pairs = files.map((f) => [baseName(f.path), parentFolder(f.path)!] as [string, string]);
    const folders = new Set(pairs.map((p) => p[1]));
    return {
      labels: readClassLabels(source, pairs, images, names, classCount),
      head,
      kind: `${folders.size} class folder${folders.size === 1 ? '' : 's'}`,
    };
  }
  const png = files.filter((f) => /\.png$/i.test(f.path));
  if (!png.length || png.length !== files.length)
    throw new TaskLabelError(`${source}: masks are PNG files named as their images (cat.jpg → cat.png)`);
  const byStem = new Map<string, LabelSourceFile>();
  for (const f of png) {
    if (byStem.has(stem(f.path))) throw new TaskLabelError(`${source}: two masks are named ${baseName(f.path)}`);
    byStem.set(stem(f.path), f);
  }
  const have = new Set(images.map((i) => stem(i.name)));
  const orphan = [...byStem.keys()].filter((s) => !have.has(s));
  if (orphan.length)
    throw new TaskLabelError(
      `${source}: ${orphan.length} mask(s) name no image of the data: ${orphan.slice(0, 5).join(', ')}`,
    );
  const labels = new Map<string, ReturnType<typeof checkMaskLabel>>();
  for (const im of images) {
    const file = byStem.get(stem(im.name));
    if (!file) throw new TaskLabelError(`${source}: no mask for "${im.name}" (expected ${stem(im.name)}.png)`);
    const bytes = await file.read();
    const rgba = await decodeMask(file.path, bytes);
    const where = `${source}/${baseName(file.path)}`;
    // An indexed-colour PNG holds each pixel's class as its palette index; a grayscale one as its value.
    const palette = pngPalette(bytes);
    const data = palette ? paletteIndices(where, rgba, palette) : new Uint8Array(rgba.width * rgba.height);
    for (let k = 0; !palette && k < data.length; k++) {
      const [r, g, b] = [rgba.data[k * 4], rgba.data[k * 4 + 1], rgba.data[k * 4 + 2]];
      if (r !== g || g !== b)
        throw new TaskLabelError(
          `${where}: a colour mask; save class indices as a grayscale PNG (0…classes−1, 255 ignored) or an indexed-colour PNG (class = palette index)`,
        );
      data[k] = r;
    }
    labels.set(
      baseName(im.name),
      checkMaskLabel(source, baseName(file.path), { data, width: rgba.width, height: rgba.height }, im, classCount),
    );
  }
  return { labels, head, kind: `${png.length} PNG mask${png.length === 1 ? '' : 's'}` };
}
