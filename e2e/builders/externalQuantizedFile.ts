/**
 * Run in Node by quantized-external.spec.ts (Playwright's loader cannot import the core's generated schema):
 * `node --import tsx e2e/builders/externalQuantizedFile.ts` fetches imgly's ISNet "small" (ONNX Runtime's
 * quantize_dynamic, tests/helpers/npmModels.ts) into the gitignored cache and prints, as JSON, its path and what the
 * page must show of its second ConvInteger: the node's name, its weight's zero point and the weight scale
 * quantize_dynamic writes beside it (`<weight>_scale`), read from the file's initializers, not through the view's
 * own code, and the number of ConvInteger nodes.
 */
import fs from 'node:fs';
import { buildGraphIndex, decode, readTensorAsFloat32 } from '../../src/core/onnx/index.ts';
import { ISNET_QUINT8, npmModelPath } from '../../tests/helpers/npmModels.ts';

const file = npmModelPath(ISNET_QUINT8);
const index = buildGraphIndex(decode(new Uint8Array(fs.readFileSync(file))).graph!);
const convs = index.nodes.filter((n) => n.op_type === 'ConvInteger');
const conv = convs[1];
const weight = conv.input[1];
const value = (name: string) => readTensorAsFloat32(index.initializers.get(name)!)[0];
console.log(
  JSON.stringify({
    file,
    convIntegers: convs.length,
    node: conv.name,
    zeroPoint: value(conv.input[3]),
    scale: value(weight.replace(/_quantized$/, '_scale')),
  }),
);
