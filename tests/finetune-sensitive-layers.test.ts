/**
 * Fine-tuning only the layers the per-layer sensitivity points at (RecoveryOptions.sensitiveShare,
 * core/recovery/sensitiveLayers.ts), run for real in onnxruntime-node on the small convolution chain: the layers that
 * add the most measured noise are tuned until theirs reach the share, the others keep their nearest-rounded
 * codes, bias correction still reaches every layer, and the written models load and run at onnxruntime's default
 * options ('all') and at 'basic'.
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
  type LayerNoise,
} from '../src/core/recovery/sensitiveLayers.ts';
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
    expect(chainTensors(ids, index).has(one)).toBe(true);
    expect(await measureAddedNoise(plain.floatModel, plain.model, ids, runtime)).toEqual(
      layerNoises(ids, added, index),
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
