/**
 * Whether histograms built inside the calibration model would beat exposing the tensor and folding it in JavaScript
 * (issue 33.5 point 2). One tensor of `values` floats (default 4 Mi, a detector feature map at 1024²) is folded into
 * the histogram every histogram method uses (core/calibrate/histogram/histogram.ts, WebAssembly kernel), then binned
 * by onnxruntime-node at the same power-of-two layout: Mul by 2^-e, Floor, Sub the offset (exact in float32), Cast
 * to int64, ScatterElements (reduction 'add') of ones into the bins. Prints both times (best of 5 and CPU per run)
 * and whether the bins are equal. Usage: histogramInGraph.ts [values]
 */
import * as ort from 'onnxruntime-node';
import {
  DataType,
  emptyAttribute,
  encode,
  intAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeValueInfo,
  makeTensor,
} from '../../src/core/onnx/index.ts';
import { createHistogram, foldIntoHistogram, capacityFor } from '../../src/core/calibrate/histogram/histogram.ts';
const n = Number(process.argv[2] ?? 4194304);
const x = new Float32Array(n).map((_, i) => Math.sin(i * 0.37) * 3 + Math.cos(i * 0.011));
const cap = capacityFor(2048);
// JS
let best = Infinity,
  cpu0 = process.cpuUsage();
for (let r = 0; r < 5; r++) {
  const t = performance.now();
  foldIntoHistogram(createHistogram(cap), x);
  best = Math.min(best, performance.now() - t);
}
const jsCpu = (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 5e3;
const h = foldIntoHistogram(createHistogram(cap), x);
// ORT: the same layout
const scale = 2 ** -h.exponent;
const graph = makeGraph({
  node: [
    makeNode('Mul', ['x', 'scale'], ['scaled'], 'mul'),
    makeNode('Floor', ['scaled'], ['floored'], 'floor'),
    makeNode('Sub', ['floored', 'offset'], ['shifted'], 'sub'),
    makeNode('Cast', ['shifted'], ['idx'], 'cast', [intAttribute('to', DataType.INT64)]),
    makeNode('Reshape', ['idx', 'flat'], ['idx1'], 'reshape'),
    makeNode('Shape', ['idx1'], ['n'], 'shape'),
    makeNode('ConstantOfShape', ['n'], ['ones'], 'ones', [
      emptyAttribute('value', 4, { t: makeTensor('', DataType.FLOAT, [1], Float32Array.of(1)) }),
    ]),
    makeNode('ScatterElements', ['zeros', 'idx1', 'ones'], ['bins'], 'scatter', [
      emptyAttribute('reduction', 3, { s: new TextEncoder().encode('add') }),
    ]),
  ],
  input: [makeValueInfo('x', DataType.FLOAT, [n])],
  output: [makeValueInfo('bins', DataType.FLOAT, [cap])],
  initializer: [
    makeTensor('scale', DataType.FLOAT, [], Float32Array.of(scale)),
    makeTensor('offset', DataType.FLOAT, [], Float32Array.of(h.offset)),
    makeTensor('flat', DataType.INT64, [1], BigInt64Array.of(-1n)),
    makeTensor('zeros', DataType.FLOAT, [cap], new Float32Array(cap)),
  ],
});
const s = await ort.InferenceSession.create(encode(makeModel(graph, { '': 16 })), {
  graphOptimizationLevel: 'basic',
  logSeverityLevel: 3,
});
const feeds = { x: new ort.Tensor('float32', x, [n]) };
let out = await s.run(feeds);
let bestOrt = Infinity;
cpu0 = process.cpuUsage();
for (let r = 0; r < 5; r++) {
  const t = performance.now();
  out = await s.run(feeds);
  bestOrt = Math.min(bestOrt, performance.now() - t);
}
const ortCpu = (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 5e3;
const bins = out.bins.data as Float32Array;
let same = true;
for (let j = 0; j < cap; j++) if (bins[j] !== h.bins[j]) same = false;
console.log(
  JSON.stringify({
    values: n,
    jsBestMs: +best.toFixed(1),
    jsCpuMs: +jsCpu.toFixed(1),
    ortBestMs: +bestOrt.toFixed(1),
    ortCpuMs: +ortCpu.toFixed(1),
    binsEqual: same,
  }),
);
