/**
 * Which layers fine-tuning works on when it tunes only those the per-layer sensitivity points at
 * (RecoveryOptions.sensitiveShare): the plain quantized model is compared with the float model tensor by tensor on a
 * few tuning samples (compareModels, layers), each linear layer's added noise is read, and the layers that add the
 * most are taken, largest first, until theirs sum to the share of all the layers' positive additions. The others keep
 * their nearest-rounded codes and are never gathered, built or tuned.
 *
 * A layer's added noise is the relative noise power of what it writes less that of what it reads,
 * 10^(−SQNR_out/10) − 10^(−SQNR_in/10), from the SQNRs of ../metrics/layerwiseJumps.ts (nodeErrors): a share of the
 * output's error, where its dB drop (the error jump) would rank the first layers of a network, which turn an exact
 * input into a noisy one, above deeper layers that add more noise (measured: bench/README.md ladder-budget).
 * A layer whose own output is not compared (a Conv whose output only its activation's Q/DQ follows) takes the figure
 * of the first compared node along its single-consumer chain, which nodeErrors measures from the layer's inputs. Only
 * the tensors those chains read and write are compared (chainTensors): the same figures as comparing every tensor, at
 * about half the cost (measured on four models: bench/README.md ladder-budget).
 * Layers inside If branches (scoped ids, `if/then_branch/conv1`) are measured and chosen like the main graph's: their
 * chains are followed inside their branch (scopedNodes), and the comparison carries their tensors up (compareModels).
 *
 * Where the user gives no share, every layer is tuned (`sensitiveShareRule`): no rule measured at least as good held
 * out on every benchmarked model. How concentrated the measured noise is (`noiseConcentration`) does not separate the
 * models where tuning the sensitive layers wins from those where it loses, and the model's kind (AdaRound on a model
 * with attention blocks at 0.8) read worse than every layer on the recognizer's own ladder rungs (bench/README.md
 * ladder-budget), so a share is the user's choice and the concentration is only reported.
 * One measurement serves every fine-tuning rung of one plain configuration (SensitivityCache: the AdaRound and
 * AdaQuant rungs of a format measure the same plain model).
 * Must not import a runtime: the runtime is injected.
 */
import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import { scopedBodies } from '../quantize/bodyViews.ts';
import type { ModelProto, NodeId } from '../onnx/model.ts';
import { compareModels, type ComparisonRuntime } from '../evaluate/compareModels.ts';
import { sampleSubset } from '../evaluate/outputJudge.ts';
import { nodeErrors } from '../metrics/layerwiseJumps.ts';
import type { QuantConfig } from '../quantize/config.ts';

/** Tuning samples the layers' noise is measured on (spread over the runtime's), as the mixed-precision search's 4. */
export const SENSITIVITY_SAMPLES = 4;

/** The relative noise power a layer adds (0 where nothing was measured for it; negative where it lowers it). */
export interface LayerNoise {
  readonly id: NodeId;
  readonly addedNoise: number;
}

/** Relative noise power of a tensor at `sqnr` dB (0 for an exact one). */
const noisePower = (sqnr: number) => (sqnr === Infinity ? 0 : 10 ** (-sqnr / 10));

/** Where a node of the model is: the graph that holds it (the main graph or a body), its place there, its scope. */
export interface ScopedNode {
  readonly index: GraphIndex;
  readonly i: number;
  /** '' in the main graph; a body's prefix (`if/then_branch/`) inside one. */
  readonly prefix: string;
}

/** Every node of the model by its (scoped) id: the main graph's (`floatIndex`) and those of its bodies. */
export function scopedNodes(model: ModelProto, floatIndex = buildGraphIndex(model.graph!)): Map<NodeId, ScopedNode> {
  const nodes = new Map<NodeId, ScopedNode>();
  const add = (index: GraphIndex, prefix: string) =>
    index.ids.forEach((id, i) => nodes.set(`${prefix}${id}` as NodeId, { index, i, prefix }));
  add(floatIndex, '');
  for (const b of scopedBodies(model)) add(b.index, b.prefix);
  return nodes;
}

/** The nodes a layer's figure may come from: the layer, then its output's single readers in its graph, 8 at most. */
function* layerChain(id: NodeId, nodes: ReadonlyMap<NodeId, ScopedNode>): Generator<ScopedNode> {
  const at = nodes.get(id);
  if (!at) return;
  const { index, prefix } = at;
  let i: number | undefined = at.i;
  for (let steps = 0; i !== undefined && steps < 8; steps++) {
    yield { index, i, prefix };
    const readers: readonly number[] = index.consumers.get(index.nodes[i].output[0]) ?? [];
    i = readers.length === 1 ? readers[0] : undefined;
  }
}

/**
 * The tensors the layers' figures read: what each node of each layer's chain reads and writes. Comparing only these
 * gives each of them the SQNR the whole comparison gives (a tensor's SQNR depends on its own values only).
 */
export function chainTensors(ids: readonly NodeId[], nodes: ReadonlyMap<NodeId, ScopedNode>): Set<string> {
  const tensors = new Set<string>();
  for (const id of ids)
    for (const { index, i } of layerChain(id, nodes)) {
      for (const t of index.nodeInputs[i]) tensors.add(t);
      for (const t of index.nodes[i].output) tensors.add(t);
    }
  return tensors;
}

/** The added noise of each layer in `ids` (float-model scoped ids), from what each compared node adds (`added`). */
export function layerNoises(
  ids: readonly NodeId[],
  added: ReadonlyMap<NodeId, number>,
  nodes: ReadonlyMap<NodeId, ScopedNode>,
): LayerNoise[] {
  return ids.map((id) => {
    // Follow the layer's output through nodes that were not compared, while it has a single reader.
    for (const { index, i, prefix } of layerChain(id, nodes)) {
      const a = added.get(`${prefix}${index.ids[i]}` as NodeId);
      if (a !== undefined) return { id, addedNoise: Number.isFinite(a) ? a : 0 };
    }
    return { id, addedNoise: 0 };
  });
}

/**
 * The layers to tune: the largest added noise first until the chosen layers' reach `share` of the sum of positive
 * additions (at least one layer when any is positive); share ≥ 1 takes every layer. Ties keep the given order.
 */
export function chooseSensitiveLayers(layers: readonly LayerNoise[], share: number): Set<NodeId> {
  if (share >= 1) return new Set(layers.map((l) => l.id));
  const positive = layers.filter((l) => l.addedNoise > 0);
  const total = positive.reduce((a, l) => a + l.addedNoise, 0);
  const chosen = new Set<NodeId>();
  let sum = 0;
  for (const l of [...positive].sort((a, b) => b.addedNoise - a.addedNoise)) {
    if (chosen.size > 0 && sum >= share * total) break;
    chosen.add(l.id);
    sum += l.addedNoise;
  }
  return chosen;
}

/** The noise each linear layer in `ids` (scoped ids) adds in the plain quantized model, measured on a few of `runtime`'s samples. */
export async function measureAddedNoise(
  floatModel: ModelProto,
  quantModel: ModelProto,
  ids: readonly NodeId[],
  runtime: ComparisonRuntime,
): Promise<LayerNoise[]> {
  const floatIndex = buildGraphIndex(floatModel.graph!);
  const nodes = scopedNodes(floatModel, floatIndex);
  const comparison = await compareModels(floatModel, quantModel, sampleSubset(runtime, SENSITIVITY_SAMPLES), {
    layers: true,
    layerTensors: chainTensors(ids, nodes),
    floatIndex,
  });
  const added = new Map(
    nodeErrors(comparison.layerwise!.rows, floatIndex).map((e) => [
      e.node,
      noisePower(e.sqnr) - noisePower(e.inputSqnr),
    ]),
  );
  return layerNoises(ids, added, nodes);
}

/** Whether `share` is a share fine-tuning can tune to: in (0, 1] (1: every layer). */
export function isSensitiveShare(share: number): boolean {
  return share > 0 && share <= 1;
}

/** The share a fine-tuning run tunes to, and why: the user's, or the default (every layer). */
export interface SensitiveChoice {
  readonly share: number;
  readonly why: 'given' | 'default';
}

/**
 * The given share where there is one; else every layer (1). Measured held out at 'all': the sensitive layers lose
 * on YOLOX-nano (0.851 against 0.894) and the PP-OCR text detector (0.880 against 0.934), and even on the attention
 * recognizer, where one configuration read 8/16 against 6/16, the ladder's four AdaRound rungs read worse at 0.8 than
 * on every layer (7 against 12, 8 against 11, 0 against 5 and 0 against 7 of 16 lines; bench/README.md ladder-budget).
 */
export function sensitiveShareRule(given: number | undefined): SensitiveChoice {
  return given !== undefined ? { share: given, why: 'given' } : { share: 1, why: 'default' };
}

/**
 * How concentrated the measured noise is: the share of all positive additions held by the tenth of the layers (at
 * least one) that add the most; 0 where none adds any.
 */
export function noiseConcentration(layers: readonly LayerNoise[]): number {
  const positive = layers
    .map((l) => l.addedNoise)
    .filter((a) => a > 0)
    .sort((a, b) => b - a);
  const total = positive.reduce((a, b) => a + b, 0);
  if (total === 0) return 0;
  const top = positive.slice(0, Math.max(1, Math.ceil(layers.length / 10)));
  return top.reduce((a, b) => a + b, 0) / total;
}

/**
 * Layers' measured added noise kept across fine-tuning runs of one source model on one runtime (the ladder's rungs),
 * by plain configuration: the measurement reads the plain quantized model, which the fine-tuning settings
 * (FastFinetune: algorithm, iterations, rate) do not change, so the AdaRound and AdaQuant rungs of a format share it.
 */
export class SensitivityCache {
  private readonly entries = new Map<string, Promise<LayerNoise[]>>();
  private measuredCount = 0;

  /** The key of `config`'s plain model: every setting but FastFinetune's. */
  static keyOf(config: QuantConfig): string {
    return JSON.stringify({ ...config, extraOptions: { ...config.extraOptions, FastFinetune: undefined } });
  }

  /** The noises kept under `key`, or `measure`'s (kept; a failed measurement is not). */
  get(key: string, measure: () => Promise<LayerNoise[]>): { noises: Promise<LayerNoise[]>; shared: boolean } {
    const kept = this.entries.get(key);
    if (kept) return { noises: kept, shared: true };
    const noises = measure();
    this.measuredCount++;
    this.entries.set(key, noises);
    noises.catch(() => this.entries.delete(key));
    return { noises, shared: false };
  }

  /** Measurements made (not taken from the cache). */
  get measured(): number {
    return this.measuredCount;
  }
}
