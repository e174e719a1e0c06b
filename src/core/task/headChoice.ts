/**
 * The user's side of the head suggestion: the decoders a user may choose (a kind per decoder, named in
 * words), the head of a chosen kind built on the model's own outputs with that kind's defaults (the
 * recognised head itself where it is of that kind), and the editable fields of a head, each with its
 * value and allowed range. Choosing never guesses silently: a kind the outputs cannot be read as is
 * refused with the reason (`{ head: null, reason }`).
 */
import type { TensorSummary } from '../onnx/modelSummary.ts';
import {
  DEFAULT_DETECTION_PARAMS,
  type DetectionHead,
  type DetectionParams,
  type TaskHead,
  type TaskKind,
} from './heads.ts';
import type { HeadFacts, HeadGuess } from './recognizeHead.ts';

/** One decoder a user may choose: a detection head kind, or a task read on one output. */
export type HeadChoiceKind = DetectionHead['kind'] | 'classify' | 'segment' | 'text';

export const HEAD_CHOICES: readonly {
  readonly kind: HeadChoiceKind;
  readonly task: TaskKind;
  readonly label: string;
}[] = [
  { kind: 'yolox', task: 'detect', label: 'Detection: YOLOX grid' },
  { kind: 'yolov5', task: 'detect', label: 'Detection: YOLOv5 rows' },
  { kind: 'yolov8', task: 'detect', label: 'Detection: YOLOv8 columns' },
  { kind: 'ssd', task: 'detect', label: 'Detection: SSD scores + boxes (UltraFace)' },
  { kind: 'yunet', task: 'detect', label: 'Detection: YuNet faces' },
  { kind: 'db-text', task: 'detect', label: 'Detection: DB text map (PaddleOCR)' },
  { kind: 'classify', task: 'classify', label: 'Classification: class scores' },
  { kind: 'segment', task: 'segment', label: 'Segmentation: per-pixel classes or a mask' },
  { kind: 'text', task: 'text', label: 'Text: CTC recognizer' },
];

/** The choice kind of a head. */
export function headChoiceKind(h: TaskHead): HeadChoiceKind {
  return h.task === 'detect' ? h.head.kind : h.task;
}

export type HeadChoiceResult =
  { readonly head: TaskHead; readonly reason?: undefined } | { readonly head: null; readonly reason: string };

const rank = (t: TensorSummary) => t.shape?.length ?? -1;
const last = (t: TensorSummary) => t.shape?.[t.shape.length - 1];
const outputsText = (outs: readonly TensorSummary[]) =>
  outs
    .map((o) => `"${o.name}" [${(o.shape ?? []).map((d) => (typeof d === 'number' ? d : '?')).join(', ')}]`)
    .join(', ');

/** The output a one-output head of `kind` reads: `preferred` when it fits, else the first that does. */
function pickOutput(
  outs: readonly TensorSummary[],
  fits: (t: TensorSummary) => boolean,
  preferred?: string,
): string | null {
  const p = outs.find((o) => o.name === preferred && fits(o));
  return (p ?? outs.find(fits))?.name ?? null;
}

/**
 * The head of `kind` on the model's outputs: the recognised head where it is of this kind, else one built on
 * the outputs that fit with the kind's defaults; detection thresholds carried over from `from` (the head the
 * user had) so changing the decoder keeps what they set. `output` names the output to read (one-output kinds).
 */
export function headForChoice(
  facts: HeadFacts,
  guess: HeadGuess,
  kind: HeadChoiceKind,
  from?: TaskHead | null,
  output?: string,
): HeadChoiceResult {
  if (guess.head && headChoiceKind(guess.head) === kind && (!output || headOutputs(guess.head).includes(output)))
    return { head: guess.head };
  const outs = facts.outputs;
  const params: DetectionParams = from?.task === 'detect' ? { ...from.params } : { ...DEFAULT_DETECTION_PARAMS };
  const classNames = from && from.task !== 'text' ? from.classNames : null;
  const refuse = (needs: string): HeadChoiceResult => ({
    head: null,
    reason: `${HEAD_CHOICES.find((c) => c.kind === kind)!.label} reads ${needs}; the model's outputs are ${outputsText(outs)}`,
  });
  const detect = (head: DetectionHead): HeadChoiceResult => ({ head: { task: 'detect', head, params, classNames } });
  const one = (fits: (t: TensorSummary) => boolean) => pickOutput(outs, fits, output);
  switch (kind) {
    case 'yolox':
    case 'yolov5': {
      const o = one((t) => rank(t) === 3 && (typeof last(t) !== 'number' || (last(t) as number) > 5));
      if (!o) return refuse('one output [1, boxes, 5 + classes]');
      return detect(
        kind === 'yolox'
          ? { kind, output: o, raw: !(facts.ops?.some((x) => x.opType === 'Exp') ?? false), strides: [8, 16, 32] }
          : { kind, output: o },
      );
    }
    case 'yolov8': {
      const o = one((t) => rank(t) === 3);
      return o ? detect({ kind, output: o }) : refuse('one output [1, 4 + classes, boxes]');
    }
    case 'ssd': {
      const boxes =
        outs.find((t) => rank(t) === 3 && last(t) === 4 && /box|loc/i.test(t.name)) ??
        outs.find((t) => rank(t) === 3 && last(t) === 4);
      const scores = outs.find(
        (t) => rank(t) === 3 && t !== boxes && (typeof last(t) !== 'number' || (last(t) as number) >= 2),
      );
      if (!boxes || !scores) return refuse('two outputs, scores [1, priors, classes] and boxes [1, priors, 4]');
      return detect({
        kind,
        scores: scores.name,
        boxes: boxes.name,
        encoding: facts.ops?.some((x) => x.opType === 'Exp') ? 'corners' : 'ultraface-priors',
      });
    }
    case 'yunet': {
      const strides = [8, 16, 32].filter((s) =>
        ['cls', 'obj', 'bbox'].every((k) => outs.some((o) => o.name === `${k}_${s}`)),
      );
      return strides.length > 0 ? detect({ kind, strides }) : refuse('outputs cls_8/obj_8/bbox_8 (and 16, 32)');
    }
    case 'db-text': {
      const o = one((t) => rank(t) === 4 && t.shape![1] === 1);
      if (!o) return refuse('one probability map [1, 1, H, W]');
      return {
        head: {
          task: 'detect',
          head: { kind, output: o, binaryThreshold: 0.3, unclipRatio: 1.5, minSize: 3 },
          params:
            from?.task === 'detect'
              ? params
              : { ...params, scoreThreshold: 0.6, minScore: 0.3, nmsIou: 1, maxDetections: 1000 },
          classNames: ['text'],
        },
      };
    }
    case 'classify': {
      const o = one((t) => rank(t) === 2 || (rank(t) === 4 && t.shape![2] === 1 && t.shape![3] === 1));
      return o
        ? { head: { task: 'classify', output: o, classNames } }
        : refuse('one output [1, classes] (or [1, classes, 1, 1])');
    }
    case 'segment': {
      const o = one((t) => rank(t) === 4);
      return o
        ? { head: { task: 'segment', output: o, maskThreshold: 0.5, classNames } }
        : refuse('one output [1, classes, H, W]');
    }
    case 'text': {
      const o = one((t) => rank(t) === 3);
      return o ? { head: { task: 'text', output: o } } : refuse('one output [1, steps, characters]');
    }
  }
}

/** The outputs a head reads. */
export function headOutputs(h: TaskHead): string[] {
  if (h.task !== 'detect') return [h.output];
  const d = h.head;
  if (d.kind === 'ssd') return [d.scores, d.boxes];
  if (d.kind === 'yunet') return d.strides.flatMap((s) => [`cls_${s}`, `obj_${s}`, `bbox_${s}`]);
  return [d.output];
}

/** One editable number of a head: its key, words, value and range. */
export interface HeadField {
  readonly key: HeadFieldKey;
  readonly label: string;
  readonly value: number;
  readonly min: number;
  readonly max: number;
  readonly step: number;
  readonly integer?: boolean;
}

export type HeadFieldKey = keyof DetectionParams | 'binaryThreshold' | 'unclipRatio' | 'minSize' | 'maskThreshold';

/** The numbers of `h` a user may edit (thresholds, NMS, the DB map's and the mask's cuts), with their values. */
export function headFields(h: TaskHead): HeadField[] {
  if (h.task === 'segment')
    return [
      {
        key: 'maskThreshold',
        label: 'mask cut (one-channel maps)',
        value: h.maskThreshold,
        min: 0,
        max: 1,
        step: 0.05,
      },
    ];
  if (h.task !== 'detect') return [];
  const p = h.params;
  const fields: HeadField[] = [
    { key: 'scoreThreshold', label: 'score counted as found', value: p.scoreThreshold, min: 0, max: 1, step: 0.05 },
    { key: 'minScore', label: 'lowest score ranked for AP', value: p.minScore, min: 0, max: 1, step: 0.01 },
    { key: 'nmsIou', label: 'NMS IoU', value: p.nmsIou, min: 0, max: 1, step: 0.05 },
    {
      key: 'maxDetections',
      label: 'most boxes a picture',
      value: p.maxDetections,
      min: 1,
      max: 10000,
      step: 1,
      integer: true,
    },
  ];
  if (h.head.kind === 'db-text') {
    fields.push(
      { key: 'binaryThreshold', label: 'map binarised at', value: h.head.binaryThreshold, min: 0, max: 1, step: 0.05 },
      { key: 'unclipRatio', label: 'unclip ratio', value: h.head.unclipRatio, min: 0, max: 10, step: 0.1 },
      {
        key: 'minSize',
        label: 'smallest box side (px)',
        value: h.head.minSize,
        min: 0,
        max: 1000,
        step: 1,
        integer: true,
      },
    );
  }
  return fields;
}

/** `h` with one field set; a value outside the field's range (or not a number) is refused by name. */
export function withHeadField(h: TaskHead, key: HeadFieldKey, value: number): HeadChoiceResult {
  const field = headFields(h).find((f) => f.key === key);
  if (!field) return { head: null, reason: `this head has no "${key}"` };
  if (
    !Number.isFinite(value) ||
    value < field.min ||
    value > field.max ||
    (field.integer && !Number.isInteger(value))
  ) {
    return {
      head: null,
      reason: `${field.label}: give ${field.integer ? 'a whole number' : 'a number'} from ${field.min} to ${field.max}`,
    };
  }
  if (h.task === 'segment') return { head: { ...h, maskThreshold: value } };
  if (h.task !== 'detect') return { head: h };
  if (key === 'binaryThreshold' || key === 'unclipRatio' || key === 'minSize')
    return h.head.kind === 'db-text' ? { head: { ...h, head: { ...h.head, [key]: value } } } : { head: h };
  return { head: { ...h, params: { ...h.params, [key]: value } } };
}
