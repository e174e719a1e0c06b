/**
 * Layer-wise comparison on YOLOX-nano quantized with XINT8, nothing excluded: where the error is.
 *
 * The reference docs expect YOLO's worst layers at the output tail, which concatenates box offsets
 * (about −2…3.5) with 0–1 scores into one tensor. Measured here (calibrated on the four fixture
 * photos, judged on two held-out COCO photos; the same holds on COCO 17–24 calibrated on 1–16): the
 * lowest SQNRs are inside the backbone and neck (1×1 convolutions and their SiLU products around
 * −5 dB, cosine 0.2–0.4), while the tail's tensors sit a few dB higher (about 4 dB): the tail passes
 * the error on rather than adding it. The score branches do lose a lot at their Sigmoids (the
 * scores round to few levels), which shows as jumps, but in the joined output the box values
 * dominate the energy. The SQNRs of two tensors are recomputed here by hand to check the pairing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGraphIndex, decode, encode, type GraphProto, type ModelProto } from '../src/core/onnx/index.ts';
import type { QuantizeReport } from '../src/core/quantize/quantizeReport.ts';
import type { LayerwiseResult } from '../src/core/evaluate/compareModels.ts';
import type { LayerRow } from '../src/core/metrics/layerwise.ts';
import type { Feeds, OrtTensor } from '../src/cli/runtime/ortNode.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { resolveSubgraph } from '../src/core/exclude/subgraph.ts';
import { exposeTensors } from '../src/core/calibrate/run/expose.ts';
import { compareModels } from '../src/core/evaluate/compareModels.ts';
import { sortByError } from '../src/core/metrics/layerwise.ts';
import { errorJumps } from '../src/core/metrics/layerwiseJumps.ts';
import { createSession, nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { imageFeeds } from '../src/cli/images/imageFeed.ts';
import { DETECTORS } from '../bench/cases/detectors.ts';
import { fixtureRanges } from './helpers/calibration.ts';
import { COCO_EVAL } from './helpers/evaluation.ts';
import { readModel } from './helpers/fixtures.ts';

const NAME = 'yolox-nano.onnx';
const fixtureModel = (): GraphProto => decode(readModel(NAME)).graph!;

/** 10·log10(Σx² / Σ(x−y)²) over all samples, written out. */
function sqnr(pairs: [Float32Array, Float32Array][]): number {
  let signal = 0;
  let noise = 0;
  for (const [x, y] of pairs) {
    for (let i = 0; i < x.length; i++) {
      signal += x[i] * x[i];
      noise += (x[i] - y[i]) ** 2;
    }
  }
  return 10 * Math.log10(signal / noise);
}

describe('layer-wise comparison of YOLOX-nano, XINT8, nothing excluded', () => {
  const config = getPreset('XINT8');
  const index = buildGraphIndex(fixtureModel());
  const tail = new Set(resolveSubgraph(index, DETECTORS[NAME].tail).map((i) => index.ids[i] as string));
  let model: ModelProto;
  let quantized: ModelProto;
  let report: QuantizeReport;
  let feeds: Feeds[];
  let lw: LayerwiseResult;
  let worst: LayerRow[];

  beforeAll(async () => {
    const calibrated = await fixtureRanges(NAME, config);
    model = calibrated.model;
    ({ model: quantized, report } = quantizeModel(model, calibrated.ranges, config, 'XINT8'));
    feeds = imageFeeds(model, { files: COCO_EVAL.slice(0, 2) }, DETECTORS[NAME].preprocess).feeds;
    const comparison = await compareModels(model, quantized, nodeRuntime(feeds), { layers: true, floatIndex: index });
    lw = comparison.layerwise!;
    worst = sortByError(lw.rows);
  });

  it('compares every node output and the input, with the dequantized value where there is one', () => {
    expect(report.counts.float).toBe(0);
    expect(lw.missing).toEqual([]);
    expect(lw.rows).toHaveLength(index.nodes.length + 1);
    expect(lw.rows[0]).toMatchObject({ tensor: 'images', node: null, source: 'dequantized' });
    // Every node is quantized, so every tensor has its own Q/DQ.
    expect(lw.rows.every((r) => r.source === 'dequantized')).toBe(true);
  });

  it('finds the worst layers inside the network, not at the output tail', () => {
    const worst10 = worst.slice(0, 10);
    expect(worst10.every((r) => r.node !== null && !tail.has(r.node))).toBe(true);
    expect(worst10.every((r) => r.sqnr < 0)).toBe(true); // noise above signal
    const output = lw.rows.find((r) => r.tensor === 'output')!;
    const tailRows = lw.rows.filter((r) => r.node !== null && tail.has(r.node));
    expect(Math.min(...tailRows.map((r) => r.sqnr))).toBeGreaterThan(worst[0].sqnr + 5);
    expect(output.sqnr).toBeGreaterThan(0);
    expect(output.sqnr).toBeLessThan(10);
    // The tail adds little: its output is within 1.5 dB of the worst tensor it joins.
    const joins = ['Reshape_405', 'Reshape_413', 'Reshape_421'].map((id) => lw.rows.find((r) => r.node === id)!.sqnr);
    expect(output.sqnr).toBeGreaterThan(Math.min(...joins) - 1.5);
  });

  it('puts the largest error jumps in the backbone, with the score Sigmoids among the jumps', () => {
    const jumps = errorJumps(lw.rows, index, 3);
    expect(jumps[0].opType).toBe('Conv');
    expect(tail.has(jumps[0].node)).toBe(false);
    expect(jumps.filter((j) => j.opType === 'Sigmoid').length).toBeGreaterThanOrEqual(3);
  });

  it('measures the same SQNR as a comparison written out by hand', async () => {
    const probe = [worst[0], lw.rows.find((r) => r.tensor === 'output')!];
    const pairs = probe.map((row) => lw.pairs.find((p) => p.tensor === row.tensor)!);
    const floatSession = await createSession(
      encode(
        exposeTensors(
          model,
          pairs.map((p) => p.tensor),
        ),
      ),
    );
    const quantSession = await createSession(
      encode(
        exposeTensors(
          quantized,
          pairs.flatMap((p) => [p.value, p.dequantized!]),
        ),
      ),
    );
    const runs: { a: Record<string, OrtTensor>; b: Record<string, OrtTensor> }[] = [];
    for (const f of feeds) runs.push({ a: await floatSession.run(f), b: await quantSession.run(f) });
    await floatSession.release();
    await quantSession.release();
    probe.forEach((row, k) => {
      const p = pairs[k];
      const dq = sqnr(
        runs.map(({ a, b }) => [a[p.tensor].data as Float32Array, b[p.dequantized!].data as Float32Array]),
      );
      const value = sqnr(runs.map(({ a, b }) => [a[p.tensor].data as Float32Array, b[p.value].data as Float32Array]));
      expect(row.sqnr).toBeCloseTo(dq, 8);
      expect(row.valueSqnr).toBeCloseTo(value, 8);
    });
  });
});
