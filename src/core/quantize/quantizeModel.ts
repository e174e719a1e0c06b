/**
 * The quantizer: float model + calibrated ranges + configuration → QDQ model and a report.
 *
 * Order of work, as the references do it: refuse models that are not float; resolve exclusions on the
 * model as loaded (Quark resolves subgraphs on the input model); prepare the graph (Constant weights to
 * initializers, BatchNormalization folded, opset raised to what the Q/DQ types need); plan; write.
 * Pure: runs in a worker or in Node alike.
 */
import { buildGraphIndex } from '../onnx/graphIndex.ts';
import { inferElementTypes } from '../onnx/elementTypeInference.ts';
import { UnsupportedModelError } from '../onnx/errors.ts';
import { DataType } from '../onnx/index.ts';
import { opsetOf, type GraphProto, type ModelProto, type NodeId, type NodeProto } from '../onnx/model.ts';
import { summarize } from '../onnx/modelSummary.ts';
import { resolveExclusions } from '../exclude/resolve.ts';
import { ExclusionError } from '../exclude/errors.ts';
import { prepare } from '../prepare/prepare.ts';
import { carryNodeIds } from '../prepare/nodeOrigin.ts';
import type { QuantConfig } from './config.ts';
import type { QuantType } from './numeric.ts';
import { MS_DOMAIN, MS_QDQ_OPSET, qdqRequirement } from './opsetFeatures.ts';
import { planNodes, planQuantization, type NodePlan, type QuantPlan, type Ranges } from './plan.ts';
import { overrideTypes } from './precision.ts';
import { QUANT_TYPES } from './numeric.ts';
import { writeQdqGraph } from './qdqWriter.ts';
import { QuantizedWeights } from './weights.ts';
import {
  plannedTensors,
  subgraphCoverage,
  subgraphWarning,
  withBodyOutcome,
  type BodyPlan,
} from './subgraphCoverage.ts';
import { quantizeSubgraphs } from './quantizeSubgraphs.ts';
import { float16Source, restoreFloat16, type Float16Source } from '../halfFloat/float16.ts';
import { resolveSubgraph } from '../exclude/subgraph.ts';
import type { GraphIndex } from '../onnx/graphIndex.ts';

/** ai.onnx opset from which QuantizeLinear/DequantizeLinear accept float16 inputs and scales. */
const FLOAT16_QDQ_OPSET = 19;

/** The float16 side of a quantization run, or undefined for a float32 model; subgraphs resolve on the source. */
function float16Plan(source: ModelProto, index: GraphIndex, config: QuantConfig): Float16Source | undefined {
  // Graph-index positions are positions in graph.node (the index keeps the node list as it is).
  const toFp32 = new Set<number>();
  config.fp16SubgraphsToFp32.forEach((sub, k) =>
    resolveSubgraph(index, sub, `fp16SubgraphsToFp32[${k}]`).forEach((i) => toFp32.add(i)),
  );
  return float16Source(source, {
    convertAll: config.extraOptions.ConvertFP16ToFP32,
    useFp32Scale: config.extraOptions.UseFP32Scale,
    toFp32,
  });
}
import type { QuantizeReport } from './quantizeReport.ts';
import { closePropagationChains } from './propagationGuard.ts';

/** Activation and weight Q/DQ whose scale is float32 in a model whose float parts compute in float16 (int32 bias DQ left out). */
function float32ScaledQdq(model: ModelProto): number {
  const types = new Map(model.graph!.initializer.map((t) => [t.name ?? '', t.data_type]));
  return model.graph!.node.filter(
    (n) =>
      (n.op_type === 'QuantizeLinear' || n.op_type === 'DequantizeLinear') &&
      types.get(n.input[0]) !== DataType.INT32 &&
      types.get(n.input[1]) === DataType.FLOAT,
  ).length;
}

export interface QuantizeResult {
  model: ModelProto;
  report: QuantizeReport;
  /** The plan on the prepared graph (its tensor groups and weights are what mixed precision chooses among). */
  plan: QuantPlan;
  /** The same of the If/Loop/Scan bodies, where EnableSubgraph quantized them. */
  bodyPlan?: BodyPlan;
}

/**
 * A float model prepared for quantization under one configuration: everything before the plan that depends on the
 * configuration's types, exclusions and float16 options but not on ranges nor on the calibration method. Several
 * plans and writes may share it (the held-in choice's candidates); nothing downstream changes it.
 */
export interface PreparedQuantization {
  /** preparationKey of the configuration it was prepared for. */
  readonly key: string;
  /** The model as given. */
  readonly source: ModelProto;
  readonly index: GraphIndex;
  readonly half: Float16Source | undefined;
  /** The float32 form of a float16 model, else the source. */
  readonly model: ModelProto;
  readonly exclusions: ReturnType<typeof resolveExclusions>;
  readonly excludedBy: ReadonlyMap<NodeProto, string>;
  readonly before: number;
  readonly useMsDomain: boolean;
  readonly prepared: ReturnType<typeof prepare>;
  readonly pIndex: GraphIndex;
  readonly elementTypes: ReturnType<typeof inferElementTypes>;
  /** Weights quantized by the plans made on it so far (shared: the same tensor and options, the same codes). */
  readonly weights: QuantizedWeights;
  origin(n: NodeProto): NodeProto;
  idOf(i: number): NodeId;
}

/**
 * What of a configuration preparation depends on: all of it but calibration's own settings, the method and the
 * extra options named Calib… (Percentile's CalibTensorRangeSymmetric), which nothing in the quantizer reads; the
 * plan reads the method (MinMSE weights), and is made anew for each.
 */
export function preparationKey(config: QuantConfig): string {
  const extraOptions = Object.fromEntries(Object.entries(config.extraOptions).filter(([k]) => !k.startsWith('Calib')));
  // Keys sorted at every depth: equal configurations built along different paths list their fields in other orders.
  return JSON.stringify({ ...config, calibrationMethod: undefined, extraOptions }, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * Refuses a model that is not float, and prepares it for `config` (see PreparedQuantization). `weights`: the cache of
 * quantized weights to plan with, when preparations of the same model share one (QuantizedWeights); a new one by default.
 */
export function prepareQuantization(
  source: ModelProto,
  config: QuantConfig,
  weights: QuantizedWeights = new QuantizedWeights(),
): PreparedQuantization {
  const sourceIndex = buildGraphIndex(source.graph!);
  const summary = summarize(source, sourceIndex);
  if (summary.quantization.state !== 'float') {
    throw new UnsupportedModelError(
      `the model is already quantized (${summary.quantization.ops.join(', ')}): give the float model`,
    );
  }
  // FP16 source models (the guide's "INT8 Quantization for FP16 Models"): plan and write on the float32 form,
  // whose nodes and tensors are the source's, then put the float16 parts back.
  const half = float16Plan(source, sourceIndex, config);
  const model = half?.model32 ?? source;
  const index = half ? buildGraphIndex(model.graph!) : sourceIndex;

  const exclusions = resolveExclusions(index, config);
  const excludedBy = new Map<NodeProto, string>();
  for (const rule of exclusions.rules)
    for (const id of rule.ids) excludedBy.set(index.nodes[index.indexOfId.get(id)!], `excluded (${rule.rule})`);

  const x = config.extraOptions;
  const types: QuantType[] = [config.activationType, config.weightType, ...overrideTypes(config)];
  if (x.Int32Bias) types.push('int32');
  const qdq = qdqRequirement(types, config.perChannel);
  // QuantizeLinear/DequantizeLinear take float16 tensors and scales from ai.onnx 19 (or in com.microsoft).
  const requirement =
    half?.fp16Scales && half.keepHalf.size > 0
      ? { minOpset: Math.max(qdq.minOpset, FLOAT16_QDQ_OPSET), msDomainAlternative: true }
      : qdq;
  const before = opsetOf(model) ?? 1;
  const baseOpset = Math.max(before, config.perChannel ? 13 : 10);
  let useMsDomain = x.UseQDQContribOps && requirement.msDomainAlternative;
  let prepared;
  try {
    prepared = prepare(model, {
      targetOpset: useMsDomain ? baseOpset : Math.max(before, requirement.minOpset),
      foldConvAffine: config.foldConvAffine,
    });
  } catch (e) {
    if (!(e instanceof UnsupportedModelError) || !requirement.msDomainAlternative || useMsDomain) throw e;
    // 16-bit Q/DQ need ai.onnx 21; where an op cannot be carried there, ONNX Runtime's contrib Q/DQ serve.
    useMsDomain = true;
    prepared = prepare(model, { targetOpset: baseOpset, foldConvAffine: config.foldConvAffine });
  }
  const preparedModel = prepared.model;
  const pIndex = buildGraphIndex(preparedModel.graph!);
  const origin = (n: NodeProto) => prepared.origin.source.get(n) ?? n;
  // The user's ids carried to the prepared graph (helpers made around a node are named after it).
  const carried = carryNodeIds(index.nodes, index.ids, pIndex.nodes, prepared.origin);
  const idOf = (i: number): NodeId => carried[i];

  const elementTypes = inferElementTypes(preparedModel.graph!, { opset: opsetOf(preparedModel) ?? before });
  return {
    key: preparationKey(config),
    source,
    index,
    half,
    model,
    exclusions,
    excludedBy,
    before,
    useMsDomain,
    prepared,
    pIndex,
    elementTypes,
    weights,
    origin,
    idOf,
  };
}

/** The plan's node decisions and folded tensors on a prepared model: no parameters, nothing written. */
export function planPreparedNodes(p: PreparedQuantization, ranges: Ranges, config: QuantConfig): NodePlan {
  checkPreparedFor(p, config);
  return planNodes(p.pIndex, ranges, config, (i) => p.excludedBy.get(p.origin(p.pIndex.nodes[i])), p.elementTypes);
}

function checkPreparedFor(p: PreparedQuantization, config: QuantConfig): void {
  if (p.key !== preparationKey(config))
    throw new Error('quantizePrepared: the model was prepared for another configuration');
}

/** Quantizes a float model. Throws UnsupportedModelError, ExclusionError; ops without a rule stay float. */
export function quantizeModel(
  source: ModelProto,
  ranges: Ranges,
  config: QuantConfig,
  configName = 'custom',
): QuantizeResult {
  return quantizePrepared(prepareQuantization(source, config), ranges, config, configName);
}

/** Plans and writes a prepared model (prepareQuantization with the same configuration but for its method). */
export function quantizePrepared(
  p: PreparedQuantization,
  ranges: Ranges,
  config: QuantConfig,
  configName = 'custom',
): QuantizeResult {
  checkPreparedFor(p, config);
  const { index, half, model, exclusions, before, prepared, pIndex, elementTypes, origin, idOf } = p;
  const x = config.extraOptions;
  const useMsDomain = p.useMsDomain;
  const preparedModel = prepared.model;
  const excluded = (i: number) => p.excludedBy.get(origin(pIndex.nodes[i]));
  const plan = planQuantization(pIndex, ranges, config, excluded, elementTypes, p.weights);
  const opsetImport = preparedModel.opset_import.filter((o) => o.domain !== MS_DOMAIN);
  if (useMsDomain) opsetImport.push({ domain: MS_DOMAIN, version: MS_QDQ_OPSET });
  const domain = useMsDomain ? MS_DOMAIN : '';
  const subgraphs = subgraphCoverage(pIndex);
  // Bodies of If/Loop/Scan are quantized like the main graph where EnableSubgraph asks (float16 models: their float parts are restored on the main graph only).
  const taken = new Set<string>();
  const opsetAfter = Number(opsetImport.find((o) => !o.domain)?.version ?? 0);
  const bodies =
    subgraphs && !half && x.EnableSubgraph
      ? quantizeSubgraphs(preparedModel, pIndex, elementTypes, ranges, config, {
          domain,
          dedicatedPairs: x.DedicatedQDQPair,
          taken,
          opset: opsetAfter,
          guardPropagation: !useMsDomain && opsetAfter >= 21,
          excludedNodes: new Set(exclusions.bodyNodes),
        })
      : undefined;
  // A body node named to stay float that the bodies' writer did not meet (its id there differs) is said, never dropped.
  const unmet = bodies ? exclusions.bodyNodes.filter((id) => !bodies.outcome.excludedIds.includes(id)) : [];
  if (unmet.length > 0)
    throw new ExclusionError(
      `nodes_to_exclude: ${unmet.map((id) => `"${id}"`).join(', ')} names a node inside a subgraph that the quantizer did not find there (an unnamed node whose position changed in preparation): exclude it by op type, or name the node in the model`,
    );
  const graph = writeQdqGraph(pIndex, plan, {
    domain,
    dedicatedPairs: x.DedicatedQDQPair,
    idOf,
    taken,
    attributesOf: (i) => bodies?.attributes.get(i),
  });
  let out: ModelProto = {
    ...preparedModel,
    opset_import: opsetImport,
    graph: guardPropagation(graph, useMsDomain, opsetImport),
    producer_name: 'quant-studio',
    producer_version: '0.1.0',
  };
  const warnings = [...plan.warnings];
  if (half) {
    const keep = new Set(Array.from(half.keepHalf, (k) => model.graph!.node[k]));
    const names = new Set<string>();
    for (const i of pIndex.order) if (keep.has(origin(pIndex.nodes[i]))) names.add(pIndex.nodes[i].name || idOf(i));
    out = restoreFloat16(out, names, half.halfIo, half.fp16Scales);
    if (!x.QuantizeFP16 && !x.ConvertFP16ToFP32)
      warnings.unshift(
        'the model computes in float16: quantized as with QuantizeFP16 (set it, or ConvertFP16ToFP32, in the configuration to say so)',
      );
    if (half.fp16Scales && half.keepHalf.size > 0) {
      const kept = float32ScaledQdq(out);
      if (kept > 0)
        warnings.push(
          `${kept} Q/DQ nodes next to Conv, MatMul, Gemm, Add, Mul, Concat and the like keep float32 scales (a Cast between them and the float16 op): onnxruntime's CPU provider fuses those into QLinear kernels that take float32 scales only, and would refuse the model at its default options with float16 scales`,
        );
    }
  }

  const quantized: QuantizeReport['quantized'] = [];
  const float: QuantizeReport['float'] = [];
  const sourceIds = new Map(index.nodes.map((n, k) => [n, index.ids[k]]));
  for (const i of pIndex.order) {
    const d = plan.decisions[i];
    const opType = pIndex.nodes[i].op_type ?? '';
    const source = sourceIds.get(origin(pIndex.nodes[i]));
    if (d.quantized)
      quantized.push({
        id: idOf(i),
        opType,
        family: d.family ?? '',
        precision: d.precision ?? '',
        ...(source !== undefined && source !== idOf(i) ? { source } : {}),
      });
    else float.push({ id: idOf(i), opType, reason: d.reason ?? '' });
  }
  const folded: NonNullable<QuantizeReport['folded']> = [];
  for (const [node, into] of prepared.origin.absorbed) {
    const id = sourceIds.get(node);
    const intoId = into && sourceIds.get(into);
    if (id !== undefined && intoId) folded.push({ id, into: intoId });
  }
  if (subgraphs && bodies) withBodyOutcome(subgraphs, bodies.outcome);
  if (subgraphs) {
    const warning = bodies
      ? subgraphWarning(subgraphs)
      : subgraphWarning(
          subgraphs,
          'quantizes',
          half
            ? "a float16 model's bodies are not entered"
            : 'EnableSubgraph is off, the default as in ONNX Runtime: quantizing Silero VAD v5\'s bodies measured 100× its float error; --enable-subgraph, "EnableSubgraph": true or the page\'s "Quantize inside control flow" quantizes them',
        );
    if (warning) warnings.push(warning);
  }
  const precision = precisionSummary(plan, config, bodies?.outcome.plan);
  // Weights inside bodies run the same int8 kernels (a weight both scopes read is one).
  const saturationSafe = new Set([...plan.saturationSafe, ...(bodies?.outcome.plan.saturationSafe ?? [])]);
  const saturationRisk = new Set([...plan.saturationRisk, ...(bodies?.outcome.plan.saturationRisk ?? [])]);
  if (precision.unmatchedOverrides.length)
    warnings.push(
      `TensorQuantOverrides name no quantized tensor: ${precision.unmatchedOverrides.slice(0, 5).join(', ')}${precision.unmatchedOverrides.length > 5 ? ', …' : ''}`,
    );
  return {
    model: out,
    plan,
    ...(bodies ? { bodyPlan: bodies.outcome.plan } : {}),
    report: {
      config: configName,
      opset: { before, after: opsetOf(out) ?? before, qdqDomain: useMsDomain ? 'com.microsoft' : 'ai.onnx' },
      preparation: [...prepared.summary.actions],
      quantized,
      float,
      ...(folded.length > 0 ? { folded } : {}),
      // Body nodes kept float (by scoped id) are listed as rules of their own.
      exclusions: [
        ...exclusions.rules,
        ...exclusions.bodyNodes.map((id) => ({ rule: `node ${id}`, ids: [id as NodeId] })),
      ],
      counts: {
        nodes: pIndex.nodes.length,
        quantized: quantized.length,
        float: float.length,
        activationPairs: plan.activations.size + (bodies?.outcome.activationPairs ?? 0),
        quantizedConstants: plan.constants.size,
      },
      precision,
      notFloat: plan.notFloat,
      warnings,
      ...(config.saturationSafeWeights ? { saturationSafeWeights: [...saturationSafe] } : {}),
      ...(saturationRisk.size > 0 ? { saturationRisk: [...saturationRisk] } : {}),
      ...(subgraphs ? { subgraphs } : {}),
      ...(half
        ? {
            float16: {
              keptNodes: half.keepHalf.size,
              scales: half.fp16Scales && half.keepHalf.size > 0 ? ('float16' as const) : ('float32' as const),
            },
          }
        : {}),
    },
  };
}

/** How many activation Q/DQ pairs and weights (main graph and bodies) are wider than the configuration's types, and which. */
function precisionSummary(plan: QuantPlan, config: QuantConfig, bodyPlan?: BodyPlan): QuantizeReport['precision'] {
  const base = { activation: QUANT_TYPES[config.activationType].bits, weight: QUANT_TYPES[config.weightType].bits };
  // A weight read in the main graph and in a body is one tensor.
  const { activations, weights } = plannedTensors(plan, bodyPlan);
  const wideActivations = [...activations]
    .filter(([, q]) => QUANT_TYPES[q.type].bits > base.activation)
    .map(([t]) => t);
  const wideWeights = [...weights].filter(([, t]) => QUANT_TYPES[t].bits > base.weight).map(([t]) => t);
  const named = Object.keys(config.extraOptions.TensorQuantOverrides);
  const seen = new Set([...activations.keys(), ...weights.keys()]);
  return {
    activations: activations.size,
    weights: weights.size,
    wideActivations,
    wideWeights,
    unmatchedOverrides: named.filter((t) => !seen.has(t)),
  };
}

/**
 * ai.onnx Q/DQ at opset 21 and above: data-movement ops left without a QuantizeLinear after them get one (exact), so
 * onnxruntime's QDQ propagation inserts none of its own (propagationGuard.ts says why).
 */
function guardPropagation(graph: GraphProto, msDomain: boolean, opsetImport: ModelProto['opset_import']): GraphProto {
  const opset = opsetImport.find((o) => !o.domain)?.version ?? 0;
  if (msDomain || Number(opset) < 21) return graph;
  return { ...graph, node: closePropagationChains(graph.node, graph, []) };
}
