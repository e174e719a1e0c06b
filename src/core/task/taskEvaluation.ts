/**
 * Task-level evaluation of a quantized model: every sample's float and quantized outputs read through
 * the head (decodeHead.ts), then scored as the task is. Against the float model (no labels needed):
 * detection mAP@0.5 and @0.5:0.95 (COCO AP, the float boxes at the found score as references) per
 * class, and boxes found/lost/moved; classification top-1/top-5 agreement; segmentation mIoU; text
 * lines read the same and CER. Against labels, when given: the float model's figure and the quantized
 * model's side by side (AMD's two baselines) and the drop. Per image an agreement in [0, 1] (detection: the
 * F1 of the boxes found at the found score; classification: the same top-1; segmentation: mIoU; text:
 * 1 − CER), so the pictures can show the worst first. Pure: the caller runs the models and hands the outputs in.
 */
import { classifierAgreement, sequenceAgreement, type Agreement, type SequenceAgreement } from '../metrics/index.ts';
import type { Box, InputGeometry } from './boxes.ts';
import { addChanges, boxChanges, NO_CHANGES, type BoxChanges } from './boxChanges.ts';
import { className } from './classNames.ts';
import { detectionAp, type DetectionImage, type TruthBox } from './cocoAp.ts';
import { decodeHead, type Prediction } from './decodeHead.ts';
import { describeHead, type TaskHead, type TaskKind } from './heads.ts';
import type { ImageLabel } from './labels.ts';
import { idsToText, textAgainstLabels } from './textLabels.ts';
import type { InputSize, RunOutputs } from './outputs.ts';
import { addPixels, classIoUs, emptyConfusion, meanIoU, type Confusion } from './segmentation.ts';
import { TaskLabelError } from './errors.ts';

export interface TaskSample {
  /** The image's file name. */
  readonly name: string;
  /** How the model input maps to the photo (and the input size). */
  readonly geometry: InputGeometry & InputSize;
  readonly float: RunOutputs;
  readonly quant: RunOutputs;
  readonly label?: ImageLabel;
}

export interface ClassFigure {
  readonly label: number;
  readonly name: string;
  /** Reference boxes (or pixels' presence) of the class. */
  readonly references?: number;
  readonly ap50?: number | null;
  readonly ap5095?: number | null;
  readonly iou?: number;
}

/** The figures of one model's predictions against one reference (the float model's, or labels). */
export interface TaskFigures {
  /** Detection: COCO mAP; classification: top-1/top-5; segmentation: mIoU; text: sequence match and CER. */
  readonly map50?: number;
  readonly map75?: number;
  readonly map5095?: number;
  readonly top1?: number;
  readonly top5?: number;
  readonly miou?: number;
  readonly sequence?: number;
  readonly cer?: number;
  readonly classes?: readonly ClassFigure[];
}

export interface LabelFigure {
  /** "mAP@0.5", "top-1 accuracy", … */
  readonly metric: string;
  readonly float: number;
  readonly quantized: number;
  /** float − quantized (positive: the quantized model lost). */
  readonly drop: number;
}

/** A picture's worth of one image: both models' predictions (and the labels), and how well they agree. */
export interface ImageResult {
  readonly index: number;
  readonly name: string;
  readonly width: number;
  readonly height: number;
  /** Agreement of this image in [0, 1]: detection F1 of boxes found (IoU ≥ 0.5), same top-1, mIoU, or 1 − CER (clipped). */
  readonly agreement: number;
  readonly float: Prediction;
  readonly quant: Prediction;
  readonly label?: ImageLabel;
  /** The geometry of the model input over the photo (segmentation maps are drawn through it). */
  readonly geometry: InputGeometry & InputSize;
}

export interface TaskEvaluation {
  readonly task: TaskKind;
  readonly head: TaskHead;
  readonly headText: string;
  readonly images: number;
  /** The quantized model against the float model. */
  readonly agreement: TaskFigures;
  /** Detection only: what happened to the float model's boxes at the found score. */
  readonly changes?: BoxChanges;
  /** Against labels: both models' figures and the drop; null without labels. */
  readonly labels: {
    readonly float: TaskFigures;
    readonly quantized: TaskFigures;
    readonly figures: readonly LabelFigure[];
  } | null;
  /** Per image, worst agreement first (ties by file order). */
  readonly perImage: readonly ImageResult[];
}

/** The k of top-k beside top-1; a classifier of k classes or fewer gets no top-k figure. */
const TOP_K = 5;

const names = (h: TaskHead) => (h.task === 'text' ? null : h.classNames);

function detectionFigures(h: TaskHead, images: readonly DetectionImage[]): TaskFigures {
  const ap = detectionAp(images, h.task === 'detect' ? h.params.maxDetections : 100);
  return {
    map50: ap.map50,
    map75: ap.map75,
    map5095: ap.map5095,
    classes: ap.classes
      .filter((c) => c.ap !== null)
      .map((c) => ({
        label: c.label,
        name: className(names(h), c.label),
        references: c.truths,
        ap50: c.ap50,
        ap5095: c.ap5095,
      })),
  };
}

const boxesOf = (p: Prediction): readonly Box[] => (p.task === 'detect' ? p.boxes : []);
const asTruth = (boxes: readonly Box[], threshold: number): TruthBox[] => boxes.filter((b) => b.score >= threshold);

/** Output-map pixels that cover the photo (not letterbox padding), and the photo pixel each samples. */
function mapPixels(
  g: InputGeometry & InputSize,
  width: number,
  height: number,
): { inside: Uint8Array; source: Int32Array } {
  const inside = new Uint8Array(width * height);
  const source = new Int32Array(width * height).fill(-1);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const ix = ((x + 0.5) * g.width) / width;
      const iy = ((y + 0.5) * g.height) / height;
      const sx = Math.floor(((ix - g.offsetX) * g.sourceWidth) / g.scaledWidth);
      const sy = Math.floor(((iy - g.offsetY) * g.sourceHeight) / g.scaledHeight);
      if (sx < 0 || sy < 0 || sx >= g.sourceWidth || sy >= g.sourceHeight) continue;
      inside[y * width + x] = 1;
      source[y * width + x] = sy * g.sourceWidth + sx;
    }
  }
  return { inside, source };
}

/** Evaluates the task over all samples. Throws TaskHeadError when outputs do not fit the head, TaskLabelError when a label does not fit its image. */
export function evaluateTask(head: TaskHead, samples: readonly TaskSample[]): TaskEvaluation {
  const perImage: ImageResult[] = [];
  const withLabels = samples.length > 0 && samples.every((s) => s.label);
  if (!withLabels && samples.some((s) => s.label))
    throw new TaskLabelError(
      `labels cover ${samples.filter((s) => s.label).length} of ${samples.length} images: every image needs one`,
    );
  const threshold = head.task === 'detect' ? head.params.scoreThreshold : 0;

  // Detection pools.
  const agreementImages: DetectionImage[] = [];
  const floatVsLabels: DetectionImage[] = [];
  const quantVsLabels: DetectionImage[] = [];
  let changes = NO_CHANGES;
  // Classification rows.
  let top1 = 0,
    top5 = 0,
    rows = 0,
    floatTop1 = 0,
    floatTop5 = 0,
    quantTop1 = 0,
    quantTop5 = 0,
    classes = 0;
  // Segmentation.
  let agreeConf: Confusion | null = null,
    floatConf: Confusion | null = null,
    quantConf: Confusion | null = null;
  // Text.
  let seqMatches = 0,
    seqCount = 0,
    charErrors = 0,
    refChars = 0;
  const floatText: { read: string; label: string }[] = [];
  const quantText: { read: string; label: string }[] = [];

  samples.forEach((s, index) => {
    const f = decodeHead(head, s.float, s.geometry);
    const q = decodeHead(head, s.quant, s.geometry);
    let agreement = 1;
    if (f.task === 'detect' && q.task === 'detect') {
      const truth = asTruth(f.boxes, threshold);
      agreementImages.push({ truth, detections: q.boxes });
      const c = boxChanges(f.boxes, q.boxes, threshold);
      changes = addChanges(changes, c);
      // Per image: the F1 of the boxes found at the found score (a lost or an added box counts), 1 when neither model has one.
      const found = c.found + c.added;
      agreement = c.reference + found === 0 ? 1 : (2 * c.found) / (c.reference + found);
      if (s.label) {
        if (s.label.kind !== 'boxes') throw new TaskLabelError(`"${s.name}": a detection head needs boxes as labels`);
        floatVsLabels.push({ truth: s.label.boxes, detections: f.boxes });
        quantVsLabels.push({ truth: s.label.boxes, detections: q.boxes });
      }
    } else if (f.task === 'classify' && q.task === 'classify') {
      const a: Agreement = classifierAgreement(f.scores, q.scores, [f.scores.length]);
      top1 += a.top1Matches;
      top5 += a.top5Matches;
      rows += a.rows;
      classes = Math.max(classes, f.scores.length);
      agreement = a.top1Matches;
      if (s.label) {
        if (s.label.kind !== 'class') throw new TaskLabelError(`"${s.name}": a classifier needs a class as its label`);
        if (s.label.label >= f.scores.length)
          throw new TaskLabelError(
            `"${s.name}": class ${s.label.label} is out of range: the model scores ${f.scores.length} classes`,
          );
        floatTop1 += +(f.top[0] === s.label.label);
        floatTop5 += +f.top.includes(s.label.label);
        quantTop1 += +(q.top[0] === s.label.label);
        quantTop5 += +q.top.includes(s.label.label);
      }
    } else if (f.task === 'segment' && q.task === 'segment') {
      const { inside, source } = mapPixels(s.geometry, f.width, f.height);
      agreeConf ??= emptyConfusion(f.classCount);
      const one = emptyConfusion(f.classCount);
      addPixels(agreeConf, f.classes, q.classes, -1, inside);
      addPixels(one, f.classes, q.classes, -1, inside);
      agreement = meanIoU(one);
      if (Number.isNaN(agreement)) agreement = 1;
      if (s.label) {
        if (s.label.kind !== 'mask')
          throw new TaskLabelError(`"${s.name}": a segmentation head needs a mask as its label`);
        const truth = new Int32Array(source.length).fill(255);
        for (let k = 0; k < source.length; k++) if (source[k] >= 0) truth[k] = s.label.data[source[k]];
        floatConf ??= emptyConfusion(f.classCount);
        quantConf ??= emptyConfusion(f.classCount);
        addPixels(floatConf, truth, f.classes, 255, inside);
        addPixels(quantConf, truth, q.classes, 255, inside);
      }
    } else if (f.task === 'text' && q.task === 'text') {
      const a: SequenceAgreement = sequenceAgreement(f.scores, q.scores, f.dims);
      seqMatches += a.sequenceMatches;
      seqCount += a.sequences;
      charErrors += a.charErrors;
      refChars += a.referenceChars;
      agreement = a.referenceChars ? Math.max(0, 1 - a.charErrors / a.referenceChars) : a.charErrors ? 0 : 1;
      if (s.label) {
        if (s.label.kind !== 'text')
          throw new TaskLabelError(`"${s.name}": a text recognizer needs the expected text as its label`);
        if (head.task !== 'text' || !head.dictionary)
          throw new TaskLabelError(
            "text labels are compared as characters: give the recognizer's dictionary (qstudio --dict <keys.txt>)",
          );
        floatText.push({ read: idsToText(f.labels, head.dictionary), label: s.label.text });
        quantText.push({ read: idsToText(q.labels, head.dictionary), label: s.label.text });
      }
    }
    perImage.push({
      index,
      name: s.name,
      width: s.geometry.sourceWidth,
      height: s.geometry.sourceHeight,
      agreement,
      float: f,
      quant: q,
      label: s.label,
      geometry: s.geometry,
    });
  });

  let agreement: TaskFigures;
  let labels: TaskEvaluation['labels'] = null;
  const figure = (metric: string, float: number | undefined, quantized: number | undefined): LabelFigure => ({
    metric,
    float: float ?? NaN,
    quantized: quantized ?? NaN,
    drop: (float ?? NaN) - (quantized ?? NaN),
  });
  if (head.task === 'detect') {
    agreement = detectionFigures(head, agreementImages);
    if (withLabels) {
      const float = detectionFigures(head, floatVsLabels);
      const quantized = detectionFigures(head, quantVsLabels);
      labels = {
        float,
        quantized,
        figures: [
          figure('mAP@0.5', float.map50, quantized.map50),
          figure('mAP@0.5:0.95', float.map5095, quantized.map5095),
        ],
      };
    }
  } else if (head.task === 'classify') {
    // Top-5 of 5 classes or fewer always agrees (and always holds the label): it says nothing, so it is left out.
    const five = classes > TOP_K;
    agreement = { top1: top1 / rows, ...(five ? { top5: top5 / rows } : {}) };
    if (withLabels) {
      const n = samples.length;
      const float = { top1: floatTop1 / n, ...(five ? { top5: floatTop5 / n } : {}) };
      const quantized = { top1: quantTop1 / n, ...(five ? { top5: quantTop5 / n } : {}) };
      labels = {
        float,
        quantized,
        figures: [
          figure('top-1 accuracy', float.top1, quantized.top1),
          ...(five ? [figure('top-5 accuracy', floatTop5 / n, quantTop5 / n)] : []),
        ],
      };
    }
  } else if (head.task === 'segment') {
    const segFigures = (c: Confusion | null): TaskFigures =>
      c
        ? {
            miou: meanIoU(c),
            classes: classIoUs(c).map((x) => ({
              label: x.label,
              name: className(head.classNames, x.label),
              iou: x.iou,
            })),
          }
        : { miou: NaN };
    agreement = segFigures(agreeConf);
    if (withLabels) {
      const float = segFigures(floatConf);
      const quantized = segFigures(quantConf);
      labels = { float, quantized, figures: [figure('mIoU', float.miou, quantized.miou)] };
    }
  } else {
    agreement = { sequence: seqMatches / seqCount, cer: refChars ? charErrors / refChars : charErrors ? 1 : 0 };
    if (withLabels) {
      const float = textAgainstLabels(floatText);
      const quantized = textAgainstLabels(quantText);
      labels = {
        float,
        quantized,
        figures: [
          figure('lines read as labelled', float.sequence, quantized.sequence),
          figure('character accuracy (1 − CER)', 1 - float.cer, 1 - quantized.cer),
        ],
      };
    }
  }
  perImage.sort((a, b) => a.agreement - b.agreement || a.index - b.index);
  return {
    task: head.task,
    head,
    headText: describeHead(head),
    images: samples.length,
    agreement,
    changes: head.task === 'detect' ? changes : undefined,
    labels,
    perImage,
  };
}

export { boxesOf };
