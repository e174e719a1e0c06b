/**
 * The quantized model's layer inputs pass after pass, each node run once per sample instead of once per pass.
 *
 * Fine-tuning goes depth by depth: pass s reads the inputs of its layers on the quantized model in which every
 * layer of the earlier passes is already tuned. Run from the graph inputs, pass s recomputes everything upstream
 * of its layers, so a model of D depths costs about D/2 full runs per sample. But a tensor whose upstream tuned
 * layers all belong to earlier passes never changes again ("final" from then on): this module keeps such tensors
 * (per sample) when a later pass will read them, and runs each pass as the sub-model from the kept tensors to the
 * pass's layer inputs, fed with them. Every node then runs about once per sample over all passes.
 *
 * Which tensors to keep is planned once on the graph (a dry run of the passes that keeps every final tensor, then
 * only those a later pass reads are kept for real, and dropped after their last reader); what is kept is bounded
 * by bytes: a tensor that does not fit is not kept, and a later pass walks back further (to the graph inputs at
 * worst), which is what the plain passes do. Correct either way: every node a pass runs is upstream of its layers,
 * so it has its final weights. Needs a runtime whose sessions run given feeds (SampleSession.runFeeds) and that
 * gives the samples' graph inputs; models with control flow are not split. Must not import a runtime.
 */
import {
  elementType,
  sessionModel,
  makeValueInfo,
  tensorsReadBy,
  type ModelProto,
  type ValueInfoProto,
} from '../onnx/index.ts';
import { subgraphsOf } from '../onnx/walk.ts';
import type { ComparisonRuntime, RunTensor } from '../evaluate/compareModels.ts';
import { runTensorBytes } from '../runtime/session.ts';
import { RecoveryError, throwIfCancelled, type CancelSignal } from './layerData.ts';

export interface PassPlan {
  /** Per pass, the tensors it reads (its layers' quantized inputs). */
  readonly wanted: readonly (readonly string[])[];
  /** Per pass, the tensors whose values change once it is done: its layers' outputs and the initializers it rewrites. */
  readonly changed: readonly (readonly string[])[];
}

/** What the passes ran: nodes run over all passes (per sample), kept bytes at most, and tensors not kept for lack of room. */
export interface PassStats {
  nodeRuns: number;
  peakBytes: number;
  notKept: number;
}

/** Whether the model can be run as sub-models by this runtime. */
export function canRunIncrementally(model: ModelProto, runtime: ComparisonRuntime): boolean {
  return !!runtime.feeds && !model.graph!.node.some((n) => subgraphsOf(n).length > 0);
}

const TYPE_CODES = new Map<string, number>();
for (let code = 1; code < 64; code++) {
  const info = elementType(code);
  if (info && !TYPE_CODES.has(info.name)) TYPE_CODES.set(info.name, code);
}

export class QuantizedPasses {
  /** Kept tensors: one value per sample. */
  private readonly kept = new Map<string, RunTensor[]>();
  /** Bytes of each kept tensor over all samples, and their sum. */
  private readonly keptSize = new Map<string, number>();
  private keptBytes = 0;
  /** First pass from which each tensor no longer changes (absent: 0, never changes). */
  private readonly finalFrom = new Map<string, number>();
  /** Last pass that reads each tensor from the kept set (absent: none). */
  private readonly lastRead = new Map<string, number>();
  private readonly graphInputs: Set<string>;
  private readonly initializers: Set<string>;
  readonly stats: PassStats = { nodeRuns: 0, peakBytes: 0, notKept: 0 };

  constructor(
    model: ModelProto,
    private readonly plan: PassPlan,
    private readonly runtime: ComparisonRuntime,
    private readonly options: {
      readonly samples: number;
      readonly budgetBytes: number;
      readonly signal?: CancelSignal;
    },
  ) {
    const graph = model.graph!;
    this.initializers = new Set(graph.initializer.map((t) => t.name ?? ''));
    this.graphInputs = new Set(graph.input.map((v) => v.name ?? '').filter((n) => !this.initializers.has(n)));
    plan.changed.forEach((names, s) =>
      names.forEach((n) => this.finalFrom.set(n, Math.max(this.finalFrom.get(n) ?? 0, s + 1))),
    );
    for (const node of graph.node) {
      let f = 0;
      for (const i of node.input) if (i) f = Math.max(f, this.finalFrom.get(i) ?? 0);
      for (const o of node.output) if (o) this.finalFrom.set(o, Math.max(f, this.finalFrom.get(o) ?? 0));
    }
    // Dry run: keep every final tensor a pass computes, and note which later passes read which.
    const all = new Set<string>();
    plan.wanted.forEach((wanted, s) => {
      const { nodes, reads } = this.walk(graph.node, wanted, all);
      for (const t of reads) if (all.has(t)) this.lastRead.set(t, s);
      for (const i of nodes) for (const o of graph.node[i].output) if (o && this.finalAt(o, s)) all.add(o);
      for (const t of wanted) if (this.finalAt(t, s)) all.add(t);
    });
  }

  private finalAt(tensor: string, pass: number): boolean {
    return (this.finalFrom.get(tensor) ?? 0) <= pass;
  }

  /** Nodes needed for `wanted`, walking back from it and stopping at `available` tensors, and what they read there. */
  private walk(
    nodes: readonly { readonly input: readonly string[]; readonly output: readonly string[] }[],
    wanted: readonly string[],
    available: ReadonlySet<string>,
  ) {
    const producer = new Map<string, number>();
    nodes.forEach((n, i) => n.output.forEach((o) => o && producer.set(o, i)));
    const keep = new Uint8Array(nodes.length);
    const reads = new Set<string>();
    const seen = new Set<string>();
    const stack = [...wanted];
    while (stack.length) {
      const t = stack.pop()!;
      if (seen.has(t)) continue;
      seen.add(t);
      if (available.has(t) || this.graphInputs.has(t)) {
        reads.add(t);
        continue;
      }
      const p = producer.get(t);
      if (p === undefined || keep[p]) continue;
      keep[p] = 1;
      for (const i of nodes[p].input) if (i) stack.push(i);
    }
    const list: number[] = [];
    keep.forEach((k, i) => k && list.push(i));
    return { nodes: list, reads };
  }

  /**
   * Runs pass `pass` on `model` (the quantized model as tuned so far) and hands each sample's wanted tensors to
   * `onSample`, in sample order. Throws RecoveryError when cancelled.
   */
  async run(
    pass: number,
    model: ModelProto,
    onSample: (sample: number, tensors: Readonly<Record<string, RunTensor>>) => void,
  ): Promise<void> {
    const graph = model.graph!;
    const wanted = this.plan.wanted[pass];
    const { nodes, reads } = this.walk(graph.node, wanted, new Set(this.kept.keys()));
    const fromKept = [...reads].filter((t) => this.kept.has(t));
    const fromFeeds = [...reads].filter((t) => !this.kept.has(t));
    const computed = new Set(nodes.flatMap((i) => graph.node[i].output));
    const outputs = wanted.filter((t) => computed.has(t));
    // Tensors this pass computes that a later pass reads: kept (room permitting).
    const toKeep = [...computed].filter(
      (t) => t && !this.kept.has(t) && this.finalAt(t, pass) && (this.lastRead.get(t) ?? -1) > pass,
    );
    const fetch = [...new Set([...outputs, ...toKeep])];
    const samples = this.options.samples;
    const keeping = new Set<string>();
    let session: Awaited<ReturnType<ComparisonRuntime['open']>> | undefined;
    try {
      if (fetch.length) {
        const sub = this.subModel(model, nodes, fromKept, fromFeeds, fetch);
        session = await this.runtime.open(sessionModel(sub));
        if (!session.runFeeds) throw new RecoveryError('the runtime cannot run a model on given feeds');
      }
      for (let s = 0; s < samples; s++) {
        throwIfCancelled(this.options.signal);
        const feeds: Record<string, RunTensor> = {};
        const given = this.runtime.feeds!(s);
        for (const t of fromFeeds) feeds[t] = given[t];
        for (const t of fromKept) feeds[t] = this.kept.get(t)![s];
        const out = session ? await session.runFeeds!(feeds, fetch) : {};
        if (s === 0) {
          for (const t of toKeep) {
            const bytes = out[t] ? runTensorBytes(out[t]) * samples : Infinity;
            if (this.keptBytes + bytes > this.options.budgetBytes) {
              this.stats.notKept++;
              continue;
            }
            keeping.add(t);
            this.kept.set(t, []);
            this.keptSize.set(t, bytes);
            this.keptBytes += bytes;
          }
          this.stats.peakBytes = Math.max(this.stats.peakBytes, this.keptBytes);
          this.stats.nodeRuns += nodes.length;
        }
        for (const t of keeping) this.kept.get(t)!.push(out[t]);
        const tensors: Record<string, RunTensor> = {};
        for (const t of wanted) tensors[t] = out[t] ?? this.kept.get(t)?.[s] ?? given[t];
        onSample(s, tensors);
      }
    } finally {
      await session?.release();
    }
    this.dropAfter(pass);
  }

  /**
   * Pass `pass` is not run (its layers' outcomes are known already): what no later pass reads is dropped as after running
   * it. The tensors it would have kept are not, so a later pass walks back further for them.
   */
  skip(pass: number): void {
    this.dropAfter(pass);
  }

  /** Drops the kept tensors no pass after `pass` reads. */
  private dropAfter(pass: number): void {
    for (const t of [...this.kept.keys()]) {
      if ((this.lastRead.get(t) ?? -1) <= pass) {
        this.keptBytes -= this.keptSize.get(t)!;
        this.keptSize.delete(t);
        this.kept.delete(t);
      }
    }
  }

  /** The model cut to `nodes`, reading kept tensors and graph inputs as its inputs, giving `outputs`. */
  private subModel(
    model: ModelProto,
    nodes: readonly number[],
    fromKept: readonly string[],
    fromFeeds: readonly string[],
    outputs: readonly string[],
  ): ModelProto {
    const graph = model.graph!;
    const node = nodes.map((i) => graph.node[i]);
    const used = tensorsReadBy(node);
    const declared = new Map(graph.input.map((v) => [v.name ?? '', v]));
    const input: ValueInfoProto[] = [
      ...fromFeeds.map((t) => declared.get(t)!),
      // Initializers an old model (IR < 4) also lists as inputs stay listed.
      ...graph.input.filter((v) => this.initializers.has(v.name ?? '') && used.has(v.name ?? '')),
      ...fromKept.map((t) => {
        const type = TYPE_CODES.get(this.kept.get(t)![0].type);
        if (type === undefined)
          throw new RecoveryError(`kept tensor "${t}" has element type ${this.kept.get(t)![0].type}`);
        return makeValueInfo(t, type);
      }),
    ];
    const inputs = new Set([...fromKept, ...fromFeeds]);
    return {
      ...model,
      graph: {
        ...graph,
        node,
        input,
        output: outputs.map((name) => ({ name, metadata_props: [] })),
        initializer: graph.initializer.filter((t) => used.has(t.name ?? '') && !inputs.has(t.name ?? '')),
        value_info: graph.value_info.filter((v) => !inputs.has(v.name ?? '')),
      },
    };
  }
}
