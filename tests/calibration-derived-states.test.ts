/**
 * States derived instead of exposed (core/calibrate/run/derivedStates.ts, issue 33.5): reshapes and float32 Casts
 * copy their input's state, a Concat merges its inputs' histograms. On a model built here (batches that grow and
 * shrink the range, NaN and infinities) and on UltraFace with real photos, every method's states are exactly those of
 * exposing every tensor, on onnxruntime-node and onnxruntime-web's WASM backend, and the derived tensors are not
 * among the outputs asked of onnxruntime.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DataType,
  intAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  openModel,
  type ModelProto,
} from '../src/core/onnx/index.ts';
import { ModelCalibrator, type SampleSource } from '../src/core/calibrate/run/runner.ts';
import { planStateDerivations } from '../src/core/calibrate/run/derivedStates.ts';
import { observableTensors } from '../src/core/calibrate/run/expose.ts';
import { sampleSource } from '../src/core/calibrate/run/samples.ts';
import type { TensorStates } from '../src/core/calibrate/run/statistics.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { withOptions, type QuantConfig } from '../src/core/quantize/config.ts';
import type { Runtime } from '../src/core/runtime/session.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { ortNodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { createWebRuntime } from '../workers/runtime/ort.ts';
import { FIXTURE_PREPROCESS, PHOTOS } from './helpers/calibration.ts';
import { calibrateWith, recordingRuntime } from './helpers/calibrationRuns.ts';
import { readModel } from './helpers/fixtures.ts';

/** One calibration, deriving states or exposing every tensor. */
const calibrate = (
  model: ModelProto,
  runtime: Runtime,
  source: SampleSource,
  config: QuantConfig,
  deriveStates: boolean,
  alsoFor: readonly QuantConfig[] = [],
) => calibrateWith(model, runtime, source, config, { deriveStates }, alsoFor);

/** States as plain JSON (bigint sums as strings, typed arrays as lists), in the order the map lists them. */
const plain = (states: TensorStates) =>
  JSON.stringify([...states], (_, v) =>
    typeof v === 'bigint' ? String(v) : ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v,
  );

const method = (m: QuantConfig['calibrationMethod']) => withOptions(getPreset('A8W8'), { calibrationMethod: m });

// x [1, 6] → Mul(x, w) → a (exposed); a → Cast to float32, Reshape, Transpose, Identity (copies); Concat of a, x and
// the Cast (a merge, one input twice); Relu of the Concat (exposed: not derivable); Concat of a derived tensor.
function built(): ModelProto {
  const shape = makeTensor('shape', DataType.INT64, [2], BigInt64Array.of(2n, 3n));
  const w = makeTensor('w', DataType.FLOAT, [6], Float32Array.of(1, -2, 0.5, 3, -0.25, 1.5));
  return makeModel(
    makeGraph({
      node: [
        makeNode('Mul', ['x', 'w'], ['a'], 'mul'),
        makeNode('Cast', ['a'], ['cast'], 'cast', [intAttribute('to', DataType.FLOAT)]),
        makeNode('Reshape', ['cast', 'shape'], ['reshaped'], 'reshape'),
        makeNode('Transpose', ['reshaped'], ['transposed'], 'transpose'),
        makeNode('Identity', ['x'], ['same'], 'identity'),
        makeNode('Concat', ['a', 'x', 'cast', 'a'], ['joined'], 'concat', [intAttribute('axis', 1)]),
        makeNode('Relu', ['joined'], ['relu'], 'relu'),
        makeNode('Concat', ['transposed', 'transposed'], ['twice'], 'concat2', [intAttribute('axis', 0)]),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 6])],
      output: [makeValueInfo('relu', DataType.FLOAT, [1, 24]), makeValueInfo('twice', DataType.FLOAT, [6, 2])],
      initializer: [shape, w],
    }),
  );
}

/** One sample a row, fed to `x` [1, 6]. */
const rowsOf = (rows: readonly number[][]): SampleSource => ({
  count: rows.length,
  name: (i) => `row ${i}`,
  produce: async (i) => ({ feeds: { x: { type: 'float32', data: Float32Array.from(rows[i]), dims: [1, 6] } } }),
});

// Batches that widen the range, narrow it, hold NaN and infinities, and a tiny one.
const ROWS = [
  [0.5, 2, 3, 4, 5, 6],
  [-100, 0.001, 7, 2, 3, 8],
  [NaN, 1, Infinity, -Infinity, 2, 0],
  [1e-6, -1e-6, 2e-6, 0, -0, 3e-6],
];

describe('states derived instead of exposed', () => {
  const runtimes: [string, () => Runtime][] = [
    ['onnxruntime-node', () => ortNodeRuntime(1)],
    ['onnxruntime-web (wasm)', () => createWebRuntime('wasm', 1)],
  ];
  const histogramMethods = ['Percentile', 'Entropy', 'MinMSE'] as const;

  it.each(runtimes)(
    '%s: every method gets the states of exposing every tensor, and asks onnxruntime for none it derives',
    async (_, make) => {
      const configs: [string, QuantConfig, QuantConfig[]][] = [
        ['XINT8 (power-of-two MinMSE)', getPreset('XINT8'), []],
        ...histogramMethods.map((m): [string, QuantConfig, QuantConfig[]] => [m, method(m), []]),
        ['the held-in choice (MinMax and the three from one pass)', method('MinMax'), histogramMethods.map(method)],
        ['three histogram methods from one pass', method('Percentile'), [method('Entropy'), method('MinMSE')]],
      ];
      for (const [label, config, alsoFor] of configs) {
        const rec = recordingRuntime(make());
        const fast = await calibrate(built(), rec.runtime, rowsOf(ROWS), config, true, alsoFor);
        const full = await calibrate(built(), make(), rowsOf(ROWS), config, false, alsoFor);
        expect(fast.used, label).toBe(ROWS.length);
        expect(plain(fast.states), label).toBe(plain(full.states));
        for (let k = 0; k < alsoFor.length; k++)
          expect(plain(fast.alsoStates![k]), label).toBe(plain(full.alsoStates![k]));
        expect(fast.states.size, label).toBe(9);
        const copies = ['cast', 'reshaped', 'transposed', 'same'];
        // With MinMax among the methods a Concat's state is folded from its inputs' batches run by run.
        const derived = [...copies, 'joined', 'twice'];
        expect(rec.outputs.length, label).toBe(1);
        expect(
          rec.outputs[0].filter((t) => derived.includes(t)),
          label,
        ).toEqual([]);
        expect(rec.outputs[0], label).toEqual(expect.arrayContaining(['a', 'relu']));
        expect(fast.runOutputBytes, label).toBeLessThan(full.runOutputBytes);
      }
    },
  );

  it('in chunks (each a pass of its own over the samples), MinMax beside the histograms derives the same states', async () => {
    const config = method('MinMax');
    const alsoFor = histogramMethods.map(method);
    // A budget of a few outputs a run: the first sample runs with every tensor exposed, the rest chunk by chunk.
    const rec = recordingRuntime(ortNodeRuntime(1));
    const chunked = new ModelCalibrator(built(), rec.runtime, 64, {});
    try {
      const fast = await chunked.calibrate(
        rowsOf(ROWS),
        config,
        () => false,
        () => undefined,
        undefined,
        alsoFor,
      );
      expect(fast.passes).toBeGreaterThan(1);
      expect(rec.outputs.flat().filter((t) => t === 'joined' || t === 'twice')).toEqual([]);
      const full = await calibrate(built(), ortNodeRuntime(1), rowsOf(ROWS), config, false, alsoFor);
      expect(plain(fast.states)).toBe(plain(full.states));
      for (let k = 0; k < alsoFor.length; k++) expect(plain(fast.alsoStates![k])).toBe(plain(full.alsoStates![k]));
    } finally {
      await chunked.release();
    }
  });

  it('a graph stored out of topological order (as ISNet’s float32 form is) derives the same tensors, exactly', async () => {
    const sorted = built();
    const reversed = { ...sorted, graph: { ...sorted.graph!, node: [...sorted.graph!.node].reverse() } };
    const observed = observableTensors(sorted);
    expect([...planStateDerivations(reversed, observed, ['Percentile']).keys()].sort()).toEqual(
      [...planStateDerivations(sorted, observed, ['Percentile']).keys()].sort(),
    );
    const rec = recordingRuntime(ortNodeRuntime(1));
    const fast = await calibrate(reversed, rec.runtime, rowsOf(ROWS), getPreset('XINT8'), true);
    const full = await calibrate(sorted, ortNodeRuntime(1), rowsOf(ROWS), getPreset('XINT8'), false);
    expect(new Map(fast.states)).toEqual(new Map(full.states));
    expect(rec.outputs[0].sort()).toEqual(['a', 'relu']);
  });

  it('no state is shared between a tensor and the one it was copied from', async () => {
    const fast = await calibrate(built(), ortNodeRuntime(1), rowsOf(ROWS), method('Percentile'), true);
    const a = fast.states.get('a') as { hist: { bins: Float64Array } };
    const cast = fast.states.get('cast') as { hist: { bins: Float64Array } };
    expect(cast).not.toBe(a);
    expect(cast.hist.bins).not.toBe(a.hist.bins);
    expect(cast.hist.bins).toEqual(a.hist.bins);
  });

  it('derives nothing for methods whose state is not a function of each batch’s values (ConsumerMSE, Sequential, LayerwisePercentile)', () => {
    const model = built();
    const observed = observableTensors(model);
    expect(planStateDerivations(model, observed, ['LayerwisePercentile']).size).toBe(0);
    expect(planStateDerivations(model, observed, ['ConsumerMSE']).size).toBe(0);
    expect(planStateDerivations(model, observed, ['Percentile', 'ConsumerMSE']).size).toBe(0);
    expect([...planStateDerivations(model, observed, ['MinMax']).keys()]).toEqual([
      'cast',
      'reshaped',
      'transposed',
      'same',
      'joined',
      'twice',
    ]);
  });

  it('UltraFace on 2 photos: Percentile and XINT8 states exactly as every tensor exposed', async () => {
    const name = 'ultraface-rfb-320.onnx';
    const ultraface = openModel(readModel(name));
    const photos = (): SampleSource =>
      sampleSource(
        PHOTOS.slice(0, 2).map((f) => ({ kind: 'image' as const, name: path.basename(f), file: f })),
        ultraface.summary.inputs,
        FIXTURE_PREPROCESS[name],
        async (f: string) => decodeImageFile(f),
      );
    for (const config of [method('Percentile'), getPreset('XINT8')]) {
      const rec = recordingRuntime(ortNodeRuntime(1));
      const fast = await calibrate(ultraface.model, rec.runtime, photos(), config, true);
      const full = await calibrate(ultraface.model, ortNodeRuntime(1), photos(), config, false);
      expect(plain(fast.states)).toBe(plain(full.states));
      const derived = planStateDerivations(ultraface.model, observableTensors(ultraface.model), ['Percentile']);
      expect(derived.size).toBeGreaterThan(0);
      expect(rec.outputs[0].filter((t) => derived.has(t))).toEqual([]);
    }
  });
});
