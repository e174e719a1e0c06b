/**
 * Tensors whose collector state follows exactly from other tensors' states, so calibration need not expose them
 * (issue 33.5: on ISNet's float32 form, 1,209 of the 3,049 MB a run exposes are Cast and Concat outputs).
 *
 * A tensor that holds its input's values in another order or shape (Identity, Reshape, Flatten, Squeeze, Unsqueeze,
 * Transpose, and Cast to float32 of a float32 tensor, as a float16 model's float32 form has them) gets, batch by
 * batch, the same multiset of values folded: its state is a copy of its input's, for every collector whose update
 * sees only that multiset (MinMax, NonOverflow and the histogram methods). A Concat holds the union of its inputs'
 * values: for the histogram methods its state is their merge, bit for bit the state of folding each batch's union
 * (the histogram's layout depends on the data's range alone, and its merge is exact: histogram/histogram.ts). MinMax
 * states count batches and sum batch extremes, which a merge of whole runs cannot give, so a Concat is derived only
 * where every configuration folded from the runs keeps one histogram.
 *
 * Main-graph tensors only, each from tensors that have a state of their own (exposed, fed, or derived before it).
 */
import type { ModelProto } from '../../onnx/model.ts';
import { buildGraphIndex } from '../../onnx/graphIndex.ts';
import { mergeStates, type CollectorState } from '../collectors/registry.ts';
import type { CalibrationMethod } from '../collectors/types.ts';
import { HISTOGRAM_ONLY, type TensorStates } from './statistics.ts';
import { holdsInputValues } from './derivedExtremes.ts';

/** How one tensor's state follows from its sources'. */
export interface StateDerivation {
  /** The producer's op (for counts and messages). */
  readonly op: string;
  /** 'copy': the one source's state; 'merge': the merge of the sources' states. */
  readonly kind: 'copy' | 'merge';
  readonly sources: readonly string[];
}

/** Collectors whose update depends on the multiset of a batch's values alone. */
const MULTISET_COLLECTORS: ReadonlySet<string> = new Set(['MinMax', 'NonOverflow', ...HISTOGRAM_ONLY]);

/**
 * The tensors among `observed` (main-graph tensors that get a state: exposed node outputs and float32 graph inputs)
 * whose states can be derived under every collector of `methods`, in topological order, each from tensors of
 * `observed` that come before it.
 */
export function planStateDerivations(
  model: ModelProto,
  observed: readonly string[],
  methods: readonly CalibrationMethod[],
): Map<string, StateDerivation> {
  const out = new Map<string, StateDerivation>();
  if (methods.length === 0 || !methods.every((m) => MULTISET_COLLECTORS.has(m))) return out;
  // Collectors whose state is one histogram (histogramState.ts), which merges exactly.
  const merges = methods.every((m) => HISTOGRAM_ONLY.has(m));
  const wanted = new Set(observed);
  const graph = model.graph!;
  // Tensors with a state by the time each node is reached: graph inputs first, then outputs in topological order
  // (a float16 model's float32 form, as ISNet's, need not list its nodes in it).
  const known = new Set(graph.input.map((v) => v.name ?? '').filter((n) => wanted.has(n)));
  const nodes = graph.node;
  for (const i of buildGraphIndex(graph).order) {
    const node = nodes[i];
    const op = node.op_type ?? '';
    const output = node.output[0];
    const plain = !node.domain || node.domain === 'ai.onnx';
    if (plain && node.output.length === 1 && wanted.has(output)) {
      const [x] = node.input;
      if (holdsInputValues(node) && known.has(x)) out.set(output, { op, kind: 'copy', sources: [x] });
      else if (op === 'Concat' && merges && node.input.length > 0 && node.input.every((i) => known.has(i)))
        out.set(output, { op, kind: 'merge', sources: [...node.input] });
    }
    for (const o of node.output) if (wanted.has(o)) known.add(o);
  }
  return out;
}

/**
 * Adds each derived tensor's state to `states`, from its sources' (a tensor whose sources have no state, where no
 * sample ran, gets none either). Copies are deep, so no two tensors share a state.
 */
export function deriveStates(states: TensorStates, derivations: ReadonlyMap<string, StateDerivation>): void {
  for (const [tensor, d] of derivations) {
    const sources = d.sources.map((s) => states.get(s));
    if (!sources.every((s): s is CollectorState => s !== undefined)) continue;
    const state = d.kind === 'copy' || sources.length === 1 ? structuredClone(sources[0]) : sources.reduce(mergeStates);
    states.set(tensor, state);
  }
}
