/**
 * A task evaluation as the report and the page carry it: the figures, and for the worst images (worst
 * agreement first) what each model predicted, ready to draw side by side over the photo — boxes in the
 * photo's pixels with their class names, the top classes, segmentation maps as overlay pictures, CTC
 * decodings. Plain data (JSON-safe but for NaN, which report/json.ts writes as text); the photo itself
 * is the caller's (a data URL it read from the file, or an object URL in the page).
 */
import type { BoxChanges } from './boxChanges.ts';
import { className } from './classNames.ts';
import type { Box } from './boxes.ts';
import type { Prediction } from './decodeHead.ts';
import type { TaskKind } from './heads.ts';
import type { ImageLabel } from './labels.ts';
import { maskDataUrl } from './maskImage.ts';
import type { ImageResult, LabelFigure, TaskEvaluation, TaskFigures } from './taskEvaluation.ts';

/** A box as drawn on a picture: a decoder's box with its class name. */
export interface PictureBox extends Box {
  readonly name: string;
}

/** What one model (or the labels) says about one image. */
export interface PictureContent {
  readonly boxes?: readonly PictureBox[];
  readonly top?: readonly { readonly label: number; readonly name: string; readonly score: number }[];
  /** Segmentation: the map as an overlay picture and where it lies over the photo (photo pixels). */
  readonly mask?: {
    readonly image: string;
    readonly x: number;
    readonly y: number;
    readonly width: number;
    readonly height: number;
  };
  /** Text: the CTC decoding as class ids (a dictionary turns them into characters). */
  readonly text?: readonly number[];
  /** Text: the characters read (through the head's dictionary), or the label's expected text. */
  readonly read?: string;
}

export interface TaskPicture {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly agreement: number;
  /** The photo as a data URL, when the caller gave it. */
  readonly image: string | null;
  readonly float: PictureContent;
  readonly quantized: PictureContent;
  readonly labels: PictureContent | null;
}

export interface ReportTask {
  readonly task: TaskKind;
  readonly head: string;
  readonly images: number;
  /** Boxes count as found from this score (detection). */
  readonly scoreThreshold: number | null;
  readonly agreement: TaskFigures;
  readonly changes: BoxChanges | null;
  readonly labels: {
    readonly float: TaskFigures;
    readonly quantized: TaskFigures;
    readonly figures: readonly LabelFigure[];
  } | null;
  /** Per image name, its agreement (all images, worst first). */
  readonly perImage: readonly { readonly name: string; readonly agreement: number }[];
  readonly pictures: readonly TaskPicture[];
}

function content(
  p: Prediction,
  r: ImageResult,
  names: readonly string[] | null,
  threshold: number,
  dictionary?: readonly string[] | null,
): PictureContent {
  if (p.task === 'detect')
    return {
      boxes: p.boxes.filter((b) => b.score >= threshold).map((b) => ({ ...b, name: className(names, b.label) })),
    };
  if (p.task === 'classify')
    return { top: p.top.map((label) => ({ label, name: className(names, label), score: p.scores[label] })) };
  if (p.task === 'segment') {
    const g = r.geometry;
    const sx = g.sourceWidth / g.scaledWidth;
    const sy = g.sourceHeight / g.scaledHeight;
    return {
      mask: {
        image: maskDataUrl(p.classes, p.width, p.height),
        x: -g.offsetX * sx,
        y: -g.offsetY * sy,
        width: g.width * sx,
        height: g.height * sy,
      },
    };
  }
  return { text: p.labels, ...(dictionary ? { read: readable(p.labels, dictionary) } : {}) };
}

/** Ids as text, or null-safe: an id outside the dictionary shows as '�' in a picture (the figures refuse it by name). */
function readable(ids: readonly number[], dictionary: readonly string[]): string {
  return ids.map((id) => (id > 0 && id < dictionary.length ? dictionary[id] : '\uFFFD')).join('');
}

function labelContent(l: ImageLabel | undefined, names: readonly string[] | null): PictureContent | null {
  if (!l) return null;
  if (l.kind === 'boxes') return { boxes: l.boxes.map((b) => ({ ...b, name: className(names, b.label) })) };
  if (l.kind === 'class') return { top: [{ label: l.label, name: className(names, l.label), score: 1 }] };
  if (l.kind === 'text') return { read: l.text };
  return { mask: { image: maskDataUrl(l.data, l.width, l.height), x: 0, y: 0, width: l.width, height: l.height } };
}

/**
 * The report's form of an evaluation; `pictures` of the `count` worst images, each photo from `image(name)`
 * (null draws the predictions on a blank ground).
 */
export function taskReport(
  t: TaskEvaluation,
  image: (name: string) => string | null = () => null,
  count = 8,
): ReportTask {
  const names = t.head.task === 'text' ? null : t.head.classNames;
  const dictionary = t.head.task === 'text' ? t.head.dictionary : null;
  const threshold = t.head.task === 'detect' ? t.head.params.scoreThreshold : 0;
  return {
    task: t.task,
    head: t.headText,
    images: t.images,
    scoreThreshold: t.head.task === 'detect' ? threshold : null,
    agreement: t.agreement,
    changes: t.changes ?? null,
    labels: t.labels,
    perImage: t.perImage.map((r) => ({ name: r.name, agreement: r.agreement })),
    pictures: t.perImage.slice(0, count).map((r) => ({
      name: r.name,
      width: r.width,
      height: r.height,
      agreement: r.agreement,
      image: image(r.name),
      float: content(r.float, r, names, threshold, dictionary),
      quantized: content(r.quant, r, names, threshold, dictionary),
      labels: labelContent(r.label, names),
    })),
  };
}
