/**
 * Boxes from SSD-style heads: per prior a score per class (class 0 the background, as UltraFace and
 * SSD emit them) and a box, either corners already in 0–1 of the input ('corners', UltraFace's export
 * with post-processing) or raw regressions against UltraFace's priors ('ultraface-priors': strides
 * 8/16/32/64, min boxes 10–256, centres spread over each feature map's ceil(size / stride) cells, centre variance 0.1, size variance 0.2, as its reference code builds
 * them). Every (prior, class) at or above minScore is a candidate, then per-class NMS. Pixels of the input.
 */
import type { Box } from './boxes.ts';
import type { DetectionParams } from './heads.ts';
import { nonMaxSuppression } from './nms.ts';
import { TaskHeadError } from './errors.ts';
import { outputOf, type InputSize, type RunOutputs } from './outputs.ts';

const MIN_BOXES = [
  [10, 16, 24],
  [32, 48],
  [64, 96],
  [128, 192, 256],
];
const STRIDES = [8, 16, 32, 64];

/** UltraFace's priors for an input size: [cx, cy, w, h] in 0–1, clipped. */
export function ultrafacePriors(input: InputSize): Float64Array {
  const priors: number[] = [];
  STRIDES.forEach((s, k) => {
    const fw = Math.ceil(input.width / s);
    const fh = Math.ceil(input.height / s);
    for (let j = 0; j < fh; j++) {
      for (let i = 0; i < fw; i++) {
        // Centres over the feature map's own cell count (ceil), as the exported model's priors are.
        const cx = (i + 0.5) / fw;
        const cy = (j + 0.5) / fh;
        for (const m of MIN_BOXES[k]) priors.push(cx, cy, m / input.width, m / input.height);
      }
    }
  });
  return Float64Array.from(priors, (v) => Math.min(1, Math.max(0, v)));
}

export function decodeSsd(
  outputs: RunOutputs,
  scoresName: string,
  boxesName: string,
  encoding: 'corners' | 'ultraface-priors',
  input: InputSize,
  p: DetectionParams,
): Box[] {
  const scores = outputOf(
    outputs,
    scoresName,
    '[1, priors, classes ≥ 2]',
    (d) => d.length === 3 && d[0] === 1 && d[2] >= 2,
  );
  const boxes = outputOf(outputs, boxesName, '[1, priors, 4]', (d) => d.length === 3 && d[0] === 1 && d[2] === 4);
  const n = scores.dims[1];
  const classes = scores.dims[2];
  if (boxes.dims[1] !== n)
    throw new TaskHeadError(
      `"${scoresName}" has ${n} priors and "${boxesName}" ${boxes.dims[1]}: not one scores/boxes pair`,
    );
  const priors = encoding === 'ultraface-priors' ? ultrafacePriors(input) : null;
  if (priors && priors.length / 4 !== n)
    throw new TaskHeadError(
      `"${boxesName}" has ${n} priors; UltraFace's priors for ${input.width}×${input.height} number ${priors.length / 4}`,
    );
  const b = boxes.data;
  const s = scores.data;
  const out: Box[] = [];
  for (let i = 0; i < n; i++) {
    for (let c = 1; c < classes; c++) {
      const score = s[i * classes + c];
      if (!(score >= p.minScore)) continue;
      let x1: number, y1: number, x2: number, y2: number;
      if (priors) {
        const [pcx, pcy, pw, ph] = priors.subarray(i * 4, i * 4 + 4);
        const cx = b[i * 4] * 0.1 * pw + pcx;
        const cy = b[i * 4 + 1] * 0.1 * ph + pcy;
        const w = Math.exp(b[i * 4 + 2] * 0.2) * pw;
        const h = Math.exp(b[i * 4 + 3] * 0.2) * ph;
        [x1, y1, x2, y2] = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2];
      } else [x1, y1, x2, y2] = [b[i * 4], b[i * 4 + 1], b[i * 4 + 2], b[i * 4 + 3]];
      out.push({
        x1: x1 * input.width,
        y1: y1 * input.height,
        x2: x2 * input.width,
        y2: y2 * input.height,
        score,
        label: c - 1,
      });
    }
  }
  return nonMaxSuppression(out, p.nmsIou, p.maxDetections);
}
