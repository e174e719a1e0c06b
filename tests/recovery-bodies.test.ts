/**
 * The recovery steps on a model whose compute is inside an If (as Silero VAD's opset-18 export keeps it), with
 * EnableSubgraph, run for real in onnxruntime-node: CLE equalizes the pairs inside the branch, bias correction and
 * fine-tuning treat the branch's layers; a step that leaves layers inside the bodies untreated says so by count, in the quantization report's warnings (what `qstudio quantize` prints and the page's report lists) and in the
 * recovery report (what the page's rung row shows); every written model loads at 'all' and 'basic' and passes
 * onnx.checker.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decode, encode, type ModelProto } from '../src/core/onnx/index.ts';
import { validateConfig, type QuantConfigInput } from '../src/core/quantize/config.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { quantizeWithRecovery } from '../src/core/recovery/quantizeWithRecovery.ts';
import { findLinearLayers } from '../src/core/recovery/linearLayers.ts';
import { TunedLayerMemo } from '../src/core/recovery/tunedLayerMemo.ts';
import type { NodeId } from '../src/core/onnx/model.ts';
import { chooseSensitiveLayers, measureAddedNoise } from '../src/core/recovery/sensitiveLayers.ts';
import { crossLayerEqualize } from '../src/core/recovery/cle.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { createSession, nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { recoveryFacts } from '../workers/recovery/rungSummary.ts';
import { convChainFeeds, ifCapturedConvModel, ifConvChainModel } from './helpers/recoverModels.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { npyBytes } from './helpers/npyFiles.ts';
import { compareRuns, outputsOf } from './helpers/smallModels.ts';
import { qstudio } from './helpers/qstudio.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-recovery-bodies-'));
const feeds = convChainFeeds(6);
const runtime = nodeRuntime(feeds);

function config(extra: QuantConfigInput) {
  const base = getPreset('A8W8');
  return validateConfig({
    ...base,
    ...extra,
    extraOptions: { ...base.extraOptions, EnableSubgraph: true, ...(extra.extraOptions ?? {}) },
  });
}

const recover = (extra: QuantConfigInput) => {
  const c = config(extra);
  return quantizeWithRecovery(ifConvChainModel(), c, {
    runtime,
    calibrate: async (m) => (await calibrateOnFeeds(m, feeds, { config: c })).ranges,
  });
};

async function loadsEverywhere(name: string, m: ModelProto): Promise<void> {
  const file = path.join(tmp, `${name}.onnx`);
  fs.writeFileSync(file, encode(m));
  for (const level of ['all', 'basic'] as const) {
    const session = await createSession(encode(m), 1, level);
    try {
      const y = (await session.run(feeds[0])).y.data as Float32Array;
      expect(y).toHaveLength(6 * 12 * 12);
      expect([...y].every(Number.isFinite)).toBe(true);
    } finally {
      await session.release();
    }
  }
  for (const v of checkModels([file])) expect(v.ok, v.error).toBe(true);
}

describe('recovery steps and the layers inside If/Loop/Scan bodies', () => {
  it('bias correction and fine-tuning treat the layers inside the If branch; a bias-less one is counted', async () => {
    const plain = await recover({});
    const r = await recover({
      includeBiasCorrection: true,
      includeFastFt: true,
      extraOptions: { FastFinetune: { NumIterations: 20 } },
    });
    expect(r.recovery.biasCorrection?.layers.map((l) => l.id)).toEqual([
      'if/then_branch/conv1',
      'if/then_branch/dw2',
      'if/then_branch/conv3',
    ]);
    expect(r.recovery.finetune?.layers.map((l) => l.id)).toEqual([
      'if/then_branch/conv1',
      'if/then_branch/dw2',
      'if/then_branch/conv3',
    ]);
    expect(r.recovery.finetune!.lossAfter).toBeLessThan(r.recovery.finetune!.lossBefore);
    // The else branch no sample ran: nothing to learn from.
    expect(r.recovery.skippedLayers).toEqual([
      {
        id: 'if/else_branch/conv_else',
        reason: 'no calibration sample ran its branch (or not the same samples in the float and quantized models)',
      },
    ]);
    const w = r.report.warnings.find((x) => x.startsWith('recovery steps left inside control flow'));
    expect(w).toMatch(/bias correction 1 layer inside/);
    expect(w).toContain('if/else_branch/conv_else');
    expect(r.recovery.untreatedInBodies?.steps.map((s) => [s.step, s.ids.length])).toEqual([['bias correction', 1]]);
    expect(recoveryFacts(r.recovery).bodyWarning).toBe(w);
    await loadsEverywhere('bias-finetune', r.model);
    // Held out, the output's mean shift per channel (what bias correction removes) shrinks.
    const held = convChainFeeds(4, 71);
    const shift = async (m: ModelProto) => {
      const sums = new Float64Array(6);
      for (const f of held) {
        const [q, fl] = [await outputsOf(m, f), await outputsOf(ifConvChainModel(), f)];
        for (let k = 0; k < q.y.data.length; k++) sums[Math.floor(k / 144)] += q.y.data[k] - fl.y.data[k];
      }
      return sums.reduce((a, v) => a + Math.abs(v), 0) / (held.length * 144);
    };
    expect(await shift(r.model)).toBeLessThan((await shift(plain.model)) * 0.5);
  });

  it('fine-tuning only the sensitive layers measures and chooses the If branch layers by scoped id', async () => {
    const plain = await recover({});
    const noises = await measureAddedNoise(
      plain.floatModel,
      plain.model,
      findLinearLayers(plain.floatModel, plain.model, { bodies: true }).layers.map((l) => l.id),
      runtime,
    );
    const ids = ['if/then_branch/conv1', 'if/then_branch/dw2', 'if/then_branch/conv3'];
    // The then branch's layers are measured (a figure each, where the main graph's alone were before).
    expect(noises.map((n) => n.id)).toEqual([...ids, 'if/else_branch/conv_else']);
    for (const id of ids) expect(noises.find((n) => n.id === id)!.addedNoise).not.toBe(0);
    const chosen = chooseSensitiveLayers(noises, 0.3);
    expect(chosen.size).toBeLessThan(ids.length);
    const r = await quantizeWithRecovery(
      ifConvChainModel(),
      config({ includeFastFt: true, extraOptions: { FastFinetune: { NumIterations: 20 } } }),
      {
        runtime,
        calibrate: async (m) => (await calibrateOnFeeds(m, feeds, { config: config({}) })).ranges,
        sensitiveShare: 0.3,
      },
    );
    const ft = r.recovery.finetune!;
    expect(ft.sensitive?.layerNoise?.map((n) => n.id)).toEqual(noises.map((n) => n.id));
    expect(ft.layers.map((l) => l.id).sort()).toEqual([...chosen].sort());
    // The branch layers left out keep the plain model's codes.
    const codes = (m: ModelProto) =>
      new Map(findLinearLayers(r.floatModel, m, { bodies: true }).layers.map((l) => [l.id, [...l.codes].join(',')]));
    const [before, after] = [codes(plain.model), codes(r.model)];
    const left = ft.unselected!.map((u) => u.id).filter((id) => ids.includes(id));
    expect(left.length).toBeGreaterThan(0);
    for (const id of left) expect(after.get(id)).toBe(before.get(id));
    await loadsEverywhere('sensitive-branch', r.model);
  });

  it('qstudio quantize --tune-sensitive tunes only the sensitive If branch layers; it goes with --finetune', async () => {
    const model = path.join(tmp, 'if_conv_chain_sensitive.onnx');
    fs.writeFileSync(model, encode(ifConvChainModel()));
    const data = path.join(tmp, 'tensors-sensitive');
    fs.mkdirSync(data, { recursive: true });
    feeds.forEach((f, k) =>
      fs.writeFileSync(path.join(data, `${k}.npy`), npyBytes(f.x.data as Float32Array, [1, 3, 12, 12], '<f4')),
    );
    const out = path.join(tmp, 'sensitive.onnx');
    const base = ['--calib', data, '--config', 'A8W8', '--enable-subgraph', '-o', out];
    const tuning = ['--finetune', 'adaround', '--finetune-iterations', '20'];
    const run = qstudio('quantize', model, ...base, ...tuning, '--tune-sensitive', '0.3');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('sensitive layers (share 0.3): 3 left at nearest rounding (if/then_branch/');
    const summary = JSON.parse(fs.readFileSync(path.join(tmp, 'sensitive.json'), 'utf8'));
    expect(summary.recovery.finetune.layers.map((l: { id: string }) => l.id)).toEqual(['if/then_branch/dw2']);
    await loadsEverywhere('cli-sensitive', decode(fs.readFileSync(out)));
    const alone = qstudio('quantize', model, ...base, '--tune-sensitive', '0.3');
    expect(alone.code).not.toBe(0);
    expect(alone.stderr).toContain('--tune-sensitive goes with --finetune');
  });

  it('the memo of tuned layers takes the If branch layers a change leaves alone, same bytes as tuning them again', async () => {
    const tuning = {
      includeBiasCorrection: true,
      includeFastFt: true,
      extraOptions: { FastFinetune: { NumIterations: 20 } },
    };
    const run = (exclude: string[], memo?: TunedLayerMemo) => {
      const c = config({ ...tuning, nodesToExclude: exclude as NodeId[] });
      return quantizeWithRecovery(ifConvChainModel(), c, {
        runtime,
        calibrate: async (m) => (await calibrateOnFeeds(m, feeds, { config: c })).ranges,
        tunedLayerMemo: memo,
      });
    };
    const memo = new TunedLayerMemo();
    expect((await run([], memo)).recovery.reused).toEqual({ layers: 0, passes: 0 });
    // Run again: every tuned branch layer is kept; the passes of dw2 and conv3 are not run (conv1's pass also holds
    // the else branch's layer, which no sample ran: nothing kept, its pass runs again).
    const again = await run([], memo);
    expect(again.recovery.stages).toBe(3);
    expect(again.recovery.reused).toEqual({ layers: 3, passes: 2 });
    // conv3 ends the branch: conv1 and dw2 read what they read before; excluding conv1 changes what both others read.
    for (const [exclude, kept] of [
      ['if/then_branch/conv3', ['if/then_branch/conv1', 'if/then_branch/dw2']],
      ['if/then_branch/conv1', []],
    ] as const) {
      const fresh = await run([exclude]);
      const r = await run([exclude], memo);
      expect(encode(r.model)).toEqual(encode(fresh.model));
      expect(r.recovery.finetune!.layers.filter((l) => l.reused).map((l) => l.id)).toEqual(kept);
      expect(r.recovery.finetune!.layers.map((l) => [l.id, l.lossAfter])).toEqual(
        fresh.recovery.finetune!.layers.map((l) => [l.id, l.lossAfter]),
      );
    }
  });

  it("a branch layer reading a main-graph tensor its If does not list is tuned in a pass after that tensor's layer", async () => {
    const c = config({ includeFastFt: true, extraOptions: { FastFinetune: { NumIterations: 10 } } });
    const r = await quantizeWithRecovery(ifCapturedConvModel(), c, {
      runtime,
      calibrate: async (m) => (await calibrateOnFeeds(m, feeds, { config: c })).ranges,
    });
    // conv0 first, alone; the branch's conv1 (and the else branch's layer, which no sample ran) in the next pass.
    expect(r.recovery.stages).toBe(2);
    expect(r.recovery.finetune!.layers.map((l) => l.id)).toEqual(['conv0', 'if/then_branch/conv1']);
    expect(r.recovery.skippedLayers.map((l) => l.id)).toEqual(['if/else_branch/conv_else']);
  });

  it('CLE equalizes the pairs inside the If (a branch Constant weight rewritten in place) and keeps the float function', async () => {
    const model = ifConvChainModel();
    const cle = { steps: 1, totalDiffThreshold: 0, scaleAppendBias: true };
    expect(crossLayerEqualize(model, cle).report.pairs).toEqual([]);
    const { model: equalized, report } = crossLayerEqualize(model, { ...cle, bodies: true });
    expect(report.pairs.map((p) => `${p.first} → ${p.second}`)).toEqual([
      'if/then_branch/conv1 → if/then_branch/dw2',
      'if/then_branch/dw2 → if/then_branch/conv3',
    ]);
    expect(report.worstChannelSpread.after).toBeLessThan(report.worstChannelSpread.before / 5);
    const then = equalized.graph!.node[2].attribute.find((a) => a.name === 'then_branch')!.g!;
    expect(then.node.find((n) => n.name === 'w3_constant')?.op_type).toBe('Constant');
    for (const d of await compareRuns(model, equalized, feeds[0])) {
      expect(d.relative, d.name).toBeLessThan(1e-4);
      expect(d.identical).toBe(false);
    }
  });

  it('qstudio quantize --cle equalizes inside the If: no warning, and the written model is closer to the float one', async () => {
    const model = path.join(tmp, 'if_conv_chain.onnx');
    fs.writeFileSync(model, encode(ifConvChainModel()));
    const data = path.join(tmp, 'tensors');
    fs.mkdirSync(data, { recursive: true });
    feeds.forEach((f, k) =>
      fs.writeFileSync(path.join(data, `${k}.npy`), npyBytes(f.x.data as Float32Array, [1, 3, 12, 12], '<f4')),
    );
    const error: Record<string, number> = {};
    for (const cle of [false, true]) {
      const out = path.join(tmp, cle ? 'cle.onnx' : 'plain.onnx');
      const args = ['--calib', data, '--config', 'A8W8', '--enable-subgraph', ...(cle ? ['--cle'] : []), '-o', out];
      const run = qstudio('quantize', model, ...args);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain('recovery steps left inside control flow');
      if (cle) expect(run.stdout).toContain('CLE: 2 layer pairs equalized');
      const written = decode(fs.readFileSync(out));
      await loadsEverywhere(cle ? 'cli-cle' : 'cli-plain', written);
      const held = convChainFeeds(4, 71);
      let sum = 0;
      for (const f of held) sum += (await compareRuns(ifConvChainModel(), written, f))[0].relative;
      error[String(cle)] = sum / held.length;
    }
    expect(error.true).toBeLessThan(error.false * 0.8);
  });
});
