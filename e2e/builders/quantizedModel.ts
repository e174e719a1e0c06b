/**
 * Run in Node by quantized-graph.spec.ts (Playwright's loader cannot import the core's generated schema):
 * `node --import tsx e2e/builders/quantizedModel.ts <fixture> <out.onnx> [per-channel|ort|quark-xint8]` quantizes a
 * fixture with the studio's own core (U8S8, stand-in ranges: tests/helpers/quantizedFixtures.ts), or writes it the
 * way ONNX Runtime's quantize_static or Quark would (tests/helpers/foreignQdq.ts), writes it, reads the written
 * file back and prints, as JSON, what the page must show of one quantized Conv: the node id, the tensor its first
 * input reads, that activation's type, scale and zero point, and its weight's type and channel count, all read
 * from the file's initializers (not through the view's own folding code).
 */
import fs from 'node:fs';
import { buildGraphIndex, decode, encode, elementTypeName, readTensorAsFloat32 } from '../../src/core/onnx/index.ts';
import { quantizedFixture } from '../../tests/helpers/quantizedFixtures.ts';
import { foreignQdq } from '../../tests/helpers/foreignQdq.ts';
import { readModel } from '../../tests/helpers/fixtures.ts';

const [fixture, out, mode] = process.argv.slice(2);
const model =
  mode === 'ort' || mode === 'quark-xint8'
    ? foreignQdq(decode(readModel(fixture)), mode)
    : quantizedFixture(fixture, { perChannel: mode === 'per-channel' });
fs.writeFileSync(out, encode(model));
const index = buildGraphIndex(decode(new Uint8Array(fs.readFileSync(out))).graph!);
const producer = (t: string) => {
  const p = index.producer.get(t);
  return p === undefined ? undefined : index.nodes[p];
};
const at = [...index.order].find((i) => {
  const n = index.nodes[i];
  return (
    n.op_type === 'Conv' &&
    producer(n.input[0])?.op_type === 'DequantizeLinear' &&
    producer(producer(n.input[0])!.input[0])?.op_type === 'QuantizeLinear'
  );
})!;
const conv = index.nodes[at];
const q = producer(producer(conv.input[0])!.input[0])!;
const wdq = producer(conv.input[1])!;
const value = (name: string) => readTensorAsFloat32(index.initializers.get(name)!);
console.log(
  JSON.stringify({
    node: index.ids[at],
    output: conv.output[0],
    tensor: conv.input[0],
    type: elementTypeName(index.initializers.get(q.input[2])!.data_type),
    scale: value(q.input[1])[0],
    zeroPoint: value(q.input[2])[0],
    weightType: elementTypeName(index.initializers.get(wdq.input[0])!.data_type),
    weightChannels: value(wdq.input[1]).length,
  }),
);
