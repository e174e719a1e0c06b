import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { getPreprocessPreset } from '../../src/core/preprocess/presets.ts';
import { withOptions, type QuantConfig } from '../../src/core/quantize/config.ts';
import { decode } from '../../src/core/onnx/index.ts';
import { createSession, float32Tensor } from '../../src/cli/runtime/ortNode.ts';
import { readModel, seededFloats } from '../../tests/helpers/fixtures.ts';
import { createRecoveryApi, type RecoveryApi, type RecoveryWorkerProgress } from './recoveryApi.ts';
import {
  fakeDecode,
  fakeImage,
  fakeImages,
  pixelClassifier,
  PIXEL_CLASSIFIER_HEAD,
  rejection,
} from '../calibration/testSupport.ts';
import { createWebRuntime } from '../runtime/ort.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';
import { DENSE_A, DENSE_B } from '../../src/core/recovery/denseProduct.ts';

// onnxruntime-web's WASM backend, in Node: the runtime the page's worker uses.
const api = (): RecoveryApi =>
  createRecoveryApi({ runtime: (_p, _t, why) => createWebRuntime('wasm', 1, why), decodeImage: fakeDecode });
const unit = getPreprocessPreset('unit');

/** XINT8 fine-tuned by `algorithm` for `iterations`, a loss logged every step, at the algorithm's own learning rate. */
function withFinetune(algorithm: 'adaround' | 'adaquant', iterations: number): QuantConfig {
  return withOptions(getPreset('XINT8'), {
    includeFastFt: true,
    extraOptions: {
      FastFinetune: { OptimAlgorithm: algorithm, NumIterations: iterations, LogPeriod: 1, LearningRate: undefined },
    },
  });
}

async function openMnist(a: RecoveryApi) {
  return (await a.open(new Uint8Array(readModel('mnist.onnx')).buffer as ArrayBuffer, { fileName: 'mnist.onnx' }))
    .handle;
}

/** A climb of mnist's XINT8 rungs whose AdaQuant runs long enough (2,000 iterations) to be cancelled mid-way. */
const slowClimb = () => ({
  samples: fakeImages(3),
  spec: unit,
  config: withFinetune('adaquant', 2000),
  target: 'cosine:1',
  formats: ['XINT8' as const],
  perChannelRung: false,
  exclusions: false,
});

/** The per-pixel classifier made in code (testSupport's pixelClassifier), opened. */
async function openPixelClassifier(a: RecoveryApi) {
  return (await a.open(pixelClassifier(), { fileName: 'seg.onnx' })).handle;
}

describe('recoveryApi (onnxruntime-web WASM)', () => {
  it('quantizes mnist with AdaRound: loss curves per layer in progress and summary, a model that runs in onnxruntime-node', async () => {
    const a = api();
    const handle = await openMnist(a);
    const events: RecoveryWorkerProgress[] = [];
    const samples = [...fakeImages(4), fakeImage('broken.png', 'not an image')];
    const out = await a.recover(
      handle,
      { samples, spec: unit, config: withFinetune('adaround', 20), configName: 'XINT8' },
      (p) => events.push(p),
    );

    expect(out.used).toBe(4);
    expect(out.skipped).toEqual([{ file: 'broken.png', reason: expect.stringContaining('not a readable image') }]);
    // Where it ran, and why WASM whatever the runtime switch says: the page shows it beside the result.
    expect(out.ranOn).toMatchObject({
      kind: 'wasm',
      threads: 1,
      chosenBecause: expect.stringMatching(/^fine-tuning quantizes and runs the quantized model/),
    });
    const r = out.rung;
    expect(r.label).toBe('XINT8 + AdaRound');
    expect(r.handle).not.toBeNull();
    expect(r.metrics.cosine).toBeGreaterThan(0.9);
    expect(r.metrics.cosine).toBeLessThanOrEqual(1);
    expect(r.finetune!.algorithm).toBe('adaround');
    expect(r.finetune!.layers.length).toBeGreaterThanOrEqual(2); // mnist's Conv and Gemm/MatMul layers
    for (const l of r.finetune!.layers) {
      expect(l.curve.length).toBeGreaterThan(1);
      expect(l.lossAfter).toBeLessThanOrEqual(l.lossBefore); // a worse result is not kept
    }
    const phases = new Set(events.map((e) => e.phase));
    for (const p of ['decoding', 'prepare', 'calibrate', 'quantize', 'gather', 'layer', 'evaluate'])
      expect(phases, p).toContain(p);
    const layers = events.filter((e) => e.phase === 'layer');
    expect(layers.at(-1)!.layer).toMatchObject({ done: r.finetune!.layers.length, total: r.finetune!.layers.length });
    expect(layers.some((e) => (e.layer!.curve?.length ?? 0) > 1)).toBe(true);

    const picked = a.pick(r.handle!);
    expect(decode(new Uint8Array(picked.bytes)).graph!.node.some((n) => n.op_type === 'DequantizeLinear')).toBe(true);
    const session = await createSession(new Uint8Array(picked.bytes));
    const outputs = await session.run({
      [session.inputNames[0]]: float32Tensor(seededFloats(28 * 28, 3), [1, 1, 28, 28]),
    });
    expect(Object.values(outputs)[0].dims).toEqual([1, 10]);
    await session.release();

    // A new run replaces the last one's models: the old handle is gone, by name.
    const again = await a.recover(handle, {
      samples: fakeImages(2),
      spec: unit,
      config: getPreset('XINT8'),
      configName: 'XINT8',
    });
    expect(again.rung.label).toBe('XINT8');
    expect(again.rung.finetune).toBeNull();
    expect(() => a.pick(r.handle!)).toThrow(expect.objectContaining({ name: 'UnknownHandleError' }));
  });

  it('climbs one format with an unreachable target: every rung measured with numbers and a model, the best chosen, a report with the ladder', async () => {
    const a = api();
    const handle = await openMnist(a);
    const finished: RecoveryWorkerProgress[] = [];
    const out = await a.ladder(
      handle,
      {
        samples: fakeImages(3),
        evaluationSamples: fakeImages(2),
        spec: unit,
        config: withFinetune('adaround', 3),
        target: 'cosine:1',
        formats: ['XINT8'],
        perChannelRung: false,
        exclusions: false,
        mixedPrecision: false,
        finetuneReach: 1,
      },
      (p) => p.phase === 'rung-done' && finished.push(p),
    );
    // MNIST has no pair CLE can equalize, so there is no CLE rung.
    expect(out.rungs.map((r) => r.label)).toEqual(['XINT8', 'XINT8 + AdaRound', 'XINT8 + AdaQuant']);
    expect(out.stopped).toBe('exhausted');
    expect(out.evaluated).toBe(2);
    expect(out.ranOn?.kind).toBe('wasm');
    expect(finished.map((p) => p.finished!.index)).toEqual([1, 2, 3]);
    // Every rung is measured (AdaQuant's new biases are int32 through a DequantizeLinear, so opset 10 runs them).
    const measured = out.rungs.filter((r) => r.error === null);
    expect(measured).toHaveLength(3);
    for (const r of out.rungs) {
      expect(r.met).toBe(false);
      if (r.error) {
        expect(r.handle).toBeNull();
        expect(r.score).toBeNaN();
        continue;
      }
      expect(r.handle).not.toBeNull();
      expect(r.metrics.cosine).toBeGreaterThan(0.8);
      expect(r.score).toBe(r.metrics.cosine);
    }
    const best = Math.max(...measured.map((r) => r.score));
    expect(out.rungs[out.chosen].score).toBe(best);
    expect(out.rungs[1].finetune!.algorithm).toBe('adaround');
    expect(out.rungs[2].error ?? out.rungs[2].finetune!.algorithm).toMatch(/adaquant|Error/);

    const report = await a.ladderReport(out.handle, 0);
    expect(report.ladder!.rungs).toHaveLength(3);
    // MNIST's XINT8 weights could saturate x86 kernels without VNNI; the page's ladder names that rung as skipped,
    // since onnxruntime-web's WASM kernels were measured exact (tests/wasm-int8-saturation.test.ts)
    expect(report.ladder!.skipped!.map((k) => k.label)).toEqual(['XINT8 + CLE', 'XINT8 + saturation-safe weights']);
    expect(report.ladder!.skipped![1].reason).toMatch(/WASM/);
    expect(report.ladder!.order).toBe('eight-bit-first');
    expect(out.order).toBe('eight-bit-first');
    expect(out.skippedRungs.map((k) => k.label)).toEqual(report.ladder!.skipped!.map((k) => k.label)); // the page lists them as the report does
    expect(report.ladder!.chosen).toBe(0);
    expect(report.config!.name).toBe('XINT8');
    expect(report.outputs[0].metrics.cosine!.mean).toBeCloseTo(out.rungs[0].metrics.cosine, 10);
  });

  it('a cancel stops the climb with the rungs measured so far', async () => {
    const a = api();
    const handle = await openMnist(a);
    const run = a.ladder(handle, slowClimb(), (p) => {
      if (p.phase === 'layer' || (p.phase === 'rung-done' && p.finished!.index === 2)) a.cancel(handle);
    });
    const out = await run;
    expect(out.stopped).toBe('cancelled');
    expect(out.rungs.length).toBeGreaterThanOrEqual(2);
    expect(out.rungs.length).toBeLessThan(4);
  });

  it('a cancel that arrives as a message (a later task, as from the page) during screening rungs stops the rung in flight, not a fine-tuning rung later', async () => {
    const a = api();
    const handle = await openMnist(a);
    // XINT8 and A8W8 with their variants: screening rungs (a calibration and an evaluation each) before any fine-tuning.
    const out = await a.ladder(handle, { ...slowClimb(), formats: ['XINT8', 'A8W8'] }, (p) => {
      if (p.phase === 'rung-done' && p.finished!.index === 1) setTimeout(() => a.cancel(handle), 0);
    });
    expect(out.stopped).toBe('cancelled');
    // Rung 2 was in flight when the cancel came (or had just ended): nothing after it started.
    expect(out.rungs.length).toBeLessThanOrEqual(2);
    expect(out.rungs.every((g) => !g.finetune)).toBe(true);
  });

  it('after a cancel every finished rung still picks (a model that decodes) and the report, by the handle progress gave from the start, lists them', async () => {
    const a = api();
    const handle = await openMnist(a);
    let live: string | undefined;
    const seen: RecoveryWorkerProgress[] = [];
    const out = await a.ladder(handle, { ...slowClimb(), timeBudget: 3600 }, (p) => {
      seen.push(p);
      live ??= p.ladder;
      if (p.phase === 'layer') a.cancel(handle);
    });
    expect(out.stopped).toBe('cancelled');
    expect(live).toBe(out.handle);
    const finished = out.rungs.filter((g) => g.handle !== null);
    expect(finished.length).toBeGreaterThanOrEqual(1);
    for (const g of finished) expect(a.pick(g.handle!).bytes.byteLength).toBeGreaterThan(1000);
    const report = await a.ladderReport(live!);
    expect(report.ladder!.stopped).toBe('cancelled');
    expect(report.ladder!.rungs.map((g) => g.label)).toEqual(out.rungs.map((g) => g.label));
    expect(report.quantizedModel).not.toBeNull();
    // Progress said which rung of at most how many, its estimate and why it came.
    const first = seen.find((p) => p.rung)!.rung!;
    expect(first.index).toBe(1);
    expect(first.of).toBeGreaterThanOrEqual(out.rungs.length);
    expect(first.estimate!.seconds).toBeGreaterThan(0);
    expect(first.why).toMatch(/^screening XINT8/);
  });

  it('names what is wrong: no calibration images, a bad target, a cancelled single run', async () => {
    const a = api();
    const handle = await openMnist(a);
    expect(
      (
        await rejection(
          a.recover(handle, { samples: [], spec: unit, config: withFinetune('adaround', 2), configName: 'XINT8' }),
        )
      ).name,
    ).toBe('NoRecoveryDataError');
    expect(
      (
        await rejection(
          a.ladder(handle, { samples: fakeImages(1), spec: unit, config: getPreset('XINT8'), target: 'ssim:0.9' }),
        )
      ).name,
    ).toBe('LadderTargetError');
    const run = a.recover(
      handle,
      { samples: fakeImages(2), spec: unit, config: withFinetune('adaquant', 5000), configName: 'XINT8' },
      (p) => {
        if (p.phase === 'gather') a.cancel(handle);
      },
    );
    expect((await rejection(run)).name).toBe('RecoveryCancelledError');
  });

  it("builds the layer problems on the runtime's float64 MatMul: one session for every layer and run of the model", async () => {
    const web = createWebRuntime('wasm', 1);
    const dense = { sessions: 0, runs: 0 };
    const counting: Runtime = {
      async createSession(bytes, purpose) {
        const opened = await web.createSession(bytes, purpose);
        if (opened.runner.inputNames.join() !== [DENSE_A, DENSE_B].join()) return opened;
        dense.sessions++;
        const run: typeof opened.runner.run = (feeds, fetches) => (dense.runs++, opened.runner.run(feeds, fetches));
        return { ...opened, runner: { ...opened.runner, run } };
      },
    };
    const a = createRecoveryApi({ runtime: () => counting, decodeImage: fakeDecode });
    const handle = await openMnist(a);
    for (const algorithm of ['adaround', 'adaquant'] as const) {
      const out = await a.recover(handle, {
        samples: fakeImages(4),
        spec: unit,
        config: withFinetune(algorithm, 3),
        configName: 'XINT8',
      });
      expect(out.rung.finetune!.layers.length).toBeGreaterThanOrEqual(2);
    }
    expect(dense.sessions).toBe(1);
    expect(dense.runs).toBeGreaterThan(1 + 3); // the check, then mnist's second Conv (k = 201 over 4 × 196 rows) in each run
  });

  it("a task target (miou) measured through the page's task head on the evaluation images; without a head, a named error", async () => {
    const a = api();
    const handle = await openPixelClassifier(a);
    const base = {
      samples: fakeImages(3),
      spec: unit,
      config: getPreset('XINT8'),
      formats: ['XINT8' as const],
      perChannelRung: false,
      exclusions: false,
      mixedPrecision: false,
    };
    const out = await a.ladder(handle, {
      ...base,
      target: 'miou:0.5',
      task: PIXEL_CLASSIFIER_HEAD,
    });
    expect(out.stopped).toBe('target');
    const rung = out.rungs[0];
    expect(rung.metrics.miou).toBe(rung.score);
    expect(rung.score).toBeGreaterThan(0.5);
    expect(rung.score).toBeLessThanOrEqual(1);
    expect(rung.metrics.cosine).toBeGreaterThan(0.9);
    const noHead = await rejection(a.ladder(handle, { ...base, target: 'miou:0.5', task: null }));
    expect(noHead.name).toBe('LadderTargetError');
    expect(noHead.message).toMatch(/a miou target is a task figure: choose the task head first/);
  });

  it('mixed precision aims at a task target (miou) through the task head on the calibration images; without a head, a named error', async () => {
    const a = api();
    const handle = await openPixelClassifier(a);
    const request = {
      samples: fakeImages(3),
      spec: unit,
      config: getPreset('XINT8'),
      configName: 'XINT8',
      mixedPrecision: {
        budget: { act16: 0.5, w16: 0.5, float: 0 },
        target: 1,
        metric: 'miou' as const,
        maxMeasurements: 6,
      },
    };
    const out = await a.recover(handle, {
      ...request,
      task: PIXEL_CLASSIFIER_HEAD,
    });
    const m = out.rung.mixedPrecision!;
    expect(m.metric).toBe('miou');
    // The search's figures are mIoU of the masks (at most 1), not a cosine.
    expect(m.startCosine).toBeGreaterThan(0);
    expect(m.startCosine).toBeLessThanOrEqual(1);
    expect(m.reached).toBe(m.cosine >= 1);
    const noHead = await rejection(a.recover(handle, { ...request, task: null }));
    expect(noHead.name).toBe('LadderTargetError');
    expect(noHead.message).toMatch(/a miou target is a task figure: choose the task head first/);
    const psnr = await rejection(
      a.recover(handle, { ...request, mixedPrecision: { ...request.mixedPrecision, metric: 'psnr' as const } }),
    );
    expect(psnr.name).toBe('LadderTargetError');
    expect(psnr.message).toMatch(/mixed precision aims at an output cosine, top-1 or sequence agreement/);
    // A top-1 target is aimed at by its figure from the outputs; this model has no class scores: named, no number.
    const top1 = await rejection(
      a.recover(handle, { ...request, mixedPrecision: { ...request.mixedPrecision, metric: 'top1' as const } }),
    );
    expect(top1.name).toBe('LadderTargetError');
    expect(top1.message).toMatch(/top-1 agreement needs a classifier-like output/);
  });
});
