/**
 * Fine-tuning only the layers the per-layer sensitivity points at (RecoveryOptions.sensitiveShare,
 * core/recovery/sensitiveLayers.ts), run for real in onnxruntime-node on the small convolution chain: the layers that
 * add the most measured noise are tuned until theirs reach the share, the others keep their nearest-rounded
 * codes, bias correction still reaches every layer, and the written models load and run at onnxruntime's default
 * options ('all') and at 'basic'. Without a share the rule decides from the model's kind (a transformer block: the
 * sensitive layers; the convolution chain: every layer, nothing measured), and one measurement serves the AdaRound
 * and AdaQuant runs of one plain configuration (SensitivityCache), with the same written bytes as measuring each.
 */
import { describe, expect, it } from 'vitest';
import { encode, type ModelProto } from '../src/core/onnx/index.ts';
import { validateConfig, type QuantConfigInput } from '../src/core/quantize/config.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { findLinearLayers } from '../src/core/recovery/linearLayers.ts';
import { quantizeWithRecovery } from '../src/core/recovery/quantizeWithRecovery.ts';
import {
  chainTensors,
  chooseSensitiveLayers,
  layerNoises,
  measureAddedNoise,
  noiseConcentration,
  scopedNodes,
  sensitiveShareRule,
  SensitivityCache,
  type LayerNoise,
} from '../src/core/recovery/sensitiveLayers.ts';
import { attentionBlockModel } from '../src/core/quantize/testModels.ts';
import { float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { compareModels } from '../src/core/evaluate/compareModels.ts';
import { sampleSubset } from '../src/core/evaluate/outputJudge.ts';
import { nodeErrors } from '../src/core/metrics/layerwiseJumps.ts';
import { buildGraphIndex } from '../src/core/onnx/graphIndex.ts';
import { nodeId } from '../src/core/onnx/model.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { createSession, nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { convChainFeeds, convChainModel } from './helpers/recoverModels.ts';
import { testTuneOptions } from './helpers/tuneOptions.ts';

const feeds = convChainFeeds(6);
const runtime = nodeRuntime(feeds);

function config(extra: QuantConfigInput = {}) {
  const base = getPreset('XINT8');
  return validateConfig({ ...base, ...extra, extraOptions: { ...base.extraOptions, ...extra.extraOptions } });
}

const iterations = testTuneOptions(60).iterations;
const tuning = { includeFastFt: true, extraOptions: { FastFinetune: { NumIterations: iterations } } };
const calibrate = (m: ModelProto) => calibrateOnFeeds(m, feeds, { config: config() }).then((r) => r.ranges);

/** Every output of `model` on the first sample is finite, in an onnxruntime-node session at `level`. */
async function runsAt(model: ModelProto, level: 'all' | 'basic'): Promise<boolean> {
  const session = await createSession(encode(model), 1, level);
  try {
    const out = await session.run(feeds[0]);
    return Object.values(out).every((t) => t.data.length > 0 && [...t.data].every(Number.isFinite));
  } finally {
    await session.release();
  }
}

describe('chooseSensitiveLayers', () => {
  const noises: LayerNoise[] = [
    ['a', 1],
    ['b', 6],
    ['c', -2],
    ['d', 3],
    ['e', 0],
  ].map(([id, added]) => ({ id: nodeId(id as string), addedNoise: (added as number) / 100 }));

  it('takes the largest additions first until they reach the share of all positive additions', () => {
    expect([...chooseSensitiveLayers(noises, 0.5)]).toEqual(['b']); // 6 of 10
    expect([...chooseSensitiveLayers(noises, 0.7)]).toEqual(['b', 'd']); // 9 of 10
    expect([...chooseSensitiveLayers(noises, 0.95)]).toEqual(['b', 'd', 'a']);
  });

  it('takes one layer at the least, and every layer at a share of 1 (negative and zero additions included)', () => {
    expect([...chooseSensitiveLayers(noises, 0.01)]).toEqual(['b']);
    expect([...chooseSensitiveLayers(noises, 1)].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('fine-tuning only the sensitive layers', () => {
  it('tunes the layers whose measured added noise reaches the share, leaves the rest at nearest rounding, and the model runs', async () => {
    const plain = await quantizeWithRecovery(convChainModel(), config(), { calibrate });
    const { layers } = findLinearLayers(plain.floatModel, plain.model);
    const noises = await measureAddedNoise(
      plain.floatModel,
      plain.model,
      layers.map((l) => l.id),
      runtime,
    );
    expect(noises.map((n) => n.id).sort()).toEqual(['conv1', 'conv3', 'conv4', 'conv5', 'dw2']);
    for (const n of noises) expect(Number.isFinite(n.addedNoise)).toBe(true);
    expect(noises.some((n) => n.addedNoise > 0)).toBe(true);
    const chosen = chooseSensitiveLayers(noises, 0.5);
    expect(chosen.size).toBeGreaterThan(0);
    expect(chosen.size).toBeLessThan(noises.length);

    const r = await quantizeWithRecovery(convChainModel(), config(tuning), { runtime, calibrate, sensitiveShare: 0.5 });
    const ft = r.recovery.finetune!;
    expect(ft.layers.map((l) => l.id).sort()).toEqual([...chosen].sort());
    expect(ft.unselected!.map((u) => u.id).sort()).toEqual(
      noises
        .filter((n) => !chosen.has(n.id))
        .map((n) => n.id)
        .sort(),
    );
    for (const l of ft.layers) expect(l.lossAfter).toBeLessThanOrEqual(l.lossBefore);
    // The layers left out keep the plain model's codes; at least one tuned layer learned other codes.
    const codes = (m: ModelProto) =>
      new Map(findLinearLayers(r.floatModel, m).layers.map((l) => [l.id, [...l.codes].join(',')]));
    const before = codes(plain.model);
    const after = codes(r.model);
    for (const u of ft.unselected!) expect(after.get(u.id)).toBe(before.get(u.id));
    expect([...chosen].some((id) => after.get(id) !== before.get(id))).toBe(true);
    expect(await runsAt(r.model, 'all')).toBe(true);
    expect(await runsAt(r.model, 'basic')).toBe(true);
  });

  it('compares only the tensors the layers read and write, with the same figures as comparing every tensor', async () => {
    const plain = await quantizeWithRecovery(convChainModel(), config(), { calibrate });
    const ids = findLinearLayers(plain.floatModel, plain.model).layers.map((l) => l.id);
    const index = buildGraphIndex(plain.floatModel.graph!);
    const every = await compareModels(plain.floatModel, plain.model, sampleSubset(runtime, 4), { layers: true });
    const noise = (db: number) => (db === Infinity ? 0 : 10 ** (-db / 10));
    const added = new Map(
      nodeErrors(every.layerwise!.rows, index).map((e) => [e.node, noise(e.sqnr) - noise(e.inputSqnr)]),
    );
    // The comparison takes only the tensors it is given.
    const one = every.layerwise!.pairs[1].tensor;
    const single = await compareModels(plain.floatModel, plain.model, sampleSubset(runtime, 4), {
      layers: true,
      layerTensors: new Set([one]),
    });
    expect(single.layerwise!.rows.map((r) => r.tensor)).toEqual([one]);
    expect(chainTensors(ids, scopedNodes(plain.floatModel)).has(one)).toBe(true);
    expect(await measureAddedNoise(plain.floatModel, plain.model, ids, runtime)).toEqual(
      layerNoises(ids, added, scopedNodes(plain.floatModel)),
    );
  });

  it('with bias correction, corrects every layer but tunes only the sensitive ones; a share of 1 tunes every layer', async () => {
    const r = await quantizeWithRecovery(convChainModel(), config({ ...tuning, includeBiasCorrection: true }), {
      runtime,
      calibrate,
      sensitiveShare: 0.5,
    });
    const ft = r.recovery.finetune!;
    expect(r.recovery.biasCorrection!.layers).toHaveLength(5);
    expect(ft.layers.length + ft.unselected!.length).toBe(5);
    expect(ft.unselected!.length).toBeGreaterThan(0);
    expect(await runsAt(r.model, 'all')).toBe(true);
    expect(await runsAt(r.model, 'basic')).toBe(true);

    const all = await quantizeWithRecovery(convChainModel(), config(tuning), { runtime, calibrate, sensitiveShare: 1 });
    expect(all.recovery.finetune!.layers).toHaveLength(5);
    expect(all.recovery.finetune!.unselected).toBeUndefined();
  });
});

describe('the sensitive-layer rule', () => {
  const SHARE = 0.8;
  const attentionFeeds = Array.from({ length: 6 }, (_, k) => ({
    x: float32Tensor(
      seededFloats(48, 31 + k).map((v) => v * 3),
      [1, 6, 8],
    ),
  }));
  const attentionRuntime = nodeRuntime(attentionFeeds);
  const attentionCalibrate = (m: ModelProto) =>
    calibrateOnFeeds(m, attentionFeeds, { config: config() }).then((r) => r.ranges);

  it('takes a given share as given; without one, every layer', () => {
    expect(sensitiveShareRule(0.5)).toEqual({ share: 0.5, why: 'given' });
    expect(sensitiveShareRule(1)).toEqual({ share: 1, why: 'given' });
    expect(sensitiveShareRule(undefined)).toEqual({ share: 1, why: 'default' });
  });

  it('reads the concentration as the share the top tenth of the layers (at least one) add', () => {
    const n = (adds: number[]) => adds.map((a, i) => ({ id: nodeId(`l${i}`), addedNoise: a }));
    expect(noiseConcentration(n([6, 1, 3, -2, 0]))).toBeCloseTo(0.6, 12); // one layer of five: 6 of 10
    expect(noiseConcentration(n([...Array(11).fill(1), -5]))).toBeCloseTo(2 / 11, 12); // two of twelve
    expect(noiseConcentration(n([0, -1]))).toBe(0);
  });

  it('without a share tunes every layer of the convolution chain, measuring nothing', async () => {
    const r = await quantizeWithRecovery(convChainModel(), config(tuning), { runtime, calibrate });
    const ft = r.recovery.finetune!;
    expect(ft.layers).toHaveLength(5);
    expect(ft.sensitive).toEqual({ share: 1, why: 'default' });
    expect(ft.unselected).toBeUndefined();
  });

  it('at a share of 0.8 tunes the sensitive layers of a transformer block; the model runs at both levels', async () => {
    const r = await quantizeWithRecovery(attentionBlockModel(), config(tuning), {
      runtime: attentionRuntime,
      calibrate: attentionCalibrate,
      sensitiveShare: SHARE,
    });
    const ft = r.recovery.finetune!;
    expect(ft.sensitive!.why).toBe('given');
    expect(ft.sensitive!.share).toBe(SHARE);
    const noises = ft.sensitive!.layerNoise!;
    expect(noises.length).toBeGreaterThan(1);
    expect(ft.layers.map((l) => l.id).sort()).toEqual([...chooseSensitiveLayers(noises, SHARE)].sort());
    expect(ft.layers.length + ft.unselected!.length).toBe(noises.length);
    expect(ft.sensitive!.concentration).toBe(noiseConcentration(noises));
    const session = async (level: 'all' | 'basic') => {
      const s = await createSession(encode(r.model), 1, level);
      const out = Object.values(await s.run(attentionFeeds[0]))[0];
      await s.release();
      return [...out.data].every(Number.isFinite);
    };
    expect(await session('all')).toBe(true);
    expect(await session('basic')).toBe(true);
  });

  it('measures once for the AdaRound and AdaQuant runs of one plain configuration, writing the same bytes', async () => {
    const algorithm = (a: 'adaround' | 'adaquant') =>
      config({ ...tuning, extraOptions: { FastFinetune: { NumIterations: iterations, OptimAlgorithm: a } } });
    const cache = new SensitivityCache();
    const shared = [];
    for (const a of ['adaround', 'adaquant'] as const)
      shared.push(
        await quantizeWithRecovery(convChainModel(), algorithm(a), {
          runtime,
          calibrate,
          sensitiveShare: 0.5,
          sensitivityCache: cache,
        }),
      );
    expect(cache.measured).toBe(1);
    expect(shared.map((r) => r.recovery.finetune!.sensitive!.shared)).toEqual([false, true]);
    expect(shared[1].recovery.finetune!.sensitive!.layerNoise).toEqual(
      shared[0].recovery.finetune!.sensitive!.layerNoise,
    );
    for (const [i, a] of (['adaround', 'adaquant'] as const).entries()) {
      const alone = await quantizeWithRecovery(convChainModel(), algorithm(a), {
        runtime,
        calibrate,
        sensitiveShare: 0.5,
      });
      expect(alone.recovery.finetune!.algorithm).toBe(a);
      expect(Buffer.from(encode(shared[i].model)).equals(Buffer.from(encode(alone.model)))).toBe(true);
    }
    // Another plain configuration (with CLE) measures again.
    await quantizeWithRecovery(convChainModel(), config({ ...tuning, includeCle: true }), {
      runtime,
      calibrate,
      sensitiveShare: 0.5,
      sensitivityCache: cache,
    });
    expect(cache.measured).toBe(2);
  });
});
