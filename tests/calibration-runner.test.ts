/**
 * The one calibration runner (core/calibrate/run/runner.ts) under both runtimes it is given in the product:
 * onnxruntime-node (the command line) and onnxruntime-web's WASM backend (the page's workers; it runs in
 * Node too). On a real detector and real photos: a budget too small for one run splits the tensors into
 * chunks and changes no range, on either runtime; and the two runtimes give the same ranges. The progress's rate at
 * the end is the whole run's (the command's closing line), not the pace after the first sample.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openModel } from '../src/core/onnx/index.ts';
import { ModelCalibrator } from '../src/core/calibrate/run/runner.ts';
import { sampleSource } from '../src/core/calibrate/run/samples.ts';
import { rangesOf } from '../src/core/calibrate/run/statistics.ts';
import { getPreset, presetWithMethod } from '../src/core/quantize/presets.ts';
import { computedTensors, depthGroups } from '../src/core/calibrate/run/sequential.ts';
import { CalibrationCancelledError } from '../src/core/calibrate/errors.ts';
import type { Runtime } from '../src/core/runtime/session.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { ortNodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { calibrateOnImages } from '../src/cli/calibration/calibrateOnImages.ts';
import { createWebRuntime } from '../workers/runtime/ort.ts';
import { FIXTURE_PREPROCESS, PHOTOS } from './helpers/calibration.ts';
import { readModel } from './helpers/fixtures.ts';

const name = 'ultraface-rfb-320.onnx';
const { model, summary } = openModel(readModel(name));
const source = () =>
  sampleSource(
    PHOTOS.slice(0, 1).map((f) => ({ kind: 'image' as const, name: path.basename(f), file: f })),
    summary.inputs,
    FIXTURE_PREPROCESS[name],
    async (f: string) => decodeImageFile(f),
  );

const runtimes: [string, () => Runtime][] = [
  ['onnxruntime-node', () => ortNodeRuntime(1)],
  ['onnxruntime-web (wasm)', () => createWebRuntime('wasm', 1)],
];

async function ranges(runtime: Runtime, preset: string, budget?: number) {
  const calibrator = new ModelCalibrator(model, runtime, budget);
  try {
    const outcome = await calibrator.calibrate(
      source(),
      getPreset(preset),
      () => false,
      () => undefined,
    );
    return {
      ranges: rangesOf(outcome.states),
      passes: outcome.passes,
      used: outcome.used,
      bytes: outcome.runOutputBytes,
    };
  } finally {
    await calibrator.release();
  }
}

describe('the calibration runner on both runtimes', () => {
  const byRuntime = new Map<string, Map<string, { min: number; max: number }>>();

  it.each(runtimes)('%s: chunks under a small budget give exactly the ranges of one pass', async (label, make) => {
    const whole = await ranges(make(), 'XINT8'); // histogram states: chunks must fold them exactly as one pass
    const chunked = await ranges(make(), 'XINT8', Math.ceil(whole.bytes / 2));
    expect(whole.passes).toBe(1);
    expect(chunked.passes).toBeGreaterThanOrEqual(2);
    expect(chunked.used).toBe(1);
    expect(Object.fromEntries(chunked.ranges)).toEqual(Object.fromEntries(whole.ranges));
    byRuntime.set(label, (await ranges(make(), 'U8S8')).ranges);
  });

  it('onnxruntime-node and onnxruntime-web give the same ranges, and the command line the node ones', async () => {
    const node = byRuntime.get('onnxruntime-node')!;
    const cli = await calibrateOnImages(model, PHOTOS.slice(0, 1), {
      spec: FIXTURE_PREPROCESS[name],
      config: getPreset('U8S8'),
    });
    for (const other of [byRuntime.get('onnxruntime-web (wasm)')!, cli.ranges]) {
      expect([...other.keys()].sort()).toEqual([...node.keys()].sort());
      for (const [tensor, r] of node) {
        const o = other.get(tensor)!;
        // Thread counts and builds sum in different orders: agreement to float32 rounding, not bit for bit.
        const tolerance = 1e-5 * Math.max(1, Math.abs(r.min), Math.abs(r.max));
        expect(Math.abs(o.min - r.min), tensor).toBeLessThanOrEqual(tolerance);
        expect(Math.abs(o.max - r.max), tensor).toBeLessThanOrEqual(tolerance);
      }
    }
  });
});

describe('sequential calibration through the one runner', () => {
  it.each(runtimes)(
    '%s: one pass per depth group after the float pass, upstream error absorbed, cancellable',
    async (_label, make) => {
      const config = presetWithMethod('A8W8', 'Sequential');
      const calibrator = new ModelCalibrator(model, make());
      const seen: { pass: number; passes: number; done: number }[] = [];
      try {
        const outcome = await calibrator.calibrate(
          source(),
          config,
          () => false,
          (p) => seen.push({ pass: p.pass, passes: p.passes, done: p.done }),
        );
        const sequential = rangesOf(outcome.states);
        const entropy = rangesOf(
          (
            await calibrator.calibrate(
              source(),
              presetWithMethod('A8W8', 'Entropy'),
              () => false,
              () => undefined,
            )
          ).states,
        );
        const computed = computedTensors(
          model,
          calibrator.observable.filter((t) => !model.graph!.input.some((v) => v.name === t)),
        );
        const groups = depthGroups(model, computed);
        expect(seen.at(-1)).toEqual({ pass: 1 + groups.length, passes: 1 + groups.length, done: 1 });
        expect([...sequential.keys()].sort()).toEqual([...entropy.keys()].sort());
        // The graph input has nothing upstream: the float pass's range.
        const input = model.graph!.input[0].name!;
        expect(sequential.get(input)).toEqual(entropy.get(input));
        // Computed tensors are gathered on the quantized model (where it mixes values); the others keep their float-pass statistics.
        const moved = [...sequential]
          .filter(([t, r]) => r.min !== entropy.get(t)!.min || r.max !== entropy.get(t)!.max)
          .map(([t]) => t);
        expect(moved.filter((t) => !computed.includes(t))).toEqual([]);
        expect(moved.length).toBeGreaterThan(computed.length / 4);
        // Cancelled once the first sequential pass has reported (at the next sample: here the second pass).
        let pass = 0;
        await expect(
          calibrator.calibrate(
            source(),
            config,
            () => pass >= 2,
            (p) => void (pass = p.pass),
          ),
        ).rejects.toBeInstanceOf(CalibrationCancelledError);
        expect(pass).toBe(2);
      } finally {
        await calibrator.release();
      }
    },
    120_000,
  );
});

describe('the rate calibration progress reports', () => {
  it('reads the whole run once every sample is done, as the closing line does, not the pace after the first', async () => {
    // The first sample is slow (as a session's build makes it), the others quick: the two rates are far apart.
    const photos = source();
    const slowFirst = {
      count: 4,
      name: (i: number) => `sample ${i + 1}`,
      produce: async (i: number) => {
        await new Promise((r) => setTimeout(r, i === 0 ? 1500 : 10));
        return photos.produce(0);
      },
    };
    const calibrator = new ModelCalibrator(model, ortNodeRuntime(1));
    const seen: { done: number; imagesPerSecond: number; etaSeconds: number | null }[] = [];
    try {
      const outcome = await calibrator.calibrate(
        slowFirst,
        getPreset('U8S8'),
        () => false,
        (p) => seen.push(p),
      );
      const whole = outcome.used / outcome.seconds;
      const last = seen.filter((p) => p.done === 4);
      expect(last.length).toBeGreaterThan(0);
      for (const p of last) {
        expect(p.imagesPerSecond / whole).toBeGreaterThan(0.9);
        expect(p.imagesPerSecond / whole).toBeLessThan(1.1);
      }
      // While samples are left, the time left is from the pace after the slow first sample: under the whole rate's.
      const third = seen.find((p) => p.done === 3)!;
      expect(third.etaSeconds).not.toBeNull();
      expect(third.imagesPerSecond).toBeGreaterThan(1.3 * whole);
    } finally {
      await calibrator.release();
    }
  });
});
