/**
 * Recognises what a model's outputs mean for its task, from the file alone (names, shapes, metadata,
 * op types), as preprocess/recognize.ts recognises its preprocessing: detection heads (YOLOX and
 * Ultralytics YOLO v5/v8 grids, SSD-style scores + boxes as UltraFace, YuNet, PaddleOCR's DB text
 * map), classification scores, segmentation maps, CTC text. The answer is a suggestion with its
 * evidence and every decoder parameter filled with its family's defaults; the user accepts or
 * changes it. Nothing recognised (or not the task asked for) is `head: null` with the reason: the
 * caller asks the user to choose, it never guesses a number.
 */
import { recognizePreprocess, type GuessConfidence, type ModelFacts } from '../preprocess/recognize.ts';
import { COCO_80, parseNamesMetadata } from './classNames.ts';
import { TaskHeadError } from './errors.ts';
import {
  DEFAULT_DETECTION_PARAMS,
  TASK_KINDS,
  type DetectionHead,
  type DetectionParams,
  type TaskHead,
  type TaskKind,
} from './heads.ts';

export interface HeadFacts extends ModelFacts {
  /** Op types of the graph (a ModelSummary's `ops`): tell a decoded tail (Exp) from a raw one. */
  readonly ops?: readonly { readonly opType: string }[];
}

export interface HeadGuess {
  readonly head: TaskHead | null;
  /** "YOLOX detector", or why nothing was recognised. */
  readonly label: string;
  readonly evidence: readonly string[];
  readonly confidence: GuessConfidence;
}

type Dim = number | string;
const shapeText = (s: readonly Dim[] | null) =>
  s ? `[${s.map((d) => (typeof d === 'number' ? d : '?')).join(', ')}]` : '[?]';
const num = (d: Dim | undefined): number | null => (typeof d === 'number' ? d : null);

function inputSize(facts: ModelFacts): { h: number | null; w: number | null } {
  const i = facts.inputs.find((t) => t.shape && t.shape.length === 4);
  if (!i?.shape) return { h: null, w: null };
  const s = i.shape;
  const nhwc = (s[3] === 3 || s[3] === 1) && s[1] !== 3 && s[1] !== 1;
  return nhwc ? { h: num(s[1]), w: num(s[2]) } : { h: num(s[2]), w: num(s[3]) };
}

const params = (p: Partial<DetectionParams>): DetectionParams => ({ ...DEFAULT_DETECTION_PARAMS, ...p });
const detect = (head: DetectionHead, p: Partial<DetectionParams>, classNames: string[] | null): TaskHead => ({
  task: 'detect',
  head,
  params: params(p),
  classNames,
});

interface Found {
  head: TaskHead;
  label: string;
  evidence: string[];
  confidence: GuessConfidence;
}

function detectionHead(facts: HeadFacts, family: string | null, familyEvidence: readonly string[]): Found | null {
  const outs = facts.outputs;
  const hasExp = facts.ops?.some((o) => o.opType === 'Exp') ?? false;
  // YuNet: cls/obj/bbox per stride.
  const strides = [8, 16, 32].filter((s) =>
    ['cls', 'obj', 'bbox'].every((k) => outs.some((o) => o.name === `${k}_${s}`)),
  );
  if (strides.length === 3) {
    return {
      head: detect({ kind: 'yunet', strides }, { scoreThreshold: 0.5, minScore: 0.05, nmsIou: 0.3 }, ['face']),
      label: 'YuNet face detector',
      confidence: 'high',
      evidence: [
        `outputs cls_/obj_/bbox_ for strides 8, 16, 32: YuNet's heads, decoded as OpenCV's FaceDetectorYN does`,
      ],
    };
  }
  // SSD-style scores + boxes.
  const scores = outs.find((o) => /score|conf/i.test(o.name) && o.shape?.length === 3 && (num(o.shape[2]) ?? 0) >= 2);
  const boxes = outs.find((o) => /box|loc/i.test(o.name) && o.shape?.length === 3 && o.shape[2] === 4);
  if (scores && boxes) {
    const encoding = hasExp ? 'corners' : 'ultraface-priors';
    const faces = family === 'ultraface' || scores.shape![2] === 2;
    return {
      head: detect(
        { kind: 'ssd', scores: scores.name, boxes: boxes.name, encoding },
        { scoreThreshold: 0.7, minScore: 0.05, nmsIou: 0.3 },
        faces && scores.shape![2] === 2 ? ['face'] : null,
      ),
      label: faces ? 'UltraFace face detector (SSD-style)' : 'SSD-style detector',
      confidence: faces ? 'high' : 'medium',
      evidence: [
        `outputs "${scores.name}" ${shapeText(scores.shape)} (a score per class, class 0 the background) and "${boxes.name}" ${shapeText(boxes.shape)}`,
        hasExp
          ? 'the graph decodes its boxes (an Exp in the tail): corners in 0–1'
          : "no Exp in the graph: the boxes are raw regressions, decoded with UltraFace's priors",
      ],
    };
  }
  if (family === 'paddleocr-det') {
    const o = outs[0];
    return {
      head: detect(
        { kind: 'db-text', output: o.name, binaryThreshold: 0.3, unclipRatio: 1.5, minSize: 3 },
        { scoreThreshold: 0.6, minScore: 0.3, nmsIou: 1, maxDetections: 1000 },
        ['text'],
      ),
      label: 'PaddleOCR DB text detector',
      confidence: 'high',
      evidence: [
        ...familyEvidence,
        `output "${o.name}" ${shapeText(o.shape)} is DB's probability map: boxes from its regions (PaddleOCR's thresholds 0.3 / 0.6, unclip 1.5)`,
      ],
    };
  }
  // YOLO grids: one output of rank 3.
  if (outs.length !== 1 || outs[0].shape?.length !== 3) return null;
  const o = outs[0];
  const [, rows, cols] = o.shape!.map(num);
  const { h, w } = inputSize(facts);
  const cells = h && w && h % 32 === 0 && w % 32 === 0 ? [8, 16, 32].reduce((s, k) => s + (h / k) * (w / k), 0) : null;
  const names = parseNamesMetadata(facts.metadata?.names);
  const coco = (classes: number | null) => names ?? (classes === 80 ? [...COCO_80] : null);
  const namesEvidence = (classes: number | null) =>
    names ? ['class names from the metadata "names"'] : classes === 80 ? ["80 classes: COCO's names"] : [];
  if (family === 'yolox' || (cells !== null && rows === cells && cols !== null && cols > 5)) {
    if (cols === null || cols <= 5) return null;
    return {
      head: detect({ kind: 'yolox', output: o.name, raw: !hasExp, strides: [8, 16, 32] }, {}, coco(cols - 5)),
      label: 'YOLOX detector',
      confidence: family === 'yolox' ? 'high' : 'medium',
      evidence: [
        ...familyEvidence,
        `output "${o.name}" ${shapeText(o.shape)}: per cell cx, cy, w, h, objectness and ${cols - 5} class scores`,
        hasExp
          ? 'an Exp in the graph: boxes decoded in the graph'
          : "no Exp in the graph: raw offsets and log sizes (YOLOX's default export), decoded with the stride 8/16/32 grid",
        ...namesEvidence(cols - 5),
      ],
    };
  }
  if (family === 'ultralytics' || cells !== null) {
    if (cells !== null && rows === 3 * cells && cols !== null && cols > 5) {
      return {
        head: detect({ kind: 'yolov5', output: o.name }, {}, coco(cols - 5)),
        label: 'Ultralytics YOLOv5',
        confidence: 'medium',
        evidence: [
          ...familyEvidence,
          `output ${shapeText(o.shape)}: three anchors per stride 8/16/32 cell, cx, cy, w, h, objectness and ${cols - 5} class scores`,
          ...namesEvidence(cols - 5),
        ],
      };
    }
    if (
      (cells !== null && cols === cells) ||
      (family === 'ultralytics' && rows !== null && cols !== null && rows > 4 && cols > rows)
    ) {
      const classes = rows! - 4;
      return {
        head: detect({ kind: 'yolov8', output: o.name }, {}, coco(classes)),
        label: 'Ultralytics YOLOv8 (and later)',
        confidence: cells !== null && cols === cells ? 'high' : 'medium',
        evidence: [
          ...familyEvidence,
          `output ${shapeText(o.shape)}: per cell (column) cx, cy, w, h and ${classes} class scores`,
          ...namesEvidence(classes),
        ],
      };
    }
  }
  return null;
}

function otherHead(facts: HeadFacts, family: string | null, familyEvidence: readonly string[]): Found | null {
  const outs = facts.outputs;
  if (family === 'paddleocr-rec' && outs.length === 1) {
    return {
      head: { task: 'text', output: outs[0].name },
      label: 'CTC text recognizer',
      confidence: 'high',
      evidence: [
        ...familyEvidence,
        `output "${outs[0].name}" ${shapeText(outs[0].shape)}: a character distribution per column, read by greedy CTC`,
      ],
    };
  }
  if (family === 'super-resolution') return null;
  const { h, w } = inputSize(facts);
  for (const o of outs) {
    const s = o.shape;
    if (!s) continue;
    const classes = s.length === 2 ? num(s[1]) : s.length === 4 && s[2] === 1 && s[3] === 1 ? num(s[1]) : null;
    if (classes !== null && classes >= 2 && (num(s[0]) ?? 1) <= 1) {
      const names =
        parseNamesMetadata(facts.metadata?.names) ??
        (family === 'digit-classifier'
          ? Array.from({ length: 10 }, (_, i) => String(i))
          : family === 'paddleocr-cls'
            ? ['0°', '180°']
            : null);
      return {
        head: { task: 'classify', output: o.name, classNames: names },
        label: 'classifier',
        confidence: outs.length === 1 ? 'high' : 'medium',
        evidence: [...familyEvidence, `output "${o.name}" ${shapeText(s)}: ${classes} class scores`],
      };
    }
    if (s.length === 4 && h && w) {
      const [, c, oh, ow] = s.map(num);
      if (c !== null && oh !== null && ow !== null && oh * 8 >= h && ow * 8 >= w && oh <= h && ow <= w) {
        const mask = c === 1;
        return {
          head: { task: 'segment', output: o.name, maskThreshold: 0.5, classNames: null },
          label: mask ? 'segmentation (one mask)' : `segmentation (${c} classes)`,
          confidence: 'medium',
          evidence: [
            ...familyEvidence,
            `output "${o.name}" ${shapeText(s)}: ${mask ? 'one value per pixel, a mask cut at 0.5' : `${c} scores per pixel of a ${oh}×${ow} map, the class its argmax`} over a ${h}×${w} input`,
          ],
        };
      }
    }
  }
  return null;
}

/** The head a model most likely has, or, with `task`, the head of that task its outputs can be read as. */
export function recognizeHead(facts: HeadFacts, task?: TaskKind): HeadGuess {
  const pre = recognizePreprocess(facts);
  const familyEvidence = pre.family ? [`recognised as ${pre.label}`] : [];
  const found = detectionHead(facts, pre.family, familyEvidence) ?? otherHead(facts, pre.family, familyEvidence);
  const outputs = facts.outputs.map((o) => `"${o.name}" ${shapeText(o.shape)}`).join(', ');
  if (found && (!task || found.head.task === task)) return found;
  if (found && task) {
    // The outputs read as another task; a classify or segment reading of them may still exist.
    const other = task === 'detect' ? null : otherHead({ ...facts }, task === 'text' ? 'paddleocr-rec' : null, []);
    if (other && other.head.task === task)
      return {
        ...other,
        confidence: 'low',
        evidence: [...other.evidence, `read as ${task} because asked; the outputs look like ${found.label}`],
      };
    return {
      head: null,
      label: `not a ${task} head`,
      confidence: 'low',
      evidence: [`asked for ${task}, but the outputs (${outputs}) read as ${found.label}`],
    };
  }
  return {
    head: null,
    label: 'not recognised',
    confidence: 'low',
    evidence: [`no known head in the outputs ${outputs}`],
  };
}

/** The head, or a TaskHeadError that says why none was found and asks the user to choose. */
export function requireHead(guess: HeadGuess): TaskHead {
  if (guess.head) return guess.head;
  throw new TaskHeadError(
    `task head ${guess.label}: ${guess.evidence.join('; ')}. Choose one with --task ${TASK_KINDS.join('|')} (detect reads YOLOX, YOLOv5/v8, SSD scores+boxes, YuNet and DB text maps)`,
  );
}
