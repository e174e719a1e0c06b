/**
 * Labels a user brings, read from their text into one form per image (boxes, a class, a mask) and
 * checked against the images and the head's classes: COCO JSON and YOLO txt for boxes, a CSV or a
 * folder per class for classes, masks (decoded by the caller) for segmentation. Anything impossible
 * (an annotation naming no image, a class out of range, a box outside its image, a mask of another
 * size) is a TaskLabelError naming the file and the entry: a wrong label never becomes a number.
 */
import type { TruthBox } from './cocoAp.ts';
import { TaskLabelError } from './errors.ts';

export type ImageLabel =
  | { readonly kind: 'boxes'; readonly boxes: readonly TruthBox[] }
  | { readonly kind: 'class'; readonly label: number }
  | { readonly kind: 'mask'; readonly data: Uint8Array; readonly width: number; readonly height: number }
  /** A text line's expected text (textLabels.ts). */
  | { readonly kind: 'text'; readonly text: string };

/** Labels by image file name (the base name, as the data folder lists it). */
export type LabelSet = ReadonlyMap<string, ImageLabel>;

export interface ImageSizeByName {
  readonly name: string;
  readonly width: number;
  readonly height: number;
}

/** How far a labelled box may reach past its image's edge (COCO boxes are often a fraction over). */
const EDGE_SLACK = 1;

function checkBox(where: string, b: TruthBox, width: number, height: number): void {
  if (![b.x1, b.y1, b.x2, b.y2].every(Number.isFinite) || b.x2 <= b.x1 || b.y2 <= b.y1)
    throw new TaskLabelError(`${where}: the box [${b.x1}, ${b.y1}, ${b.x2}, ${b.y2}] is empty or not numbers`);
  if (b.x1 < -EDGE_SLACK || b.y1 < -EDGE_SLACK || b.x2 > width + EDGE_SLACK || b.y2 > height + EDGE_SLACK) {
    throw new TaskLabelError(
      `${where}: the box [${b.x1.toFixed(1)}, ${b.y1.toFixed(1)}, ${b.x2.toFixed(1)}, ${b.y2.toFixed(1)}] reaches outside its ${width}×${height} image`,
    );
  }
}

/** The model's class index of a label's class name or number; a TaskLabelError when the model has no such class. */
export function classIndex(
  where: string,
  value: string | number,
  classNames: readonly string[] | null,
  classCount: number,
): number {
  const text = String(value).trim();
  const byName = classNames ? classNames.indexOf(text) : -1;
  if (byName >= 0) return byName;
  if (/^\d+$/.test(text)) {
    const k = Number(text);
    if (k < classCount) return k;
    throw new TaskLabelError(
      `${where}: class ${k} is out of range: the model has ${classCount} classes (0–${classCount - 1})`,
    );
  }
  throw new TaskLabelError(
    `${where}: class "${text}" names no class of the model${classNames ? ` (its classes: ${classNames.slice(0, 8).join(', ')}${classNames.length > 8 ? ', …' : ''})` : ' (give class numbers: the model carries no names)'}`,
  );
}

/** Images of the data with no label, and labels naming no image of the data: both refused. */
function checkCoverage(file: string, labelled: readonly string[], images: readonly ImageSizeByName[]): void {
  const have = new Set(images.map((i) => i.name));
  const orphan = labelled.filter((n) => !have.has(n));
  if (orphan.length)
    throw new TaskLabelError(
      `${file}: labels name ${orphan.length} image(s) not in the data: ${orphan.slice(0, 5).join(', ')}${orphan.length > 5 ? ', …' : ''}`,
    );
}

interface CocoJson {
  images?: { id: number | string; file_name: string; width?: number; height?: number }[];
  annotations?: { image_id: number | string; category_id: number | string; bbox: number[]; iscrowd?: number }[];
  categories?: { id: number | string; name: string }[];
}

/**
 * COCO detection JSON (images, annotations with [x, y, w, h] boxes, categories). Categories map to the
 * model's classes by name when the model has names, else by id (0-based, or 1-based when ids run 1…C).
 * Every image of the data must be listed (an image without annotations is an image with no objects).
 */
export function readCocoLabels(
  file: string,
  text: string,
  images: readonly ImageSizeByName[],
  classNames: readonly string[] | null,
  classCount: number,
): LabelSet {
  let json: CocoJson;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new TaskLabelError(`${file}: not JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(json.images) || !Array.isArray(json.annotations) || !Array.isArray(json.categories))
    throw new TaskLabelError(`${file}: not COCO detection JSON (it needs "images", "annotations" and "categories")`);
  const ids = json.categories.map((c) => Number(c.id));
  const oneBased =
    !classNames && ids.length === classCount && Math.min(...ids) === 1 && Math.max(...ids) === classCount;
  const category = new Map(
    json.categories.map((c) => [
      String(c.id),
      classIndex(
        `${file}: category ${c.id} "${c.name}"`,
        classNames ? c.name : oneBased ? Number(c.id) - 1 : c.id,
        classNames,
        classCount,
      ),
    ]),
  );
  const byId = new Map(json.images.map((im) => [String(im.id), im]));
  const size = new Map(images.map((i) => [i.name, i]));
  checkCoverage(
    file,
    json.images.map((i) => baseName(i.file_name)),
    images,
  );
  const boxes = new Map<string, TruthBox[]>(json.images.map((i) => [baseName(i.file_name), []]));
  json.annotations.forEach((a, k) => {
    const where = `${file}: annotation ${k + 1}`;
    const im = byId.get(String(a.image_id));
    if (!im) throw new TaskLabelError(`${where}: image_id ${a.image_id} names no image of the file`);
    const label = category.get(String(a.category_id));
    if (label === undefined)
      throw new TaskLabelError(`${where}: category_id ${a.category_id} is not among the file's categories`);
    if (!Array.isArray(a.bbox) || a.bbox.length !== 4)
      throw new TaskLabelError(`${where}: "bbox" must be [x, y, width, height]`);
    const [x, y, w, h] = a.bbox.map(Number);
    const b: TruthBox = { x1: x, y1: y, x2: x + w, y2: y + h, score: 1, label, crowd: a.iscrowd === 1 };
    const name = baseName(im.file_name);
    const s = size.get(name)!;
    if ((im.width && im.width !== s.width) || (im.height && im.height !== s.height))
      throw new TaskLabelError(
        `${file}: image "${name}" is ${s.width}×${s.height}, the file says ${im.width}×${im.height}`,
      );
    checkBox(`${where} (${name})`, b, s.width, s.height);
    boxes.get(name)!.push(b);
  });
  const missing = images.filter((i) => !boxes.has(i.name)).map((i) => i.name);
  if (missing.length)
    throw new TaskLabelError(
      `${file}: ${missing.length} image(s) of the data have no entry: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}`,
    );
  return new Map([...boxes].map(([n, b]) => [n, { kind: 'boxes', boxes: b }]));
}

/**
 * YOLO txt labels: per image a `<stem>.txt` of lines `class cx cy w h` (0–1 of the image). `files` maps
 * each txt file's name to its text. An image without a txt file has no objects, as in YOLO datasets;
 * a txt file naming no image is refused.
 */
export function readYoloLabels(
  dir: string,
  files: ReadonlyMap<string, string>,
  images: readonly ImageSizeByName[],
  classNames: readonly string[] | null,
  classCount: number,
): LabelSet {
  const stems = new Map(images.map((i) => [i.name.replace(/\.[^.]+$/, ''), i]));
  const orphan = [...files.keys()].filter((f) => !stems.has(f.replace(/\.txt$/i, '')));
  if (orphan.length)
    throw new TaskLabelError(
      `${dir}: ${orphan.length} label file(s) name no image of the data: ${orphan.slice(0, 5).join(', ')}`,
    );
  const out = new Map<string, ImageLabel>();
  for (const im of images) {
    const stem = im.name.replace(/\.[^.]+$/, '');
    const text = files.get(`${stem}.txt`) ?? '';
    const boxes: TruthBox[] = [];
    text.split(/\r?\n/).forEach((line, k) => {
      const t = line.trim();
      if (!t) return;
      const where = `${dir}/${stem}.txt line ${k + 1}`;
      const parts = t.split(/\s+/);
      if (parts.length < 5 || parts.slice(1, 5).some((p) => !Number.isFinite(Number(p))))
        throw new TaskLabelError(`${where}: expected "class cx cy w h", got "${t}"`);
      const label = classIndex(where, parts[0], classNames, classCount);
      const [cx, cy, w, h] = parts.slice(1, 5).map(Number);
      if ([cx, cy, w, h].some((v) => v < 0 || v > 1))
        throw new TaskLabelError(
          `${where}: YOLO coordinates are fractions 0–1 of the image; got ${parts.slice(1, 5).join(' ')}`,
        );
      const b: TruthBox = {
        x1: (cx - w / 2) * im.width,
        y1: (cy - h / 2) * im.height,
        x2: (cx + w / 2) * im.width,
        y2: (cy + h / 2) * im.height,
        score: 1,
        label,
      };
      checkBox(where, b, im.width, im.height);
      boxes.push(b);
    });
    out.set(im.name, { kind: 'boxes', boxes });
  }
  if (files.size === 0) throw new TaskLabelError(`${dir}: no .txt label files`);
  return out;
}

/**
 * Class labels as (image name, class) pairs, from a CSV ("file,class" lines, a header allowed) or a
 * folder per class (the caller lists them). Each image of the data must have exactly one.
 */
export function readClassLabels(
  source: string,
  pairs: readonly (readonly [string, string])[],
  images: readonly ImageSizeByName[],
  classNames: readonly string[] | null,
  classCount: number,
): LabelSet {
  const out = new Map<string, ImageLabel>();
  for (const [file, cls] of pairs) {
    const name = baseName(file);
    if (out.has(name)) throw new TaskLabelError(`${source}: "${name}" is labelled twice`);
    out.set(name, { kind: 'class', label: classIndex(`${source}: "${name}"`, cls, classNames, classCount) });
  }
  checkCoverage(source, [...out.keys()], images);
  const missing = images.filter((i) => !out.has(i.name)).map((i) => i.name);
  if (missing.length)
    throw new TaskLabelError(
      `${source}: ${missing.length} image(s) of the data have no class: ${missing.slice(0, 5).join(', ')}`,
    );
  return out;
}

/** "file,class" lines of a CSV; a first line whose class is not a number or name is taken as a header when it says "class" or "label". */
export function csvPairs(text: string): [string, string][] {
  const rows = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => l.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1')));
  if (rows.length && /^(file|image|name|path)/i.test(rows[0][0]) && /(class|label)/i.test(rows[0][1] ?? ''))
    rows.shift();
  return rows.map((r, k) => {
    if (r.length < 2 || !r[0] || !r[1]) throw new TaskLabelError(`labels CSV line ${k + 1}: expected "file,class"`);
    return [r[0], r[1]];
  });
}

/** A mask per image (class index per pixel, 255 ignored), checked against the image size and the class count. */
export function checkMaskLabel(
  source: string,
  name: string,
  mask: { data: Uint8Array; width: number; height: number },
  image: ImageSizeByName,
  classCount: number,
): ImageLabel {
  if (mask.width !== image.width || mask.height !== image.height)
    throw new TaskLabelError(
      `${source}: the mask of "${name}" is ${mask.width}×${mask.height}, its image ${image.width}×${image.height}`,
    );
  for (const v of mask.data)
    if (v !== 255 && v >= classCount)
      throw new TaskLabelError(
        `${source}: the mask of "${name}" has class ${v}, out of range: the model has ${classCount} classes (255 = ignore)`,
      );
  return { kind: 'mask', ...mask };
}

export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
