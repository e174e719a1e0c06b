import { describe, expect, it } from 'vitest';
import { decode, encode, makeNode } from '../../src/core/onnx/index.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { getPreprocessPreset } from '../../src/core/preprocess/presets.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { readModel } from '../../tests/helpers/fixtures.ts';
import { floatIO, smallModel } from '../../tests/helpers/smallModels.ts';
import { createCalibrationApi } from '../calibration/calibrationApi.ts';
import { createEvaluationApi, type EvaluationApi, type EvaluationProgress } from './evaluationApi.ts';
import {
  fakeDecode,
  fakeImage,
  fakeImages,
  nodeWorkerRuntime,
  pixelClassifier,
  PIXEL_CLASSIFIER_HEAD,
  rejection,
} from '../calibration/testSupport.ts';
import type { RangeTable } from '../model/quantizeApi.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';

const unit = getPreprocessPreset('unit');
const xint8 = getPreset('XINT8');

/** A copy of exactly these bytes (protobufjs hands Node Buffers that are views into a shared pool). */
function buffer(bytes: Uint8Array): ArrayBuffer {
  return new Uint8Array(bytes).buffer as ArrayBuffer;
}

/** A labels CSV as the page gives it (one file). */
const csvLabels = (text: string) => ({ name: 'labels.csv', files: [{ path: 'labels.csv', file: new Blob([text]) }] });
const api = (): EvaluationApi => createEvaluationApi({ runtime: () => nodeWorkerRuntime(), decodeImage: fakeDecode });

/** mnist calibrated on six fake images, and its XINT8 quantization's bytes. */
async function quantizedMnist(): Promise<{ ranges: RangeTable; quantized: Uint8Array }> {
  const calibration = createCalibrationApi({ runtime: () => nodeWorkerRuntime(), decodeImage: fakeDecode });
  const { handle } = await calibration.open(buffer(readModel('mnist.onnx')), { fileName: 'mnist.onnx' });
  const { ranges } = await calibration.run(handle, { samples: fakeImages(6), spec: unit, config: xint8 });
  const table = new Map(Object.entries(ranges).map(([n, [min, max]]) => [n, { min, max }]));
  const { model } = quantizeModel(decode(readModel('mnist.onnx')), table, xint8, 'XINT8');
  return { ranges, quantized: encode(model) };
}

describe('evaluationApi', async () => {
  const mnist = await quantizedMnist();
  /** A search for an output cosine of 1 on mnist's XINT8 quantization over `images` fake images. */
  const mnistSearch = (images: number, maxSteps: number) => ({
    samples: fakeImages(images),
    spec: unit,
    ranges: mnist.ranges,
    config: xint8,
    configName: 'XINT8',
    target: 1,
    maxSteps,
  });

  it('compares mnist with its XINT8 quantization: output metrics, every layer, node SQNR, a corrupt image skipped and named', async () => {
    const a = api();
    const { handle, file } = await a.open(buffer(readModel('mnist.onnx')), { fileName: 'mnist.onnx' });
    expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
    const progress: EvaluationProgress[] = [];
    const samples = [...fakeImages(3), fakeImage('broken.png', 'not an image')];
    const result = await a.evaluate(
      handle,
      {
        quantized: { name: 'mnist.quant.onnx', data: new Blob([mnist.quantized as Uint8Array<ArrayBuffer>]) },
        samples,
        spec: unit,
        report: { config: { name: 'XINT8', settings: {} }, ranges: mnist.ranges },
      },
      (p) => progress.push(p),
    );

    expect(result.used).toBe(3);
    expect(result.skipped).toEqual([{ file: 'broken.png', reason: expect.stringContaining('not a readable image') }]);
    const r = result.report;
    expect(r.data.samples).toBe(3);
    expect(r.outputs.map((o) => o.output)).toEqual(['Plus214_Output_0']);
    const cosine = r.outputs[0].metrics.cosine!;
    expect(cosine.count).toBe(3);
    expect(cosine.mean).toBeGreaterThan(0.9);
    expect(cosine.mean).toBeLessThan(1); // int8 rounding shows
    expect(r.outputs[0].metrics.top1).toBeDefined(); // class scores: top-1 agreement
    // The task recognised from the model (a digit classifier): top-1/top-5 agreement, pictures over the photos.
    expect(r.task).toMatchObject({ task: 'classify', images: 3 });
    expect(r.task!.agreement.top1).toBe(r.outputs[0].metrics.top1!.mean);
    expect(r.task!.pictures).toHaveLength(3);
    expect(r.task!.pictures[0].image).toMatch(/^data:image\/.*;base64,/);
    expect(r.task!.pictures[0].float.top).toHaveLength(5);
    expect(r.fidelity.meanCosine).toBe(cosine.mean);
    expect(r.quantizedModel).toMatchObject({ name: 'mnist.quant.onnx', bytes: mnist.quantized.byteLength });
    expect(r.layers!.rows.length).toBeGreaterThan(5);
    expect(r.ranges.some((g) => g.source === 'calibration')).toBe(true);
    // The worst layers' float activations, binned over the values seen on the evaluation samples.
    for (const g of r.ranges) {
      expect(g.histogram, g.tensor).not.toBeNull();
      expect(g.histogram!.counts.reduce((a, b) => a + b, 0)).toBe(
        3 * r.layers!.rows.find((row) => row.tensor === g.tensor)!.elementsPerSample,
      );
      expect(g.histogram!.min).toBeLessThanOrEqual(g.min); // drawn over the range, widened to the values seen
      expect(g.histogram!.max).toBeGreaterThanOrEqual(g.max);
    }
    // Per-node SQNR keyed by the float model's stable node ids, finite where quantization rounds.
    const sqnr = Object.entries(result.nodeSqnr);
    expect(sqnr.length).toBeGreaterThan(5);
    expect(sqnr.some(([, v]) => Number.isFinite(v) && v > 0)).toBe(true);
    expect(progress.filter((p) => p.phase === 'decoding').at(-1)).toMatchObject({ done: 4, total: 4 });
    expect(progress.filter((p) => p.phase === 'comparing').at(-1)).toMatchObject({ done: 3, total: 3 });
    expect(result.secondsPerSample).toBeGreaterThan(0);
    // First the figure at the runtime's default options ('all'), measured before the model's own arithmetic.
    expect(r.atDefault).toMatchObject({
      graphOptimization: 'all',
      runtime: expect.stringContaining('onnxruntime-web'),
    });
    expect(r.atDefault!.outputs.map((o) => o.output)).toEqual(['Plus214_Output_0']);
    expect(r.atDefault!.fidelity.meanCosine).toBeGreaterThan(0.9);
    expect(r.atDefault!.fidelity.meanCosine).toBeLessThan(1);
    expect(progress.findIndex((p) => p.phase === 'at-default')).toBeLessThan(
      progress.findIndex((p) => p.phase === 'comparing'),
    );
    expect(progress.filter((p) => p.phase === 'at-default').at(-1)).toMatchObject({ done: 3, total: 3 });
  });

  it('judges against a labels file (CSV image,class): the float and quantized figures and the drop; bad labels a named TaskLabelError', async () => {
    const a = api();
    const { handle } = await a.open(buffer(readModel('mnist.onnx')), { fileName: 'mnist.onnx' });
    const request = {
      quantized: { name: 'mnist.quant.onnx', data: new Blob([mnist.quantized as Uint8Array<ArrayBuffer>]) },
      samples: fakeImages(3),
      spec: unit,
    };
    const plain = (await a.evaluate(handle, request)).report.task!;
    expect(plain.labels).toBeNull();
    // Labels that say what the float model read: the float model scores 1, the quantized model its top-1 agreement.
    const floatTop = plain.pictures.map((p) => [p.name, p.float.top![0].label] as const);
    const csv = floatTop.map(([name, k]) => `${name},${k}`).join('\n');
    const judged = await a.evaluate(handle, { ...request, labels: csvLabels(csv) });
    const labels = judged.report.task!.labels!;
    const top1 = labels.figures.find((f) => f.metric.startsWith('top-1'))!;
    expect(top1.float).toBe(1);
    expect(top1.quantized).toBeCloseTo(plain.agreement.top1!, 12);
    expect(top1.drop).toBeCloseTo(1 - plain.agreement.top1!, 12);
    // Labels naming another class than the float's for one image: the float figure drops to 2/3.
    const [first, ...rest] = floatTop;
    const moved = [`${first[0]},${(first[1] + 1) % 10}`, ...rest.map(([n, k]) => `${n},${k}`)].join('\n');
    const off = (await a.evaluate(handle, { ...request, labels: csvLabels(moved) })).report.task!;
    expect(off.labels!.figures.find((f) => f.metric.startsWith('top-1'))!.float).toBeCloseTo(2 / 3, 12);

    const outOfRange = await a.evaluate(handle, { ...request, labels: csvLabels(`${first[0]},10`) });
    expect(outOfRange.report.task).toBeNull();
    expect(outOfRange.taskError).toEqual({
      name: 'TaskLabelError',
      message: expect.stringMatching(/class 10 is out of range/),
    });
    const noImage = await a.evaluate(handle, {
      ...request,
      labels: csvLabels(csv + '\nnope.png,1'),
    });
    expect(noImage.taskError?.message).toMatch(/nope\.png/);
  });

  it("runs the quantized model's sessions at onnxruntime's default level for the headline, at 'basic' for the layers; a search aims at 'all' unless told", async () => {
    const levels: string[] = [];
    const inner = nodeWorkerRuntime();
    const recording: Runtime = {
      createSession: (bytes, purpose, plan, level) => (
        levels.push(level ?? 'basic'),
        inner.createSession(bytes, purpose, plan, level)
      ),
    };
    const a = createEvaluationApi({ runtime: () => recording, decodeImage: fakeDecode });
    const { handle } = await a.open(buffer(readModel('mnist.onnx')), { fileName: 'mnist.onnx' });
    const blob = new Blob([mnist.quantized as Uint8Array<ArrayBuffer>]);
    const result = await a.evaluate(handle, {
      quantized: { name: 'mnist.quant.onnx', data: blob },
      samples: fakeImages(2),
      spec: unit,
      layers: false,
    });
    expect(levels.slice(0, 2)).toEqual(['all', 'all']); // float and quantized at the default options first
    expect(levels.slice(2, 4)).toEqual(['basic', 'basic']);
    // At 'all' onnxruntime computes its own figure (fused int8 kernels): the two are separate measurements.
    expect(result.report.atDefault!.fidelity.meanCosine).toBeGreaterThan(0.9);
    levels.length = 0;
    const search = mnistSearch(2, 1);
    const aimed = await a.suggest(handle, search);
    expect(aimed.aim).toBe('all');
    expect(levels).toContain('all');
    levels.length = 0;
    const own = await a.suggest(handle, { ...search, aim: 'basic' });
    expect(own.aim).toBe('basic');
    expect(levels).not.toContain('all');
  });

  it('judges a model with float parts also as the NPU runs it: both figures, labelled apart in the report', async () => {
    const a = api();
    const { handle } = await a.open(buffer(readModel('mnist.onnx')), { fileName: 'mnist.onnx' });
    const config = { ...xint8, opTypesToExclude: ['MatMul', 'Add'] };
    const table = new Map(Object.entries(mnist.ranges).map(([n, [min, max]]) => [n, { min, max }]));
    const mixed = encode(quantizeModel(decode(readModel('mnist.onnx')), table, config, 'XINT8').model);
    const progress: EvaluationProgress[] = [];
    const result = await a.evaluate(
      handle,
      {
        quantized: { name: 'mixed.onnx', data: buffer(mixed) },
        samples: fakeImages(3),
        spec: unit,
        layers: false,
        npuBf16: true,
      },
      (p) => progress.push(p),
    );
    const npu = result.report.npu!;
    expect(npu.floatNodes).toBeGreaterThanOrEqual(2); // the excluded MatMul and Add (at least)
    expect(npu.activations + npu.weights).toBeGreaterThan(0);
    expect(npu.outputs.map((o) => o.output)).toEqual(['Plus214_Output_0']);
    expect(npu.fidelity.meanCosine).toBeGreaterThan(0.9);
    expect(npu.fidelity.meanCosine).not.toBe(result.report.fidelity.meanCosine); // BF16 rounding of the float tail shows
    expect(progress.some((p) => p.phase === 'npu')).toBe(true);
    const plain = await a.evaluate(handle, {
      quantized: { name: 'mixed.onnx', data: buffer(mixed) },
      samples: fakeImages(3),
      spec: unit,
      layers: false,
    });
    expect(plain.report.npu).toBeNull();
    expect(plain.report.fidelity.meanCosine).toBe(result.report.fidelity.meanCosine);
  });

  it('a model compared with itself is exact: cosine 1, every layer SQNR +Infinity', async () => {
    const a = api();
    const bytes = readModel('mnist.onnx');
    const { handle } = await a.open(buffer(bytes), { fileName: 'mnist.onnx' });
    const result = await a.evaluate(handle, {
      quantized: { name: 'same.onnx', data: buffer(bytes) },
      samples: fakeImages(2),
      spec: unit,
    });
    expect(result.report.outputs[0].metrics.cosine!.mean).toBeCloseTo(1, 6);
    expect(result.report.layers!.rows.every((row) => row.sqnr === Infinity)).toBe(true);
  });

  it('refuses a quantized model of another model, no samples, and samples none of which is readable, by name', async () => {
    const a = api();
    const { handle } = await a.open(buffer(readModel('mnist.onnx')), { fileName: 'mnist.onnx' });
    const other = smallModel({
      nodes: [makeNode('Relu', ['x'], ['y'])],
      inputs: [floatIO('x', [1, 1, 28, 28])],
      outputs: [floatIO('y', [1, 1, 28, 28])],
      opset: 13,
    });
    const mismatch = await rejection(
      a.evaluate(handle, {
        quantized: { name: 'other.onnx', data: buffer(encode(other)) },
        samples: fakeImages(1),
        spec: unit,
      }),
    );
    expect(mismatch.name).toBe('ComparisonError');
    expect(mismatch.message).toContain('not a quantization of this model');
    const quantized = { name: 'q.onnx', data: buffer(mnist.quantized) };
    expect((await rejection(a.evaluate(handle, { quantized, samples: [], spec: unit }))).name).toBe(
      'NoEvaluationDataError',
    );
    const corrupt = await rejection(
      a.evaluate(handle, { quantized, samples: [fakeImage('a.jpg', 'x'), fakeImage('b.jpg', 'y')], spec: unit }),
    );
    expect(corrupt.name).toBe('NoUsableSamplesError');
    expect(corrupt.message).toContain('a.jpg');
  });

  it('cancel stops an evaluation with EvaluationCancelledError, and the next one runs', async () => {
    const a = api();
    const { handle } = await a.open(buffer(readModel('mnist.onnx')), { fileName: 'mnist.onnx' });
    const quantized = { name: 'q.onnx', data: buffer(mnist.quantized) };
    const cancelled = await rejection(
      a.evaluate(handle, { quantized, samples: fakeImages(4), spec: unit }, (p) => {
        if (p.phase === 'decoding') a.cancel(handle);
      }),
    );
    expect(cancelled.name).toBe('EvaluationCancelledError');
    const again = await a.evaluate(handle, { quantized, samples: fakeImages(2), spec: unit });
    expect(again.used).toBe(2);
  });

  it('suggests exclusions by measuring each step: the kept steps are what it adds, cosines are measured', async () => {
    const a = api();
    const { handle } = await a.open(buffer(readModel('mnist.onnx')), { fileName: 'mnist.onnx' });
    const measured: number[] = [];
    const outcome = await a.suggest(handle, mnistSearch(3, 3), (p) => {
      if (p.measured) measured.push(p.measured.step);
    });
    expect(outcome.steps.length).toBeGreaterThanOrEqual(2);
    expect(measured).toEqual(outcome.steps.map((s) => s.step));
    expect(outcome.steps[0]).toMatchObject({ step: 0, kept: true, candidate: null });
    expect(outcome.startCosine).toBe(outcome.steps[0].cosine);
    for (const s of outcome.steps) expect(Number.isFinite(s.cosine)).toBe(true);
    const keptNodes = outcome.steps
      .filter((s) => s.step > 0 && s.kept && s.candidate!.kind === 'node')
      .map((s) => s.candidate!.node);
    expect(outcome.added.nodes).toEqual(keptNodes);
    expect(outcome.cosine).toBe(Math.max(...outcome.steps.filter((s) => s.kept).map((s) => s.cosine)));
  });

  it('suggests exclusions against a task target (miou through the head): each step carries the figure; without a head, a named error', async () => {
    // A per-pixel classifier made in code: a 1×1 Conv mixing the three colour channels into three class scores.
    const seg = new Uint8Array(pixelClassifier());
    const calibration = createCalibrationApi({ runtime: () => nodeWorkerRuntime(), decodeImage: fakeDecode });
    const opened = await calibration.open(buffer(seg), { fileName: 'seg.onnx' });
    const { ranges } = await calibration.run(opened.handle, { samples: fakeImages(3), spec: unit, config: xint8 });
    const a = api();
    const { handle } = await a.open(buffer(seg), { fileName: 'seg.onnx' });
    const request = {
      samples: fakeImages(3),
      spec: unit,
      ranges,
      config: xint8,
      configName: 'XINT8',
      target: 1,
      metric: 'miou' as const,
      maxSteps: 2,
    };
    const outcome = await a.suggest(handle, {
      ...request,
      task: PIXEL_CLASSIFIER_HEAD,
    });
    expect(outcome.metric).toBe('miou');
    for (const s of outcome.steps) {
      expect(s.figure).toBeGreaterThan(0);
      expect(s.figure).toBeLessThanOrEqual(1);
    }
    expect(outcome.startFigure).toBe(outcome.steps[0].figure);
    expect(outcome.figure).toBe(Math.max(...outcome.steps.filter((s) => s.kept).map((s) => s.figure!)));
    expect(outcome.reached).toBe(outcome.figure! >= 1);
    const noHead = await rejection(a.suggest(handle, { ...request, task: null }));
    expect(noHead.name).toBe('LadderTargetError');
    expect(noHead.message).toMatch(/a miou target is a task figure: choose the task head first/);
    const bad = await rejection(a.suggest(handle, { ...request, target: 1.5 }));
    expect(bad.name).toBe('LadderTargetError');
  });

  it('cancel during a search stops it with EvaluationCancelledError', async () => {
    const a = api();
    const { handle } = await a.open(buffer(readModel('mnist.onnx')), { fileName: 'mnist.onnx' });
    const e = await rejection(
      a.suggest(handle, mnistSearch(2, 5), (p) => {
        if (p.measured?.step === 0) a.cancel(handle);
      }),
    );
    expect(e.name).toBe('EvaluationCancelledError');
  });
  it('histograms of chosen tensors over the first few samples: binned over the calibrated range widened to the values seen', async () => {
    const a = api();
    const { handle } = await a.open(buffer(readModel('mnist.onnx')), { fileName: 'mnist.onnx' });
    const names = ['Plus214_Output_0', 'Input3'];
    const tensors: RangeTable = Object.fromEntries(names.map((n) => [n, mnist.ranges[n]]));
    const result = await a.tensorHistograms(handle, { tensors, samples: fakeImages(6), spec: unit, maxSamples: 2 });
    expect(result.used).toBe(2);
    expect(Object.keys(result.histograms).sort()).toEqual([...names].sort());
    for (const n of names) {
      const h = result.histograms[n];
      expect(h.min).toBeLessThanOrEqual(mnist.ranges[n][0]);
      expect(h.max).toBeGreaterThanOrEqual(mnist.ranges[n][1]);
      expect(h.counts.length).toBeGreaterThan(8);
    }
    // Two samples: 28×28 input values each, 10 logits each.
    expect(result.histograms.Input3.counts.reduce((x, y) => x + y, 0)).toBe(2 * 28 * 28);
    expect(result.histograms.Plus214_Output_0.counts.reduce((x, y) => x + y, 0)).toBe(2 * 10);
    expect((await rejection(a.tensorHistograms(handle, { tensors, samples: [], spec: unit }))).name).toBe(
      'NoEvaluationDataError',
    );
  });
});
