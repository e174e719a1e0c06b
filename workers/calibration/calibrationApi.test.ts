import { describe, expect, it, vi } from 'vitest';
import { expose, proxy, transfer, wrap, type Remote } from 'comlink';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { validateConfig } from '../../src/core/quantize/config.ts';
import { getPreprocessPreset } from '../../src/core/preprocess/presets.ts';
import { readModel } from '../../tests/helpers/fixtures.ts';
import { createCalibrationApi, type CalibrationApi, type CalibrationProgress } from './calibrationApi.ts';
import { ModelCalibrator } from '../../src/core/calibrate/run/runner.ts';
import { sampleSource } from '../../src/core/calibrate/run/samples.ts';
import { fakeDecode, fakeImage, fakeImages, nodeWorkerRuntime, rejection } from './testSupport.ts';

const image = fakeImage;
const images = fakeImages;

function buffer(name: string): ArrayBuffer {
  const bytes = readModel(name);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function api(sessions?: { created: number }): CalibrationApi {
  return createCalibrationApi({ runtime: () => nodeWorkerRuntime(sessions), decodeImage: fakeDecode });
}

const unit = getPreprocessPreset('unit');
const minmax = getPreset('U8S8');

describe('calibrationApi', () => {
  it('calibrates mnist on images: a range for the input and every node output, progress up to the end', async () => {
    const a = api();
    const { handle, inputs, observable } = await a.open(buffer('mnist.onnx'), { fileName: 'mnist.onnx' });
    expect(inputs[0]).toMatchObject({ name: 'Input3', shape: [1, 1, 28, 28] });
    const progress: CalibrationProgress[] = [];
    const result = await a.run(handle, { samples: images(5), spec: unit, config: minmax }, (p) => progress.push(p));
    expect(result.used).toBe(5);
    expect(result.skipped).toEqual([]);
    expect(result.method).toBe('MinMax');
    expect(result.passes).toBe(1);
    expect(Object.keys(result.ranges)).toHaveLength(observable);
    const [lo, hi] = result.ranges.Input3;
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThanOrEqual(1);
    expect(progress.at(-1)).toMatchObject({ done: 5, total: 5, pass: 1, passes: 1 });
    expect(progress.at(-1)!.backend?.kind).toBe('native');
  });

  it('skips a corrupt image and names it, and the ranges equal those of the good images alone', async () => {
    const a = api();
    const { handle } = await a.open(buffer('mnist.onnx'), { fileName: 'mnist.onnx' });
    const good = images(3);
    const withBad = [good[0], image('x.jpg', 'random bytes'), good[1], good[2]];
    const result = await a.run(handle, { samples: withBad, spec: unit, config: minmax });
    expect(result.used).toBe(3);
    expect(result.skipped).toEqual([{ file: 'x.jpg', reason: expect.stringContaining('not a readable image') }]);
    const clean = await a.run(handle, { samples: good, spec: unit, config: minmax });
    expect(result.ranges).toEqual(clean.ranges);
  });

  it('refuses an empty sample set by name, and UseRandomData calibrates on random inputs with a warning', async () => {
    const a = api();
    const { handle } = await a.open(buffer('mnist.onnx'), { fileName: 'mnist.onnx' });
    expect((await rejection(a.run(handle, { samples: [], spec: unit, config: minmax }))).name).toBe(
      'NoCalibrationDataError',
    );
    const random = validateConfig({
      ...JSON.parse(JSON.stringify(minmax)),
      extraOptions: { ...minmax.extraOptions, UseRandomData: true },
    });
    const result = await a.run(handle, { samples: [], spec: unit, config: random, randomSamples: 3 });
    expect(result.used).toBe(3);
    expect(result.warnings.join(' ')).toContain('random');
    const [lo, hi] = result.ranges.Input3;
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThanOrEqual(1);
    expect(hi).toBeGreaterThan(0.9);
  });

  it('names the failure when every image is corrupt', async () => {
    const a = api();
    const { handle } = await a.open(buffer('mnist.onnx'), { fileName: 'mnist.onnx' });
    const e = await rejection(
      a.run(handle, { samples: [image('a.jpg', 'x'), image('b.jpg', 'y')], spec: unit, config: minmax }),
    );
    expect(e.name).toBe('NoUsableSamplesError');
    expect(e.message).toContain('a.jpg');
  });

  it('refuses a model with custom-domain ops before loading a runtime', async () => {
    const sessions = { created: 0 };
    const e = await api(sessions)
      .open(buffer('negative/custom-domain-op.onnx'), { fileName: 'custom-domain-op.onnx' })
      .then(
        () => {
          throw new Error('expected a rejection');
        },
        (err: Error) => err,
      );
    expect(e.name).toBe('CustomOpsError');
    expect(e.message).toContain('com.microsoft.extensions');
    expect(sessions.created).toBe(0);
  });

  it('a spec that does not fit the input fails before any run, naming the field', async () => {
    const a = api();
    const { handle } = await a.open(buffer('mnist.onnx'), { fileName: 'mnist.onnx' });
    const e = await rejection(a.run(handle, { samples: images(2), spec: { ...unit, mean: [0, 0] }, config: minmax }));
    expect(e.name).toBe('PreprocessError');
    expect(e.message).toContain('mean');
  });

  it('stops with CalibrationCancelledError after cancel, and the next run completes on the same session', async () => {
    const sessions = { created: 0 };
    const a = api(sessions);
    const { handle } = await a.open(buffer('mnist.onnx'), { fileName: 'mnist.onnx' });
    const e = await rejection(
      a.run(handle, { samples: images(20), spec: unit, config: minmax }, () => a.cancel(handle)),
    );
    expect(e.name).toBe('CalibrationCancelledError');
    const result = await a.run(handle, { samples: images(3), spec: unit, config: minmax });
    expect(result.used).toBe(3);
    expect(sessions.created).toBe(1);
  });

  it('a run started right after a cancel waits for the cancelled one, and is not cancelled by it', async () => {
    const a = api();
    const { handle } = await a.open(buffer('mnist.onnx'), { fileName: 'mnist.onnx' });
    let second: Promise<unknown> | null = null;
    const first = a.run(handle, { samples: images(20), spec: unit, config: minmax }, () => {
      if (second) return;
      a.cancel(handle);
      second = a.run(handle, { samples: images(4), spec: unit, config: minmax });
    });
    expect((await rejection(first)).name).toBe('CalibrationCancelledError');
    expect(await second).toMatchObject({ used: 4, skipped: [] });
  });

  it('chunks the exposed tensors when one run exceeds the budget, with the same ranges as one pass', async () => {
    const bytes = readModel('mnist.onnx');
    const { openModel } = await import('../../src/core/onnx/index.ts');
    const model = openModel(bytes).model;
    const { inputs } = openModel(bytes).summary;
    const config = getPreset('XINT8'); // histogram states: the merge-free path must match exactly too
    const source = () => sampleSource(images(4), inputs, unit, fakeDecode);
    const whole = await new ModelCalibrator(model, nodeWorkerRuntime()).calibrate(
      source(),
      config,
      () => false,
      () => undefined,
    );
    const sessions = { created: 0 };
    const chunked = new ModelCalibrator(model, nodeWorkerRuntime(sessions), 8 * 1024);
    const progress: CalibrationProgress[] = [];
    const split = await chunked.calibrate(
      source(),
      config,
      () => false,
      (p) => progress.push(p),
    );
    expect(whole.passes).toBe(1);
    expect(split.passes).toBeGreaterThan(1);
    expect(sessions.created).toBe(1 + split.passes);
    expect(split.used).toBe(4);
    expect(progress.at(-1)).toMatchObject({ done: 4, total: 4, pass: split.passes });
    const { rangesOf } = await import('../../src/core/calibrate/run/statistics.ts');
    expect(rangesOf(split.states)).toEqual(rangesOf(whole.states));
  });

  it('merges the states of two halves into the ranges of the whole', async () => {
    const a = api();
    const { handle } = await a.open(buffer('mnist.onnx'), { fileName: 'mnist.onnx' });
    const all = images(4);
    const whole = await a.run(handle, { samples: all, spec: unit, config: minmax });
    const first = await a.run(handle, { samples: all.slice(0, 2), spec: unit, config: minmax, returnStates: true });
    const second = await a.run(handle, { samples: all.slice(2), spec: unit, config: minmax, returnStates: true });
    expect(a.merge(handle, [first.states!, second.states!])).toEqual(whole.ranges);
  });
});

describe('calibrationApi through comlink (what the page sees)', () => {
  it('takes transferred bytes, reports progress through a proxy, and keeps error names', async () => {
    const { port1, port2 } = new MessageChannel();
    expose(api(), port1 as never);
    const remote: Remote<CalibrationApi> = wrap<CalibrationApi>(port2 as never);
    try {
      const bytes = buffer('mnist.onnx');
      const { handle } = await remote.open(transfer(bytes, [bytes]), { fileName: 'mnist.onnx' });
      expect(bytes.byteLength).toBe(0);
      const seen: number[] = [];
      const result = await remote.run(
        handle,
        { samples: images(2), spec: unit, config: minmax },
        proxy((p: CalibrationProgress) => void seen.push(p.done)),
      );
      expect(result.used).toBe(2);
      // Progress arrives on the proxy's own channel, not necessarily before the result.
      await vi.waitFor(() => expect(seen.at(-1)).toBe(2));
      const e = await rejection(remote.run(handle, { samples: [], spec: unit, config: minmax }));
      expect(e.name).toBe('NoCalibrationDataError');
    } finally {
      port1.close();
      port2.close();
    }
  });
});
