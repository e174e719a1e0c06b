/**
 * Writes the synthetic scoped graph of N nodes and its U8S8 quantization by the studio's core (stand-in ranges:
 * every tensor -2…6; the split view's benchmark compares structure, not accuracy) to the paths given
 * (bench/tmp/, ignored by git); prints their sizes and node counts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { encodeParts, type ModelProto } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import type { TensorRange } from '../../src/core/quantize/plan.ts';
import { syntheticScopedGraph } from '../syntheticGraph.ts';

const [floatOut, quantOut, nodes] = process.argv.slice(2);
const write = (file: string, model: ModelProto) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    Buffer.concat(encodeParts(model).map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))),
  );
};
const model = syntheticScopedGraph(Number(nodes));
if (!fs.existsSync(floatOut)) write(floatOut, model);
if (!fs.existsSync(quantOut)) {
  const ranges = new Map<string, TensorRange>();
  for (const n of model.graph!.node) for (const t of [...n.input, ...n.output]) ranges.set(t, { min: -2, max: 6 });
  for (const i of model.graph!.input) ranges.set(i.name!, { min: 0, max: 1 });
  write(quantOut, quantizeModel(model, ranges, getPreset('U8S8'), 'U8S8').model);
}
console.log(
  JSON.stringify({
    floatBytes: fs.statSync(floatOut).size,
    quantizedBytes: fs.statSync(quantOut).size,
    nodes: model.graph!.node.length,
  }),
);
