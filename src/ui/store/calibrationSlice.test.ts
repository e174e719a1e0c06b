import { describe, expect, it } from 'vitest';
import type { ModelSummary } from '../../core/onnx/index.ts';
import { getPreprocessPreset } from '../../core/preprocess/presets.ts';
import type { CalibrationProgress, CalibrationResult } from '../remote/workerTypes.ts';
import { createStudioStore } from './createStudioStore.ts';
import type { CalibrationService } from './calibrationSlice.ts';
import type { QuantizeService } from './runSlice.ts';
import { calibrationResult, fakeModelService } from './testStore.ts';
import { activationMethodName, activationState } from '../../core/calibrate/collectors/methodFromConfig.ts';
import { updateState } from '../../core/calibrate/collectors/registry.ts';
import { formatStatistics, statisticsKey, STATISTICS_FORMAT } from '../../core/calibrate/run/statisticsFile.ts';
import { validateConfig, type QuantConfig } from '../../core/quantize/config.ts';
import { calibrationKey, choosesMethod, configOf, methodCandidates, presetSettings } from './quantSettings.ts';
import { currentConfig, resultKey } from './selectors.ts';
import { rangesAreCurrent } from './selectors.ts';

const yoloSummary = {
  fileName: 'yolox-nano.onnx',
  byteLength: 1000,
  inputs: [{ name: 'images', elemType: 'float32', shape: [1, 3, 416, 416] }],
} as unknown as ModelSummary;

const modelService = fakeModelService((fileName) => {
  // A file named "dynamic" has YuNet's open batch, height and width.
  const inputs = /dynamic/.test(fileName)
    ? [{ name: 'input', elemType: 'float32', shape: ['batch', 3, 'height', 'width'] }]
    : yoloSummary.inputs;
  return { ...yoloSummary, fileName, inputs } as ModelSummary;
});

const progress = (done: number, total: number): CalibrationProgress => ({
  done,
  total,
  imagesPerSecond: 2,
  etaSeconds: (total - done) / 2,
  skipped: [],
  pass: 1,
  passes: 1,
  backend: null,
});

const result = (used: number) => calibrationResult({ images: [0, 255] }, used, { runOutputBytes: 10 });

/** A fake calibration service whose runs finish when the test says so. */
function fakeCalibration() {
  const runs: {
    resolve: (r: CalibrationResult) => void;
    reject: (e: Error) => void;
    onProgress: (p: CalibrationProgress) => void;
    samples: number;
    backend?: string;
  }[] = [];
  let released = 0;
  let cancelled = 0;
  const service: CalibrationService = {
    calibrate(_model, request, onProgress) {
      return new Promise((resolve, reject) =>
        runs.push({ resolve, reject, onProgress, samples: request.samples.length, backend: request.backend }),
      );
    },
    cancel() {
      cancelled++;
      runs.at(-1)?.reject(Object.assign(new Error('cancelled'), { name: 'CalibrationCancelledError' }));
    },
    release() {
      released++;
    },
  };
  return { service, runs, counts: () => ({ released, cancelled }) };
}

const quantize: QuantizeService = {
  quantizeBf16: () => Promise.reject(new Error('BF16 is not used in this test')),
  async quantize() {
    return {
      blob: new Blob([new Uint8Array(4)]),
      byteLength: 4,
      report: { counts: { quantized: 1 } } as never,
      seconds: 0.1,
    };
  },
};

const file = (name: string) => new File([new Uint8Array(3)], name, { lastModified: 1 });

async function openedStore() {
  const calibration = fakeCalibration();
  const store = createStudioStore({ model: modelService, calibration: calibration.service, quantize });
  await store.getState().openModel({
    fileName: 'yolox-nano.onnx',
    byteLength: 4,
    read: async () => ({ bytes: new ArrayBuffer(4), externalFiles: {} }),
  });
  return { store, calibration };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('calibration slice', () => {
  it('the runtime switch (Auto by default) goes with each calibration request', async () => {
    const { store, calibration } = await openedStore();
    expect(store.getState().calibration.runtime).toBe('auto');
    store.getState().addCalibrationData({ images: [file('a.png')] });
    store.getState().setRuntime('wasm');
    const done = store.getState().calibrate();
    expect(calibration.runs[0].backend).toBe('wasm');
    calibration.runs[0].resolve(result(1));
    await done;
  });

  it('suggests the YOLO preprocessing for a model named yolox, and says why', async () => {
    const { store } = await openedStore();
    const c = store.getState().calibration;
    expect(c.specPreset).toBe('yolo');
    expect(c.spec).toEqual(getPreprocessPreset('yolo'));
    expect(c.specReason).toContain('YOLO');
  });

  it('adds images once (same name, size and date), and clearing empties the data', async () => {
    const { store } = await openedStore();
    store.getState().addCalibrationData({ images: [file('a.png'), file('b.png')] });
    store.getState().addCalibrationData({
      images: [file('a.png'), file('c.png')],
      rejected: [{ file: 'x.txt', reason: 'not an image' }],
    });
    expect(store.getState().calibration.images.map((f) => f.name)).toEqual(['a.png', 'b.png', 'c.png']);
    expect(store.getState().calibration.rejected).toHaveLength(1);
    store.getState().clearCalibrationData();
    expect(store.getState().calibration).toMatchObject({ images: [], npy: [], rejected: [] });
  });

  it('refuses to start without data (named error, no worker), unless random data is on', async () => {
    const { store, calibration } = await openedStore();
    await store.getState().calibrate();
    expect(store.getState().calibration).toMatchObject({ status: 'error', error: { name: 'NoCalibrationDataError' } });
    expect(calibration.runs).toHaveLength(0);
    store.getState().setUseRandomData(true);
    void store.getState().calibrate();
    expect(store.getState().calibration.status).toBe('running');
    expect(calibration.runs[0].samples).toBe(0);
  });

  it('shows progress while running, then the ranges with the key of the settings they were made under', async () => {
    const { store, calibration } = await openedStore();
    store.getState().addCalibrationData({ images: [file('a.png'), file('b.png')] });
    const done = store.getState().calibrate();
    expect(store.getState().calibration.status).toBe('running');
    calibration.runs[0].onProgress(progress(1, 2));
    expect(store.getState().calibration.progress).toMatchObject({ done: 1, total: 2 });
    calibration.runs[0].resolve(result(2));
    await done;
    const c = store.getState().calibration;
    expect(c.status).toBe('done');
    expect(c.result).toMatchObject({ used: 2, samples: 2, ranges: { images: [0, 255] } });
  });

  it('cancel shows "cancelled" at once, ignores the old run, and a new run can start and complete', async () => {
    const { store, calibration } = await openedStore();
    store.getState().addCalibrationData({ images: [file('a.png')] });
    const first = store.getState().calibrate();
    store.getState().cancelCalibration();
    expect(store.getState().calibration.status).toBe('cancelled');
    await first;
    expect(store.getState().calibration.status).toBe('cancelled');
    expect(calibration.counts().cancelled).toBe(1);

    const second = store.getState().calibrate();
    calibration.runs[1].resolve(result(1));
    await second;
    expect(store.getState().calibration.status).toBe('done');
  });

  it('keeps a worker error by name and message', async () => {
    const { store, calibration } = await openedStore();
    store.getState().addCalibrationData({ images: [file('a.png')] });
    const run = store.getState().calibrate();
    calibration.runs[0].reject(Object.assign(new Error('uses com.microsoft.extensions'), { name: 'CustomOpsError' }));
    await run;
    expect(store.getState().calibration).toMatchObject({
      status: 'error',
      error: { name: 'CustomOpsError', message: 'uses com.microsoft.extensions' },
    });
    store.getState().dismissCalibrationError();
    expect(store.getState().calibration.status).toBe('idle');
  });

  it('a new model drops the old results, ends the calibration workers and suggests its own preprocessing', async () => {
    const { store, calibration } = await openedStore();
    store.getState().addCalibrationData({ images: [file('a.png')] });
    const run = store.getState().calibrate();
    calibration.runs[0].resolve(result(1));
    await run;
    const released = calibration.counts().released;
    await store.getState().openModel({
      fileName: 'ultraface-rfb-320.onnx',
      byteLength: 4,
      read: async () => ({ bytes: new ArrayBuffer(4), externalFiles: {} }),
    });
    await flush();
    const c = store.getState().calibration;
    expect(c).toMatchObject({ status: 'idle', result: null, specPreset: 'ultraface' });
    expect(c.images).toHaveLength(1); // the user's data stays
    expect(calibration.counts().released).toBeGreaterThan(released);
  });
});

describe('importing calibration statistics (qstudio calibrate --shard / merge)', () => {
  const statistics = (config: QuantConfig) => {
    const state = activationState(config);
    updateState(state, Float32Array.of(-2, 0, 3));
    return formatStatistics({
      format: STATISTICS_FORMAT,
      version: 1,
      method: activationMethodName(config),
      key: statisticsKey(config),
      images: 7,
      shards: 2,
      states: new Map([['images', state]]),
    });
  };

  it('takes the ranges as if the page had calibrated, and says where they came from', async () => {
    const { store } = await openedStore();
    const config = configOf(store.getState().run.settings);
    await store.getState().importStatistics(new File([statistics(config)], 'merged.json'));
    const c = store.getState().calibration;
    expect(c.status).toBe('done');
    expect(c.result).toMatchObject({ used: 7, method: activationMethodName(config) });
    expect(c.result!.ranges.images[1]).toBeGreaterThanOrEqual(3);
    expect(c.result!.warnings.join(' ')).toContain('2 shards');
    expect(rangesAreCurrent(store.getState())).toBe(true);
  });

  it('refuses statistics of another configuration, or a file that is not statistics, by name', async () => {
    const { store } = await openedStore();
    const other = validateConfig({ calibrationMethod: 'Entropy' });
    await store.getState().importStatistics(new File([statistics(other)], 'entropy.json'));
    expect(store.getState().calibration).toMatchObject({ status: 'error', error: { name: 'StatisticsFileError' } });
    await store.getState().importStatistics(new File(['{"ranges": {}}'], 'ranges.json'));
    expect(store.getState().calibration.error).toMatchObject({
      name: 'StatisticsFileError',
      message: expect.stringContaining('ranges.json'),
    });
  });
});

describe('run slice', () => {
  it('quantizes with matching ranges, names the file <model>.quant.onnx, and refuses stale ranges', async () => {
    const { store, calibration } = await openedStore();
    await store.getState().quantize();
    expect(store.getState().run).toMatchObject({ status: 'error', error: { name: 'NotCalibratedError' } });

    store.getState().addCalibrationData({ images: [file('a.png')] });
    const run = store.getState().calibrate();
    calibration.runs[0].resolve(result(1));
    await run;
    await store.getState().quantize();
    expect(store.getState().run).toMatchObject({
      status: 'done',
      result: { fileName: 'yolox-nano.quant.onnx', byteLength: 4 },
    });

    store.getState().setQuantPreset('U8S8'); // MinMax instead of XINT8's power-of-two MinMSE
    await store.getState().quantize();
    expect(store.getState().run.error).toMatchObject({
      name: 'NotCalibratedError',
      message: expect.stringContaining('calibrate again'),
    });
  });

  it('a preset brings its own per-channel and random-data settings', async () => {
    const { store } = await openedStore();
    store.getState().setPerChannel(true);
    store.getState().setQuantPreset('VINT8');
    expect(store.getState().run.settings).toEqual({
      preset: 'VINT8',
      perChannel: false,
      useRandomData: true,
      tensorOverrides: {},
    });
  });

  it('saturation-safe weights: on in the config when chosen, no setting when off (as every preset has it)', async () => {
    const { store } = await openedStore();
    store.getState().setQuantPreset('U8S8');
    store.getState().setSaturationSafeWeights(true);
    expect(configOf(store.getState().run.settings).saturationSafeWeights).toBe(true);
    store.getState().setSaturationSafeWeights(false);
    expect(store.getState().run.settings).not.toHaveProperty('saturationSafeWeights');
    expect(configOf(store.getState().run.settings).saturationSafeWeights).toBe(false);
  });

  it('quantizing inside control flow: EnableSubgraph in the config when chosen (a calibration key of its own), no setting when off', async () => {
    const { store } = await openedStore();
    const before = calibrationKey(configOf(store.getState().run.settings));
    store.getState().setEnableSubgraph(true);
    expect(configOf(store.getState().run.settings).extraOptions.EnableSubgraph).toBe(true);
    expect(calibrationKey(configOf(store.getState().run.settings))).not.toBe(before);
    store.getState().setEnableSubgraph(false);
    expect(store.getState().run.settings).not.toHaveProperty('enableSubgraph');
    expect(configOf(store.getState().run.settings).extraOptions.EnableSubgraph).toBe(false);
  });

  it("a calibration method instead of the preset's: kept in the config, stale ranges after a change, dropped with the preset, refused when the scale type does not take it", async () => {
    const { store } = await openedStore();
    store.getState().setQuantPreset('A8W8');
    store.getState().setCalibrationMethod('Entropy');
    expect(store.getState().run.settings.calibrationMethod).toBe('Entropy');
    const config = configOf(store.getState().run.settings);
    expect(config.calibrationMethod).toBe('Entropy');
    expect(activationMethodName(config)).toBe('Entropy');
    // A8W8's default is the held-in choice (stored as none); its own MinMax is then a fixed pick of its own.
    store.getState().setCalibrationMethod('held-in');
    expect(store.getState().run.settings).not.toHaveProperty('calibrationMethod');
    expect(choosesMethod(store.getState().run.settings)).toBe(true);
    store.getState().setCalibrationMethod('MinMax');
    expect(store.getState().run.settings.calibrationMethod).toBe('MinMax');
    expect(choosesMethod(store.getState().run.settings)).toBe(false);
    store.getState().setQuantPreset('U8S8'); // the others: their own method is stored as none, the choice when asked
    store.getState().setCalibrationMethod('MinMax');
    expect(store.getState().run.settings).not.toHaveProperty('calibrationMethod');
    expect(choosesMethod(store.getState().run.settings)).toBe(false);
    store.getState().setCalibrationMethod('held-in');
    expect(store.getState().run.settings.calibrationMethod).toBe('held-in');
    expect(Object.keys(methodCandidates(store.getState().run.settings)).sort()).toEqual(['Entropy', 'MinMSE']);
    store.getState().setQuantPreset('A8W8');
    store.getState().setCalibrationMethod('Percentile');
    store.getState().setQuantPreset('XINT8');
    expect(store.getState().run.settings).not.toHaveProperty('calibrationMethod');
    store.getState().setCalibrationMethod('Entropy'); // power-of-two scales take MinMax or MinMSE only
    expect(store.getState().run.settings).not.toHaveProperty('calibrationMethod');
    store.getState().setCalibrationMethod('nonsense');
    expect(configOf(store.getState().run.settings).calibrationMethod).toBe('MinMSE');
  });

  it('the suggestion stays after edits, and accepting it takes it back and marks it accepted', async () => {
    const { store } = await openedStore();
    expect(store.getState().calibration).toMatchObject({
      suggestionAccepted: false,
      suggestion: { family: 'yolox', preset: 'yolo' },
    });
    store.getState().setPreprocess({ ...getPreprocessPreset('unit') }, 'custom');
    expect(store.getState().calibration.specPreset).toBe('custom');
    store.getState().acceptPreprocessSuggestion();
    expect(store.getState().calibration).toMatchObject({
      specPreset: 'yolo',
      spec: getPreprocessPreset('yolo'),
      suggestionAccepted: true,
    });
  });

  it('symbolic height and width start at the fallback and follow the first image until the user types them', async () => {
    const { store } = await openedStore();
    await store.getState().openModel({
      fileName: 'yunet-n-dynamic.onnx',
      byteLength: 4,
      read: async () => ({ bytes: new ArrayBuffer(4), externalFiles: {} }),
    });
    await flush();
    expect(store.getState().calibration).toMatchObject({
      dimsSource: 'fallback',
      spec: { dims: { batch: 1, height: 640, width: 640 } },
    });
    store.getState().fitDimsToImage({ height: 576, width: 768 });
    expect(store.getState().calibration).toMatchObject({
      dimsSource: 'images',
      spec: { dims: { batch: 1, height: 480, width: 640 } },
    });
    const spec = store.getState().calibration.spec;
    store
      .getState()
      .setPreprocess({ ...spec, dims: { ...spec.dims, height: 320 } }, store.getState().calibration.specPreset);
    store.getState().fitDimsToImage({ height: 100, width: 100 });
    expect(store.getState().calibration).toMatchObject({
      dimsSource: 'user',
      spec: { dims: { height: 320, width: 640 } },
    });
  });
});

describe("the held-in choice's ranges and the configuration quantized with", () => {
  it('quantizes with the method the current calibration chose, and a fixed pick makes those ranges stale', () => {
    const settings = presetSettings('A8W8');
    const spec = getPreprocessPreset('unit');
    const result = { key: resultKey(configOf(settings), spec, true), methodChoice: { chosen: 'MinMSE' as const } };
    const state = { run: { settings }, exclusions: { entries: [] }, calibration: { result, spec } };
    expect(currentConfig(state).calibrationMethod).toBe('MinMSE');
    // Asked for MinMax: the choice's ranges no longer apply, and the configuration is MinMax's.
    const fixed = { ...state, run: { settings: { ...settings, calibrationMethod: 'MinMax' as const } } };
    expect(currentConfig(fixed).calibrationMethod).toBe('MinMax');
    expect(resultKey(configOf(fixed.run.settings), spec, false)).not.toBe(result.key);
  });
});
