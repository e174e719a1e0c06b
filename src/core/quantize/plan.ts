/**
 * The quantization plan: which nodes are quantized, which tensors get a Q/DQ pair and with what
 * parameters, and how each constant becomes integer codes. Pure decisions over the prepared graph;
 * qdqWriter.ts turns a plan into a model. Anything that stays float says why.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import { inferElementTypes, type TensorElementTypes } from '../onnx/elementTypeInference.ts';
import { elementTypeName } from '../onnx/elementTypes.ts';
import { DataType, isDefaultDomain, type NodeProto } from '../onnx/model.ts';
import type { QuantConfig } from './config.ts';
import { QUANT_TYPES, type QuantType } from './numeric.ts';
import { overrideType, precisionLabel, widerOf } from './precision.ts';
import { computeQParams } from './qparams.ts';
import { ruleFor } from './rules/registry.ts';
import { fusedFunctionRule } from './rules/activation.ts';
import { findFusedFunctions } from './fusedFunctions.ts';
import type { OpRule, RuleContext } from './rules/types.ts';
import { TensorGroups } from './tensorGroups.ts';
import { withReshapedRanges } from './reshapedRanges.ts';
import {
  fitWeightToInt32Bias,
  quantizeInt32Bias,
  QuantizedWeights,
  saturationSafeWeight,
  type QuantizedConstant,
  type WeightOptions,
} from './weights.ts';
import { runsInSaturatingKernel } from './cpuKernelSafety.ts';

/** A calibrated range of one tensor, in real units. */
export interface TensorRange {
  min: number;
  max: number;
  /**
   * The extremes calibration saw, where its method chose a narrower range (Percentile, MinMSE, Entropy):
   * a tensor widened beyond the configuration's activation type (mixed precision) is quantized on these.
   */
  observed?: { min: number; max: number };
}
export type Ranges = ReadonlyMap<string, TensorRange>;

/** Scale and zero point of one activation tensor. */
export interface ActivationQuant {
  type: QuantType;
  scale: number;
  zeroPoint: number;
}

export interface NodeDecision {
  quantized: boolean;
  family?: string;
  /** Why a node stays float. */
  reason?: string;
  /** Bits of its quantized activations (the widest) and weight, as a label: "A8W8", "A16W8", "A8W16", "A8". */
  precision?: string;
}

export interface QuantPlan {
  /** One decision per node of the prepared graph, by node index. */
  decisions: NodeDecision[];
  /** Activation tensors that get a QuantizeLinear → DequantizeLinear pair. */
  activations: Map<string, ActivationQuant>;
  /** Quantized constants by key; `constantInputs` says which node input reads which key. */
  constants: Map<string, QuantizedConstant>;
  constantInputs: Map<number, Map<number, string>>;
  /**
   * Tensors that get no Q/DQ of their own: outputs of Conv-like nodes that feed a fused Relu/Clip, and the
   * internal tensors of functions written out as several nodes (enableNpuTransformer).
   */
  folded: Set<string>;
  /** Activation tensors that share one scale and zero point (and so one type), each group in graph order. */
  groups: string[][];
  /** Weight tensors (initializer names) of quantized nodes, with the type each was quantized to. */
  weights: Map<string, QuantType>;
  /** Weights given 7-bit channels so that onnxruntime's x86 CPU int8 kernels cannot saturate on them (config.saturationSafeWeights). */
  saturationSafe: Set<string>;
  /**
   * Weights as written whose 8-bit codes could saturate onnxruntime's x86 CPU int8 kernels at its default graph
   * optimization (cpuKernelSafety.ts: a Conv, MatMul or Gemm with 8-bit input and int8 weights, an output channel
   * with two same-sign codes adding past 128). Empty with saturationSafeWeights or reduceRange.
   */
  saturationRisk: Set<string>;
  /** Tensors at quantized nodes left without Q/DQ because they are not known to be float32, with their type ('unknown' when none is known). */
  notFloat: { tensor: string; elemType: string }[];
  warnings: string[];
}

/** Why a node is excluded, or undefined when it is not (from the resolved exclusions). */
export type ExclusionLookup = (nodeIndex: number) => string | undefined;

/** Which nodes of a prepared graph are quantized, and which tensors are folded (steps 1-2 of the plan). */
export interface NodePlan {
  decisions: NodeDecision[];
  /** The rule each quantized node follows, by node index. */
  rules: (OpRule | undefined)[];
  /** See QuantPlan.folded. */
  folded: Set<string>;
  /** Nodes inside a function written out whole (fused function kinds). */
  inFunction: Set<number>;
  warnings: string[];
}

/** What the plan's steps share: the rule context and which float32 tensors have a range. */
function planContext(index: GraphIndex, ranges: Ranges, types: TensorElementTypes) {
  const ctx: RuleContext = {
    isConstant: (name) => index.initializers.has(name),
    constantRank: (name) => index.initializers.get(name)?.dims.length,
  };
  const isFloat = (name: string) => types.get(name) === DataType.FLOAT;
  /** A float32 tensor with a calibrated range: the only kind that gets a Q/DQ pair. */
  const hasRange = (name: string) => isFloat(name) && ranges.has(name);
  return { ctx, isFloat, hasRange };
}

/**
 * The plan's node decisions and folded tensors alone: no parameters, no weight quantized. Ranges count by their
 * presence only (whether a tensor has one), never their values, so a caller may plan on stand-ins to learn which
 * tensors the plan never reads a range of (unreadRanges.ts). `ranges` are as planQuantization takes them.
 */
export function planNodes(
  index: GraphIndex,
  ranges: Ranges,
  config: QuantConfig,
  excluded: ExclusionLookup,
  types: TensorElementTypes = inferElementTypes(index.graph, { opset: 10 }),
): NodePlan {
  return decideNodes(index, withReshapedRanges(index, ranges), config, excluded, types);
}

function decideNodes(
  index: GraphIndex,
  ranges: Ranges,
  config: QuantConfig,
  excluded: ExclusionLookup,
  types: TensorElementTypes,
): NodePlan {
  const x = config.extraOptions;
  const { ctx, hasRange } = planContext(index, ranges, types);
  const selected = new Set(config.opTypesToQuantize);
  const ruleOptions = { quantizeAllOpTypes: x.QuantizeAllOpTypes, alignSlice: x.AlignSlice };
  const decisions: NodeDecision[] = index.nodes.map(() => ({ quantized: false }));
  const rules: (OpRule | undefined)[] = index.nodes.map(() => undefined);
  const warnings: string[] = [];
  // 1. Which nodes are quantized.
  for (const i of index.order) {
    const node = index.nodes[i];
    const op = node.op_type ?? '';
    const why = excluded(i);
    if (why) {
      decisions[i] = { quantized: false, reason: why };
      continue;
    }
    if (!isDefaultDomain(node.domain)) {
      decisions[i] = { quantized: false, reason: `op of domain ${node.domain}` };
      continue;
    }
    if (selected.size > 0 && !selected.has(op) && !x.QuantizeAllOpTypes) {
      decisions[i] = { quantized: false, reason: `${op} is not in op_types_to_quantize` };
      continue;
    }
    const rule = ruleFor(op, ruleOptions);
    if (!rule) {
      decisions[i] = { quantized: false, reason: `no quantization rule for ${op}` };
      continue;
    }
    const inputs = rule
      .activationInputs(node, ctx)
      .map((k) => node.input[k])
      .filter((n) => n && !ctx.isConstant(n));
    if (inputs.length === 0 || !inputs.some(hasRange)) {
      decisions[i] = { quantized: false, reason: noActivationReason(inputs, types) };
      continue;
    }
    if (rule.family === 'generic' && !node.output.every(hasRange)) {
      decisions[i] = { quantized: false, reason: `${op} has outputs that are not float activations` };
      continue;
    }
    if (rule.output === 'shareInput' && !x.ForceQuantizeNoInputCheck) {
      const p = index.producer.get(node.input[0]);
      if (p !== undefined && !decisions[p].quantized) {
        decisions[i] = { quantized: false, reason: `${op} follows a float node (ForceQuantizeNoInputCheck is off)` };
        continue;
      }
    }
    const missing = inputs.filter((n) => !hasRange(n));
    if (missing.length)
      warnings.push(`${index.ids[i]}: no calibrated range for input(s) ${missing.join(', ')}; they stay float`);
    decisions[i] = { quantized: true, family: rule.family };
    rules[i] = rule;
  }

  // 1b. Functions written out as several element-wise nodes run as one op: Q/DQ at their input and output only.
  const folded = new Set<string>();
  const inFunction = new Set<number>();
  if (config.enableNpuTransformer) {
    const allowed = (i: number) =>
      !excluded(i) && (selected.size === 0 || x.QuantizeAllOpTypes || selected.has(index.nodes[i].op_type ?? ''));
    for (const fn of findFusedFunctions(index, allowed)) {
      if (!hasRange(fn.input) || !hasRange(fn.output)) continue;
      for (const i of fn.nodes) {
        decisions[i] = { quantized: true, family: fn.kind };
        rules[i] = fusedFunctionRule;
        inFunction.add(i);
      }
      fn.internal.forEach((t) => folded.add(t));
    }
  }

  // 2. Relu/Clip right after a Conv-like node share its output: no Q/DQ between them.
  const graphOutputs = new Set(index.outputs.map((o) => o.name ?? ''));
  for (const i of index.order) {
    if (!rules[i]?.foldsIntoProducer) continue;
    const t = index.nodes[i].input[0];
    const p = index.producer.get(t);
    if (p === undefined || !rules[p]?.acceptsFoldedActivation) continue;
    if ((index.consumers.get(t) ?? []).length === 1 && !graphOutputs.has(t)) folded.add(t);
  }

  return { decisions, rules, folded, inFunction, warnings };
}

/**
 * Plans the quantization of a prepared graph. `types` are the element types of its tensors
 * (core/onnx/elementTypeInference.ts): Q/DQ go on float32 tensors only, whatever ranges say, so int64
 * shapes, indices, booleans and tensors of unknown type stay as they are. Without them they are inferred
 * here, as at opset 10 (the least a prepared graph has; no output's type changed after it). `quantized` keeps the
 * weights already quantized on this graph by earlier plans (the same codes; see QuantizedWeights).
 */
export function planQuantization(
  index: GraphIndex,
  ranges: Ranges,
  config: QuantConfig,
  excluded: ExclusionLookup,
  types: TensorElementTypes = inferElementTypes(index.graph, { opset: 10 }),
  quantized: QuantizedWeights = new QuantizedWeights(),
): QuantPlan {
  const x = config.extraOptions;
  // Tensors preparation made around a wrapped op (Flatten → Softmax → Reshape) take their neighbours' ranges.
  ranges = withReshapedRanges(index, ranges);
  const { ctx, isFloat, hasRange } = planContext(index, ranges, types);
  const ruleOptions = { quantizeAllOpTypes: x.QuantizeAllOpTypes, alignSlice: x.AlignSlice };
  const { decisions, rules, folded, inFunction, warnings } = decideNodes(index, ranges, config, excluded, types);

  // 3. Activation tensors, grouped where they must share parameters.
  const groups = new TensorGroups();
  const quantizable = (n: string) => !!n && !ctx.isConstant(n) && hasRange(n) && !folded.has(n);
  const notFloat = new Map<string, string>();
  for (const i of index.order) {
    const rule = rules[i];
    if (!rule) continue;
    const node = index.nodes[i];
    const candidates = [...rule.activationInputs(node, ctx).map((k) => node.input[k]), ...node.output];
    for (const n of candidates) {
      if (n && !ctx.isConstant(n) && !folded.has(n) && !isFloat(n))
        notFloat.set(n, types.get(n) === undefined ? 'unknown' : elementTypeName(types.get(n)));
    }
    const acts = rule
      .activationInputs(node, ctx)
      .map((k) => node.input[k])
      .filter(quantizable);
    const outs = node.output.filter(quantizable);
    [...acts, ...outs].forEach((n) => groups.add(n));
    if (rule.output === 'shareInput' && quantizable(node.input[0])) outs.forEach((o) => groups.union(node.input[0], o));
    if (node.op_type === 'Concat' && x.AlignConcat)
      [...acts, ...outs].forEach((n) => groups.union(acts[0] ?? outs[0], n));
  }
  // Ops that guarantee their output range (Softmax) are quantized on it, not on the calibrated one. The range
  // holds through ops that only move or select values (not Pad, which adds its own): the Reshape after a Softmax
  // raised from opset 11 to 13 (withReshapedRanges) shares its group, and so does a consumer's copy.
  const known = new Map<string, TensorRange>();
  if (config.enableNpuTransformer) {
    for (const i of index.order) {
      const node = index.nodes[i];
      const op = node.op_type ?? '';
      const r = rules[i]?.outputRange ?? (excluded(i) ? undefined : ruleFor(op, ruleOptions)?.outputRange);
      if (r) node.output.forEach((o) => known.set(o, r));
      else if (op !== 'Pad' && ruleFor(op, ruleOptions)?.family === 'dataMovement' && known.has(node.input[0])) {
        const through = known.get(node.input[0])!;
        node.output.forEach((o) => known.set(o, through));
      }
    }
  }
  const rangeOf = (m: string) => known.get(m) ?? ranges.get(m)!;
  // A group widened beyond the configuration's type (mixed precision) can afford the extremes calibration saw.
  const wideRangeOf = (m: string) => known.get(m) ?? ranges.get(m)!.observed ?? ranges.get(m)!;
  const activations = new Map<string, ActivationQuant>();
  const activationGroups = [...groups.groups().values()];
  for (const members of activationGroups) {
    // Tensors sharing parameters share a type: the widest any member's override asks for (mixed precision).
    const type = members.reduce<QuantType>((t, m) => widerOf(t, overrideType(config, m) ?? t), config.activationType);
    const range = QUANT_TYPES[type].bits > QUANT_TYPES[config.activationType].bits ? wideRangeOf : rangeOf;
    let min = Infinity,
      max = -Infinity;
    for (const m of members) {
      min = Math.min(min, range(m).min);
      max = Math.max(max, range(m).max);
    }
    const q = computeQParams(min, max, type, {
      symmetric: x.ActivationSymmetric,
      scaleType: config.scaleType,
      minRealRange: config.scaleType === 'float32' ? x.MinimumRealRange : undefined,
    });
    for (const m of members) activations.set(m, { type, scale: q.scale, zeroPoint: q.zeroPoint });
  }

  // 4. Constants: weights, biases, and constant operands.
  const constants = new Map<string, QuantizedConstant>();
  const weights = new Map<string, QuantType>();
  const saturationSafe = new Set<string>();
  const saturationRisk = new Set<string>();
  const constantInputs = new Map<number, Map<number, string>>();
  const weightOptions = (t: QuantType): WeightOptions => ({
    type: t,
    symmetric: x.WeightSymmetric,
    scaleType: config.scaleType,
    reduceRange: config.reduceRange,
    minMse: config.calibrationMethod === 'MinMSE',
  });
  const use = (i: number, k: number, key: string) => {
    let m = constantInputs.get(i);
    if (!m) constantInputs.set(i, (m = new Map()));
    m.set(k, key);
  };
  for (const i of index.order) {
    const rule = rules[i];
    if (!rule) continue;
    const node: NodeProto = index.nodes[i];
    const w = rule.weight?.(node, ctx);
    let weightKey: string | undefined;
    if (w) {
      const tensor = index.initializers.get(node.input[w.input])!;
      const axis = config.perChannel && w.axis >= 0 && tensor.dims.length >= 2 ? w.axis : undefined;
      const weightType = overrideType(config, node.input[w.input]) ?? config.weightType;
      weights.set(node.input[w.input], weightType);
      weightKey = `${node.input[w.input]}|w|${axis ?? 't'}|${weightType}`;
      let q = constants.get(weightKey) ?? quantized.quantize(tensor, axis, weightOptions(weightType));
      const activation = activations.get(node.input[w.input === 0 ? 1 : 0] ?? '');
      if (
        config.saturationSafeWeights &&
        !config.reduceRange &&
        runsInSaturatingKernel(node, q.dims, activation?.type, weightType)
      ) {
        const safe = saturationSafeWeight(q, tensor, w.axis >= 0 ? w.axis : undefined, weightOptions(weightType));
        if (safe !== q) {
          q = safe;
          weightKey = `${weightKey}|safe`;
          saturationSafe.add(node.input[w.input]);
        }
      }
      const b = rule.bias?.(node, ctx);
      const input = activations.get(node.input[0]);
      if (
        b !== undefined &&
        x.QuantizeBias &&
        x.Int32Bias &&
        input &&
        config.scaleType === 'float32' &&
        x.WeightSymmetric
      ) {
        q = fitWeightToInt32Bias(q, tensor, index.initializers.get(node.input[b])!, input.scale);
      }
      if (
        runsInSaturatingKernel(node, q.dims, activation?.type, weightType) &&
        quantized.overflowingChannels(q.codes, q.dims, q.axis ?? (w.axis >= 0 ? w.axis : undefined)).includes(true)
      ) {
        saturationRisk.add(node.input[w.input]);
      }
      // A weight shared by nodes whose inputs need different adjustments gets one copy per node.
      if (constants.has(weightKey) && constants.get(weightKey) !== q) weightKey = `${weightKey}|${index.ids[i]}`;
      constants.set(weightKey, q);
      use(i, w.input, weightKey);
      if (b !== undefined && x.QuantizeBias) {
        const bias = index.initializers.get(node.input[b])!;
        const channels = q.scales.length;
        const fits = bias.dims.length === 1 && (channels === 1 || Number(bias.dims[0]) === channels);
        if (x.Int32Bias && input && fits) {
          const key = `${node.input[b]}|bias|${index.ids[i]}`;
          constants.set(key, quantizeInt32Bias(bias, input.scale, q.scales));
          use(i, b, key);
        } else if (!x.Int32Bias) {
          const key = `${node.input[b]}|w|t`;
          if (!constants.has(key))
            constants.set(key, quantized.quantize(bias, undefined, weightOptions(config.weightType)));
          use(i, b, key);
        }
      }
    }
    // Constant operands at activation positions (a Mul's scale, an Add's offset): per tensor. Inside a
    // written-out function they are the fused op's parameters and stay float.
    if (inFunction.has(i)) continue;
    for (const k of rule.activationInputs(node, ctx)) {
      const name = node.input[k];
      if (!name || !ctx.isConstant(name) || (w && k === w.input)) continue;
      const tensor = index.initializers.get(name)!;
      if (tensor.data_type !== 1) continue; // only float constants
      const t = overrideType(config, name) ?? (x.AlignEltwiseQuantType ? config.activationType : config.weightType);
      const key = `${name}|c|${t}`;
      if (!constants.has(key)) constants.set(key, quantized.quantize(tensor, undefined, weightOptions(t)));
      use(i, k, key);
    }
  }
  // 5. Each quantized node's precision, for the report, the layer table and the graph's colours.
  const bits = (t: string) => {
    const q = activations.get(t);
    return q ? QUANT_TYPES[q.type].bits : undefined;
  };
  for (const i of index.order) {
    if (!rules[i]) continue;
    const node = index.nodes[i];
    const actBits = [...node.input, ...node.output].map(bits).filter((b): b is number => b !== undefined);
    const w = rules[i]!.weight?.(node, ctx);
    const wType = w ? weights.get(node.input[w.input]) : undefined;
    // Nodes inside a fused function carry no Q/DQ of their own: no label.
    if (actBits.length || wType)
      decisions[i].precision = precisionLabel(
        actBits.length ? Math.max(...actBits) : undefined,
        wType ? QUANT_TYPES[wType].bits : undefined,
      );
  }
  return {
    decisions,
    activations,
    constants,
    constantInputs,
    folded,
    groups: activationGroups,
    weights,
    saturationSafe,
    saturationRisk,
    warnings,
    notFloat: [...notFloat].map(([tensor, elemType]) => ({ tensor, elemType })),
  };
}

/** Why a node whose inputs include no calibrated float32 tensor stays float. */
function noActivationReason(inputs: string[], types: TensorElementTypes): string {
  const unknown = inputs.filter((n) => types.get(n) === undefined);
  if (inputs.some((n) => types.get(n) === DataType.FLOAT)) return 'no calibrated range for its float inputs';
  if (unknown.length > 0)
    return `the element type of ${unknown.join(', ')} is not known, so it is not treated as float`;
  return 'its inputs carry no float activations (shape or index computation)';
}
