/**
 * A model of any size with its weights in external data, written straight to disk: the > 2 GB case of
 * issue 19 (tests/large-model.test.ts, suite `large-model`). No such model is committed and none is held
 * in memory while it is made: each layer's weights are drawn into one reused buffer and appended to the
 * data file, and the .onnx only names them (location / offset / length, 4 KiB-aligned offsets).
 *
 * The graph is an image classifier's head made wide: a 3×32×32 image is flattened, then `layers` MatMul
 * (+ bias, Relu) of width × width float32 weights, then a MatMul to 16 outputs. Weights are seeded
 * uniform with He scaling, so activations neither vanish nor explode through the depth.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  DataType,
  EXTERNAL_ALIGN_BYTES,
  emptyTensor,
  encode,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  externalDataFileName,
  intAttribute,
  type TensorProto,
} from '../src/core/onnx/index.ts';

export interface LargeModelFiles {
  readonly onnx: string;
  readonly data: string;
  /** Bytes of the data file (the model's weights, with alignment padding). */
  readonly dataBytes: number;
  readonly layers: number;
  readonly width: number;
}

const INPUT = 3 * 32 * 32;
const OUTPUTS = 16;

/** Layers of `width` that give at least `targetBytes` of weights (the first and last layers included). */
export function layersFor(targetBytes: number, width: number): number {
  const fixed = (INPUT * width + width * OUTPUTS) * 4;
  return Math.max(0, Math.ceil((targetBytes - fixed) / (width * width * 4)));
}

/** Fills `w` with seeded uniform values in ±√(6 / fanIn) (He-uniform for Relu), fast enough for gigabytes. */
function fill(w: Float32Array, fanIn: number, seed: number): void {
  const bound = Math.sqrt(6 / fanIn) / 2 ** 31;
  let s = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < w.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    w[i] = (s | 0) * bound;
  }
}

/**
 * Writes `<dir>/<name>.onnx` and its data file `<name>.onnx.data`: an MLP whose weights hold at least
 * `targetBytes` (width 4096 by default: 64 MiB a layer).
 */
export function writeLargeModel(
  dir: string,
  targetBytes: number,
  { name = 'large-mlp', width = 4096 } = {},
): LargeModelFiles {
  const layers = layersFor(targetBytes, width);
  const onnx = path.join(dir, `${name}.onnx`);
  const dataName = externalDataFileName(onnx);
  const data = path.join(dir, dataName);
  const fd = fs.openSync(data, 'w');
  let offset = 0;
  const initializer: TensorProto[] = [];
  const scratch = new Float32Array(Math.max(INPUT, width) * width);
  const external = (tensorName: string, dims: number[], values: Float32Array): void => {
    offset = Math.ceil(offset / EXTERNAL_ALIGN_BYTES) * EXTERNAL_ALIGN_BYTES;
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    for (let done = 0; done < bytes.byteLength;)
      done += fs.writeSync(fd, bytes, done, bytes.byteLength - done, offset + done);
    initializer.push({
      ...emptyTensor(dims),
      name: tensorName,
      data_type: DataType.FLOAT,
      data_location: 1,
      external_data: [
        { key: 'location', value: dataName },
        { key: 'offset', value: String(offset) },
        { key: 'length', value: String(bytes.byteLength) },
      ],
    });
    offset += bytes.byteLength;
  };
  const nodes = [makeNode('Flatten', ['image'], ['x0'], 'Flatten', [intAttribute('axis', 1)])];
  let x = 'x0';
  const dense = (l: number, fanIn: number, fanOut: number, relu: boolean) => {
    const w = scratch.subarray(0, fanIn * fanOut);
    fill(w, fanIn, l + 1);
    external(`w${l}`, [fanIn, fanOut], w);
    initializer.push(makeTensor(`b${l}`, DataType.FLOAT, [fanOut], new Float32Array(fanOut).fill(0.01)));
    nodes.push(
      makeNode('MatMul', [x, `w${l}`], [`mm${l}`], `MatMul_${l}`),
      makeNode('Add', [`mm${l}`, `b${l}`], [relu ? `add${l}` : 'logits'], `Add_${l}`),
    );
    if (relu) nodes.push(makeNode('Relu', [`add${l}`], [`relu${l}`], `Relu_${l}`));
    x = `relu${l}`;
  };
  try {
    dense(0, INPUT, width, true);
    for (let l = 1; l <= layers; l++) dense(l, width, width, true);
    dense(layers + 1, width, OUTPUTS, false);
  } finally {
    fs.closeSync(fd);
  }
  const graph = makeGraph({
    name: `large-mlp-${layers}x${width}`,
    node: nodes,
    input: [makeValueInfo('image', DataType.FLOAT, [1, 3, 32, 32])],
    output: [makeValueInfo('logits', DataType.FLOAT, [1, OUTPUTS])],
    initializer,
  });
  fs.writeFileSync(onnx, encode(makeModel(graph, { '': 13 }, 8)));
  return { onnx, data, dataBytes: offset, layers, width };
}
