/**
 * What a model's outputs mean for its task, as data: the head kinds the studio decodes and the
 * parameters each decoder takes (thresholds, NMS), all visible and editable. Recognition
 * (recognizeHead.ts) suggests one; the user may choose another; decodeHead.ts applies it.
 */

export type TaskKind = 'detect' | 'classify' | 'segment' | 'text';
export const TASK_KINDS: readonly TaskKind[] = ['detect', 'classify', 'segment', 'text'];

/** Thresholds every box decoder shares. */
export interface DetectionParams {
  /** A box counts as found at or above this score (the float model's references, found/lost/moved, pictures). */
  scoreThreshold: number;
  /** Boxes down to this score are kept and ranked for AP (COCO evaluates low-score detections too). */
  minScore: number;
  /** Greedy per-class NMS: a box overlapping a kept box of its class by more than this IoU is dropped. */
  nmsIou: number;
  /** At most this many boxes per image (COCO's maxDets). */
  maxDetections: number;
}

export type DetectionHead =
  /** YOLOX: [1, cells, 5 + classes] over stride 8/16/32 cells; raw: xy offsets and log wh still to decode with the grid. */
  | { kind: 'yolox'; output: string; raw: boolean; strides: number[] }
  /** YOLOv5: [1, 3 × cells, 5 + classes], boxes decoded in pixels (cx, cy, w, h), objectness × class score. */
  | { kind: 'yolov5'; output: string }
  /** YOLOv8 and later: [1, 4 + classes, cells], boxes decoded in pixels, class scores without objectness. */
  | { kind: 'yolov8'; output: string }
  /**
   * SSD-style scores [1, priors, classes] (class 0 the background) and boxes [1, priors, 4]: corners 0–1
   * ('corners'), or raw regressions against UltraFace's priors ('ultraface-priors').
   */
  | { kind: 'ssd'; scores: string; boxes: string; encoding: 'corners' | 'ultraface-priors' }
  /** YuNet: cls_, obj_, bbox_ per stride 8/16/32 (keypoints not scored). */
  | { kind: 'yunet'; strides: number[] }
  /** DB text detector (PaddleOCR): a probability map [1, 1, H, W]; boxes from its connected regions. */
  | { kind: 'db-text'; output: string; binaryThreshold: number; unclipRatio: number; minSize: number };

export type TaskHead =
  | { task: 'detect'; head: DetectionHead; params: DetectionParams; classNames: string[] | null }
  /** Class scores on the last axis (logits or probabilities: ranking ignores softmax). */
  | { task: 'classify'; output: string; classNames: string[] | null }
  /**
   * Per-pixel classes [1, C, H, W] (argmax over C, C ≥ 2), or a one-channel mask [1, 1, H, W] cut at `maskThreshold`.
   */
  | { task: 'segment'; output: string; maskThreshold: number; classNames: string[] | null }
  /**
   * CTC text [1, steps, classes], blank class 0 (core/metrics/sequence.ts); `dictionary` (class id → character,
   * textLabels.ts) turns the decoding into text, needed to judge it against text labels.
   */
  | { task: 'text'; output: string; dictionary?: readonly string[] | null };

export const DEFAULT_DETECTION_PARAMS: Readonly<DetectionParams> = Object.freeze({
  scoreThreshold: 0.3,
  minScore: 0.01,
  nmsIou: 0.45,
  maxDetections: 100,
});

/** A head in words, for the CLI and the report: "YOLOX grid on "output" (raw), score ≥ 0.3, NMS IoU 0.45". */
export function describeHead(h: TaskHead): string {
  if (h.task === 'classify') return `class scores on "${h.output}"`;
  if (h.task === 'segment')
    return `per-pixel classes on "${h.output}" (the strongest class of each pixel; a one-channel mask is cut at ${h.maskThreshold})`;
  if (h.task === 'text') return `CTC text on "${h.output}" (greedy, blank 0)`;
  const d = h.head;
  const p = h.params;
  const what =
    d.kind === 'yolox'
      ? `YOLOX grid on "${d.output}" (${d.raw ? 'raw: decoded with the stride 8/16/32 grid' : 'decoded in the graph'})`
      : d.kind === 'yolov5'
        ? `YOLOv5 rows on "${d.output}"`
        : d.kind === 'yolov8'
          ? `YOLOv8 columns on "${d.output}"`
          : d.kind === 'ssd'
            ? `scores "${d.scores}" + boxes "${d.boxes}" (${d.encoding === 'corners' ? 'corners 0–1' : "raw, with UltraFace's priors"})`
            : d.kind === 'yunet'
              ? 'YuNet cls/obj/bbox per stride'
              : `DB probability map "${d.output}" (binarised at ${d.binaryThreshold}, unclip ${d.unclipRatio}, min side ${d.minSize})`;
  return `${what}; score ≥ ${p.scoreThreshold} counts as found, ≥ ${p.minScore} ranked for AP; NMS IoU ${p.nmsIou}; at most ${p.maxDetections} a picture`;
}
