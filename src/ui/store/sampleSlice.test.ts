import { describe, expect, it } from 'vitest';
import type { ModelSummary } from '../../core/onnx/index.ts';
import type { QuantizeReport } from '../../core/quantize/quantizeReport.ts';
import { buildReport } from '../../core/report/index.ts';
import type { EvaluationRequest, EvaluationResult } from '../remote/workerTypes.ts';
import { createStudioStore } from './createStudioStore.ts';
import type { CalibrationService } from './calibrationSlice.ts';
import type { EvaluationService } from './evaluationSlice.ts';
import type { ModelService } from './modelSlice.ts';
import type { QuantizeService } from './runSlice.ts';
import type { SampleService } from './sampleSlice.ts';
import { calibrationResult } from './testStore.ts';

// The sample's real facts: PaddleOCR's graph name and paddle2onnx dimension names, recognised by the core.
const paddleSummary = {
  fileName: 'ppocr-det.onnx',
  byteLength: 10,
  graphName: 'Model from PaddlePaddle.',
  producer: '',
  metadata: {},
  inputs: [
    {
      name: 'x',
      elemType: 'float32',
      shape: ['p2o.DynamicDimension.0', 3, 'p2o.DynamicDimension.1', 'p2o.DynamicDimension.2'],
    },
  ],
  outputs: [
    {
      name: 'sigmoid_0.tmp_0',
      elemType: 'float32',
      shape: ['p2o.DynamicDimension.3', 1, 'p2o.DynamicDimension.4', 'p2o.DynamicDimension.5'],
    },
  ],
} as unknown as ModelSummary;

const quantReport = {
  config: 'XINT8',
  exclusions: [],
  counts: { nodes: 3, quantized: 3, float: 0, activationPairs: 2, quantizedConstants: 1 },
  quantized: [],
  float: [],
} as unknown as QuantizeReport;

function services(options: { failCalibration?: boolean; holdCalibration?: boolean } = {}) {
  const calls: string[] = [];
  let release: (() => void) | null = null;
  let cancelled = 0;
  const model: ModelService = {
    async open(fileName) {
      calls.push(`open ${fileName}`);
      return { handle: `h-${fileName}`, summary: { ...paddleSummary, fileName } };
    },
    async close() {},
  };
  const calibration: CalibrationService = {
    async calibrate(_m, request) {
      calls.push(
        `calibrate ${request.samples.length} ${JSON.stringify(request.spec?.dims)} ${request.spec?.channelOrder} ${request.config.activationType}/${request.config.weightType} ${request.config.scaleType} ${request.config.calibrationMethod} ${request.config.perChannel ? 'per-channel' : 'per-tensor'}`,
      );
      if (options.holdCalibration) await new Promise<void>((r) => (release = r));
      if (options.failCalibration)
        throw Object.assign(new Error('the worker ran out of memory'), { name: 'WorkerError' });
      return calibrationResult({ x: [0, 1] }, request.samples.length);
    },
    cancel() {
      cancelled++;
    },
    release() {},
  };
  const quantize: QuantizeService = {
    quantizeBf16: () => Promise.reject(new Error('BF16 is not used in this test')),
    async quantize() {
      calls.push('quantize');
      return { blob: new Blob([new Uint8Array(1)]), byteLength: 1, report: quantReport, seconds: 0.1 };
    },
  };
  const evaluation: EvaluationService = {
    async evaluate(_h, request: EvaluationRequest) {
      calls.push(`evaluate ${request.samples.map((s) => s.name).join(',')}`);
      return {
        report: buildReport({
          floatModel: { name: 'ppocr-det.onnx', sha256: null, bytes: 10 },
          samples: 2,
          outputs: [],
        }),
        nodeSqnr: {},
        used: request.samples.length,
        skipped: [],
        backend: { kind: 'wasm', threads: 1, fallbackReason: null },
        secondsPerSample: 0.1,
        seconds: 0.2,
      } satisfies EvaluationResult;
    },
    async suggest() {
      throw new Error('not used');
    },
    cancel() {},
    release() {},
  };
  const sample: SampleService = {
    fileName: 'ppocr-det.onnx',
    source: () => ({
      fileName: 'ppocr-det.onnx',
      byteLength: 10,
      read: async () => ({ bytes: new ArrayBuffer(10), externalFiles: {} }),
    }),
    preset: 'paddleocr-det',
    size: { height: 320, width: 320 },
    counts: { calibration: 3, heldOut: 2 },
    settings: { preset: 'A8W8', perChannel: true, calibrationMethod: 'Sequential' },
    async images(set, count) {
      return Array.from(
        { length: count },
        (_, i) => new File([new Uint8Array(i + 1)], `${set}-${i}.png`, { lastModified: 0 }),
      );
    },
  };
  const store = createStudioStore({ model, calibration, quantize, evaluation, sample });
  return { store, calls, cancelledCount: () => cancelled, releaseCalibration: () => release?.() };
}

const other = {
  fileName: 'other.onnx',
  byteLength: 1,
  read: async () => ({ bytes: new ArrayBuffer(1), externalFiles: {} }),
};

describe('the sample in one click', () => {
  it('opens, calibrates on its own scenes with its own preprocessing, quantizes, and evaluates on the held-out scenes', async () => {
    const { store, calls } = services();
    await store.getState().quantizeSample();
    expect(calls).toEqual([
      'open ppocr-det.onnx',
      'calibrate 3 {"p2o.DynamicDimension.0":1,"p2o.DynamicDimension.1":320,"p2o.DynamicDimension.2":320} BGR int8/int8 float32 Sequential per-channel',
      'quantize',
      'evaluate heldOut-0.png,heldOut-1.png',
    ]);
    const s = store.getState();
    expect(s.sample).toMatchObject({ status: 'done', error: null });
    expect(s.sample.seconds).toBeGreaterThanOrEqual(0);
    expect(s.calibration).toMatchObject({
      specPreset: 'paddleocr-det',
      suggestionAccepted: true,
      spec: { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225], scale: 1 / 255 },
    });
    expect(s.evaluation).toMatchObject({ source: 'own', status: 'done' });
  });

  it('"open" brings the data and the preprocessing and runs nothing', async () => {
    const { store, calls } = services();
    await store.getState().openSample();
    expect(calls).toEqual(['open ppocr-det.onnx']);
    expect(store.getState().calibration.images.map((f) => f.name)).toEqual([
      'calibration-0.png',
      'calibration-1.png',
      'calibration-2.png',
    ]);
    expect(store.getState().evaluation.images).toHaveLength(2);
    expect(store.getState().sample.status).toBe('idle');
    // Running it afterwards does not open the model again, nor add the images twice.
    await store.getState().quantizeSample();
    expect(calls.filter((c) => c.startsWith('open'))).toHaveLength(1);
    expect(store.getState().calibration.images).toHaveLength(3);
  });

  it("stops at a failing step with that step's error", async () => {
    const { store, calls } = services({ failCalibration: true });
    await store.getState().quantizeSample();
    expect(store.getState().sample).toMatchObject({
      status: 'error',
      stage: 'calibrate',
      error: { name: 'WorkerError', message: 'the worker ran out of memory' },
    });
    expect(calls).not.toContain('quantize');
  });

  it('Cancel stops the running calibration in its worker, and nothing follows', async () => {
    const { store, calls, cancelledCount, releaseCalibration } = services({ holdCalibration: true });
    const run = store.getState().quantizeSample();
    await new Promise((r) => setTimeout(r, 0));
    await new Promise((r) => setTimeout(r, 0));
    expect(store.getState().sample).toMatchObject({ status: 'running', stage: 'calibrate' });
    store.getState().cancelSample();
    expect(cancelledCount()).toBe(1);
    releaseCalibration();
    await run;
    expect(store.getState().sample).toMatchObject({ status: 'cancelled', stage: 'calibrate' });
    expect(calls).not.toContain('quantize');
  });

  it("runs the sample's own settings, and gives the user's back when another model is opened", async () => {
    const { store } = services();
    store.getState().setQuantPreset('U8S8');
    const mine = store.getState().run.settings;
    await store.getState().quantizeSample();
    expect(store.getState().run.settings).toMatchObject({
      preset: 'A8W8',
      perChannel: true,
      calibrationMethod: 'Sequential',
    });
    expect(store.getState().run.result?.configName).toBe('A8W8');
    // Run again: the settings to give back are still the user's, not the sample's.
    await store.getState().quantizeSample();
    await store.getState().openModel(other);
    expect(store.getState().run.settings).toBe(mine);
  });

  it('keeps a change the user made to the settings after the click, when another model is opened', async () => {
    const { store } = services();
    await store.getState().quantizeSample();
    store.getState().setPerChannel(false);
    const changed = store.getState().run.settings;
    await store.getState().openModel(other);
    expect(store.getState().run.settings).toBe(changed);
  });

  it("another model opened afterwards clears the sample's outcome", async () => {
    const { store } = services();
    await store.getState().quantizeSample();
    await store.getState().openModel({
      fileName: 'other.onnx',
      byteLength: 1,
      read: async () => ({ bytes: new ArrayBuffer(1), externalFiles: {} }),
    });
    expect(store.getState().sample.status).toBe('idle');
  });
});
