/**
 * Synthetic graphs for the graph view's benchmark: a model of about N nodes shaped and named like a
 * PyTorch export of a YOLO-style backbone: stages of blocks with SiLU (Conv → Sigmoid → Mul), residual
 * Adds, and every few blocks a C2f-like Split → two paths → Concat; node and tensor names carry the
 * exporter's scopes (`/model.3/m.1/cv1/conv/Conv`, `/model.3/m.1/cv1/conv/Conv_output_0`). Built in
 * code (no binary is committed); tiny 4×4 weights, so the file size is about the graph, not weights.
 */
import {
  DataType,
  intAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  type ModelProto,
  type NodeProto,
  type TensorProto,
} from '../src/core/onnx/index.ts';
import { centredUniform } from './synthetic.ts';

const C = 4;

/** A model of `nodes` nodes (rounded up to whole blocks). */
export function syntheticScopedGraph(nodes: number, seed = 7): ModelProto {
  const node: NodeProto[] = [];
  const initializer: TensorProto[] = [];
  const uniform = centredUniform(seed);
  const weight = (name: string) => {
    const w = Float32Array.from({ length: C * C }, uniform);
    initializer.push(makeTensor(name, DataType.FLOAT, [C, C, 1, 1], w));
    return name;
  };
  /** Conv + SiLU under a scope; returns the output tensor. */
  const convSilu = (scope: string, x: string) => {
    const conv = `${scope}/conv/Conv_output_0`;
    node.push(
      makeNode('Conv', [x, weight(`${scope.replaceAll('/', '.').slice(1)}.conv.weight`)], [conv], `${scope}/conv/Conv`),
    );
    node.push(makeNode('Sigmoid', [conv], [`${scope}/act/Sigmoid_output_0`], `${scope}/act/Sigmoid`));
    node.push(
      makeNode('Mul', [conv, `${scope}/act/Sigmoid_output_0`], [`${scope}/act/Mul_output_0`], `${scope}/act/Mul`),
    );
    return `${scope}/act/Mul_output_0`;
  };
  let x = 'images';
  let stage = 0;
  while (node.length < nodes) {
    const s = `/model.${stage}`;
    x = convSilu(`${s}/cv1`, x);
    // C2f-like: split into two halves of channels, a chain of residual blocks on one, concat.
    const split = [`${s}/Split_output_0`, `${s}/Split_output_1`];
    node.push(makeNode('Split', [x], split, `${s}/Split`, [intAttribute('axis', 1)]));
    let y = split[1];
    const parts = [split[0], split[1]];
    for (let m = 0; m < 3 && node.length < nodes; m++) {
      const a = convSilu(`${s}/m.${m}/cv1`, y);
      const b = convSilu(`${s}/m.${m}/cv2`, a);
      const sum = `${s}/m.${m}/Add_output_0`;
      node.push(makeNode('Add', [y, b], [sum], `${s}/m.${m}/Add`));
      parts.push(sum);
      y = sum;
    }
    node.push(makeNode('Concat', parts, [`${s}/Concat_output_0`], `${s}/Concat`, [intAttribute('axis', 1)]));
    x = convSilu(`${s}/cv2`, `${s}/Concat_output_0`);
    stage++;
  }
  const graph = makeGraph({
    name: `synthetic-scoped-${nodes}`,
    node,
    input: [makeValueInfo('images', DataType.FLOAT, [1, C, 8, 8])],
    output: [makeValueInfo(x, DataType.FLOAT, [1, C, 8, 8])],
    initializer,
  });
  return makeModel(graph, { '': 13 }, 8);
}
