/**
 * A mixed-precision rung that the time budget's deadline or a Cancel stops part-way keeps what its search measured
 * (issue 36, point 1): the rung ends measured, with its held-out figure and a note that it was stopped early, instead
 * of failing as cancelled with its search thrown away. Real mnist on photos, onnxruntime-node; the abort is the
 * climb's own signal, set as the deadline sets it, after the search has measured some configurations.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { IMAGES, MODELS } from './helpers/fixtures.ts';
import { decode, encode } from '../src/core/onnx/index.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { ladderMeasures, type LadderRuntime, type RungDetail } from '../src/core/recovery/ladderMeasure.ts';
import type { Rung } from '../src/core/recovery/ladder.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { folderFeeds } from '../src/cli/data/dataFeeds.ts';
import { nodeRuntime } from '../src/cli/runtime/ortNode.ts';

describe('a mixed-precision rung stopped part-way', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-mixed-stopped-'));
  const calib = path.join(tmp, 'calib');
  const held = path.join(tmp, 'held');
  fs.mkdirSync(calib);
  fs.mkdirSync(held);
  for (const f of ['grace_hopper.jpg', 'astronaut.png', 'camera.png', 'face.png'])
    fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(calib, f));
  for (const f of ['chelsea.png', 'coffee.png']) fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(held, f));
  const model = decode(fs.readFileSync(path.join(MODELS, 'mnist.onnx')));
  const tuning = folderFeeds(model, calib, 'unit');
  const evaluation = folderFeeds(model, held, 'unit');
  const rung: Rung = {
    index: 1,
    label: 'Mixed precision (XINT8)',
    step: 'ours',
    recipe: { preset: 'XINT8', perChannel: false, cle: false, finetune: null, exclusions: false, mixedPrecision: true },
  };
  /**
   * The rung toward an unreachable cosine, its signal aborted (as the deadline does, or a Cancel: `budget` false) once
   * `stopAt` says so: at a search measurement (`done`), a growth size, or a phase of the final judgement.
   */
  const climb = async (
    stopAt: (p: { done: number } | { growth: number } | { phase: string }) => boolean,
    budget = true,
  ) => {
    const signal = { aborted: false, budgetSpent: false };
    const stop = () => {
      signal.budgetSpent = budget;
      signal.aborted = true;
    };
    let growth = 0;
    const rt: LadderRuntime = {
      model,
      calibrate: async (m, config) => (await calibrateOnFeeds(m, tuning.feeds, { config })).ranges,
      tuning: nodeRuntime(tuning.feeds),
      evaluation: nodeRuntime(evaluation.feeds),
      signal,
      onProgress: (_r, p) => {
        if ('done' in p && p.phase === 'mixed' ? stopAt({ done: p.done }) : stopAt({ phase: p.phase })) stop();
      },
      onGrowth: () => {
        if (stopAt({ growth: ++growth })) stop();
      },
    };
    return ladderMeasures(rt, 'cosine', { precisionBudget: { act16: 0.5, w16: 0.5, float: 0.25 } }).mixed!(
      getPreset('XINT8'),
      { metric: 'cosine', value: 1 },
      rung,
    );
  };

  /** The rung's model loads and runs in onnxruntime-node at default options and at 'basic', with finite outputs. */
  const runs = async (detail: RungDetail) => {
    const bytes = encode(detail.quantized);
    for (const graphOptimizationLevel of [undefined, 'basic'] as const) {
      const session = await ort.InferenceSession.create(
        bytes,
        graphOptimizationLevel ? { graphOptimizationLevel } : {},
      );
      const out = await session.run(evaluation.feeds[0]);
      const values = out[session.outputNames[0]].data as Float32Array;
      expect(values.length).toBeGreaterThan(0);
      expect(values.every(Number.isFinite)).toBe(true);
      await session.release();
    }
  };

  it('stopped during its search, keeps the best configuration the search measured, judged held out, with a note', async () => {
    const m = await climb((p) => 'done' in p && p.done >= 5);
    const detail = m.detail as RungDetail;
    const search = detail.mixedPrecision!;
    // The search ended where the signal stopped it, having measured a configuration better than its 8-bit start.
    expect(search.steps.length).toBeLessThan(8);
    expect(search.bestMeasured.units).toBeGreaterThan(0);
    // A configuration it measured (within the budget: not the 6-group block of step 2, over it), better than the start.
    expect(search.steps.map((s) => s.cosine)).toContain(search.bestMeasured.cosine);
    expect(search.bestMeasured.cosine).toBeGreaterThan(search.startCosine);
    // That configuration is the rung's, measured on the held-out samples: a real figure, not the search's.
    const overrides = Object.keys(m.config!.extraOptions.TensorQuantOverrides);
    // Units are activation groups, weights and nodes: a group may hold several tensors.
    expect(overrides.length + m.config!.nodesToExclude.length).toBeGreaterThanOrEqual(search.bestMeasured.units);
    expect(m.config!.extraOptions.TensorQuantOverrides).toEqual(
      search.bestMeasured.config.extraOptions.TensorQuantOverrides,
    );
    expect(Number.isFinite(m.score)).toBe(true);
    expect(m.metrics.cosine).toBe(m.score);
    expect(detail.comparison.samples).toBe(evaluation.feeds.length);
    expect(m.stoppedEarly).toMatch(/^the time budget ran out during it: kept the search's best configuration measured/);
    await runs(detail);
  }, 240_000);

  it("stopped during its growth, keeps the growth's best set; not stopped, it is measured as before, with no note", async () => {
    const m = await climb((p) => 'growth' in p && p.growth >= 1);
    const detail = m.detail as RungDetail;
    expect(detail.growth!.steps).toHaveLength(1);
    expect(m.config!.extraOptions.TensorQuantOverrides).toEqual(
      detail.growth!.config.extraOptions.TensorQuantOverrides,
    );
    expect(Number.isFinite(m.score)).toBe(true);
    expect(m.stoppedEarly).toMatch(/kept the growth's best 16-bit set/);
    await runs(detail);

    const whole = await climb(() => false);
    expect(whole.stoppedEarly).toBeUndefined();
    expect(whole.config!.extraOptions.TensorQuantOverrides).toEqual(
      (whole.detail as RungDetail).growth!.config.extraOptions.TensorQuantOverrides,
    );
    await runs(whole.detail as RungDetail);
  }, 240_000);

  it('cancelled in its final judgement (the recalibration), keeps the growth set instead of failing', async () => {
    const m = await climb((p) => 'phase' in p && p.phase === 'calibrate', false);
    const detail = m.detail as RungDetail;
    expect(detail.growth!.steps.length).toBeGreaterThan(0);
    expect(m.config!.extraOptions.TensorQuantOverrides).toEqual(
      detail.growth!.config.extraOptions.TensorQuantOverrides,
    );
    expect(Number.isFinite(m.score)).toBe(true);
    expect(m.stoppedEarly).toMatch(/^cancelled during it: kept the growth's best 16-bit set/);
    await runs(detail);
  }, 240_000);
});
