/**
 * The golden reference for subgraph exclusion: UltraFace's post-processing tail. The fixture exported
 * without post-processing lacks exactly the tail's nodes, so the structural difference of the two
 * files is the set that must stay float. Shared by the core's tests and the graph view's end-to-end
 * test (so no test framework is imported here).
 */
import { buildGraphIndex, decode, type NodeProto } from '../../src/core/onnx/index.ts';
import { readModel } from './fixtures.ts';

/** Node ids of `a` with no node of the same op type reading the same tensors in `b`. */
export function structuralDifference(a: Uint8Array, b: Uint8Array): string[] {
  const key = (n: NodeProto) => `${n.op_type}(${n.input.join(',')})`;
  const modelA = decode(a);
  const inB = new Set(decode(b).graph!.node.map(key));
  const index = buildGraphIndex(modelA.graph!);
  return index.nodes.flatMap((n, i) => (inB.has(key(n)) ? [] : [index.ids[i]]));
}

/** UltraFace's tail: from the two Slices that split the box regressions to the final Concat. */
export const ULTRAFACE_TAIL = { starts: ['Slice_217', 'Slice_224'], ends: ['Concat_241'] };

/** The 18 node ids of the tail, from the two fixture files. */
export function ultrafaceTailGolden(): string[] {
  return structuralDifference(readModel('ultraface-rfb-320.onnx'), readModel('ultraface-rfb-320-nopost.onnx'));
}
