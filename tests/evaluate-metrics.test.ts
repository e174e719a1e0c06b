/**
 * The evaluation's output metrics on real models, checked against computations written out here
 * from Quark's definitions (deliberately not importing src/core/metrics): every fixture model,
 * float against its quantization, both run by onnxruntime-node on two photos.
 */
import { describe, expect, it } from 'vitest';
import { encode } from '../src/core/onnx/index.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { compareModels } from '../src/core/evaluate/compareModels.ts';
import { createSession, nodeRuntime, type Feeds } from '../src/cli/runtime/ortNode.ts';
import { imageFeeds } from '../src/cli/images/imageFeed.ts';
import { FIXTURE_PREPROCESS, fixtureRanges } from './helpers/calibration.ts';
import { COCO_EVAL } from './helpers/evaluation.ts';

// ---- independent computations (Quark's evaluate.py definitions, written plainly) ----------------

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0,
    aa = 0,
    bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  // Quark's 0 / 0 where a side is all zeros is read as the product defines it: two all-zero outputs are identical
  // (1), an all-zero one against a non-zero one keeps nothing (0). (YuNet has an output that is zero on these photos.)
  if (aa === 0 || bb === 0) return aa === bb ? 1 : 0;
  return dot / (Math.sqrt(aa) * Math.sqrt(bb));
}

function l2(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] - b[i]) ** 2;
  return Math.sqrt(s);
}

/** The mean squared error and the float output's peak. */
function mseAndPeak(a: Float32Array, b: Float32Array): { mse: number; peak: number } {
  let s = 0;
  let peak = -Infinity;
  for (let i = 0; i < a.length; i++) {
    s += (a[i] - b[i]) ** 2;
    if (a[i] > peak) peak = a[i];
  }
  return { mse: s / a.length, peak };
}

/** 20·log10(peak) − 10·log10(mse), with Quark's 1e-10 guards. */
function psnrOf({ mse, peak }: { mse: number; peak: number }): number {
  return 20 * Math.log10(peak <= 0 ? 1e-10 : peak) - 10 * Math.log10(mse === 0 ? 1e-10 : mse);
}

/** Quark's SSIM on each H×W plane of an N×C×H×W tensor: direct 11×11 Gaussian (σ 1.5), reflect-101 borders, raw moments. */
function ssimNchw(a: Float32Array, b: Float32Array, dims: readonly number[]): number {
  const [n, c, h, w] = dims;
  const g = Array.from({ length: 11 }, (_, i) => Math.exp(-((i - 5) ** 2) / (2 * 1.5 * 1.5)));
  const gs = g.reduce((x, y) => x + y, 0);
  const k = g.map((v) => v / gs);
  const fold = (p: number, len: number) => {
    while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
    return p;
  };
  const C1 = (0.01 * 255) ** 2;
  const C2 = (0.03 * 255) ** 2;
  let total = 0;
  for (let plane = 0; plane < n * c; plane++) {
    const off = plane * h * w;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let mx = 0,
          my = 0,
          sxx = 0,
          syy = 0,
          sxy = 0;
        for (let dy = -5; dy <= 5; dy++) {
          const row = off + fold(y + dy, h) * w;
          for (let dx = -5; dx <= 5; dx++) {
            const wt = k[dy + 5] * k[dx + 5];
            const p = a[row + fold(x + dx, w)];
            const q = b[row + fold(x + dx, w)];
            mx += wt * p;
            my += wt * q;
            sxx += wt * p * p;
            syy += wt * q * q;
            sxy += wt * p * q;
          }
        }
        total += ((2 * mx * my + C1) * (2 * sxy + C2)) / ((mx * mx + my * my + C1) * (sxx + syy + C2) + 1e-10);
      }
    }
  }
  return total / a.length;
}

/** 1 when the quantized output's top-k classes contain the float output's top class. */
function topK(a: Float32Array, b: Float32Array, k: number): number {
  let best = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[best]) best = i;
  let above = 0;
  for (let i = 0; i < b.length; i++) if (b[i] > b[best] || (b[i] === b[best] && i < best)) above++;
  return above < k ? 1 : 0;
}

const close = (actual: number, expected: number) => {
  if (Number.isNaN(expected)) return expect(actual).toBeNaN();
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-6 * Math.max(Math.abs(expected), 1e-12));
};

// ---- the models -----------------------------------------------------------------------------------

const MODELS = [
  'mnist.onnx',
  'super-resolution-10.onnx',
  'ultraface-rfb-320.onnx',
  'yolox-nano.onnx',
  'yunet-n-dynamic.onnx',
];
const config = getPreset('A8W8');

describe('output metrics of float vs quantized fixture models equal independent computations', () => {
  it.each(MODELS)('%s', async (name) => {
    const { model, ranges } = await fixtureRanges(name, config);
    const quantized = quantizeModel(model, ranges, config, 'A8W8').model;
    const feeds = imageFeeds(model, { files: COCO_EVAL.slice(0, 2) }, FIXTURE_PREPROCESS[name]).feeds;
    const comparison = await compareModels(model, quantized, nodeRuntime(feeds));

    // Both models run again, here, with their own sessions; metrics recomputed sample by sample.
    const floatSession = await createSession(encode(model));
    const quantSession = await createSession(encode(quantized));
    const expected = new Map<string, Record<string, number[]>>();
    const psnrParts = new Map<string, { mse: number; peak: number }[]>();
    for (const f of feeds as Feeds[]) {
      const a = await floatSession.run(f);
      const b = await quantSession.run(f);
      for (const out of Object.keys(a)) {
        const x = a[out].data as Float32Array;
        const y = b[out].data as Float32Array;
        const dims = a[out].dims;
        const m = expected.get(out) ?? { cosine: [], l2: [], psnr: [], ssim: [], top1: [], top5: [] };
        m.cosine.push(cosine(x, y));
        m.l2.push(l2(x, y));
        const parts = mseAndPeak(x, y);
        m.psnr.push(psnrOf(parts));
        psnrParts.set(out, [...(psnrParts.get(out) ?? []), parts]);
        if (dims.length === 4 && dims[2] >= 11 && dims[3] >= 11) m.ssim.push(ssimNchw(x, y, dims));
        if (dims.length === 2 && dims[1] >= 2) {
          m.top1.push(topK(x, y, 1));
          if (dims[1] > 5) m.top5.push(topK(x, y, 5));
        }
        expected.set(out, m);
      }
    }
    await floatSession.release();
    await quantSession.release();

    expect(comparison.outputs.map((o) => o.output)).toEqual([...expected.keys()]);
    for (const summary of comparison.outputs) {
      const want = expected.get(summary.output)!;
      for (const [metric, values] of Object.entries(want)) {
        const stat = summary.metrics[metric as keyof typeof summary.metrics];
        if (values.length === 0) {
          expect(stat, `${summary.output} ${metric}`).toBeUndefined();
          continue;
        }
        const hasNaN = values.some(Number.isNaN);
        // PSNR's mean is the set's: the samples' mean MSE against their largest peak, not decibels averaged.
        const parts = psnrParts.get(summary.output)!;
        const setPsnr = psnrOf({
          mse: parts.reduce((s, p) => s + p.mse, 0) / parts.length,
          peak: Math.max(...parts.map((p) => p.peak)),
        });
        close(
          stat!.mean,
          hasNaN ? NaN : metric === 'psnr' ? setPsnr : values.reduce((s, v) => s + v, 0) / values.length,
        );
        close(stat!.min, hasNaN ? NaN : Math.min(...values));
        close(stat!.max, hasNaN ? NaN : Math.max(...values));
      }
    }
    // Which metrics each model gets: SSIM only for the image output, agreement only for the classifier.
    const metrics = new Set(comparison.outputs.flatMap((o) => Object.keys(o.metrics)));
    expect(metrics.has('ssim')).toBe(name === 'super-resolution-10.onnx');
    expect(metrics.has('top1')).toBe(name === 'mnist.onnx');
  });
});
