/**
 * `--task auto|detect|classify|segment|text`, the head's thresholds (`--score`, `--min-score`, `--nms`,
 * `--max-detections`) and `--labels <file|dir>` for the commands that judge a task (evaluate): the head
 * recognised from the model (core/task/recognizeHead.ts, printed with its evidence) or refused with
 * "not recognised, choose one"; labels read from COCO JSON, YOLO txt, a CSV, a folder per class or
 * grayscale PNG masks, checked against the images by the core's readers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildGraphIndex, summarize, type ModelProto } from '../core/onnx/index.ts';
import {
  describeHead,
  readLabelSource,
  recognizeHead,
  requireHead,
  textDictionary,
  TASK_KINDS,
  TaskLabelError,
  type ImageSizeByName,
  type LabelSourceFile,
  type ReadLabels,
  type TaskHead,
  type TaskKind,
} from '../core/task/index.ts';
import { decodeImageBytes } from './images/decode.ts';
import { UsageError } from './usage.ts';

export const TASK_OPTIONS = {
  task: { type: 'string' },
  labels: { type: 'string' },
  score: { type: 'string' },
  'min-score': { type: 'string' },
  nms: { type: 'string' },
  'max-detections': { type: 'string' },
  pictures: { type: 'string' },
  dict: { type: 'string' },
} as const;

export const TASK_USAGE = `  --task <auto|detect|classify|segment|text>
                             also judge the task: the head is recognised from the model (auto, printed with its
                             evidence) or named; detection: mAP@0.5 and mAP@0.5:0.95 of the quantized model's boxes
                             against the float model's (COCO AP), boxes found/lost/moved; classification: top-1/top-5
                             agreement; segmentation: mIoU; text: lines read the same and CER
  --labels <file|dir>        judge both models against labels too (implies --task auto): COCO JSON or a folder of
                             YOLO .txt for boxes, a CSV (file,class) or a folder per class for classes, a folder of
                             PNG masks for segmentation (grayscale: class per pixel; indexed colour: class per palette
                             index, as Pascal VOC saves them; 255 ignored), a lines file (image<TAB>text, PaddleOCR's
                             label format) or a CSV (image,text) of expected text for a text recognizer (with --dict)
  --dict <keys.txt>          a text recognizer's dictionary, one character a line (class 0 the blank; a space last
                             when the model has one more class, as PaddleOCR's ppocr_keys_v1.txt): decodings read
                             as text, and text labels compared as characters
  --score <v>                detection: a box counts as found at this score (family default, e.g. 0.3 for YOLO)
  --min-score <v>            detection: boxes down to this score are ranked for AP (default 0.01 for YOLO)
  --nms <iou>                detection: per-class NMS IoU (family default, e.g. 0.45 for YOLO)
  --max-detections <n>       detection: at most n boxes an image (default 100, COCO's)
  --pictures <n>             pictures of the n worst images in the HTML report (default 8)`;

type TaskValues = { [K in keyof typeof TASK_OPTIONS]?: string };

function fraction(name: string, text: string | undefined, max = 1): number | undefined {
  if (text === undefined) return undefined;
  const v = Number(text);
  if (!(Number.isFinite(v) && v >= 0 && v <= max))
    throw new UsageError(`--${name} "${text}": give a number from 0 to ${max}`);
  return v;
}

/** The head the options ask for, with a line saying what was recognised and why; null when no task was asked. */
export function taskHeadArgument(
  values: TaskValues,
  model: ModelProto,
  fileName: string,
): { head: TaskHead; note: string } | null {
  if (values.task === undefined && values.labels === undefined) return null;
  const asked = values.task ?? 'auto';
  if (asked !== 'auto' && !TASK_KINDS.includes(asked as TaskKind))
    throw new UsageError(`--task "${asked}": choose auto, ${TASK_KINDS.join(', ')}`);
  const summary = summarize(model, buildGraphIndex(model.graph!), { name: fileName });
  const guess = recognizeHead(summary, asked === 'auto' ? undefined : (asked as TaskKind));
  let head = requireHead(guess);
  if (head.task === 'detect') {
    const p = { ...head.params };
    p.scoreThreshold = fraction('score', values.score) ?? p.scoreThreshold;
    p.minScore = fraction('min-score', values['min-score']) ?? Math.min(p.minScore, p.scoreThreshold);
    p.nmsIou = fraction('nms', values.nms) ?? p.nmsIou;
    if (values['max-detections'] !== undefined) {
      const n = Number(values['max-detections']);
      if (!(Number.isInteger(n) && n >= 1))
        throw new UsageError(`--max-detections "${values['max-detections']}": give a whole number ≥ 1`);
      p.maxDetections = n;
    }
    if (p.minScore > p.scoreThreshold)
      throw new UsageError(
        `--min-score ${p.minScore} is above --score ${p.scoreThreshold}: boxes that count as found must be ranked too`,
      );
    head = { ...head, params: p };
  } else if (values.score !== undefined || values.nms !== undefined) {
    throw new UsageError(`--score and --nms apply to detection; this head is ${head.task}`);
  }
  if (values.dict !== undefined) {
    if (head.task !== 'text') throw new UsageError(`--dict applies to a text recognizer; this head is ${head.task}`);
    if (!fs.existsSync(values.dict)) throw new TaskLabelError(`--dict ${values.dict}: no such file`);
    const text = head;
    const classes = summary.outputs.find((o) => o.name === text.output)?.shape?.at(-1);
    if (typeof classes !== 'number')
      throw new TaskLabelError(
        `--dict: the output "${text.output}" has no fixed class count to check the dictionary against`,
      );
    head = {
      ...text,
      dictionary: textDictionary(values.dict, fs.readFileSync(values.dict, 'utf8').split(/\r?\n/), classes),
    };
  }
  return {
    head,
    note: `task: ${guess.label} (${guess.confidence} confidence): ${describeHead(head)}\n  because ${guess.evidence.join('; ')}`,
  };
}

export function picturesArgument(text: string | undefined): number {
  if (text === undefined) return 8;
  const n = Number(text);
  if (!(Number.isInteger(n) && n >= 0)) throw new UsageError(`--pictures "${text}": give a whole number ≥ 0`);
  return n;
}

/** Every file under a folder (two levels: a folder per class), by its path relative to the folder. */
function listFolder(root: string, under = '', depth = 0): LabelSourceFile[] {
  return fs.readdirSync(path.join(root, under), { withFileTypes: true }).flatMap((d) => {
    const rel = under ? `${under}/${d.name}` : d.name;
    if (d.isDirectory()) return depth < 1 ? listFolder(root, rel, depth + 1) : [];
    if (!d.isFile()) return [];
    return [{ path: rel, read: async () => new Uint8Array(fs.readFileSync(path.join(root, rel))) }];
  });
}

/**
 * Labels for the images evaluated, read and checked by the core's one reader (core/task/labelSource.ts): a
 * file, or a folder listed for it. A TaskLabelError names what does not fit.
 */
export async function readTaskLabels(
  source: string,
  head: TaskHead,
  model: ModelProto,
  images: readonly ImageSizeByName[],
): Promise<ReadLabels> {
  if (!fs.existsSync(source)) throw new TaskLabelError(`--labels ${source}: no such file or folder`);
  const summary = summarize(model, buildGraphIndex(model.graph!));
  const files: LabelSourceFile[] = fs.statSync(source).isFile()
    ? [{ path: path.basename(source), read: async () => new Uint8Array(fs.readFileSync(source)) }]
    : listFolder(source);
  return readLabelSource(source, files, head, summary.outputs, images, (file, bytes) => decodeImageBytes(bytes, file));
}

/** An image file as a data URL for the report's pictures. */
export function imageDataUrl(file: string): string {
  const ext = path.extname(file).toLowerCase();
  const mime =
    ext === '.png' ? 'image/png' : ext === '.webp' ? 'image/webp' : ext === '.bmp' ? 'image/bmp' : 'image/jpeg';
  return `data:${mime};base64,${fs.readFileSync(file).toString('base64')}`;
}
