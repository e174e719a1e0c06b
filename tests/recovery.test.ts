/**
 * Accuracy recovery run for real in onnxruntime-node: CLE keeps the float function (small chain with a
 * depthwise layer, and UltraFace), AdaRound only ever picks the floor or the ceiling, AdaQuant lowers the
 * reconstruction loss, bias correction cancels the mean output shift on its own data, and the written models
 * run and pass onnx.checker.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asSessionModel, buildGraphIndex, decode, encode, type ModelProto } from '../src/core/onnx/index.ts';
import { validateConfig, type QuantConfigInput } from '../src/core/quantize/config.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import type { Ranges } from '../src/core/quantize/plan.ts';
import { crossLayerEqualize, findClePairs } from '../src/core/recovery/cle.ts';
import { gatherLayerRows } from '../src/core/recovery/layerData.ts';
import { FloatRowCache } from '../src/core/recovery/floatRowCache.ts';
import type { ComparisonRuntime } from '../src/core/evaluate/compareModels.ts';
import { findLinearLayers } from '../src/core/recovery/linearLayers.ts';
import { meanOutputShift } from '../src/core/recovery/biasCorrection.ts';
import {
  prepareNamed,
  quantizeWithRecovery,
  type RecoveryProgress,
} from '../src/core/recovery/quantizeWithRecovery.ts';
import { nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { calibrateOnImages } from '../src/cli/calibration/calibrateOnImages.ts';
import { getPreprocessPreset } from '../src/core/preprocess/presets.ts';
import { compareRuns, feedsFor } from './helpers/smallModels.ts';
import { convChainFeeds, convChainModel } from './helpers/recoverModels.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { IMAGES, MODELS } from './helpers/fixtures.ts';
import { COCO } from './helpers/evaluation.ts';
import { outputsOf } from './helpers/smallModels.ts';
import { qstudio } from './helpers/qstudio.ts';

const CLE = { steps: 4, totalDiffThreshold: 2e-7, scaleAppendBias: true };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-recover-'));

/** Ranges of every float tensor of the model over the feeds (min-max), as calibration would give them. */
async function minMaxRanges(model: ModelProto, feeds = convChainFeeds(8)): Promise<Ranges> {
  const index = buildGraphIndex(model.graph!);
  const names = index.nodes.flatMap((n) => n.output);
  const exposed: ModelProto = {
    ...model,
    graph: { ...model.graph!, output: names.map((name) => ({ name, metadata_props: [] })) },
  };
  const ranges = new Map<string, { min: number; max: number }>();
  for (const f of feeds) {
    const out = await outputsOf(exposed, f);
    for (const [k, t] of Object.entries({ ...out, x: { data: f.x.data as Float32Array } })) {
      const r = ranges.get(k) ?? { min: Infinity, max: -Infinity };
      for (const v of t.data) {
        r.min = Math.min(r.min, v);
        r.max = Math.max(r.max, v);
      }
      ranges.set(k, r);
    }
  }
  return ranges;
}

/**
 * MNIST with the Add after each Conv removed, so its convolutions have no bias at all (MNIST's own bias Adds are
 * folded into the Conv by prepare, which gives every Conv a bias).
 */
function withoutConvBiasAdds(model: ModelProto): ModelProto {
  const index = buildGraphIndex(model.graph!);
  const rename = new Map<string, string>();
  const kept = model.graph!.node.filter((n) => {
    const producer = index.producer.get(n.input[0] as never);
    const dropped =
      n.op_type === 'Add' &&
      producer !== undefined &&
      index.nodes[producer].op_type === 'Conv' &&
      index.initializers.has(n.input[1] as never);
    if (dropped) rename.set(n.output[0], n.input[0]);
    return !dropped;
  });
  const node = kept.map((n) => ({ ...n, input: n.input.map((i) => rename.get(i) ?? i) }));
  return { ...model, graph: { ...model.graph!, node } };
}

function config(preset: string, extra: QuantConfigInput = {}) {
  const base = getPreset(preset);
  return validateConfig({ ...base, ...extra, extraOptions: { ...base.extraOptions, ...extra.extraOptions } });
}

describe('cross-layer equalization', () => {
  it('pairs Conv→Relu→depthwise and depthwise→LeakyRelu→Conv, and lists the SiLU pair as skipped', () => {
    const { pairs, skipped } = findClePairs(buildGraphIndex(convChainModel().graph!));
    expect(pairs.map((p) => [p.a, p.b, p.activation])).toEqual([
      [0, 2, 'Relu'],
      [2, 4, 'LeakyRelu'],
    ]);
    expect(skipped).toEqual([
      { first: 'conv4', second: 'conv5', reason: expect.stringMatching(/SiLU.*not positively homogeneous/) },
    ]);
  });

  it('leaves the float outputs unchanged to 1e-4 relative while evening out the channel ranges', async () => {
    const model = convChainModel();
    const { model: equalized, report } = crossLayerEqualize(model, CLE);
    expect(report.worstChannelSpread.before).toBeGreaterThan(20);
    expect(report.worstChannelSpread.after).toBeLessThan(report.worstChannelSpread.before / 5);
    for (const d of await compareRuns(model, equalized, feedsFor(model, 3, -1, 1))) {
      expect(d.relative, d.name).toBeLessThan(1e-4);
      expect(d.identical && d.name === 'y').toBe(false); // the equalized branch really changed
    }
  });

  it("keeps UltraFace's outputs to 1e-4 relative (BatchNormalization folded first)", async () => {
    const model = decode(fs.readFileSync(path.join(MODELS, 'ultraface-rfb-320.onnx')));
    const prepared = prepareNamed(model).model;
    const { model: equalized, report } = crossLayerEqualize(prepared, CLE);
    expect(report.pairs.length).toBeGreaterThan(20);
    for (const d of await compareRuns(model, equalized, feedsFor(model, 7, 0, 1)))
      expect(d.relative, d.name).toBeLessThan(1e-4);
  });
});

describe('fast finetune and bias correction on a small chain', () => {
  const runtime = nodeRuntime(convChainFeeds(6));
  const cache = new FloatRowCache();
  const run = (preset: string, extra: QuantConfigInput, onProgress?: (p: RecoveryProgress) => void) =>
    quantizeWithRecovery(convChainModel(), config(preset, extra), {
      runtime,
      calibrate: (m) => minMaxRanges(m),
      onProgress,
    });

  it('AdaRound keeps every weight code at the floor or the ceiling of w/s, and lowers the loss', async () => {
    const events: RecoveryProgress[] = [];
    const r = await run(
      'XINT8',
      { includeFastFt: true, extraOptions: { FastFinetune: { NumIterations: 200, LogPeriod: 50 } } },
      (p) => events.push(p),
    );
    const { layers } = findLinearLayers(r.floatModel, r.model);
    expect(layers.map((l) => l.id).sort()).toEqual(['conv1', 'conv3', 'conv4', 'conv5', 'dw2']);
    let changed = 0;
    for (const l of layers) {
      for (let m = 0; m < l.outChannels; m++) {
        for (let i = 0; i < l.inPerGroup; i++) {
          const x = l.floatWeight[l.weightIndex(m, i)] / l.scaleOf(m);
          const q = l.codes[l.weightIndex(m, i)] - l.zeroPointOf(m);
          const near = Math.round(x);
          if (q !== near) changed++;
          // Saturated codes sit at the grid's end; all others are ⌊x⌋ or ⌈x⌉.
          expect(
            (q >= Math.floor(x) - 1e-9 && q <= Math.ceil(x) + 1e-9) || q === -128 || q === 127,
            `${l.id} ${m} ${i}: ${x} → ${q}`,
          ).toBe(true);
        }
      }
    }
    expect(changed).toBeGreaterThan(0); // it did learn something other than nearest rounding
    const ft = r.recovery.finetune!;
    expect(ft.lossAfter).toBeLessThan(ft.lossBefore);
    for (const l of ft.layers) expect(l.lossAfter).toBeLessThanOrEqual(l.lossBefore);
    expect(ft.layers[0].curve.map((c) => c.iteration)).toEqual([0, 50, 100, 150, 199]);
    expect(events.filter((e) => e.phase === 'layer')).toHaveLength(5);
  });

  it('AdaRound with EarlyStop stops layers whose hard-rounding loss has flattened, and keeps the best rounding it checked', async () => {
    const iterations = 1000;
    const r = await run('XINT8', {
      includeFastFt: true,
      extraOptions: { FastFinetune: { NumIterations: iterations, EarlyStop: true } },
    });
    const ft = r.recovery.finetune!;
    expect(ft.layers.some((l) => l.iterations < iterations)).toBe(true);
    for (const l of ft.layers) expect(l.lossAfter).toBeLessThanOrEqual(l.lossBefore);
    expect(ft.lossAfter).toBeLessThan(ft.lossBefore);
  });

  it('plateauStop stops layers whose loss has flattened, fewer iterations than asked, each no worse than nearest rounding', async () => {
    const iterations = 400;
    const tuning = { includeFastFt: true, extraOptions: { FastFinetune: { NumIterations: iterations } } };
    const r = await quantizeWithRecovery(convChainModel(), config('XINT8', tuning), {
      runtime,
      calibrate: (m) => minMaxRanges(m),
      plateauStop: 0.01,
    });
    const ft = r.recovery.finetune!;
    expect(ft.layers.length).toBeGreaterThan(0);
    expect(ft.layers.some((l) => l.iterations < iterations)).toBe(true);
    for (const l of ft.layers) expect(l.lossAfter).toBeLessThanOrEqual(l.lossBefore);
  });

  it('minRoundingError tunes only the layers whose own weight rounding costs at least that share of their output, leaving the rest at nearest rounding', async () => {
    const tuning = { includeFastFt: true, extraOptions: { FastFinetune: { NumIterations: 100 } } };
    // A threshold above every layer's error: nothing is tuned, every layer is listed with its measured error.
    const none = await quantizeWithRecovery(convChainModel(), config('XINT8', tuning), {
      runtime,
      calibrate: (m) => minMaxRanges(m),
      minRoundingError: 1,
    });
    const errors = new Map(none.recovery.finetune!.untuned!.map((u) => [u.id, u.roundingError]));
    expect([...errors.keys()].sort()).toEqual(['conv1', 'conv3', 'conv4', 'conv5', 'dw2']);
    for (const e of errors.values()) expect(e).toBeGreaterThan(0);
    expect(none.recovery.finetune!.layers).toHaveLength(0);
    const plain = await quantizeWithRecovery(convChainModel(), config('XINT8', {}), {
      calibrate: (m) => minMaxRanges(m),
    });
    expect(encode(none.model)).toEqual(encode(plain.model));
    // Between the errors measured: exactly the layers at or above it are tuned.
    const sorted = [...errors.values()].sort((a, b) => a - b);
    const threshold = (sorted[1] + sorted[2]) / 2;
    const some = await quantizeWithRecovery(convChainModel(), config('XINT8', tuning), {
      runtime,
      calibrate: (m) => minMaxRanges(m),
      minRoundingError: threshold,
    });
    const ft = some.recovery.finetune!;
    expect(ft.layers.map((l) => l.id).sort()).toEqual(
      [...errors]
        .filter(([, e]) => e >= threshold)
        .map(([id]) => id)
        .sort(),
    );
    expect(ft.untuned!.map((u) => u.id).sort()).toEqual(
      [...errors]
        .filter(([, e]) => e < threshold)
        .map(([id]) => id)
        .sort(),
    );
  });

  it('AdaQuant lowers the layer reconstruction loss', async () => {
    const r = await run('A8W8', {
      includeFastFt: true,
      extraOptions: {
        FastFinetune: { OptimAlgorithm: 'adaquant', NumIterations: 150, LearningRate: 1e-3, PositionsPerSample: 1000 },
      },
    });
    const ft = r.recovery.finetune!;
    expect(ft.lossAfter).toBeLessThan(ft.lossBefore);
    for (const l of ft.layers) expect(l.lossAfter).toBeLessThanOrEqual(l.lossBefore);
    // conv1's loss is mostly its input's quantization, which no weight can undo; the depthwise layer's is its own.
    const dw = ft.layers.find((l) => l.id === 'dw2')!;
    expect(dw.lossAfter).toBeLessThan(dw.lossBefore * 0.9);
  });

  it('float layer rows gathered once serve every depth and a second run (FloatRowCache): same model, fewer sessions', async () => {
    const extra = {
      includeFastFt: true,
      includeBiasCorrection: true,
      extraOptions: { FastFinetune: { NumIterations: 20 } },
    };
    const counting = () => {
      const opened: number[] = [];
      const rt: ComparisonRuntime = {
        samples: runtime.samples,
        feeds: runtime.feeds,
        open: (m) => {
          opened.push(decode(asSessionModel(m).bytes).graph!.node.length);
          return runtime.open(m);
        },
      };
      return { rt, opened };
    };
    const a = counting();
    const first = await quantizeWithRecovery(convChainModel(), config('XINT8', extra), {
      runtime: a.rt,
      calibrate: (m) => minMaxRanges(m),
      floatRowCache: cache,
    });
    const stages = first.recovery.stages;
    // One quantized session per depth that does not read the graph input, one float session for all of them.
    expect(stages).toBeGreaterThan(2);
    expect(a.opened.length).toBeLessThan(2 * stages);
    const b = counting();
    const second = await quantizeWithRecovery(convChainModel(), config('XINT8', extra), {
      runtime: b.rt,
      calibrate: (m) => minMaxRanges(m),
      floatRowCache: cache,
    });
    expect(b.opened.length).toBe(a.opened.length - 1);
    expect(encode(second.model)).toEqual(encode(first.model));
    // The float gathering is reported apart, and the second run (every row from the cache) spends nothing on it.
    expect(first.recovery.seconds.gatherFloat).toBeGreaterThan(0);
    expect(first.recovery.seconds.gatherFloat).toBeLessThanOrEqual(first.recovery.seconds.gather);
    expect(second.recovery.seconds.gatherFloat).toBe(0);
    expect(cache.refused).toBe(0);
    expect(first.recovery.finetune!.buildSeconds).toBeLessThanOrEqual(first.recovery.finetune!.seconds);
    // Each pass runs only the nodes its layers' inputs depend on: the first passes open smaller graphs.
    expect(Math.min(...b.opened)).toBeLessThan(Math.max(...b.opened));
  });

  it('quantized passes fed with kept tensors give the same model as passes run from the graph inputs, running fewer nodes', async () => {
    const extra = {
      includeFastFt: true,
      includeBiasCorrection: true,
      extraOptions: { FastFinetune: { NumIterations: 20 } },
    };
    const counting = () => {
      const opened: number[] = [];
      const rt: ComparisonRuntime = {
        samples: runtime.samples,
        feeds: runtime.feeds,
        open: (m) => {
          opened.push(decode(asSessionModel(m).bytes).graph!.node.length);
          return runtime.open(m);
        },
      };
      return { rt, opened };
    };
    const plain = counting();
    const fromInputs = await quantizeWithRecovery(convChainModel(), config('XINT8', extra), {
      runtime: plain.rt,
      calibrate: (m) => minMaxRanges(m),
      keptTensorBudgetBytes: 0,
    });
    const kept = counting();
    const fed = await quantizeWithRecovery(convChainModel(), config('XINT8', extra), {
      runtime: kept.rt,
      calibrate: (m) => minMaxRanges(m),
    });
    expect(fromInputs.recovery.passes).toBeUndefined();
    expect(fed.recovery.passes!.peakBytes).toBeGreaterThan(0);
    expect(encode(fed.model)).toEqual(encode(fromInputs.model));
    const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
    expect(sum(kept.opened)).toBeLessThan(sum(plain.opened));
    // With room for one sample's tensor only, passes walk back to the graph inputs where they must: still the same model.
    const tight = await quantizeWithRecovery(convChainModel(), config('XINT8', extra), {
      runtime,
      calibrate: (m) => minMaxRanges(m),
      keptTensorBudgetBytes: 1,
    });
    expect(tight.recovery.passes!.notKept).toBeGreaterThan(0);
    expect(encode(tight.model)).toEqual(encode(fromInputs.model));
  });

  it("bias correction cancels each layer's mean output shift on its own data, to the bias grid", async () => {
    const plain = await run('A8W8', {});
    // Every output position of these 12×12 maps is gathered, so the check below sees the same data.
    const corrected = await run('A8W8', {
      includeBiasCorrection: true,
      extraOptions: { FastFinetune: { PositionsPerSample: 1000 } },
    });
    const shifts = async (r: typeof plain) => {
      const { layers } = findLinearLayers(r.floatModel, r.model);
      const rows = await gatherLayerRows(r.floatModel, r.model, layers, runtime, {
        positionsPerSample: 1e6,
        samples: 6,
        seed: 1,
      });
      return rows.map((d) => ({ id: d.layer.id, shift: meanOutputShift(d), layer: d.layer }));
    };
    const before = await shifts(plain);
    const after = await shifts(corrected);
    // The first layers read the graph input, so their data is the same before and after: exact comparison.
    for (const id of ['conv1', 'conv4']) {
      const b = before.find((s) => s.id === id)!;
      const a = after.find((s) => s.id === id)!;
      // Both biases are int32 on the grid input scale × weight scale: conv1's was, conv4 had none and gets one.
      const store = a.layer.biasStore;
      expect(store.kind).toBe('quantized');
      const grid = store.kind === 'quantized' ? Math.max(...store.scales) : 1e-5;
      expect(Math.max(...b.shift.map(Math.abs)), id).toBeGreaterThan(grid);
      for (const s of a.shift) expect(Math.abs(s), id).toBeLessThanOrEqual(grid / 2 + 1e-6);
    }
    expect(corrected.recovery.biasCorrection!.layers).toHaveLength(5);
  });

  it("with the local reconstruction every layer cancels only its own weights' mean shift, not what its input lost upstream", async () => {
    const extra = { includeBiasCorrection: true, extraOptions: { FastFinetune: { PositionsPerSample: 1000 } } };
    const local = await quantizeWithRecovery(convChainModel(), config('A8W8', extra), {
      runtime,
      calibrate: (m) => minMaxRanges(m),
      reconstruction: 'local',
    });
    const asymmetric = await run('A8W8', extra);
    const shifts = async (r: typeof local, target: 'float' | 'local') => {
      const { layers } = findLinearLayers(r.floatModel, r.model);
      const rows = await gatherLayerRows(r.floatModel, r.model, layers, runtime, {
        positionsPerSample: 1e6,
        samples: 6,
        seed: 1,
      });
      return rows.map((d) => {
        const store = d.layer.biasStore;
        return {
          id: d.layer.id,
          worst: Math.max(...meanOutputShift(d, target).map(Math.abs)),
          grid: store.kind === 'quantized' ? Math.max(...store.scales) : 1e-5,
        };
      });
    };
    // Local shifts (float weights on the layer's own quantized input) are cancelled to the bias grid in every layer.
    for (const s of await shifts(local, 'local')) expect(s.worst, s.id).toBeLessThanOrEqual(s.grid / 2 + 1e-6);
    // The default makes downstream layers absorb their inputs' shift too, so some layer keeps a local shift the local run does not.
    const kept = (await shifts(asymmetric, 'local')).filter((s) => s.worst > s.grid / 2 + 1e-6);
    expect(kept.length).toBeGreaterThan(0);
  });

  it('writes models that run in onnxruntime-node and pass onnx.checker', async () => {
    const r = await run('XINT8', {
      includeCle: true,
      includeBiasCorrection: true,
      includeFastFt: true,
      extraOptions: { FastFinetune: { NumIterations: 20 } },
    });
    expect(r.recovery.cle!.pairs).toHaveLength(2);
    const file = path.join(tmp, 'chain.onnx');
    fs.writeFileSync(file, encode(r.model));
    expect(checkModels([file])).toEqual([{ path: file, ok: true }]);
    const [y] = await compareRuns(convChainModel(), r.model, convChainFeeds(1)[0]);
    expect(y.relative).toBeLessThan(0.2); // a quantized model of the same function, not noise
  });

  it('refuses to run without a runtime, and stops with RecoveryError when cancelled', async () => {
    const cfg = config('XINT8', { includeBiasCorrection: true });
    await expect(
      quantizeWithRecovery(convChainModel(), cfg, { calibrate: (m) => minMaxRanges(m) }),
    ).rejects.toMatchObject({ name: 'RecoveryError' });
    await expect(
      quantizeWithRecovery(convChainModel(), cfg, {
        runtime,
        calibrate: (m) => minMaxRanges(m),
        signal: { aborted: true },
      }),
    ).rejects.toMatchObject({ name: 'RecoveryError', message: /cancelled/ });
  });
});

describe('on a fixture', () => {
  it('exclusions given by the ids of the model as loaded still apply after preparation names the nodes', async () => {
    const model = decode(fs.readFileSync(path.join(MODELS, 'ultraface-rfb-320.onnx')));
    const cfg = config('XINT8', {
      includeCle: true,
      subgraphsToExclude: [{ starts: ['Slice_217', 'Slice_224'], ends: ['Concat_241'] }],
    });
    const spec = getPreprocessPreset('ultraface');
    const r = await quantizeWithRecovery(model, cfg, {
      calibrate: async (m) => (await calibrateOnImages(m, COCO.slice(0, 2), { spec, config: cfg })).ranges,
    });
    const excluded = r.report.float.filter((f) => f.reason.startsWith('excluded')).map((f) => f.id);
    expect(excluded).toContain('Slice_217');
    expect(excluded).toContain('Concat_241');
  });
});

describe('qstudio quantize with recovery switches', () => {
  it('runs CLE, AdaRound and bias correction on a folder of images and reports them', () => {
    const modelFile = path.join(tmp, 'chain-float.onnx');
    fs.writeFileSync(modelFile, encode(convChainModel()));
    const calib = path.join(tmp, 'calib');
    fs.mkdirSync(calib, { recursive: true });
    for (const f of ['grace_hopper.jpg', 'astronaut.png'])
      fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(calib, f));
    const out = path.join(tmp, 'chain-cli.onnx');
    const r = qstudio(
      'quantize',
      modelFile,
      '--calib',
      calib,
      '--preprocess',
      'unit',
      '--config',
      'XINT8',
      '--cle',
      '--bias-correction',
      '--finetune',
      'adaround',
      '--finetune-iterations',
      '10',
      '-o',
      out,
    );
    expect(r.stderr).toMatch(/\[5\/5\] \S+ {2}loss/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/CLE: 2 layer pairs equalized/);
    expect(r.stdout).toMatch(/adaround: \d+ of 5 layers changed/);
    const summary = JSON.parse(fs.readFileSync(out.replace(/\.onnx$/, '.json'), 'utf8'));
    expect(summary.recovery.finetune.layers).toHaveLength(5);
  });

  it('gives bias-less convolutions an int32 bias through a DequantizeLinear, so the model runs at opset 10 (MNIST without its bias Adds, AdaQuant + bias correction)', async () => {
    const calib = path.join(tmp, 'calib-mnist');
    fs.mkdirSync(calib, { recursive: true });
    for (const f of ['grace_hopper.jpg', 'astronaut.png', 'camera.png'])
      fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(calib, f));
    const biasless = path.join(tmp, 'mnist-biasless.onnx');
    fs.writeFileSync(biasless, encode(withoutConvBiasAdds(decode(fs.readFileSync(path.join(MODELS, 'mnist.onnx'))))));
    const out = path.join(tmp, 'mnist-aq.onnx');
    const r = qstudio(
      'quantize',
      biasless,
      '--calib',
      calib,
      '--preprocess',
      'unit',
      '--config',
      'XINT8',
      '--bias-correction',
      '--finetune',
      'adaquant',
      '--finetune-iterations',
      '5',
      '-o',
      out,
    );
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    const model = decode(fs.readFileSync(out));
    const index = buildGraphIndex(model.graph!);
    const convs = index.nodes.filter((n) => n.op_type === 'Conv');
    expect(convs.length).toBe(2);
    for (const conv of convs) {
      // Each Conv had no bias; the corrected one reaches it through an int32 DequantizeLinear placed before it.
      const dq = index.nodes[index.producer.get(conv.input[2] as never)!];
      expect(dq.op_type).toBe('DequantizeLinear');
      expect(index.initializers.get(dq.input[0] as never)!.data_type).toBe(6);
    }
    expect(checkModels([out])[0].ok).toBe(true);
    const outputs = await outputsOf(model, feedsFor(model, 3, 0, 1));
    expect(Object.values(outputs)[0].data.length).toBe(10);
  });

  it.each([
    [['--ranges', 'r.json', '--cle'], /need --calib/],
    [['--calib', '.', '--finetune', 'sgd'], /--finetune "sgd": expected adaround or adaquant/],
    [['--calib', '.', '--finetune-iterations', '5'], /go with --finetune/],
  ])('refuses %j', (args, message) => {
    const r = qstudio(
      'quantize',
      path.join(MODELS, 'mnist.onnx'),
      '--config',
      'XINT8',
      '-o',
      path.join(tmp, 'no.onnx'),
      ...args,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
  });
});
