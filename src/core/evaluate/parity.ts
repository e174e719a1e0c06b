/**
 * Parity across runtimes (issue 34): the float and the quantized model run on every runtime the page has (WASM,
 * WebGPU, WebGPU as onnxruntime-web's default JSEP build runs it, WebNN where the browser exposes it) on the
 * evaluation samples, each output judged by its cosine to the WASM float reference, and each runtime against WASM
 * on the same model. Where a runtime parts from WASM beyond float rounding, every float tensor of that model is
 * compared on the first sample, in graph order, and the first that parts names the node where they part (and the
 * float graph's node to show, where the parting node is one the quantizer added).
 *
 * Runtimes are injected (the workers give onnxruntime-web's backends, tests onnxruntime-node): this module only
 * runs, compares and locates. A runtime that cannot load or run a model gets its error in its row, not a failure.
 */
import { buildGraphIndex, sessionModel, type ModelProto } from '../onnx/index.ts';
import type { Feed, InferenceRunner, RunTensor } from '../runtime/session.ts';
import type { ModelBytes } from '../onnx/externalize.ts';
import { cosineSimilarity } from '../metrics/cosine.ts';
import { exposeTensors, observableTensors } from '../calibrate/run/expose.ts';

/** One runtime of the table. The first one given is the reference (WASM). */
export interface ParityRuntime {
  readonly id: string;
  readonly label: string;
  createSession(model: ModelBytes): Promise<InferenceRunner>;
}

/** Agreement with the same model on WASM below this is more than float rounding (cosine). */
export const ROUNDING_COSINE = 1 - 1e-4;
/** A tensor parts from its WASM value where ‖a − b‖ / ‖b‖ exceeds this. */
export const PARTING_RELATIVE_ERROR = 1e-3;

export type ParityModel = 'float' | 'quantized';

export interface PartingPoint {
  tensor: string;
  /** The node producing it (its name, or its op type and position where it has none), and its op type. */
  node: string;
  opType: string;
  relativeError: number;
  /** The float graph's node to show: the parting node itself, or the first float node it feeds (a DequantizeLinear's consumer). */
  floatNodeId: string | null;
  floatNodeName: string | null;
}

export interface ParityRow {
  runtime: string;
  label: string;
  model: ParityModel;
  /** Mean output cosine against the WASM float reference, over samples and outputs; null where it did not run. */
  cosine: number | null;
  /** Mean output cosine against the same model on WASM (1 for WASM itself). */
  agreement: number | null;
  /** Parts from WASM on the same model beyond float rounding. */
  flagged: boolean;
  parting: PartingPoint | null;
  error: string | null;
  seconds: number;
}

export interface ParityResult {
  rows: ParityRow[];
  samples: number;
  /** Runtimes the page has but the browser does not (WebNN without navigator.ml), with why. */
  unavailable: { id: string; label: string; reason: string }[];
}

type Outputs = Record<string, RunTensor>[];

const asFloat = (t: RunTensor | undefined): Float32Array | null =>
  t && t.data instanceof Float32Array ? t.data : null;

/** Mean cosine of every float output over samples; null when nothing comparable. */
function meanCosine(reference: Outputs, test: Outputs): number | null {
  let sum = 0;
  let n = 0;
  for (let s = 0; s < reference.length; s++) {
    for (const [name, r] of Object.entries(reference[s])) {
      const a = asFloat(r);
      const b = asFloat(test[s]?.[name]);
      if (!a || !b || a.length !== b.length) continue;
      const c = cosineSimilarity(a, b);
      sum += Number.isFinite(c) ? c : 0;
      n++;
    }
  }
  return n > 0 ? sum / n : null;
}

function relativeError(reference: Float32Array, test: Float32Array): number {
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < reference.length; i++) {
    const d = test[i] - reference[i];
    diff += Number.isFinite(d) ? d * d : Infinity;
    norm += reference[i] * reference[i];
  }
  return Math.sqrt(diff) / Math.max(Math.sqrt(norm), 1e-12);
}

async function runAll(
  runtime: ParityRuntime,
  model: ModelProto,
  feeds: readonly Readonly<Record<string, Feed>>[],
): Promise<Outputs> {
  const runner = await runtime.createSession(sessionModel(model));
  try {
    const out: Outputs = [];
    for (const f of feeds) out.push(await runner.run(f));
    return out;
  } finally {
    await runner.release();
  }
}

/** The first float tensor (graph order) where `runtime` parts from the reference on `feed`, located on the float graph. */
export async function firstParting(
  model: ModelProto,
  float: ModelProto,
  reference: ParityRuntime,
  runtime: ParityRuntime,
  feed: Readonly<Record<string, Feed>>,
): Promise<PartingPoint | null> {
  const inputs = new Set(model.graph!.input.map((v) => v.name ?? ''));
  const tensors = observableTensors(model).filter((t) => !inputs.has(t));
  if (tensors.length === 0) return null;
  const exposed = exposeTensors(model, tensors);
  const [ref] = await runAll(reference, exposed, [feed]);
  const [got] = await runAll(runtime, exposed, [feed]);
  const index = buildGraphIndex(model.graph!);
  for (const t of tensors) {
    const a = asFloat(ref[t]);
    const b = asFloat(got[t]);
    if (!a || !b || a.length !== b.length) continue;
    const e = relativeError(a, b);
    if (!(e > PARTING_RELATIVE_ERROR)) continue;
    const at = index.producer.get(t);
    const node = at === undefined ? undefined : index.nodes[at];
    return {
      tensor: t,
      node: node?.name || (node ? `${node.op_type} #${at}` : t),
      opType: node?.op_type ?? '',
      relativeError: e,
      ...locateOnFloat(model, float, t),
    };
  }
  return null;
}

/** The float graph's node for a tensor of `model`: its producer where the float graph has a node of that name, else the first such node downstream. */
function locateOnFloat(
  model: ModelProto,
  float: ModelProto,
  tensor: string,
): { floatNodeId: string | null; floatNodeName: string | null } {
  const floatIndex = buildGraphIndex(float.graph!);
  const byName = new Map<string, number>();
  floatIndex.nodes.forEach((n, i) => n.name && byName.set(n.name, i));
  const index = model === float ? floatIndex : buildGraphIndex(model.graph!);
  const seen = new Set<number>();
  let frontier = [index.producer.get(tensor)].filter((i): i is number => i !== undefined);
  for (let depth = 0; depth < 16 && frontier.length > 0; depth++) {
    const next: number[] = [];
    for (const i of frontier) {
      if (seen.has(i)) continue;
      seen.add(i);
      const name = index.nodes[i].name;
      const f = name ? byName.get(name) : undefined;
      if (f !== undefined) return { floatNodeId: floatIndex.ids[f], floatNodeName: name! };
      for (const o of index.nodes[i].output) next.push(...(index.consumers.get(o) ?? []));
    }
    frontier = next;
  }
  return { floatNodeId: null, floatNodeName: null };
}

/**
 * Runs both models on every runtime (the first is the WASM reference) over `feeds`; `onProgress(done, total)` after
 * each runtime and model. `check` throws to cancel.
 */
export async function runParity(
  float: ModelProto,
  quantized: ModelProto,
  runtimes: readonly ParityRuntime[],
  feeds: readonly Readonly<Record<string, Feed>>[],
  hooks: { check?: () => void; onProgress?: (done: number, total: number) => void } = {},
): Promise<Omit<ParityResult, 'unavailable'>> {
  const [reference] = runtimes;
  const models: [ParityModel, ModelProto][] = [
    ['float', float],
    ['quantized', quantized],
  ];
  const total = runtimes.length * models.length;
  let done = 0;
  const onReference = new Map<ParityModel, Outputs>();
  const rows: ParityRow[] = [];
  for (const runtime of runtimes) {
    for (const [which, model] of models) {
      hooks.check?.();
      const start = performance.now();
      const row: ParityRow = {
        runtime: runtime.id,
        label: runtime.label,
        model: which,
        cosine: null,
        agreement: null,
        flagged: false,
        parting: null,
        error: null,
        seconds: 0,
      };
      try {
        const outputs = await runAll(runtime, model, feeds);
        if (runtime === reference) onReference.set(which, outputs);
        const base = onReference.get(which);
        row.cosine = meanCosine(onReference.get('float')!, outputs);
        row.agreement = base ? meanCosine(base, outputs) : null;
        row.flagged = row.agreement !== null && row.agreement < ROUNDING_COSINE;
        if (row.flagged) row.parting = await firstParting(model, float, reference, runtime, feeds[0]);
      } catch (e) {
        if (runtime === reference) throw e;
        row.error = e instanceof Error ? e.message : String(e);
      }
      row.seconds = (performance.now() - start) / 1000;
      rows.push(row);
      hooks.onProgress?.(++done, total);
    }
  }
  return { rows, samples: feeds.length };
}
