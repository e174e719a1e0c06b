/**
 * Ranges for the tensors calibration never saw because preparation made them. Raising an opset-11 Softmax
 * (LogSoftmax, Hardmax) whose axis is not the last to opset 13 writes Flatten → op → Reshape
 * (prepare/opsetSteps.ts); calibration ran on the source model, where only the op's input and output existed.
 * Without ranges for the two inner tensors the wrapped op reads and writes unquantized tensors: a float island
 * between its neighbours' Q/DQ (PP-OCRv4's recognizer: 2 of its 3 attention Softmaxes), shown as "float".
 * A reshape-like op holds the same values on both sides, so a tensor without a range takes its neighbour's
 * across one: forward from the input, backward from the output. Exact, not an estimate; pure.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';

/** Ops whose output holds exactly the values of their input (data input 0), rearranged. */
const RESHAPING = new Set(['Reshape', 'Flatten', 'Squeeze', 'Unsqueeze', 'Transpose', 'Identity']);

/** `ranges` with a range for each tensor that has none but sits across a reshape-like op from one that has. */
export function withReshapedRanges<R>(index: GraphIndex, ranges: ReadonlyMap<string, R>): ReadonlyMap<string, R> {
  const out = new Map<string, R>(ranges);
  for (let changed = true; changed;) {
    changed = false;
    for (const i of index.order) {
      const node = index.nodes[i];
      const [x, y] = [node.input[0], node.output[0]];
      if (!RESHAPING.has(node.op_type ?? '') || !x || !y || index.initializers.has(x) || out.has(x) === out.has(y))
        continue;
      if (out.has(x)) out.set(y, out.get(x)!);
      else out.set(x, out.get(y)!);
      changed = true;
    }
  }
  return out.size === ranges.size ? ranges : out;
}
