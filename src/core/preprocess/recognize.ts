/**
 * Recognises which preprocessing a model was trained with, from what the file itself says: the
 * names, shapes and number of its inputs and outputs, its metadata (Ultralytics writes `imgsz` and
 * `names`; some exporters write `mean`, `std`, a channel order or a value range), the graph name and
 * the producer. PaddleOCR's detector, recognizer and direction classifier, YOLOX and Ultralytics
 * YOLO, UltraFace and YuNet face detectors, ImageNet classifiers (torchvision, timm), super-resolution models
 * and salient-object / background-removal models (ISNet, U²-Net, MODNet, RMBG) are told apart; anything else gets
 * the plain 'unit' preset, marked low. Inputs that are not images (audio samples, spectrogram frames, token ids,
 * sequences of feature vectors, recurrent states) are said to be so (`notImage`), with the facts: photos cannot
 * feed them, tensors must.
 *
 * The answer is a guess with its evidence, never a decision: the page shows it as a suggestion the
 * user accepts or changes, and `qstudio --preprocess auto` prints it. It reads facts only (no
 * weights, no runtime) and returns a full spec, its symbolic dimensions filled (defaultDims.ts).
 */
import type { TensorSummary } from '../onnx/modelSummary.ts';
import { defaultImageDims, type DimsSource, type ImageSize } from './defaultDims.ts';
import { getPreprocessPreset, type PresetName } from './presets.ts';
import type { ChannelOrder, PreprocessSpec, TensorLayout } from './spec.ts';

/** What recognition reads: a ModelSummary has all of it. */
export interface ModelFacts {
  fileName?: string;
  producer?: string;
  graphName?: string;
  metadata?: Readonly<Record<string, string>>;
  inputs: readonly TensorSummary[];
  outputs: readonly TensorSummary[];
}

export type ModelFamilyId =
  | 'paddleocr-det'
  | 'paddleocr-rec'
  | 'paddleocr-cls'
  | 'yolox'
  | 'ultralytics'
  | 'ultraface'
  | 'yunet'
  | 'imagenet-classifier'
  | 'super-resolution'
  | 'digit-classifier'
  | 'salient-object';

export interface ModelFamily {
  /** How the page and the CLI name it. */
  label: string;
  preset: PresetName;
  /** The input size its reference code uses, for symbolic height and width; null: take it from the images. */
  size: ImageSize | null;
}

export const MODEL_FAMILIES: Readonly<Record<ModelFamilyId, ModelFamily>> = {
  // PaddleOCR det resizes to multiples of 32 (limit side 960); 640 × 640 is a common fixed export size.
  'paddleocr-det': { label: 'PaddleOCR text detector', preset: 'paddleocr-det', size: { height: 640, width: 640 } },
  'paddleocr-rec': { label: 'PaddleOCR text recognizer', preset: 'paddleocr-rec', size: { height: 48, width: 320 } },
  'paddleocr-cls': {
    label: 'PaddleOCR text direction classifier',
    preset: 'paddleocr-rec',
    size: { height: 48, width: 192 },
  },
  yolox: { label: 'YOLOX detector', preset: 'yolo', size: { height: 640, width: 640 } },
  ultralytics: { label: 'Ultralytics YOLO', preset: 'ultralytics', size: { height: 640, width: 640 } },
  ultraface: { label: 'UltraFace face detector', preset: 'ultraface', size: { height: 240, width: 320 } },
  yunet: { label: 'YuNet face detector', preset: 'bgr-255', size: null },
  'imagenet-classifier': {
    label: 'ImageNet classifier (torchvision, timm)',
    preset: 'imagenet',
    size: { height: 224, width: 224 },
  },
  'super-resolution': { label: 'super-resolution model (Y channel)', preset: 'y-channel', size: null },
  'digit-classifier': {
    label: 'one-channel digit classifier (MNIST-style)',
    preset: 'unit',
    size: { height: 28, width: 28 },
  },
  // imgly's ISNet (@imgly/background-removal): RGB, (x − 128) / 256 at 1024 × 1024; U²-Net, MODNet and RMBG variants
  // set their own values (salientObject below).
  'salient-object': {
    label: 'salient-object / background-removal model',
    preset: 'unit',
    size: { height: 1024, width: 1024 },
  },
};

export type GuessConfidence = 'high' | 'medium' | 'low';

export interface PreprocessGuess {
  /** The family recognised, or null (nothing matched, or only metadata values were found). */
  family: ModelFamilyId | null;
  /** "PaddleOCR text detector", or what the guess rests on when no family matched. */
  label: string;
  /** The preset the spec starts from (metadata values may change some of its fields). */
  preset: PresetName;
  /** The full spec: the preset, metadata values over it, the layout and the symbolic dimensions filled. */
  spec: PreprocessSpec;
  /** Why, one short phrase a fact ("output "sigmoid_0.tmp_0" is a one-channel map [?, 1, ?, ?]"). */
  evidence: string[];
  confidence: GuessConfidence;
  /** Where the symbolic height and width came from ('none' when the input has none open). */
  dimsSource: DimsSource;
  /** Set when the model's inputs are not images (audio, features, tokens, states): what they look like, and why. */
  notImage: { input: string; kind: string; evidence: string } | null;
}

/** What a rule found: a family and the facts it rests on. */
interface Match {
  family: ModelFamilyId;
  evidence: string[];
  confidence: GuessConfidence;
  /** A size the model itself states (Ultralytics' `imgsz`). */
  size?: ImageSize;
  /** Fields the family's reference code sets differently for this variant. */
  spec?: Partial<PreprocessSpec>;
}

type Dim = number | string;
const shapeText = (shape: readonly Dim[] | null) =>
  shape ? `[${shape.map((d) => (typeof d === 'number' ? d : '?')).join(', ')}]` : '[?]';
const quote = (s: string) => `"${s}"`;

/** The image input: the one input of rank 3 or 4 (or the first, when several are). */
function imageInput(facts: ModelFacts): TensorSummary | null {
  return facts.inputs.find((i) => i.shape && (i.shape.length === 4 || i.shape.length === 3)) ?? null;
}

/** NCHW unless the channel count sits last (1 or 3 there and not first). */
function layoutOf(shape: readonly Dim[]): TensorLayout {
  const c = shape[shape.length - 3];
  const last = shape[shape.length - 1];
  return (last === 1 || last === 3) && c !== 1 && c !== 3 ? 'NHWC' : 'NCHW';
}

interface Geometry {
  layout: TensorLayout;
  channels: Dim;
  height: Dim;
  width: Dim;
}

function geometry(shape: readonly Dim[]): Geometry {
  const layout = layoutOf(shape);
  const n = shape.length;
  return layout === 'NCHW'
    ? { layout, channels: shape[n - 3], height: shape[n - 2], width: shape[n - 1] }
    : { layout, channels: shape[n - 1], height: shape[n - 3], width: shape[n - 2] };
}

function paddle(facts: ModelFacts, input: TensorSummary, g: Geometry): Match | null {
  const hints: string[] = [];
  if (/paddle/i.test(facts.graphName ?? '')) hints.push(`the graph is named ${quote(facts.graphName!)}`);
  if (/paddle/i.test(facts.producer ?? '')) hints.push(`produced by ${quote(facts.producer!)}`);
  const dims = [...facts.inputs, ...facts.outputs].flatMap((t) => t.shape ?? []);
  if (dims.some((d) => typeof d === 'string' && d.startsWith('p2o.')))
    hints.push('dimensions named by paddle2onnx (p2o.…)');
  const paddleNamed = facts.outputs.filter((o) => /\.tmp_\d+$/.test(o.name));
  if (paddleNamed.length > 0) hints.push(`output ${quote(paddleNamed[0].name)} is named as Paddle names tensors`);
  const byName = /pp-?ocr|paddleocr/i.test(facts.fileName ?? '');
  if (byName) hints.push(`the file name ${quote(facts.fileName!)}`);
  if (hints.length === 0 || g.channels !== 3) return null;
  const confidence: GuessConfidence = hints.length >= 2 ? 'high' : 'medium';
  const out = facts.outputs[0]?.shape ?? null;
  if (facts.outputs.length === 1 && out?.length === 4 && out[1] === 1) {
    return {
      family: 'paddleocr-det',
      confidence,
      evidence: [...hints, `output ${quote(facts.outputs[0].name)} is a one-channel map ${shapeText(out)}`],
    };
  }
  if (facts.outputs.length === 1 && out?.length === 3 && (g.height === 48 || g.height === 32)) {
    return {
      family: 'paddleocr-rec',
      confidence,
      evidence: [
        ...hints,
        `input ${quote(input.name)} is a text line ${g.height} pixels high`,
        `output ${shapeText(out)} holds one character distribution per column`,
      ],
    };
  }
  if (facts.outputs.length === 1 && out?.length === 2 && out[1] === 2) {
    return {
      family: 'paddleocr-cls',
      confidence,
      evidence: [...hints, `output ${shapeText(out)} scores two orientations (0° and 180°)`],
    };
  }
  return null;
}

/** `"[640, 640]"`, `"640"`, `"(480, 640)"` → a size. */
function parseSize(text: string | undefined): ImageSize | undefined {
  const n = (text ?? '').match(/\d+/g)?.map(Number) ?? [];
  if (n.length === 1 && n[0] > 0) return { height: n[0], width: n[0] };
  if (n.length === 2 && n[0] > 0 && n[1] > 0) return { height: n[0], width: n[1] };
  return undefined;
}

function ultralyticsByMetadata(facts: ModelFacts): Match | null {
  const m = facts.metadata ?? {};
  const author = /ultralytics/i.test(m.author ?? '') || /ultralytics/i.test(m.description ?? '');
  if (!author && !(m.stride !== undefined && m.names !== undefined)) return null;
  const evidence = [
    author
      ? `metadata names Ultralytics (${quote((m.author ?? m.description)!.slice(0, 40))})`
      : 'metadata has Ultralytics\' "stride" and "names"',
  ];
  const size = parseSize(m.imgsz);
  if (size) evidence.push(`metadata "imgsz" = ${m.imgsz}`);
  // Ultralytics' classify_transforms: short side resized, center crop, x / 255, no mean/std.
  const classify = m.task === 'classify';
  if (m.task) evidence.push(`metadata "task" = ${quote(m.task)}`);
  return { family: 'ultralytics', confidence: 'high', evidence, size, spec: classify ? { resize: 'crop' } : undefined };
}

/** Anchor points of a stride-8/16/32 detection head on an H × W input. */
function headCells(h: number, w: number): number | null {
  if (h % 32 !== 0 || w % 32 !== 0) return null;
  return [8, 16, 32].reduce((sum, s) => sum + (h / s) * (w / s), 0);
}

function yoloByShape(facts: ModelFacts, input: TensorSummary, g: Geometry): Match | null {
  const name = (facts.fileName ?? '').toLowerCase();
  if (/yolox/.test(name))
    return { family: 'yolox', confidence: 'high', evidence: [`the file name ${quote(facts.fileName!)} names YOLOX`] };
  if (/yolo(v?5|v?8|v?9|v?10|11|12)|ultralytics/.test(name))
    return {
      family: 'ultralytics',
      confidence: 'medium',
      evidence: [`the file name ${quote(facts.fileName!)} names an Ultralytics YOLO`],
    };
  if (g.channels !== 3 || typeof g.height !== 'number' || typeof g.width !== 'number' || facts.outputs.length !== 1)
    return null;
  const out = facts.outputs[0].shape;
  const cells = headCells(g.height, g.width);
  if (!out || out.length !== 3 || cells === null) return null;
  const [, rows, cols] = out;
  const size = `${g.height}×${g.width}`;
  const named = input.name === 'images' ? [`input named ${quote('images')}, as YOLO exporters name it`] : [];
  if (rows === cells && typeof cols === 'number' && cols >= 5) {
    return {
      family: 'yolox',
      confidence: 'medium',
      evidence: [
        ...named,
        `output ${shapeText(out)}: one row per stride-8/16/32 cell of ${size} (${cells}), anchor-free as YOLOX`,
      ],
    };
  }
  if (rows === 3 * cells && typeof cols === 'number' && cols >= 5) {
    return {
      family: 'ultralytics',
      confidence: 'medium',
      evidence: [...named, `output ${shapeText(out)}: three anchors per stride-8/16/32 cell of ${size}, as YOLOv5`],
    };
  }
  if (cols === cells && typeof rows === 'number' && rows >= 5) {
    return {
      family: 'ultralytics',
      confidence: 'medium',
      evidence: [
        ...named,
        `output ${shapeText(out)}: one column per stride-8/16/32 cell of ${size}, as YOLOv8 and later`,
      ],
    };
  }
  return null;
}

function faces(facts: ModelFacts, g: Geometry): Match | null {
  const name = (facts.fileName ?? '').toLowerCase();
  const outNames = facts.outputs.map((o) => o.name);
  const heads = outNames.filter((n) => /^(cls|obj|bbox|kps)_(8|16|32)$/.test(n));
  if (heads.length >= 4)
    return {
      family: 'yunet',
      confidence: 'high',
      evidence: [`outputs ${heads.slice(0, 4).map(quote).join(', ')}… are YuNet's per-stride heads`],
    };
  if (/yunet|facedetectoryn/.test(name))
    return { family: 'yunet', confidence: 'medium', evidence: [`the file name ${quote(facts.fileName!)} names YuNet`] };
  const scores = facts.outputs.find((o) => o.name === 'scores' && o.shape?.[o.shape.length - 1] === 2);
  const boxes = facts.outputs.find((o) => o.name === 'boxes' && o.shape?.[o.shape.length - 1] === 4);
  const ultraSize = (g.height === 240 && g.width === 320) || (g.height === 480 && g.width === 640);
  if (scores && boxes && g.channels === 3) {
    const evidence = [
      `outputs "scores" ${shapeText(scores.shape)} and "boxes" ${shapeText(boxes.shape)}, face/background and box per prior`,
    ];
    if (ultraSize) evidence.push(`input ${g.height}×${g.width}, UltraFace's size`);
    return { family: 'ultraface', confidence: ultraSize ? 'high' : 'medium', evidence };
  }
  if (/ultraface|rfb-?320|rfb-?640|version-rfb|version-slim/.test(name))
    return {
      family: 'ultraface',
      confidence: 'medium',
      evidence: [`the file name ${quote(facts.fileName!)} names UltraFace`],
    };
  return null;
}

function oneChannel(facts: ModelFacts, g: Geometry): Match | null {
  if (g.channels !== 1) return null;
  const out = facts.outputs.length === 1 ? facts.outputs[0].shape : null;
  if (out && out.length === 4) {
    const og = geometry(out);
    if (typeof og.height === 'number' && typeof g.height === 'number' && og.height > g.height && og.channels === 1) {
      return {
        family: 'super-resolution',
        confidence: 'high',
        evidence: [
          `one-channel input ${g.height}×${g.width} and a larger one-channel output ${og.height}×${og.width}: super-resolution on the Y channel`,
        ],
      };
    }
  }
  if (/super|resolution|srcnn|espcn/.test((facts.fileName ?? '').toLowerCase())) {
    return {
      family: 'super-resolution',
      confidence: 'medium',
      evidence: [`one-channel input, and the file name ${quote(facts.fileName!)}`],
    };
  }
  if (g.height === 28 && g.width === 28 && out?.length === 2 && out[1] === 10) {
    return {
      family: 'digit-classifier',
      confidence: 'medium',
      evidence: [`one-channel 28×28 input and ten scores ${shapeText(out)}, as MNIST`],
    };
  }
  return null;
}

function imagenet(facts: ModelFacts, g: Geometry): Match | null {
  if (g.channels !== 3 || facts.outputs.length !== 1) return null;
  const out = facts.outputs[0].shape;
  if (!out) return null;
  const classes = out.length === 2 ? out[1] : out.length === 4 && out[2] === 1 && out[3] === 1 ? out[1] : null;
  if (classes !== 1000 && classes !== 1001) return null;
  const evidence = [`one output of ${classes} scores ${shapeText(out)}: ImageNet's classes`];
  if (typeof g.height === 'number') evidence.push(`input ${g.height}×${g.width}`);
  const producer = facts.producer ?? '';
  if (/pytorch/i.test(producer))
    evidence.push(`exported by ${producer} (torchvision and most timm models normalise with ImageNet's mean/std)`);
  // Keras and TF-slim classifiers (1001 classes: a background class first) scale pixels to −1…1.
  const tf = /tf2onnx|keras|tensorflow/i.test(producer);
  if (tf) evidence.push(`exported by ${producer}: TensorFlow classifiers scale pixels to −1…1`);
  return {
    family: 'imagenet-classifier',
    confidence: typeof g.height === 'number' && g.height === g.width ? 'high' : 'medium',
    evidence,
    spec: tf ? { mean: [0.5], std: [0.5] } : undefined,
  };
}

/** A list of 1 or 3 numbers in metadata text ("[0.485, 0.456, 0.406]", "127.5"). */
function numberList(text: string): number[] | null {
  const values = (text.match(/-?\d+(?:\.\d+)?(?:e-?\d+)?/gi) ?? []).map(Number);
  return (values.length === 1 || values.length === 3) && values.every(Number.isFinite) ? values : null;
}

/** Values a model's metadata states outright: mean, std, channel order, value range. They win over a family's preset. */
function metadataValues(metadata: Readonly<Record<string, string>>): {
  spec: Partial<PreprocessSpec>;
  evidence: string[];
} {
  const spec: Partial<PreprocessSpec> = {};
  const evidence: string[] = [];
  let inBytes = false;
  for (const [key, value] of Object.entries(metadata)) {
    const k = key.toLowerCase();
    if (/(^|[_.\s-])(image_?|pixel_?|norm_?)?mean(s)?$/.test(k) && numberList(value)) {
      spec.mean = numberList(value)!;
      inBytes ||= spec.mean.some((v) => Math.abs(v) > 1);
      evidence.push(`metadata ${quote(key)} = ${value.trim()}`);
    } else if (
      /(^|[_.\s-])(image_?|pixel_?|norm_?)?std(dev)?s?$/.test(k) &&
      numberList(value) &&
      !numberList(value)!.includes(0)
    ) {
      spec.std = numberList(value)!;
      inBytes ||= spec.std.some((v) => v > 1);
      evidence.push(`metadata ${quote(key)} = ${value.trim()}`);
    } else if (
      /(channel_?order|colou?r_?(format|order|space)|pixel_?format|image_?format)/.test(k) &&
      /\b(bgr|rgb)\b/i.test(value)
    ) {
      spec.channelOrder = value.match(/\b(bgr|rgb)\b/i)![1].toUpperCase() as ChannelOrder;
      evidence.push(`metadata ${quote(key)} = ${value.trim()}`);
    } else if (/(input_?range|value_?range|pixel_?range)/.test(k)) {
      const n = value.match(/-?\d+(?:\.\d+)?/g)?.map(Number) ?? [];
      if (n.length !== 2) continue;
      if (n[0] === 0 && n[1] === 255) Object.assign(spec, { scale: 1, mean: [0], std: [1] });
      else if (n[0] === 0 && n[1] === 1) Object.assign(spec, { scale: 1 / 255, mean: [0], std: [1] });
      else if (n[0] === -1 && n[1] === 1) Object.assign(spec, { scale: 1 / 255, mean: [0.5], std: [0.5] });
      else continue;
      evidence.push(`metadata ${quote(key)} = ${value.trim()}`);
    }
  }
  // Mean or std in 0–255 units apply to raw pixel values.
  if (spec.mean || spec.std) spec.scale = spec.scale ?? (inBytes ? 1 : 1 / 255);
  return { spec, evidence };
}

/**
 * Salient-object and background-removal models: a three-channel image in, one-channel maps of the same height and
 * width out (the mask and, for ISNet and U²-Net, side outputs), or a file name that names the family. The
 * normalisation is the variant's reference code's: imgly's ISNet (x − 128) / 256, U²-Net ImageNet mean and std at
 * 320, MODNet (x/255 − 0.5) / 0.5 at 512, RMBG (x/255 − 0.5) / 1 at 1024.
 */
function salientObject(facts: ModelFacts, input: TensorSummary, g: Geometry): Match | null {
  if (g.channels !== 3) return null;
  const name = (facts.fileName ?? '').toLowerCase();
  const masks = facts.outputs.filter((o) => {
    if (!o.shape || o.shape.length !== 4) return false;
    const og = geometry(o.shape);
    return og.channels === 1 && og.height === g.height && og.width === g.width;
  });
  const named = /isnet|u2net|u2netp|modnet|rmbg|briaai|background|bg[-_]?remov|matting|salient|dis[-_]/.test(name);
  const allMasks = masks.length > 0 && masks.length === facts.outputs.length;
  if (!named && !(allMasks && typeof g.height === 'number' && g.height >= 256)) return null;
  const evidence = [
    ...(named ? [`the file name ${quote(facts.fileName!)} names a background-removal / salient-object model`] : []),
    ...(masks.length
      ? [
          `output${masks.length > 1 ? 's' : ''} ${masks
            .slice(0, 3)
            .map((o) => `${quote(o.name)} ${shapeText(o.shape)}`)
            .join(
              ', ',
            )}: one-channel map${masks.length > 1 ? 's' : ''} as large as input ${quote(input.name)} ${shapeText(input.shape)}`,
        ]
      : []),
  ];
  const confidence: GuessConfidence = named && masks.length ? 'high' : 'medium';
  if (/u2net/.test(name)) {
    return {
      family: 'salient-object',
      confidence,
      evidence: [...evidence, "U²-Net: ImageNet mean and std on x/255, 320 × 320 (rembg's values)"],
      size: { height: 320, width: 320 },
      spec: { scale: 1 / 255, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225], resize: 'stretch' },
    };
  }
  if (/modnet|matting/.test(name)) {
    return {
      family: 'salient-object',
      confidence,
      evidence: [...evidence, 'MODNet: (x/255 − 0.5) / 0.5, 512 × 512'],
      size: { height: 512, width: 512 },
      spec: { scale: 1 / 255, mean: [0.5], std: [0.5], resize: 'stretch' },
    };
  }
  if (/rmbg|briaai/.test(name)) {
    return {
      family: 'salient-object',
      confidence,
      evidence: [...evidence, 'RMBG: (x/255 − 0.5) / 1, 1024 × 1024'],
      size: { height: 1024, width: 1024 },
      spec: { scale: 1 / 255, mean: [0.5], std: [1], resize: 'stretch' },
    };
  }
  return {
    family: 'salient-object',
    confidence,
    evidence: [...evidence, 'ISNet as @imgly/background-removal feeds it: RGB, (x − 128) / 256, 1024 × 1024'],
    spec: { scale: 1, mean: [128], std: [256], resize: 'stretch' },
  };
}

/** Mel bin counts audio front ends use: a one-channel grid with one side among these is spectrogram frames. */
const MEL_BINS = new Set([32, 40, 64, 80, 96, 128]);

/**
 * Why the model's inputs are not images, or null when one can be: several inputs (states, sample rates, masks
 * only tensors carry), an integer sequence (token ids), rank 1 or 2 (audio samples, feature vectors), a rank-3
 * input whose ends are no channel count (a sequence of feature vectors, [1, 16, 96] embeddings), or a one-channel
 * grid with a mel-bin side and no known image family ([?, 76, 32, 1] spectrogram frames).
 */
function nonImageInput(facts: ModelFacts, match: Match | null): PreprocessGuess['notImage'] {
  if (facts.inputs.length === 0) return null;
  const text = (i: TensorSummary) => `${quote(i.name)} ${i.elemType} ${shapeText(i.shape)}`;
  if (facts.inputs.length > 1) {
    const kind = facts.inputs.some((i) => /state|^h$|^c$|hidden|cache|past/i.test(i.name))
      ? 'a recurrent model with state inputs'
      : 'a model with several inputs';
    return {
      input: facts.inputs[0].name,
      kind,
      evidence: `${facts.inputs.length} inputs (${facts.inputs.map(text).join(', ')}): images feed one`,
    };
  }
  const input = facts.inputs[0];
  const shape = input.shape;
  if (!shape) return null;
  if (/^u?int(32|64)$/.test(input.elemType) && shape.length <= 2)
    return { input: input.name, kind: 'token ids', evidence: `input ${text(input)} is a sequence of integers` };
  if (shape.length <= 2) {
    const audio =
      /audio|wav|pcm|sample|signal|speech|^input$/i.test(input.name) ||
      shape.some((d) => typeof d === 'string' && /sample|time|len/i.test(d));
    return {
      input: input.name,
      kind: audio ? 'audio samples' : 'a vector or sequence',
      evidence: `input ${text(input)} has rank ${shape.length}: no height, width and channels`,
    };
  }
  if (shape.length === 3) {
    // An image without a batch axis is [3, H, W] or [H, W, 1 or 3]; [1, steps, features] is a batch of one sequence.
    const [a, , c] = shape;
    if (a !== 3 && c !== 1 && c !== 3)
      return {
        input: input.name,
        kind: 'a sequence of feature vectors',
        evidence: `input ${text(input)}: rank 3, neither [3, H, W] nor [H, W, 1 or 3]`,
      };
    return null;
  }
  if (match) return null;
  const g = geometry(shape);
  if (
    g.channels === 1 &&
    typeof g.height === 'number' &&
    typeof g.width === 'number' &&
    g.height !== g.width &&
    (MEL_BINS.has(g.height) || MEL_BINS.has(g.width)) &&
    Math.max(g.height, g.width) <= 512
  ) {
    const bins = MEL_BINS.has(g.width) ? g.width : g.height;
    return {
      input: input.name,
      kind: 'spectrogram frames',
      evidence: `input ${text(input)}: one channel, ${bins} a mel-bin count, ${g.height === bins ? g.width : g.height} frames, and no image family matches`,
    };
  }
  return null;
}

const RULES = [
  (f: ModelFacts, i: TensorSummary, g: Geometry) => paddle(f, i, g),
  (f: ModelFacts, i: TensorSummary, g: Geometry) => salientObject(f, i, g),
  (f: ModelFacts) => ultralyticsByMetadata(f),
  (f: ModelFacts, _i: TensorSummary, g: Geometry) => faces(f, g),
  (f: ModelFacts, i: TensorSummary, g: Geometry) => yoloByShape(f, i, g),
  (f: ModelFacts, _i: TensorSummary, g: Geometry) => oneChannel(f, g),
  (f: ModelFacts, _i: TensorSummary, g: Geometry) => imagenet(f, g),
];

/** The preprocessing a model most likely expects, with the facts it rests on. */
export function recognizePreprocess(facts: ModelFacts): PreprocessGuess {
  const input = imageInput(facts);
  const g = input?.shape ? geometry(input.shape) : null;
  let match: Match | null = null;
  if (input && g && facts.inputs.length === 1) for (const rule of RULES) if ((match = rule(facts, input, g))) break;
  const notImage = nonImageInput(facts, match);

  const fromMetadata = metadataValues(facts.metadata ?? {});
  const family = match ? MODEL_FAMILIES[match.family] : null;
  const preset: PresetName = family?.preset ?? 'unit';
  const spec: PreprocessSpec = { ...getPreprocessPreset(preset), ...match?.spec, ...fromMetadata.spec };
  if (g) spec.layout = g.layout;
  // A model that takes bytes (TensorFlow exports often do) gets them as they are: the normalisation is inside it.
  const bytes = input?.elemType === 'uint8';
  if (bytes) Object.assign(spec, { elementType: 'uint8', scale: 1, mean: [0], std: [1] });
  const size = match?.size ?? family?.size ?? null;
  // Image sizes only for an image: a state [2, batch, 128] read as channels, height and width would give every input
  // sharing 'batch' 640 rows, and the tensors the user brings would be refused for not having them.
  const { dims, source } =
    input?.shape && !notImage
      ? defaultImageDims(input.shape, spec.layout, { familySize: size })
      : { dims: {}, source: 'none' as const };
  spec.dims = dims;

  const evidence = [...(match?.evidence ?? []), ...fromMetadata.evidence];
  if (g?.layout === 'NHWC') evidence.push(`input ${shapeText(input!.shape)} has its channels last (NHWC)`);
  if (bytes) evidence.push(`input ${quote(input!.name)} takes uint8: raw bytes 0–255, no scaling`);
  let label = family?.label ?? (fromMetadata.evidence.length > 0 ? "the model's metadata" : 'no known family');
  let confidence: GuessConfidence = match?.confidence ?? (fromMetadata.evidence.length > 0 ? 'medium' : 'low');
  if (notImage) {
    label = `not an image input (${notImage.kind}): give tensors`;
    confidence = 'high';
    evidence.unshift(notImage.evidence);
  } else if (!input || !g) {
    label = 'no image input';
    confidence = 'low';
    evidence.push(input ? `input ${quote(input.name)} has no known shape` : 'no input of rank 3 or 4');
  } else if (!match && fromMetadata.evidence.length === 0) {
    evidence.push(`nothing in the file names a family: RGB${bytes ? '' : ' scaled to 0–1'} is only a starting point`);
  }
  return { family: match?.family ?? null, label, preset, spec, evidence, confidence, dimsSource: source, notImage };
}

/** One line for the CLI: "PaddleOCR text detector (high): paddleocr-det, BGR, ... — because ...". */
export function describeGuess(guess: PreprocessGuess): string {
  const s = guess.spec;
  const dims = Object.entries(s.dims)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const values = `${s.elementType === 'uint8' ? 'uint8, ' : ''}${s.channelOrder}, scale ${s.scale === 1 / 255 ? '1/255' : s.scale}, mean [${s.mean.join(', ')}], std [${s.std.join(', ')}], ${s.resize}${s.resize === 'letterbox' ? ` ${s.letterboxAlign} pad ${s.padValue}` : ''}, ${s.layout}`;
  return `${guess.label} (${guess.confidence} confidence): preset ${guess.preset} — ${values}${dims ? `; dims ${dims}${guess.dimsSource === 'family' ? " (the family's usual size)" : ''}` : ''}\n  because ${guess.evidence.join('; ')}`;
}
