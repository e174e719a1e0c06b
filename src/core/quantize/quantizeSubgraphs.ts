/**
 * Compute inside If/Loop/Scan bodies quantized like the main graph's: each body (at any depth, innermost first) has
 * its Constant weights moved to its own initializers, is planned on the ranges calibration read inside it
 * (calibrate/exposeSubgraphs.ts) and written with Q/DQ by the same writer. Weights a body reads from an enclosing
 * scope are quantized into codes of the body's own; the enclosing float initializer stays while anything still
 * reads it. Names are unique across every scope of the model. What stays float says why: a branch no calibration
 * sample ran has no ranges; LSTM, GRU and RNN have no rule (onnxruntime fuses no Q/DQ around them).
 */
import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import { inferElementTypes, type TensorElementTypes } from '../onnx/elementTypeInference.ts';
import {
  DataType,
  type AttributeProto,
  type GraphProto,
  type ModelProto,
  type NodeId,
  type TensorProto,
} from '../onnx/model.ts';
import { namesInGraphs } from '../onnx/walk.ts';
import { bodyView, entersBodies, visibleInitializers } from './bodyViews.ts';
import type { QuantConfig } from './config.ts';
import { planQuantization, type Ranges } from './plan.ts';
import { writeQdqGraph } from './qdqWriter.ts';
import { closePropagationChains } from './propagationGuard.ts';
import { COMPUTE_OPS, type BodyOutcome } from './subgraphCoverage.ts';

export interface SubgraphWrite {
  /** Node i of the main graph's attributes with its bodies written (only nodes with bodies). */
  attributes: Map<number, AttributeProto[]>;
  outcome: BodyOutcome;
}

export interface SubgraphWriteOptions {
  domain: string;
  dedicatedPairs: boolean;
  /** Every name of the model, shared with the main graph's write. */
  taken: Set<string>;
  opset: number;
  /** Close Q/DQ propagation chains in bodies too (ai.onnx Q/DQ at opset 21 and above). */
  guardPropagation: boolean;
  /** Body nodes `nodes_to_exclude` names by scoped id (exclude/resolve.ts's bodyNodes): kept float. */
  excludedNodes?: ReadonlySet<string>;
}

/** Why a compute node in a body stays float, in the user's words. */
function bodyReason(op: string, reason: string): string {
  if (op === 'LSTM' || op === 'GRU' || op === 'RNN')
    return 'onnxruntime runs no Q/DQ form of it (no QDQ fusion, no quantization rule)';
  if (reason === 'no calibrated range for its float inputs') return 'no calibration sample ran its branch (no range)';
  return reason;
}

/** Types of a body's inputs by position, from its holder (Loop: iteration, condition, carried values; Scan: its inputs). */
function bodyInputTypes(
  op: string,
  inputs: readonly string[],
  types: TensorElementTypes,
  opset: number,
): (number | undefined)[] {
  if (op === 'Loop') return [DataType.INT64, DataType.BOOL, ...inputs.slice(2).map((n) => types.get(n))];
  if (op === 'Scan') return inputs.slice(opset >= 9 ? 0 : 1).map((n) => types.get(n));
  return [];
}

/**
 * Quantizes the bodies of the main graph's control-flow nodes (ONNX's If, Loop, Scan; others are left as they are).
 * `index` and `types` are the main graph's; `ranges` hold the bodies' tensors too.
 */
export function quantizeSubgraphs(
  model: ModelProto,
  index: GraphIndex,
  types: TensorElementTypes,
  ranges: Ranges,
  config: QuantConfig,
  options: SubgraphWriteOptions,
): SubgraphWrite {
  const outcome: BodyOutcome = {
    quantized: new Map(),
    floatCompute: new Map(),
    activationPairs: 0,
    quantizedIds: [],
    precisions: new Map(),
    excludedIds: [],
    floatIds: [],
    plan: {
      groups: [],
      activations: new Map(),
      weights: new Map(),
      saturationSafe: new Set(),
      saturationRisk: new Set(),
    },
  };
  const excludedNodes = options.excludedNodes ?? new Set<string>();
  namesInGraphs(model.graph!, options.taken);
  const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  /** The attributes of each control-flow node of `parent`, bodies written. */
  const writeBodies = (
    parent: GraphIndex,
    parentTypes: TensorElementTypes,
    visible: ReadonlyMap<string, TensorProto>,
    prefix: string,
  ): Map<number, AttributeProto[]> => {
    const out = new Map<number, AttributeProto[]>();
    parent.nodes.forEach((node, i) => {
      const op = node.op_type ?? '';
      if (!entersBodies(node)) return;
      const holderName = `${prefix}${node.name || parent.ids[i]}`;
      out.set(
        i,
        node.attribute.map((a) =>
          a.g ? { ...a, g: writeBody(a.g, op, node.input, parentTypes, visible, `${holderName}/${a.name}/`) } : a,
        ),
      );
    });
    return out;
  };

  const writeBody = (
    body: GraphProto,
    op: string,
    holderInputs: readonly string[],
    parentTypes: TensorElementTypes,
    visible: ReadonlyMap<string, TensorProto>,
    prefix: string,
  ): GraphProto => {
    // Weights of enclosing scopes that the body reads are lent to its index, and taken back after the write.
    const { own, view, lent } = bodyView(model, body, visible);
    own.initializer.forEach((t) => options.taken.add(t.name ?? ''));
    const bIndex = buildGraphIndex(view);
    const bTypes = inferElementTypes(view, {
      opset: options.opset,
      outer: parentTypes,
      inputs: bodyInputTypes(op, holderInputs, parentTypes, options.opset),
    });
    const nested = writeBodies(bIndex, bTypes, visibleInitializers(own, visible), prefix);
    const excludedOps = new Set(config.opTypesToExclude);
    const idOf = (k: number) => `${prefix}${bIndex.ids[k] as NodeId}`;
    const plan = planQuantization(
      bIndex,
      ranges,
      config,
      (k) => {
        if (excludedNodes.has(idOf(k))) {
          if (!outcome.excludedIds.includes(idOf(k))) outcome.excludedIds.push(idOf(k));
          return `excluded (node ${idOf(k)})`;
        }
        return excludedOps.has(bIndex.nodes[k].op_type ?? '')
          ? `excluded (op types ${config.opTypesToExclude.join(', ')})`
          : undefined;
      },
      bTypes,
    );
    const written = writeQdqGraph(bIndex, plan, {
      domain: options.domain,
      dedicatedPairs: options.dedicatedPairs,
      idOf,
      taken: options.taken,
      attributesOf: (k) => nested.get(k),
    });
    bIndex.nodes.forEach((n, k) => {
      const d = plan.decisions[k];
      const nodeOp = n.op_type ?? '';
      if (d.quantized) {
        count(outcome.quantized, nodeOp);
        outcome.quantizedIds.push(idOf(k));
        if (d.precision) outcome.precisions.set(idOf(k), d.precision);
        return;
      }
      if (!excludedNodes.has(idOf(k))) outcome.floatIds.push(idOf(k));
      if (COMPUTE_OPS.has(nodeOp)) count(outcome.floatCompute, `${nodeOp}: ${bodyReason(nodeOp, d.reason ?? '')}`);
    });
    outcome.activationPairs += plan.activations.size;
    outcome.plan.groups.push(...plan.groups);
    plan.activations.forEach((q, t) => outcome.plan.activations.set(t, q));
    plan.weights.forEach((type, t) => outcome.plan.weights.set(t, type));
    plan.saturationSafe.forEach((t) => outcome.plan.saturationSafe.add(t));
    plan.saturationRisk.forEach((t) => outcome.plan.saturationRisk.add(t));
    const initializer = written.initializer.filter((t) => !lent.has(t.name ?? ''));
    const node = options.guardPropagation
      ? closePropagationChains(written.node, { ...written, initializer }, [])
      : written.node;
    return { ...written, node, initializer };
  };

  const attributes = writeBodies(index, types, visibleInitializers(model.graph!, new Map()), '');
  return { attributes, outcome };
}
