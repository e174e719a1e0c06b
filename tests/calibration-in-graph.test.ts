/**
 * MinMax statistics computed inside the calibration model (core/calibrate/run/reduceInGraph.ts, issue 33.5): on a
 * real detector and real photos, the states (and so the ranges) are exactly those of the path that exposes every
 * tensor, on onnxruntime-node and onnxruntime-web's WASM backend, while a run returns four small vectors instead of
 * every tensor; tensors holding NaN or infinity are read in full and fold as before; histogram methods keep the
 * exposed path.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DataType,
  decode,
  floatAttribute,
  intAttribute,
  encode,
  makeGraph,
  makeModel,
  makeNode,
  makeValueInfo,
  makeTensor,
  openModel,
  sessionModel,
  type ModelProto,
} from '../src/core/onnx/index.ts';
import { observableTensors } from '../src/core/calibrate/run/expose.ts';
import { readReduced, reduceInGraph } from '../src/core/calibrate/run/reduceInGraph.ts';
import { planNanChecks } from '../src/core/calibrate/run/nanChecks.ts';
import type { SampleSource } from '../src/core/calibrate/run/runner.ts';
import { sampleSource } from '../src/core/calibrate/run/samples.ts';
import { rangesOf, type TensorStates } from '../src/core/calibrate/run/statistics.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { withOptions, type QuantConfig } from '../src/core/quantize/config.ts';
import type { Feed, Runtime } from '../src/core/runtime/session.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { ortNodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { createWebRuntime } from '../workers/runtime/ort.ts';
import { FIXTURE_PREPROCESS, PHOTOS } from './helpers/calibration.ts';
import { readModel } from './helpers/fixtures.ts';
import { calibrateWith, recordingRuntime } from './helpers/calibrationRuns.ts';

const name = 'ultraface-rfb-320.onnx';
const ultraface = openModel(readModel(name));
const photos = (): SampleSource =>
  sampleSource(
    PHOTOS.map((f) => ({ kind: 'image' as const, name: path.basename(f), file: f })),
    ultraface.summary.inputs,
    FIXTURE_PREPROCESS[name],
    async (f: string) => decodeImageFile(f),
  );

/** One calibration, MinMax in the graph or exposed, deriving extremes or not. */
const calibrate = (
  model: ModelProto,
  runtime: Runtime,
  source: SampleSource,
  config: QuantConfig,
  statisticsInGraph: boolean,
  deriveStates = true,
) => calibrateWith(model, runtime, source, config, { statisticsInGraph, deriveStates });

/** One sample a row, fed to the input `x` with `dims`. */
const rowsOf = (rows: readonly number[][], dims: number[]): SampleSource => ({
  count: rows.length,
  name: (i) => `row ${i}`,
  produce: async (i) => ({ feeds: { x: { type: 'float32', data: Float32Array.from(rows[i]), dims } } }),
});

/** States as plain JSON (bigint sums as strings), so two can be compared exactly. */
const plain = (states: TensorStates) =>
  JSON.parse(JSON.stringify(Object.fromEntries(states), (_, v) => (typeof v === 'bigint' ? String(v) : v)));

describe('MinMax statistics computed in the graph', () => {
  const runtimes: [string, () => Runtime][] = [
    ['onnxruntime-node', () => ortNodeRuntime(1)],
    ['onnxruntime-web (wasm)', () => createWebRuntime('wasm', 1)],
  ];
  const configs: [string, QuantConfig][] = [
    ['A8W8 (MinMax)', getPreset('A8W8')],
    [
      'MinMax, moving average, symmetric',
      withOptions(getPreset('A8W8'), { extraOptions: { CalibMovingAverage: true, CalibTensorRangeSymmetric: true } }),
    ],
    ['XINT8 (NonOverflow)', withOptions(getPreset('XINT8'), { calibrationMethod: 'MinMax' })],
  ];

  it.each(runtimes)(
    '%s: UltraFace on 4 photos, the same states and ranges as every tensor exposed',
    async (_, make) => {
      for (const [label, config] of configs) {
        const rec = recordingRuntime(make());
        const fast = await calibrate(ultraface.model, rec.runtime, photos(), config, true);
        const full = await calibrate(ultraface.model, make(), photos(), config, false);
        expect(fast.used, label).toBe(4);
        expect(plain(fast.states), label).toEqual(plain(full.states));
        expect(Object.fromEntries(rangesOf(fast.states)), label).toEqual(Object.fromEntries(rangesOf(full.states)));
        expect(fast.states.size, label).toBeGreaterThan(100);
        // Four outputs a run (minima, maxima, sums, sizes), a few kB against the full path's megabytes.
        expect(
          rec.outputs.map((o) => o.length),
          label,
        ).toEqual([4]);
        expect(fast.runOutputBytes, label).toBeLessThan(full.runOutputBytes / 100);
      }
    },
  );

  it('histogram methods (Percentile, Entropy, MinMSE) keep the exposed path', async () => {
    for (const method of ['Percentile', 'Entropy', 'MinMSE'] as const) {
      const rec = recordingRuntime(ortNodeRuntime(1));
      const source = sampleSource(
        PHOTOS.slice(0, 1).map((f) => ({ kind: 'image' as const, name: path.basename(f), file: f })),
        ultraface.summary.inputs,
        FIXTURE_PREPROCESS[name],
        async (f: string) => decodeImageFile(f),
      );
      await calibrate(
        ultraface.model,
        rec.runtime,
        source,
        withOptions(getPreset('A8W8'), { calibrationMethod: method }),
        true,
      );
      expect(rec.outputs[0].length, method).toBeGreaterThan(100);
    }
  });

  it('tensors holding NaN or infinity are read in full, and fold exactly as exposed (counts of non-finite values included)', async () => {
    // x → Log (NaN below 0, -Infinity at 0) → Relu; x → Div by x (NaN at 0) ; x → Abs: only some tensors turn non-finite.
    const model = makeModel(
      makeGraph({
        node: [
          makeNode('Log', ['x'], ['log'], 'log'),
          makeNode('Relu', ['log'], ['relu'], 'relu'),
          makeNode('Div', ['x', 'x'], ['ratio'], 'div'),
          makeNode('Abs', ['x'], ['abs'], 'abs'),
          makeNode('Add', ['relu', 'abs'], ['y'], 'add'),
          // A scalar: counted as one value (ReduceProd of its empty shape).
          makeNode('ReduceMax', ['abs'], ['peak'], 'peak', [intAttribute('keepdims', 0)]),
        ],
        input: [makeValueInfo('x', DataType.FLOAT, [1, 6])],
        output: [makeValueInfo('y', DataType.FLOAT, [1, 6]), makeValueInfo('ratio', DataType.FLOAT, [1, 6])],
      }),
    );
    const rows = [
      [0.5, 2, 3, 4, 5, 6],
      [-1, 0, 1, 2, 3, 8],
      [0.25, 0.5, 9, 1, 2, 3],
    ];
    const source = rowsOf(rows, [1, 6]);
    const rec = recordingRuntime(ortNodeRuntime(1));
    const bytes = encode(model);
    const fast = await calibrate(decode(bytes), rec.runtime, source, getPreset('A8W8'), true);
    const full = await calibrate(decode(bytes), ortNodeRuntime(1), source, getPreset('A8W8'), false);
    expect(plain(fast.states)).toEqual(plain(full.states));
    expect((fast.states.get('log') as { nonFinite: number }).nonFinite).toBe(2);
    expect(fast.states.get('peak')).toMatchObject({ count: 3, batches: 3, min: 6, max: 9 });
    // The reduced session, then one reading the suspect tensors of the second row in full, with those that have no
    // NaN check of their own (Relu, Abs, Add: nanChecks.ts), which a run with a suspect tensor does not prove clean.
    expect(rec.outputs.length).toBe(2);
    expect(rec.outputs[1]).toEqual(expect.arrayContaining(['log', 'ratio', 'abs', 'relu', 'y']));
    expect(rec.outputs[1]).not.toContain('peak');
  });

  it('a Conv whose products overflow to +∞ and −∞ (NaN without a check of its own) is caught by its bound and read in full', async () => {
    // Weights ±1e10 on an input near 1e30: 1e40 and −1e40 overflow, their sum is NaN. Conv and Relu get no ReduceSum.
    const model = makeModel(
      makeGraph({
        node: [makeNode('Conv', ['x', 'w'], ['conv'], 'conv'), makeNode('Relu', ['conv'], ['y'], 'relu')],
        input: [makeValueInfo('x', DataType.FLOAT, [1, 2, 1, 2])],
        output: [makeValueInfo('y', DataType.FLOAT, [1, 1, 1, 2])],
        initializer: [makeTensor('w', DataType.FLOAT, [1, 2, 1, 1], Float32Array.of(1e10, -1e10))],
      }),
    );
    expect(planNanChecks(model, ['conv', 'y'])).toMatchObject({ checked: [], unchecked: ['conv', 'y'], feeds: ['x'] });
    const rows = [
      [1, 2, 3, 4],
      [1e30, 1, 1e30, 2],
      [0.5, 0.25, 8, 1],
    ];
    const source = rowsOf(rows, [1, 2, 1, 2]);
    const rec = recordingRuntime(ortNodeRuntime(1));
    const bytes = encode(model);
    const fast = await calibrate(decode(bytes), rec.runtime, source, getPreset('A8W8'), true);
    const full = await calibrate(decode(bytes), ortNodeRuntime(1), source, getPreset('A8W8'), false);
    expect(plain(fast.states)).toEqual(plain(full.states));
    expect((fast.states.get('conv') as { nonFinite: number }).nonFinite).toBeGreaterThan(0);
    expect(rec.outputs.length).toBe(2);
    expect(rec.outputs[1]).toEqual(expect.arrayContaining(['conv', 'y']));
  });

  it('on UltraFace only the outputs of ops that can make a NaN from finite values get a ReduceSum', () => {
    const tensors = observableTensors(ultraface.model).filter((t) => t !== 'input');
    const checks = planNanChecks(ultraface.model, tensors);
    const producer = new Map(ultraface.model.graph!.node.flatMap((n) => n.output.map((o) => [o, n.op_type] as const)));
    expect(new Set(checks.checked.map((t) => producer.get(t)))).toEqual(new Set(['Softmax']));
    expect(checks.checked.length + checks.unchecked.length).toBe(tensors.length);
    // Every Conv and BatchNormalization left unchecked is bounded by its input's extremes in each run.
    expect(checks.products.length).toBe(
      tensors.filter((t) => /Conv|BatchNormalization/.test(producer.get(t) ?? '')).length,
    );
    const reduced = reduceInGraph(ultraface.model, tensors);
    expect(reduced.model.graph!.node.filter((n) => n.op_type === 'ReduceSum').length).toBe(1);
    // Constant nodes' outputs are folded from their values, not reduced (the states test above covers their equality).
    const constants = tensors.filter((t) => producer.get(t) === 'Constant');
    expect(constants.length).toBeGreaterThan(0);
    expect([...reduced.constants.keys()]).toEqual(constants);
    const reducedInputs = new Set(
      reduced.model.graph!.node.filter((n) => n.op_type === 'ReduceMin').map((n) => n.input[0]),
    );
    expect(constants.filter((t) => reducedInputs.has(t))).toEqual([]);
    // Nor are the tensors whose extremes follow from their producer's input (derivedExtremes.ts).
    expect(reduced.derived.size).toBeGreaterThan(0);
    expect([...reduced.derived.keys()].filter((t) => reducedInputs.has(t))).toEqual([]);
    expect(reducedInputs.size).toBe(tensors.length - constants.length - reduced.derived.size);
  });

  it('derives the extremes of shape ops, Concat and monotone element-wise ops from their sources, exactly as exposed, non-finite runs included', async () => {
    const c = (name: string, ...v: number[]) =>
      makeTensor(name, DataType.FLOAT, v.length > 1 ? [v.length] : [], Float32Array.from(v));
    // Mul(x, x) and Mul(x, w) (a per-column weight) are reduced; every other tensor is derived, some from derived ones.
    const derivedOps: [string, string[], string, ReturnType<typeof intAttribute>[]?][] = [
      ['Identity', ['sq'], 'identity'],
      ['Reshape', ['sq', 'shape'], 'reshape'],
      ['Flatten', ['reshape'], 'flatten'],
      ['Unsqueeze', ['flatten', 'axes'], 'unsqueeze'],
      ['Squeeze', ['unsqueeze', 'axes'], 'squeeze'],
      ['Transpose', ['sq'], 'transpose'],
      ['Relu', ['scaled'], 'relu'],
      ['Clip', ['scaled', 'lo', 'hi'], 'clip'],
      ['Clip', ['scaled', '', 'hi'], 'clipTop'],
      ['LeakyRelu', ['scaled'], 'leaky', [floatAttribute('alpha', 0.1)]],
      ['HardSigmoid', ['scaled'], 'hardSigmoid', [floatAttribute('alpha', 0.2), floatAttribute('beta', 0.5)]],
      ['HardSigmoid', ['scaled'], 'hardSigmoidDown', [floatAttribute('alpha', -1 / 6), floatAttribute('beta', 0.5)]],
      ['Add', ['scaled', 'three'], 'addRight'],
      ['Add', ['three', 'scaled'], 'addLeft'],
      ['Sub', ['scaled', 'three'], 'subRight'],
      ['Sub', ['three', 'scaled'], 'subLeft'],
      ['Mul', ['scaled', 'negative'], 'mulNegative'],
      ['Mul', ['third', 'scaled'], 'mulLeft'],
      ['Mul', ['scaled', 'big'], 'mulBig'],
      ['Div', ['scaled', 'six'], 'div'],
      ['Div', ['scaled', 'negative'], 'divNegative'],
      ['Div', ['addRight', 'six'], 'divOfDerived'],
      ['Concat', ['clip', 'scaled', 'relu'], 'concat', [intAttribute('axis', 1)]],
    ];
    const model = makeModel(
      makeGraph({
        node: [
          makeNode('Mul', ['x', 'x'], ['sq'], 'sq'),
          makeNode('Mul', ['x', 'w'], ['scaled'], 'scaled'),
          ...derivedOps.map(([op, inputs, out, attributes]) => makeNode(op, inputs, [out], out, attributes ?? [])),
          // Not derived: Sigmoid (onnxruntime approximates it), Div of a constant by a tensor, Mul of two tensors.
          makeNode('Sigmoid', ['scaled'], ['sigmoid'], 'sigmoid'),
          makeNode('Div', ['six', 'scaled'], ['reciprocal'], 'reciprocal'),
          makeNode('Mul', ['relu', 'clip'], ['product'], 'product'),
        ],
        input: [makeValueInfo('x', DataType.FLOAT, [2, 3])],
        output: [...derivedOps.map(([, , out]) => out), 'sigmoid', 'reciprocal', 'product'].map((o) =>
          makeValueInfo(o, DataType.FLOAT),
        ),
        initializer: [
          c('w', 1, -2, 0.5),
          makeTensor('shape', DataType.INT64, [2], BigInt64Array.of(3n, 2n)),
          makeTensor('axes', DataType.INT64, [1], BigInt64Array.of(0n)),
          c('lo', -1.5),
          c('hi', 2.25),
          c('three', 3),
          c('negative', -0.7),
          c('third', 1 / 3),
          c('big', 1e30),
          c('six', 6),
        ],
      }),
    );
    const tensors = observableTensors(model).filter((t) => t !== 'x');
    const reduced = reduceInGraph(model, tensors);
    expect([...reduced.derived.keys()]).toEqual(derivedOps.map(([, , out]) => out));
    expect(reduced.tensors).toEqual(['sq', 'scaled', 'sigmoid', 'reciprocal', 'product']);
    const rows = [
      [0.5, -1.25, 3, 7, -0.1, 2],
      [1e-3, 4, -8, 0, 0.3, -0.6],
      // mulBig overflows to ±∞: a derived tensor not finite, read in full (with every unchecked tensor, as a suspect one).
      [1e9, -3, 2, 5, 1e10, -2],
      // sq overflows: suspect, so it and everything derived from it are read in full.
      [3e20, 1, -1, 2, 0.25, 0.5],
      // A NaN feed: nothing proves the unchecked tensors clean, all read in full.
      [NaN, 1, 2, 3, 4, 5],
      [-2, 1.5, 0.75, -4, 6, 0.125],
    ];
    const source = rowsOf(rows, [2, 3]);
    for (const [label, make] of runtimes) {
      const rec = recordingRuntime(make());
      const bytes = encode(model);
      const fast = await calibrate(decode(bytes), rec.runtime, source, getPreset('A8W8'), true);
      const full = await calibrate(decode(bytes), make(), source, getPreset('A8W8'), false);
      expect(plain(fast.states), label).toEqual(plain(full.states));
      for (const t of tensors) expect(fast.states.has(t), t).toBe(true);
      expect((fast.states.get('mulBig') as { nonFinite: number }).nonFinite, label).toBeGreaterThan(0);
      // The reduced session, then one reading the suspect and derived tensors in full.
      expect(rec.outputs[0].length, label).toBe(4);
      expect(rec.outputs[1], label).toEqual(expect.arrayContaining(['mulBig', 'identity', 'concat', 'divOfDerived']));
    }
  });

  it('derives in topological order from a graph stored out of it, and copies a float32 Cast, exactly as exposed', async () => {
    // A float16 model's float32 form (ISNet's) keeps its Casts, now float32 to float32, and need not list its nodes in
    // topological order: here they are stored last to first.
    const toFloat = [intAttribute('to', DataType.FLOAT)];
    const inOrder = [
      makeNode('Mul', ['x', 'w'], ['scaled'], 'scaled'),
      makeNode('Cast', ['scaled'], ['cast'], 'cast', toFloat),
      makeNode('Relu', ['cast'], ['relu'], 'relu'),
      makeNode('Reshape', ['relu', 'shape'], ['flat'], 'flat'),
      makeNode('Cast', ['flat'], ['flatCast'], 'flatCast', toFloat),
      makeNode('Concat', ['cast', 'relu'], ['both'], 'both', [intAttribute('axis', 0)]),
      makeNode('Mul', ['both', 'both'], ['sq'], 'sq'),
    ];
    const model = makeModel(
      makeGraph({
        node: [...inOrder].reverse(),
        input: [makeValueInfo('x', DataType.FLOAT, [2, 3])],
        output: ['flatCast', 'sq'].map((o) => makeValueInfo(o, DataType.FLOAT)),
        initializer: [
          makeTensor('w', DataType.FLOAT, [3], Float32Array.of(1, -2, 0.5)),
          makeTensor('shape', DataType.INT64, [2], BigInt64Array.of(3n, 2n)),
        ],
      }),
    );
    const tensors = observableTensors(model).filter((t) => t !== 'x');
    const reduced = reduceInGraph(model, tensors);
    expect([...reduced.derived.keys()].sort()).toEqual(['both', 'cast', 'flat', 'flatCast', 'relu']);
    // In an order each run can derive them in: every source reduced or derived before.
    const ready = new Set(reduced.tensors);
    for (const [t, d] of reduced.derived) {
      for (const s of d.sources) expect(ready.has(s), `${t} from ${s}`).toBe(true);
      ready.add(t);
    }
    expect(reduced.derived.get('cast')!.op).toBe('Cast');
    expect(reduced.tensors).toEqual(['sq', 'scaled']);
    const rows = [
      [0.5, -1.25, 3, 7, -0.1, 2],
      [1e-3, 4, -8, 0, 0.3, -0.6],
      // scaled reaches −∞: it and every tensor derived from it are read in full.
      [1, 3e38, -1, 2, 0.25, 0.5],
      [-2, 1.5, 0.75, -4, 6, 0.125],
    ];
    const source = rowsOf(rows, [2, 3]);
    for (const [label, make] of runtimes) {
      const rec = recordingRuntime(make());
      const bytes = encode(model);
      const fast = await calibrate(decode(bytes), rec.runtime, source, getPreset('A8W8'), true);
      // Every tensor exposed and folded from its own values: no state derived on either path.
      const full = await calibrate(decode(bytes), make(), source, getPreset('A8W8'), false, false);
      expect(plain(fast.states), label).toEqual(plain(full.states));
      for (const t of tensors) expect(fast.states.has(t), t).toBe(true);
      expect((fast.states.get('cast') as { nonFinite: number }).nonFinite, label).toBeGreaterThan(0);
      // Minima, maxima and sizes (no op here can make a NaN: no sums), then the run with −∞ read in full.
      expect(rec.outputs[0].length, label).toBe(3);
      expect(rec.outputs[1], label).toEqual(expect.arrayContaining(['scaled', 'cast', 'flatCast', 'both']));
    }
  });

  it('a derived tensor is read in full when its source is, and only then', async () => {
    // Log and Sqrt get NaN checks of their own (no unchecked tensor to prove): a suspect source taints only its own.
    const model = makeModel(
      makeGraph({
        node: [
          makeNode('Log', ['x'], ['log'], 'log'),
          makeNode('Relu', ['log'], ['relu'], 'relu'),
          makeNode('Sqrt', ['x'], ['root'], 'root'),
          makeNode('Reshape', ['root', 'shape'], ['flat'], 'flat'),
          makeNode('Concat', ['relu', 'root'], ['both'], 'both', [intAttribute('axis', 0)]),
        ],
        input: [makeValueInfo('x', DataType.FLOAT, [1, 4])],
        output: ['flat', 'both'].map((o) => makeValueInfo(o, DataType.FLOAT)),
        initializer: [makeTensor('shape', DataType.INT64, [1], BigInt64Array.of(4n))],
      }),
    );
    const reduced = reduceInGraph(model, ['log', 'relu', 'root', 'flat', 'both']);
    expect(reduced.tensors).toEqual(['log', 'root']);
    expect(reduced.checks.unchecked).toEqual([]);
    const rows = [
      [1, 2, 3, 4],
      // log(0) = −∞: log, relu and both read in full; root and flat derived still.
      [0, 1, 4, 9],
      [0.5, 2, 8, 16],
    ];
    const source = rowsOf(rows, [1, 4]);
    const rec = recordingRuntime(ortNodeRuntime(1));
    const bytes = encode(model);
    const fast = await calibrate(decode(bytes), rec.runtime, source, getPreset('A8W8'), true);
    const full = await calibrate(decode(bytes), ortNodeRuntime(1), source, getPreset('A8W8'), false);
    expect(plain(fast.states)).toEqual(plain(full.states));
    expect(rec.outputs.length).toBe(2);
    expect(rec.outputs[1]).toEqual(['log', 'relu', 'both']);
  });
});

describe('the reduced calibration model', () => {
  it("places each tensor's reductions right after its producer, and loads and runs at all and basic", async () => {
    const tensors = observableTensors(ultraface.model).filter((t) => t !== 'input');
    const reduced = reduceInGraph(ultraface.model, tensors);
    const nodes = reduced.model.graph!.node;
    const at = new Map<string, number>();
    nodes.forEach((n, i) => n.output.forEach((o) => at.set(o, i)));
    for (const [i, n] of nodes.entries())
      if (n.op_type === 'ReduceMin') expect(i, n.input[0]).toBe(at.get(n.input[0])! + 1);
    const x = { type: 'float32', data: new Float32Array(3 * 240 * 320).fill(0.25), dims: [1, 3, 240, 320] };
    for (const level of ['all', 'basic'] as const) {
      const { runner } = await ortNodeRuntime(1).createSession(sessionModel(reduced.model), 'float', undefined, level);
      try {
        const run = readReduced(reduced, await runner.run({ input: x as Feed }));
        expect(run.extremes.size + run.suspect.length, level).toBe(tensors.length);
      } finally {
        await runner.release();
      }
    }
  });
});
