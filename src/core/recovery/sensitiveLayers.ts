/**
 * Which layers fine-tuning works on when it tunes only those the per-layer sensitivity points at
 * (RecoveryOptions.sensitiveShare): the plain quantized model is compared with the float model tensor by tensor on a
 * few tuning samples (compareModels, layers), each linear layer's error jump is read (../metrics/layerwiseJumps.ts:
 * the SQNR lost between what the layer reads and what it writes, in dB), and the layers with the largest jumps are
 * taken, largest first, until their jumps sum to the share of all the layers' positive jumps. The others keep their
 * nearest-rounded codes and are never gathered, built or tuned.
 * A layer whose own output is not compared (a Conv whose output only its activation's Q/DQ follows) takes the jump of
 * the first compared node along its single-consumer chain, which nodeErrors measures from the layer's inputs.
 * Must not import a runtime: the runtime is injected.
 */
import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import type { ModelProto, NodeId } from '../onnx/model.ts';
import { compareModels, type ComparisonRuntime } from '../evaluate/compareModels.ts';
import { sampleSubset } from '../evaluate/outputJudge.ts';
import { nodeErrors } from '../metrics/layerwiseJumps.ts';

/** Tuning samples the layers' jumps are measured on (spread over the runtime's), as the mixed-precision search's 4. */
export const SENSITIVITY_SAMPLES = 4;

/** A layer's measured error jump, dB (0 where nothing was measured for it). */
export interface LayerJump {
  readonly id: NodeId;
  readonly drop: number;
}

/** The jump of each layer in `ids` (float-model node ids), from the compared tensors `drops` (node id → dB). */
export function layerJumps(
  ids: readonly NodeId[],
  drops: ReadonlyMap<NodeId, number>,
  floatIndex: GraphIndex,
): LayerJump[] {
  return ids.map((id) => {
    let i = floatIndex.indexOfId.get(id);
    // Follow the layer's output through nodes that were not compared, while it has a single reader.
    for (let steps = 0; i !== undefined && steps < 8; steps++) {
      const d = drops.get(floatIndex.ids[i]);
      if (d !== undefined) return { id, drop: Number.isFinite(d) ? d : 0 };
      const readers = floatIndex.consumers.get(floatIndex.nodes[i].output[0]) ?? [];
      i = readers.length === 1 ? readers[0] : undefined;
    }
    return { id, drop: 0 };
  });
}

/**
 * The layers to tune: largest jump first until the chosen jumps reach `share` of the sum of positive jumps (at least
 * one layer when any jump is positive); share ≥ 1 takes every layer. Ties keep the given order.
 */
export function chooseSensitiveLayers(jumps: readonly LayerJump[], share: number): Set<NodeId> {
  if (share >= 1) return new Set(jumps.map((j) => j.id));
  const positive = jumps.filter((j) => j.drop > 0);
  const total = positive.reduce((a, j) => a + j.drop, 0);
  const chosen = new Set<NodeId>();
  let sum = 0;
  for (const j of [...positive].sort((a, b) => b.drop - a.drop)) {
    if (chosen.size > 0 && sum >= share * total) break;
    chosen.add(j.id);
    sum += j.drop;
  }
  return chosen;
}

/** Each linear layer's error jump in the plain quantized model, measured on a few of `runtime`'s samples. */
export async function measureLayerJumps(
  floatModel: ModelProto,
  quantModel: ModelProto,
  ids: readonly NodeId[],
  runtime: ComparisonRuntime,
  by: 'jump' | 'noise' = 'jump',
): Promise<LayerJump[]> {
  const floatIndex = buildGraphIndex(floatModel.graph!);
  const comparison = await compareModels(floatModel, quantModel, sampleSubset(runtime, SENSITIVITY_SAMPLES), {
    layers: true,
    floatIndex,
  });
  const byNoise = by === 'noise';
  const noise = (db: number) => (db === Infinity ? 0 : 10 ** (-db / 10));
  const drops = new Map(
    nodeErrors(comparison.layerwise!.rows, floatIndex).map((e) => [
      e.node,
      byNoise ? noise(e.sqnr) - noise(e.inputSqnr) : e.drop,
    ]),
  );
  return layerJumps(ids, drops, floatIndex);
}
