import { describe, expect, it } from 'vitest';
import { calibrationPlan, combineProgress } from './calibrationRemote.ts';

describe('calibration workers', () => {
  it.each([
    // samples, cores, model bytes → workers, threads
    [4, 2, 4e6, 1, 2],
    [8, 2, 4e6, 2, 1],
    [100, 8, 4e6, 2, 4],
    [100, 4, 4e6, 2, 2],
    [100, 1, 4e6, 1, 1],
    [100, 8, 500e6, 1, 4],
  ])('%i samples on %i cores (%d bytes): %i workers with %i threads', (samples, cores, bytes, workers, threads) => {
    expect(calibrationPlan(samples, cores, bytes)).toEqual({ workers, threads });
  });

  it('adds the progress of two workers', () => {
    const part = (done: number, ips: number) => ({
      done,
      total: 4,
      imagesPerSecond: ips,
      etaSeconds: 1,
      skipped: [{ file: `f${done}`, reason: 'r' }],
      pass: 1,
      passes: 1,
      backend: null,
    });
    expect(combineProgress([part(2, 1), undefined], 8)).toMatchObject({
      done: 2,
      total: 8,
      imagesPerSecond: 1,
      etaSeconds: 6,
    });
    expect(combineProgress([part(2, 1), part(3, 1)], 8)).toMatchObject({
      done: 5,
      imagesPerSecond: 2,
      etaSeconds: 1.5,
      skipped: [{ file: 'f2' }, { file: 'f3' }],
    });
  });
});

describe('calibration pool (workers replaced by in-process calibration APIs on onnxruntime-node)', async () => {
  const { createCalibrationApi } = await import('../../../workers/calibration/calibrationApi.ts');
  const { createCalibrationPool, RELEASE_AFTER_RUN_BYTES } = await import('./calibrationRemote.ts');
  const { fakeDecode, fakeImage, fakeImages, nodeWorkerRuntime } =
    await import('../../../workers/calibration/testSupport.ts');
  const { getPreset } = await import('../../core/quantize/presets.ts');
  const { getPreprocessPreset } = await import('../../core/preprocess/presets.ts');
  const { readModel } = await import('../../../tests/helpers/fixtures.ts');

  /** A pool whose workers are calibration APIs in this process; records which workers were closed. */
  function pool(cores: number) {
    const closed: number[] = [];
    let spawned = 0;
    const backends: string[] = [];
    const service = createCalibrationPool(
      () => cores,
      (_handle, index, _threads, backend) => {
        spawned++;
        backends.push(backend);
        const api = createCalibrationApi({ runtime: () => nodeWorkerRuntime(), decodeImage: fakeDecode });
        const bytes = readModel('mnist.onnx');
        const handle = api.open(bytes.slice().buffer as ArrayBuffer, { fileName: 'mnist.onnx' }).then((m) => m.handle);
        let open = true;
        return {
          handle,
          connection: {
            call: (fn) =>
              open ? fn(api as never) : Promise.reject(Object.assign(new Error('ended'), { name: 'WorkerError' })),
            close: () => {
              open = false;
              closed.push(index);
            },
          },
        };
      },
    );
    return { service, closed, spawned: () => spawned, backends };
  }

  const request = (samples: ReturnType<typeof fakeImages>) => ({
    samples,
    spec: getPreprocessPreset('unit'),
    config: getPreset('U8S8'),
  });
  const model = { handle: 'model-1', byteLength: 30_000 };

  it('splits eight samples over two workers and merges to the ranges one worker computes', async () => {
    const one = pool(1);
    const two = pool(2);
    const samples = [...fakeImages(7), fakeImage('bad.jpg', 'nope')];
    const single = await one.service.calibrate(model, request(samples), () => undefined);
    const seen: number[] = [];
    const split = await two.service.calibrate(model, request(samples), (p) => seen.push(p.done));
    expect(two.spawned()).toBe(2);
    expect(split.workers).toBe(2);
    expect(split.used).toBe(7);
    expect(split.skipped).toEqual([{ file: 'bad.jpg', reason: expect.stringContaining('not a readable image') }]);
    expect(split.ranges).toEqual(single.ranges);
    expect(Math.max(...seen)).toBe(8);
  });

  it('Sequential over two workers runs round by round and gives exactly the ranges one worker gives; progress goes on across rounds', async () => {
    const { presetWithMethod } = await import('../../core/quantize/presets.ts');
    const sequential = (samples: ReturnType<typeof fakeImages>) => ({
      ...request(samples),
      config: presetWithMethod('A8W8', 'Sequential'),
    });
    const samples = [...fakeImages(9), fakeImage('bad.jpg', 'nope')];
    const single = await pool(1).service.calibrate(model, sequential(samples), () => undefined);
    const seen: { done: number; pass: number }[] = [];
    const split = await pool(2).service.calibrate(model, sequential(samples), (p) =>
      seen.push({ done: p.done, pass: p.pass }),
    );
    expect(split.workers).toBe(2);
    expect(split.used).toBe(9);
    expect(split.skipped).toEqual([{ file: 'bad.jpg', reason: expect.stringContaining('not a readable image') }]);
    expect(split.passes).toBe(single.passes);
    expect(split.ranges).toEqual(single.ranges);
    // Passes after the float one were reported, and the count of samples done never went back.
    expect(Math.max(...seen.map((p) => p.pass))).toBe(single.passes);
    expect(seen.map((p) => p.done)).toEqual(seen.map((p) => p.done).sort((a, b) => a - b));
    expect(seen.at(-1)!.done).toBe(10);
  });

  it('ConsumerMSE with enough samples for two workers gives exactly the ranges one worker gives (its search is not split)', async () => {
    const { presetWithMethod } = await import('../../core/quantize/presets.ts');
    const consumer = (samples: ReturnType<typeof fakeImages>) => ({
      ...request(samples),
      config: presetWithMethod('A8W8', 'ConsumerMSE'),
    });
    const samples = fakeImages(9);
    const single = await pool(1).service.calibrate(model, consumer(samples), () => undefined);
    const split = await pool(2).service.calibrate(model, consumer(samples), () => undefined);
    const minMse = await pool(1).service.calibrate(
      model,
      { ...request(samples), config: presetWithMethod('A8W8', 'MinMSE') },
      () => undefined,
    );
    expect(split.used).toBe(9);
    // The search chose something else than MinMSE somewhere, so this compares the search and not MinMSE twice.
    expect(single.ranges).not.toEqual(minMse.ranges);
    expect(split.ranges).toEqual(single.ranges);
  });

  it('a cancel between the rounds of a split sequential calibration stops it by name; the workers stay', async () => {
    const { presetWithMethod } = await import('../../core/quantize/presets.ts');
    const { service, closed } = pool(2);
    let cancelled = false;
    const run = service.calibrate(
      model,
      { ...request(fakeImages(8)), config: presetWithMethod('A8W8', 'Sequential') },
      (p) => {
        if (p.pass >= 2 && !cancelled) service.cancel();
        cancelled ||= p.pass >= 2;
      },
    );
    await expect(run).rejects.toMatchObject({ name: 'CalibrationCancelledError' });
    expect(closed).toEqual([]);
    expect((await service.calibrate(model, request(fakeImages(8)), () => undefined)).used).toBe(8);
  });

  it('one worker whose share is all corrupt does not fail the run; all corrupt is a named error', async () => {
    const { service } = pool(2);
    const mixed = fakeImages(8).map((s, i) => (i % 2 === 1 ? fakeImage(`bad${i}.jpg`, 'nope') : s));
    expect((await service.calibrate(model, request(mixed), () => undefined)).used).toBe(4);
    const allBad = Array.from({ length: 8 }, (_, i) => fakeImage(`bad${i}.jpg`, 'nope'));
    await expect(service.calibrate(model, request(allBad), () => undefined)).rejects.toMatchObject({
      name: 'NoUsableSamplesError',
    });
  });

  it('a model of a gigabyte or more calibrates in one worker, which is ended after the run (its weights and heap are not kept)', async () => {
    const { service, closed, spawned } = pool(2);
    const large = { handle: 'model-1', byteLength: RELEASE_AFTER_RUN_BYTES };
    expect((await service.calibrate(large, request(fakeImages(8)), () => undefined)).used).toBe(8);
    expect(spawned()).toBe(1);
    expect(closed).toEqual([0]);
    expect((await service.calibrate(large, request(fakeImages(2)), () => undefined)).used).toBe(2);
    expect(spawned()).toBe(2);
    expect(closed).toEqual([0, 0]);
  });

  it('cancel rejects the run by name and keeps the workers; a new model ends them', async () => {
    const { service, closed, spawned } = pool(2);
    let cancelled = false;
    const run = service.calibrate(model, request(fakeImages(40)), () => {
      if (!cancelled) service.cancel();
      cancelled = true;
    });
    await expect(run).rejects.toMatchObject({ name: 'CalibrationCancelledError' });
    expect((await service.calibrate(model, request(fakeImages(8)), () => undefined)).used).toBe(8);
    expect(spawned()).toBe(2);
    expect(closed).toEqual([]);
    await service.calibrate({ handle: 'model-2', byteLength: 30_000 }, request(fakeImages(2)), () => undefined);
    expect(closed.sort()).toEqual([0, 1]);
  });

  it('the runtime switch reaches the workers it makes; another choice replaces them', async () => {
    const { service, closed, backends } = pool(1);
    await service.calibrate(model, request(fakeImages(2)), () => undefined);
    await service.calibrate(model, { ...request(fakeImages(2)), backend: 'auto' as const }, () => undefined);
    expect(backends).toEqual(['auto']);
    await service.calibrate(model, { ...request(fakeImages(2)), backend: 'wasm' as const }, () => undefined);
    expect(backends).toEqual(['auto', 'wasm']);
    expect(closed).toEqual([0]);
  });
});
