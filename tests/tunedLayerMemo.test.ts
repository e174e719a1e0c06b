/**
 * The memo of tuned layers (tunedLayerMemo.ts, valueFingerprints.ts), run for real in onnxruntime-node: a run that
 * changes the model only downstream of some layers (an exclusion, as the ladder's exclusion search adds one) takes
 * their outcomes from an earlier run and writes the same bytes as a run without the memo; a change upstream of a layer
 * makes it tuned again. And the fingerprints themselves: what a change reaches, and what it does not.
 */
import { describe, expect, it } from 'vitest';
import { encode, makeTensor, DataType, type ModelProto } from '../src/core/onnx/index.ts';
import { validateConfig, type QuantConfigInput } from '../src/core/quantize/config.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { quantizeWithRecovery } from '../src/core/recovery/quantizeWithRecovery.ts';
import { TunedLayerMemo } from '../src/core/recovery/tunedLayerMemo.ts';
import { scopedTensorKey, ValueFingerprints } from '../src/core/recovery/valueFingerprints.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { convChainFeeds, convChainModel, ifConvChainModel } from './helpers/recoverModels.ts';
import type { NodeId } from '../src/core/onnx/model.ts';

const feeds = convChainFeeds(6);
const runtime = nodeRuntime(feeds);

function config(extra: QuantConfigInput) {
  const base = getPreset('XINT8');
  return validateConfig({
    ...base,
    includeFastFt: true,
    includeBiasCorrection: true,
    ...extra,
    extraOptions: { ...base.extraOptions, FastFinetune: { NumIterations: 30 } },
  });
}

const run = (exclude: string[], memo?: TunedLayerMemo) =>
  quantizeWithRecovery(convChainModel(), config({ nodesToExclude: exclude as NodeId[] }), {
    runtime,
    calibrate: async (m) => (await calibrateOnFeeds(m, feeds, { config: getPreset('XINT8') })).ranges,
    tunedLayerMemo: memo,
  });

describe('tuned layers kept across runs', () => {
  it('a run excluding a node takes the layers upstream of it and beside it from the memo, same bytes as without', async () => {
    const memo = new TunedLayerMemo();
    const first = await run([], memo);
    expect(first.recovery.reused).toEqual({ layers: 0, passes: 0 });
    const tunedFirst = first.recovery.finetune!.layers.length;
    expect(tunedFirst).toBe(5);

    // conv5 ends the z branch: every other layer (the y chain and conv4) reads what it read before.
    const fresh = await run(['conv5']);
    const kept = await run(['conv5'], memo);
    expect(encode(kept.model)).toEqual(encode(fresh.model));
    expect(kept.recovery.reused!.layers).toBe(4);
    expect(kept.recovery.reused!.passes).toBe(kept.recovery.stages);
    expect(kept.recovery.finetune!.layers.every((l) => l.reused)).toBe(true);
    expect(kept.recovery.seconds.gather).toBe(0);
    // The same figures as tuning them again.
    expect(kept.recovery.finetune!.layers.map((l) => [l.id, l.lossAfter])).toEqual(
      fresh.recovery.finetune!.layers.map((l) => [l.id, l.lossAfter]),
    );
    expect(kept.recovery.biasCorrection!.layers).toEqual(fresh.recovery.biasCorrection!.layers);
  });

  it('a change upstream of a layer tunes it again: excluding conv1 re-tunes the y chain, conv4 is still kept', async () => {
    const memo = new TunedLayerMemo();
    await run([], memo);
    const fresh = await run(['conv1']);
    const kept = await run(['conv1'], memo);
    expect(encode(kept.model)).toEqual(encode(fresh.model));
    const reused = kept.recovery.finetune!.layers.filter((l) => l.reused).map((l) => l.id);
    expect(reused).toContain('conv4');
    expect(reused).not.toContain('dw2');
    expect(reused).not.toContain('conv3');
    // A pass with a layer to tune still runs; the y chain's layers were gathered again.
    expect(kept.recovery.seconds.gather).toBeGreaterThan(0);
  });
});

describe('value fingerprints', () => {
  const prints = new ValueFingerprints();
  const model = convChainModel();
  const withWeight = (name: string, scale: number): ModelProto => ({
    ...model,
    graph: {
      ...model.graph!,
      initializer: model.graph!.initializer.map((t) => {
        if (t.name !== name) return t;
        const data = new Float32Array(t.raw_data!.slice().buffer);
        return makeTensor(
          name,
          DataType.FLOAT,
          t.dims.map(Number),
          data.map((v) => v * scale),
        );
      }),
    },
  });

  it('a weight changes the tensors computed from it and nothing else', () => {
    const before = prints.of(model);
    for (const t of ['x', 'w1', 'c1', 'r2', 'y', 'c4', 's4', 'm4', 'z'])
      expect(before.get(t)).toMatch(/^\S{32}|^input:/);
    // Asked for one tensor (through the SiLU's diamond c4 → s4 → m4), the same as among all, and only its cone.
    const one = new ValueFingerprints().of(model, ['m4']);
    expect(one.get('m4')).toBe(before.get('m4'));
    expect(one.has('y')).toBe(false);
    const after = prints.of(withWeight('w2', 1.5));
    for (const same of ['x', 'c1', 'r1', 'c4', 's4', 'm4', 'z']) expect(after.get(same)).toBe(before.get(same));
    for (const changed of ['w2', 'c2', 'r2', 'y']) expect(after.get(changed)).not.toBe(before.get(changed));
    // The same weight values again give the same fingerprints.
    expect(prints.of(withWeight('w2', 1))).toEqual(before);
  });

  it('node names do not count; attributes, op types and the order of inputs do', () => {
    const before = prints.of(model);
    const nodes = model.graph!.node;
    const renamed = { ...model, graph: { ...model.graph!, node: nodes.map((n) => ({ ...n, name: `${n.name}_x` })) } };
    expect(prints.of(renamed)).toEqual(before);
    const swap = (f: (n: (typeof nodes)[number]) => (typeof nodes)[number]) =>
      prints.of({
        ...model,
        graph: { ...model.graph!, node: nodes.map((n) => (n.name === 'mul4' || n.name === 'leaky2' ? f(n) : n)) },
      });
    const reordered = swap((n) => (n.name === 'mul4' ? { ...n, input: [...n.input].reverse() } : n));
    expect(reordered.get('m4')).not.toBe(before.get('m4'));
    const alpha = swap((n) =>
      n.name === 'leaky2' ? { ...n, attribute: n.attribute.map((a) => ({ ...a, f: 0.2 })) } : n,
    );
    expect(alpha.get('r2')).not.toBe(before.get('r2'));
    expect(alpha.get('z')).toBe(before.get('z'));
    const op = swap((n) => (n.name === 'leaky2' ? { ...n, op_type: 'Elu' } : n));
    expect(op.get('r2')).not.toBe(before.get('r2'));
  });

  it('inside an If branch: what the branch reads from the main graph and its condition count, the other branch not', () => {
    const ifModel = ifConvChainModel();
    const scale = (name: string, k: number): ModelProto => ({
      ...ifModel,
      graph: {
        ...ifModel.graph!,
        initializer: ifModel.graph!.initializer.map((t) =>
          t.name !== name
            ? t
            : makeTensor(
                name,
                DataType.FLOAT,
                t.dims.map(Number),
                new Float32Array(t.raw_data!.slice().buffer).map((v) => v * k),
              ),
        ),
      },
    });
    const wanted = [
      { scope: 'if/then_branch/', tensor: 'c1' },
      { scope: 'if/then_branch/', tensor: 'y_then' },
      { scope: 'if/else_branch/', tensor: 'y_else' },
    ];
    const of = (m: ModelProto) => new ValueFingerprints().ofScoped(m, wanted);
    const key = (i: number) => scopedTensorKey(wanted[i].scope, wanted[i].tensor);
    const before = of(ifModel);
    for (let i = 0; i < wanted.length; i++) expect(before.get(key(i))).toMatch(/^\S{32}/);
    expect(of(ifModel)).toEqual(before);
    // The then branch's weight from the main graph: its tensors change, the else branch's not.
    const w1 = of(scale('w1', 2));
    expect(w1.get(key(0))).not.toBe(before.get(key(0)));
    expect(w1.get(key(2))).toBe(before.get(key(2)));
    // The else branch's weight: the then branch's tensors stay.
    const we = of(scale('we', 2));
    expect(we.get(key(1))).toBe(before.get(key(1)));
    expect(we.get(key(2))).not.toBe(before.get(key(2)));
    // The condition (which samples run a branch): every branch tensor changes.
    const floor = of(scale('floor', 0.5));
    for (let i = 0; i < wanted.length; i++) expect(floor.get(key(i))).not.toBe(before.get(key(i)));
    // A scope that is no If branch has none.
    expect(
      new ValueFingerprints()
        .ofScoped(ifModel, [{ scope: 'nowhere/', tensor: 'c1' }])
        .get(scopedTensorKey('nowhere/', 'c1')),
    ).toBeNull();
  });
});
