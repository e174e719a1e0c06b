/**
 * One quantization benchmark case in its own process: ranges from one onnxruntime-node run on a seeded
 * input (not timed), then quantizeModel + encode timed, peak memory after. Prints one JSON line.
 * With `anchor=<preset>` among the arguments, that preset is timed too, alternating with the measured one in the
 * same process (so both see the same load), and the ratio is printed.
 * Usage: quantize.ts <model.onnx> <preset> [dim=value ...] [anchor=<preset>]
 */
import fs from 'node:fs';
import { buildGraphIndex, decode, encodeParts, tensorSummary } from '../../src/core/onnx/index.ts';
import { exposeTensors, observableTensors } from '../../src/core/calibrate/run/expose.ts';
import { foldRun, rangesOf } from '../../src/core/calibrate/run/statistics.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { encode } from '../../src/core/onnx/index.ts';
import { createSession, float32Tensor } from '../../src/cli/runtime/ortNode.ts';

const [file, preset, ...rest] = process.argv.slice(2);
const anchorPreset = rest.find((a) => a.startsWith('anchor='))?.slice('anchor='.length);
const dimArgs = rest.filter((a) => !a.startsWith('anchor='));
const dims = Object.fromEntries(dimArgs.map((a) => a.split('=')).map(([k, v]) => [k, Number(v)]));
const bytes = new Uint8Array(fs.readFileSync(file));
const model = decode(bytes);
const config = getPreset(preset);
const input = tensorSummary(buildGraphIndex(model.graph!).inputs[0]);
const shape = (input.shape ?? []).map((d) => (typeof d === 'number' ? d : (dims[d] ?? 1)));
const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
for (let i = 0; i < data.length; i++) data[i] = ((i * 2654435761) % 1000) / 1000;
const session = await createSession(encode(exposeTensors(model, observableTensors(model))));
const states = new Map();
foldRun(states, await session.run({ [input.name]: float32Tensor(data, shape) }), config);
foldRun(states, { [input.name]: { type: 'float32', data } }, config);
await session.release();
const ranges = rangesOf(states);
globalThis.gc?.();
const rssBefore = process.memoryUsage().rss / 2 ** 20;

const times: number[] = [];
const anchorTimes: number[] = [];
let nodes = 0;
let out = 0;
for (let r = 0; r < 3; r++) {
  const start = performance.now();
  const { model: q, report } = quantizeModel(model, ranges, config, preset);
  const parts = encodeParts(q);
  times.push(performance.now() - start);
  nodes = report.counts.quantized;
  out = parts.reduce((a, p) => a + p.byteLength, 0);
  if (anchorPreset) {
    // The same ranges serve: the anchor is timed on the same work, not judged.
    const a0 = performance.now();
    encodeParts(quantizeModel(model, ranges, getPreset(anchorPreset), anchorPreset).model);
    anchorTimes.push(performance.now() - a0);
  }
}
times.sort((a, b) => a - b);
anchorTimes.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    model: file.split('/').pop(),
    preset,
    bytes: bytes.byteLength,
    quantizedBytes: out,
    quantizedNodes: nodes,
    quantizeMs: +times[1].toFixed(1),
    ...(anchorPreset
      ? {
          anchor: anchorPreset,
          anchorMs: +anchorTimes[1].toFixed(1),
          vsAnchor: +(times[1] / anchorTimes[1]).toFixed(2),
        }
      : {}),
    rssBeforeMB: +rssBefore.toFixed(1),
    peakRssMB: +(process.resourceUsage().maxRSS / 1024).toFixed(1),
  }),
);
