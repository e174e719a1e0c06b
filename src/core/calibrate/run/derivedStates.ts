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
 * states count batches and sum batch extremes, which a merge of whole runs cannot give: a Concat's MinMax state is
 * folded batch by batch instead, each batch the union of its inputs' batches in that run (RunExtremes: the inputs'
 * extremes recorded run by run), the same numbers the Concat's own values would fold.
 *
 * Main-graph tensors only, each from tensors that have a state of their own (exposed, fed, or derived before it).
 */
import type { ModelProto } from '../../onnx/model.ts';
import { buildGraphIndex } from '../../onnx/graphIndex.ts';
import { mergeStates, type CollectorState } from '../collectors/registry.ts';
import type { CalibrationMethod } from '../collectors/types.ts';
import { batchExtremes, foldExtremes, noExtremes, type BatchExtremes, type MinMaxState } from '../collectors/minmax.ts';
import { HISTOGRAM_ONLY, type RunOutput, type TensorStates } from './statistics.ts';
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
      else if (op === 'Concat' && node.input.length > 0 && node.input.every((i) => known.has(i)))
        out.set(output, { op, kind: 'merge', sources: [...node.input] });
    }
    for (const o of node.output) if (wanted.has(o)) known.add(o);
  }
  return out;
}

/**
 * Adds each derived tensor's state to `states`, from its sources' (a tensor whose sources have no state, where no
 * sample ran, gets none either). Copies are deep, so no two tensors share a state. A merge of MinMax-type states is
 * folded from `runs`' batches (each run's union of its sources' batches).
 */
export function deriveStates(
  states: TensorStates,
  derivations: ReadonlyMap<string, StateDerivation>,
  runs: RunExtremes,
): void {
  for (const [tensor, d] of derivations) {
    const sources = d.sources.map((s) => states.get(s));
    if (!sources.every((s): s is CollectorState => s !== undefined)) continue;
    if (d.kind === 'copy' || sources.length === 1) states.set(tensor, structuredClone(sources[0]));
    else if (isExtremesState(sources[0])) {
      const batches = runs.batchesOf(tensor);
      if (batches === undefined) continue;
      const state: MinMaxState = { ...sources[0], ...noExtremes() };
      for (const b of batches) foldExtremes(state, b);
      states.set(tensor, state);
    } else states.set(tensor, sources.reduce(mergeStates));
  }
}

function isExtremesState(s: CollectorState): s is MinMaxState {
  return s.method === 'MinMax' || s.method === 'NonOverflow';
}

/**
 * The extremes of each run's batch of the tensors merges read (the sources of Concats, through the copies between),
 * recorded run by run in the order the samples ran: every exposed tensor of a plan is folded from the same samples in
 * the same order, chunked or not, so the k-th batch of every source is the same sample's.
 */
export class RunExtremes {
  private readonly recorded = new Map<string, BatchExtremes[]>();
  /** Exposed (or fed) tensors whose batches a merge reads. */
  private readonly read = new Set<string>();

  constructor(private readonly derivations: ReadonlyMap<string, StateDerivation>) {
    const visit = (t: string): void => {
      const d = derivations.get(t);
      if (d === undefined) this.read.add(t);
      else for (const s of d.sources) visit(s);
    };
    for (const d of derivations.values()) if (d.kind === 'merge') for (const s of d.sources) visit(s);
  }

  /** Records one run's batches of the tensors merges read (float32 outputs or feeds). */
  record(outputs: Readonly<Record<string, RunOutput>>): void {
    if (this.read.size === 0) return;
    for (const [name, value] of Object.entries(outputs)) {
      if (value.type !== 'float32' || !this.read.has(name)) continue;
      let list = this.recorded.get(name);
      if (!list) this.recorded.set(name, (list = []));
      list.push(batchExtremes(value.data as Float32Array));
    }
  }

  /** Forgets every run (a new float pass begins). */
  clear(): void {
    this.recorded.clear();
  }

  /** `tensor`'s batch in each run: recorded, its copy source's, or the union of its merge sources' (undefined where one is missing). */
  batchesOf(tensor: string): BatchExtremes[] | undefined {
    const d = this.derivations.get(tensor);
    if (d === undefined) return this.recorded.get(tensor);
    const parts = d.sources.map((s) => this.batchesOf(s));
    if (!parts.every((p): p is BatchExtremes[] => p !== undefined)) return undefined;
    if (d.kind === 'copy' || parts.length === 1) return parts[0];
    const runs = parts[0].length;
    if (!parts.every((p) => p.length === runs)) return undefined;
    return Array.from({ length: runs }, (_, k) => unionOf(parts.map((p) => p[k])));
  }
}

/** The extremes of a batch that is the union of `parts`: the finite values' extremes over the parts that have any. */
function unionOf(parts: readonly BatchExtremes[]): BatchExtremes {
  let min = Infinity;
  let max = -Infinity;
  let count = 0;
  let nonFinite = 0;
  for (const p of parts) {
    count += p.count;
    nonFinite += p.nonFinite;
    if (p.count === p.nonFinite) continue;
    if (p.min < min) min = p.min;
    if (p.max > max) max = p.max;
  }
  return { min, max, count, nonFinite };
}
