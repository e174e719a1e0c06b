/**
 * The ladder's mixed-precision rung aims at a task target (issue 31): with `--target map50:…` its search and its
 * growth measure the detector's mAP@0.5 on the held-in photos (their own task reading, as qstudio ladder and the page
 * wire it: heldInTask), not a cosine standing in for it. Real UltraFace on three photos, onnxruntime-node.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IMAGES, MODELS } from './helpers/fixtures.ts';
import { decode } from '../src/core/onnx/index.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { ladderMeasures, type LadderRuntime } from '../src/core/recovery/ladderMeasure.ts';
import type { Rung } from '../src/core/recovery/ladder.ts';
import type { GrowthStep } from '../src/core/search/precisionGrowth.ts';
import type { SampleRun } from '../src/core/recovery/targetMeasure.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { folderFeeds } from '../src/cli/data/dataFeeds.ts';
import { nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { taskTargetArgument } from '../src/cli/taskTargetArgument.ts';

describe("the ladder's mixed-precision rung with a task target", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-mixed-rung-task-'));
  const photos = path.join(tmp, 'photos');
  fs.mkdirSync(photos);
  for (const f of ['grace_hopper.jpg', 'astronaut.png', 'face.png'])
    fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(photos, f));
  const file = path.join(MODELS, 'ultraface-rfb-320.onnx');
  const model = decode(fs.readFileSync(file));
  const data = folderFeeds(model, photos, 'ultraface');
  const rung: Rung = {
    index: 1,
    label: 'XINT8 + mixed precision',
    step: 'ours',
    recipe: { preset: 'XINT8', perChannel: false, cle: false, finetune: null, exclusions: false, mixedPrecision: true },
  };

  it('the search and the growth measure map50 on the held-in photos; without that reading, a cosine (no growth)', async () => {
    const target = { metric: 'map50' as const, value: 1 };
    const judge = await taskTargetArgument({ task: 'auto' }, target, model, 'ultraface-rfb-320.onnx', data, 'basic');
    const heldIn = await taskTargetArgument(
      { task: 'auto' },
      target,
      model,
      'ultraface-rfb-320.onnx',
      data,
      'basic',
      '--data',
      data,
    );
    expect(judge!.heldInTask).toBeUndefined();
    expect(heldIn!.heldInTask).toBeDefined();
    // Every figure the held-in reading gave, to find the growth's scores among them.
    const given: number[] = [];
    const heldInTask = (runs: readonly SampleRun[]) => {
      const f = heldIn!.heldInTask!(runs);
      given.push(f.map50);
      return f;
    };
    const growth: GrowthStep[] = [];
    const runtime = (task?: typeof heldInTask): LadderRuntime => ({
      model,
      calibrate: async (m, config) => (await calibrateOnFeeds(m, data.feeds, { config })).ranges,
      tuning: nodeRuntime(data.feeds),
      evaluation: nodeRuntime(data.feeds),
      task: judge!.task,
      ...(task ? { heldInTask: task } : {}),
      onGrowth: (_r, s) => growth.push(s),
    });
    // A short budget: the search ends at its share of it, the growth at its own (a few sizes each).
    const limits = { secondsLeft: 30 };
    const withTask = await ladderMeasures(runtime(heldInTask), 'map50').mixed!(
      getPreset('XINT8'),
      target,
      rung,
      limits,
    );
    const detail = withTask.detail as { mixedPrecision: { metric: string; steps: unknown[] }; growth?: unknown };
    expect(detail.mixedPrecision.metric).toBe('map50');
    expect(given.length).toBeGreaterThan(0);
    expect(growth.length).toBeGreaterThan(0);
    for (const s of growth) {
      expect(given).toContain(s.score);
      expect(s.score).toBeGreaterThanOrEqual(0);
      expect(s.score).toBeLessThanOrEqual(1);
      expect(s.metrics.map50).toBe(s.score);
      expect(s.metrics.cosine).toBeGreaterThan(0.9);
      expect(s.met).toBe(s.score >= 1);
    }
    // The rung's own figure is the evaluation's map50 (the judge's task reading).
    expect(withTask.metrics.map50).toBe(withTask.score);

    growth.length = 0;
    const without = await ladderMeasures(runtime(), 'map50').mixed!(getPreset('XINT8'), target, rung, limits);
    expect((without.detail as { mixedPrecision: { metric: string } }).mixedPrecision.metric).toBe('cosine');
    expect((without.detail as { growth?: unknown }).growth).toBeUndefined();
    expect(growth).toHaveLength(0);
  }, 240_000);
});
