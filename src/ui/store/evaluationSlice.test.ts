import { describe, expect, it } from 'vitest';
import type { ModelSummary } from '../../core/onnx/index.ts';
import type { QuantizeReport } from '../../core/quantize/quantizeReport.ts';
import { buildReport } from '../../core/report/index.ts';
import type {
  EvaluationProgress,
  EvaluationRequest,
  EvaluationResult,
  SuggestOutcome,
  SuggestRequest,
} from '../remote/workerTypes.ts';
import { createStudioStore } from './createStudioStore.ts';
import type { CalibrationService } from './calibrationSlice.ts';
import type { EvaluationService } from './evaluationSlice.ts';
import type { QuantizeService } from './runSlice.ts';
import { calibrationResult, fakeModelService, heldCalls } from './testStore.ts';

const summary = {
  fileName: 'm.onnx',
  byteLength: 10,
  parameterBytes: 8,
  inputs: [{ name: 'x', elemType: 'float32', shape: [1, 3, 8, 8] }],
} as unknown as ModelSummary;

const modelService = fakeModelService((fileName) => ({ ...summary, fileName }));

const calibration: CalibrationService = {
  calibrate: async (_model, request) => calibrationResult({ x: [0, 1] }, request.samples.length, { seconds: 2 }),
  cancel() {},
  release() {},
};

const quantReport = {
  config: 'XINT8',
  exclusions: [{ rule: 'nodes: Conv_0', ids: ['Conv_0'] }],
  counts: { nodes: 3, quantized: 2, float: 1, activationPairs: 2, quantizedConstants: 1 },
  quantized: [
    { id: 'Relu_1', opType: 'Relu', family: 'activation', precision: 'A16' },
    { id: 'Add_2', opType: 'Add', family: 'math', precision: 'A8' },
  ],
  float: [{ id: 'Conv_0', opType: 'Conv', reason: 'excluded by nodes: Conv_0' }],
} as unknown as QuantizeReport;

let blobs = 0;
const quantize: QuantizeService = {
  quantizeBf16: () => Promise.reject(new Error('BF16 is not used in this test')),
  async quantize() {
    blobs++;
    return { blob: new Blob([new Uint8Array(blobs)]), byteLength: blobs, report: quantReport, seconds: 0.5 };
  },
};

const evaluationResult = (cosine: number): EvaluationResult => ({
  report: buildReport({
    floatModel: { name: 'm.onnx', sha256: null, bytes: 10 },
    samples: 2,
    outputs: [
      { output: 'y', samples: 2, metrics: { cosine: { count: 2, mean: cosine, min: cosine, max: cosine } } },
    ] as never,
  }),
  nodeSqnr: { Conv_0: 31.5, Relu_1: 28 },
  used: 2,
  skipped: [],
  backend: { kind: 'wasm', threads: 1, fallbackReason: null },
  secondsPerSample: 0.1,
  seconds: 0.3,
});

/** A fake evaluation service whose runs finish when the test says so. */
function fakeEvaluation() {
  const evaluations = heldCalls<EvaluationRequest, EvaluationProgress, EvaluationResult>();
  const searches = heldCalls<SuggestRequest, EvaluationProgress, SuggestOutcome>();
  const counts = { cancelled: 0, released: 0 };
  const service: EvaluationService = {
    evaluate: evaluations.call,
    suggest: searches.call,
    cancel: () => void counts.cancelled++,
    release: () => void counts.released++,
  };
  return { service, evaluations: evaluations.calls, searches: searches.calls, counts };
}

const file = (name: string) => new File([new Uint8Array(3)], name, { lastModified: 1 });
const flush = () => new Promise((r) => setTimeout(r, 0));

async function quantizedStore() {
  const fake = fakeEvaluation();
  const store = createStudioStore({ model: modelService, calibration, quantize, evaluation: fake.service });
  const s = () => store.getState();
  await s().openModel({
    fileName: 'm.onnx',
    byteLength: 10,
    read: async () => ({ bytes: new ArrayBuffer(4), externalFiles: {} }),
  });
  s().addCalibrationData({ images: [file('a.png'), file('b.png')] });
  await s().calibrate();
  await s().quantize();
  expect(s().run.status).toBe('done');
  return { store, s, fake };
}

describe('evaluation slice', () => {
  it('says to quantize first, by name, when there is no quantized model', async () => {
    const fake = fakeEvaluation();
    const store = createStudioStore({ model: modelService, calibration, quantize, evaluation: fake.service });
    await store.getState().openModel({
      fileName: 'm.onnx',
      byteLength: 10,
      read: async () => ({ bytes: new ArrayBuffer(4), externalFiles: {} }),
    });
    await store.getState().evaluate();
    expect(store.getState().evaluation).toMatchObject({ status: 'error', error: { name: 'NotQuantizedError' } });
    expect(fake.evaluations).toHaveLength(0);
  });

  it('evaluates the quantized model on the calibration images with the report context, shows progress, stores the result and paints the graph', async () => {
    const { s, fake } = await quantizedStore();
    const running = s().evaluate();
    await flush();
    expect(s().evaluation.status).toBe('running');
    const [call] = fake.evaluations;
    expect(call.request.samples.map((x) => x.name)).toEqual(['a.png', 'b.png']);
    expect(call.request.quantized).toEqual({ name: 'm.quant.onnx', data: s().run.result!.blob });
    expect(call.request.layers).toBe(true);
    expect(call.request.report).toMatchObject({
      config: { name: 'XINT8' },
      exclusions: [{ rule: 'nodes: Conv_0', ids: ['Conv_0'] }],
      quantization: { nodes: 3, quantized: 2, float: 1 },
      // Each node's precision, for the layer table's column and the report.
      precisions: {
        Relu_1: { label: 'A16', class: 'act16' },
        Add_2: { label: 'A8', class: 'int8' },
        Conv_0: { label: 'float', class: 'float' },
      },
      dataSource: '2 calibration samples',
      ranges: { x: [0, 1] },
      timings: [
        { label: 'calibration', seconds: 2 },
        { label: 'quantization', seconds: 0.5 },
      ],
    });
    call.onProgress({ phase: 'comparing', done: 1, total: 2 });
    expect(s().evaluation.progress).toEqual({ phase: 'comparing', done: 1, total: 2 });
    call.resolve(evaluationResult(0.998));
    await running;
    expect(s().evaluation.status).toBe('done');
    expect(s().evaluation.result!.report.fidelity.meanCosine).toBe(0.998);
    expect(s().evaluation.result!.quantized).toBe(s().run.result!.blob);
    expect(s().graph.heat).toEqual({ label: 'SQNR (dB)', higherIsBetter: true, values: { Conv_0: 31.5, Relu_1: 28 } });
  });

  it('uses the evaluation set the user dropped, and goes back to the calibration images when it is cleared', async () => {
    const { s, fake } = await quantizedStore();
    s().addEvaluationData({
      images: [file('e1.jpg'), file('e2.jpg'), file('e1.jpg')],
      rejected: [{ file: 'notes.txt', reason: 'not an image' }],
    });
    expect(s().evaluation.source).toBe('own');
    expect(s().evaluation.images.map((f) => f.name)).toEqual(['e1.jpg', 'e2.jpg']);
    void s().evaluate();
    await flush();
    expect(fake.evaluations[0].request.samples.map((x) => x.name)).toEqual(['e1.jpg', 'e2.jpg']);
    expect(fake.evaluations[0].request.report!.dataSource).toBe('2 evaluation images');
    fake.evaluations[0].resolve(evaluationResult(0.9));
    await flush();
    s().clearEvaluationData();
    expect(s().evaluation.source).toBe('calibration');
    s().setEvaluationLayers(false);
    void s().evaluate();
    await flush();
    expect(fake.evaluations[1].request.layers).toBe(false);
  });

  it('an evaluation set of .npy samples (a model that is not an image) is judged held out, as the calibration takes them', async () => {
    const { s, fake } = await quantizedStore();
    const sample = (name: string) => ({
      name,
      files: { input: file(`input_${name}.npy`), state: file(`state_${name}.npy`) },
    });
    s().addEvaluationData({ npy: [sample('0'), sample('1'), sample('0')] });
    expect(s().evaluation.source).toBe('own');
    void s().evaluate();
    await flush();
    expect(fake.evaluations[0].request.samples).toEqual([
      { kind: 'npy', name: '0', files: sample('0').files },
      { kind: 'npy', name: '1', files: sample('1').files },
    ]);
    expect(fake.evaluations[0].request.report!.dataSource).toBe('2 evaluation samples');
    fake.evaluations[0].resolve(evaluationResult(0.9));
    await flush();
    s().clearEvaluationData();
    expect(s().evaluation).toMatchObject({ source: 'calibration', npy: [], images: [] });
  });

  it('refuses, by name and before any work, a float and quantized model whose sessions cannot fit the 4 GiB WebAssembly memory together', async () => {
    const { store, s, fake } = await quantizedStore();
    store.setState((st) => ({
      model: { ...st.model, summary: { ...st.model.summary!, parameterBytes: 3 * 2 ** 30 } },
    }));
    s().adoptQuantized({
      ...s().run.result!,
      data: { fileName: 'm.quant.onnx.data', blob: new Blob([]), byteLength: 768 * 2 ** 20 },
    });
    await s().evaluate();
    expect(s().evaluation.error).toMatchObject({
      name: 'ModelTooLargeError',
      message: expect.stringMatching(/3\.00 GiB.*0\.75 GiB.*4\.00 GiB/),
    });
    expect(fake.evaluations).toHaveLength(0);
  });

  it('an own evaluation set with no images is a named error, not a run', async () => {
    const { s, fake } = await quantizedStore();
    s().setEvaluationSource('own');
    await s().evaluate();
    expect(s().evaluation.error?.name).toBe('NoEvaluationDataError');
    expect(fake.evaluations).toHaveLength(0);
  });

  it('cancel shows "cancelled" at once and ignores the old run; a worker error is shown by name and the previous result kept', async () => {
    const { s, fake } = await quantizedStore();
    void s().evaluate();
    await flush();
    fake.evaluations[0].resolve(evaluationResult(0.99));
    await flush();
    void s().evaluate();
    await flush();
    s().cancelEvaluation();
    expect(fake.counts.cancelled).toBe(1);
    expect(s().evaluation.status).toBe('cancelled');
    fake.evaluations[1].resolve(evaluationResult(0.5));
    await flush();
    expect(s().evaluation.result!.report.fidelity.meanCosine).toBe(0.99);

    void s().evaluate();
    await flush();
    fake.evaluations[2].reject(
      Object.assign(new Error('the quantized model takes other inputs'), { name: 'ComparisonError' }),
    );
    await flush();
    expect(s().evaluation).toMatchObject({
      status: 'error',
      error: { name: 'ComparisonError', message: 'the quantized model takes other inputs' },
    });
    s().dismissEvaluationError();
    expect(s().evaluation.status).toBe('done');
    expect(s().evaluation.result!.report.fidelity.meanCosine).toBe(0.99);
  });

  it('suggests exclusions from the current configuration, streams the measured steps, and "accept" adds them as exclusion entries', async () => {
    const { s, fake } = await quantizedStore();
    s().setSuggestTarget(0.995);
    s().setSuggestMaxSteps(3);
    const searching = s().suggestExclusions();
    await flush();
    const [call] = fake.searches;
    expect(call.request).toMatchObject({
      target: 0.995,
      maxSteps: 3,
      configName: 'XINT8',
      ranges: { x: [0, 1] },
      npuBf16: false,
    });
    expect(call.request.samples).toHaveLength(2);
    const layer = { node: 'Conv_5', opType: 'Conv', sqnr: 12, drop: 9 } as never;
    const steps = [
      { step: 0, candidate: null, cosine: 0.97, kept: true, bestCosine: 0.97, seconds: 1 },
      {
        step: 1,
        candidate: { kind: 'node', node: 'Conv_5', layer },
        cosine: 0.985,
        kept: true,
        bestCosine: 0.985,
        seconds: 1,
      },
      {
        step: 2,
        candidate: {
          kind: 'subgraph',
          node: 'Mul_9',
          layer,
          subgraph: { starts: ['Mul_9'], ends: ['Concat_12'] },
          nodes: 4,
        },
        cosine: 0.996,
        kept: true,
        bestCosine: 0.996,
        seconds: 1,
      },
    ] as SuggestOutcome['steps'];
    call.onProgress({ phase: 'searching', done: 2, total: 2, step: { done: 1, total: 4 }, measured: steps[0] });
    expect(s().evaluation.suggest.steps).toEqual([steps[0]]);
    call.onProgress({ phase: 'searching', done: 2, total: 2, step: { done: 1, total: 4 }, measured: steps[0] }); // a repeat adds nothing
    expect(s().evaluation.suggest.steps).toEqual([steps[0]]);
    call.resolve({
      target: 0.995,
      metric: 'cosine',
      aim: 'all',
      npuBf16: false,
      reached: true,
      stopped: 'target',
      cosine: 0.996,
      startCosine: 0.97,
      steps,
      added: { nodes: ['Conv_5'], subgraphs: [{ starts: ['Mul_9'], ends: ['Concat_12'] }] },
      used: 2,
      skipped: [],
      seconds: 3,
    });
    await searching;
    expect(s().evaluation.suggest.status).toBe('done');
    expect(s().evaluation.suggest.steps).toHaveLength(3);
    // Progress travels on its own port: a report arriving after the answer changes nothing.
    call.onProgress({ phase: 'searching', done: 2, total: 2, step: { done: 3, total: 4 }, measured: steps[2] });
    expect(s().evaluation.suggest.steps).toHaveLength(3);
    expect(s().evaluation.suggest.progress).toBeNull();

    s().acceptSuggestion();
    const entries = s().exclusions.entries;
    expect(entries.map((e) => e.kind)).toEqual(['nodes', 'subgraph']);
    expect(entries[0]).toMatchObject({ kind: 'nodes', nodes: ['Conv_5'] });
    expect(entries[1]).toMatchObject({ kind: 'subgraph', starts: ['Mul_9'], ends: ['Concat_12'] });
    expect(s().evaluation.suggest.accepted).toEqual(entries.map((e) => e.id));
    expect(s().run.result).toBeNull(); // the quantized model no longer matches the exclusions
    s().acceptSuggestion(); // twice adds nothing
    expect(s().exclusions.entries).toHaveLength(2);
  });

  it('the search refuses stale ranges and a target out of range, by name', async () => {
    const { s, fake } = await quantizedStore();
    s().setSuggestTarget(1.5);
    await s().suggestExclusions();
    expect(s().evaluation.suggest.error?.name).toBe('ConfigError');
    s().setSuggestTarget(0.99);
    s().setQuantPreset('U8S8'); // another activation method: the ranges are stale
    await s().suggestExclusions();
    expect(s().evaluation.suggest.error?.name).toBe('NotCalibratedError');
    expect(fake.searches).toHaveLength(0);
  });

  it("a new model drops the results and ends the worker, and keeps the user's evaluation images", async () => {
    const { s, fake } = await quantizedStore();
    s().addEvaluationData({ images: [file('e.jpg')] });
    void s().evaluate();
    await flush();
    fake.evaluations[0].resolve(evaluationResult(0.9));
    await flush();
    expect(s().evaluation.result).not.toBeNull();
    await s().openModel({
      fileName: 'other.onnx',
      byteLength: 10,
      read: async () => ({ bytes: new ArrayBuffer(4), externalFiles: {} }),
    });
    expect(s().evaluation.result).toBeNull();
    expect(s().evaluation.images).toHaveLength(1);
    expect(fake.counts.released).toBeGreaterThan(0);
  });

  it('keeps the task head chosen per model, sends it with the evaluation and reads the figures again through a change without running the models', async () => {
    const { s, fake } = await quantizedStore();
    const judged: unknown[] = [];
    const taskOf = (threshold: number) =>
      ({
        task: 'detect',
        head: `threshold ${threshold}`,
        images: 2,
        scoreThreshold: threshold,
        agreement: { map50: threshold },
        changes: null,
        labels: null,
        perImage: [],
        pictures: [],
      }) as never;
    fake.service.judgeTask = async (_h, head) => {
      judged.push(head);
      return taskOf((head as { params: { scoreThreshold: number } }).params.scoreThreshold);
    };
    const head = {
      task: 'detect',
      head: { kind: 'yolov8', output: 'y' },
      params: { scoreThreshold: 0.3, minScore: 0.01, nmsIou: 0.45, maxDetections: 100 },
      classNames: null,
    } as const;
    // No choice yet: the worker's recognised head ('auto').
    let running = s().evaluate();
    await flush();
    expect(fake.evaluations[0].request.task).toBe('auto');
    fake.evaluations[0].resolve(evaluationResult(0.99));
    await running;
    await s().chooseTaskHead(head);
    expect(s().evaluation.taskByModel).toEqual({ 'm.onnx|10': head });
    expect(judged).toEqual([head]);
    expect(s().evaluation.result!.report.task).toMatchObject({ scoreThreshold: 0.3 });
    const higher = { ...head, params: { ...head.params, scoreThreshold: 0.6 } };
    await s().chooseTaskHead(higher);
    expect(s().evaluation.result!.report.task).toMatchObject({ scoreThreshold: 0.6, agreement: { map50: 0.6 } });
    // The next evaluation carries the choice; 'none' drops the task figures at once.
    running = s().evaluate();
    await flush();
    expect(fake.evaluations[1].request.task).toEqual(higher);
    fake.evaluations[1].resolve(evaluationResult(0.99));
    await running;
    await s().chooseTaskHead('none');
    expect(s().evaluation.result!.report.task).toBeNull();
    expect(s().evaluation.taskByModel['m.onnx|10']).toBe('none');
    // A head the outputs do not fit: named, the figures not replaced by a wrong one.
    fake.service.judgeTask = async () => {
      throw Object.assign(new Error('output "y" is [1, 2]; this head expects [1, 4 + classes, boxes]'), {
        name: 'TaskHeadError',
      });
    };
    await s().chooseTaskHead(head);
    expect(s().evaluation.taskError).toMatchObject({ name: 'TaskHeadError' });
    expect(s().evaluation.taskJudging).toBe(false);
  });
});
