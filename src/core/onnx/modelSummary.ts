/**
 * What is in a model, at a glance: the facts a user checks before quantizing (inputs and their
 * shapes, op types, weights) and the ones later steps must refuse or handle (already quantized,
 * float16, ops of custom domains). The page shows it after a drop; `qstudio inspect` prints it.
 */
import type { ModelProto, TypeProto, ValueInfoProto } from './model.ts';
import { DataType, isDefaultDomain } from './model.ts';
import type { GraphIndex } from './graphIndex.ts';
import { elementCount, elementTypeName } from './elementTypes.ts';
import { forEachGraph, forEachTensor } from './walk.ts';

export interface TensorSummary {
  name: string;
  /** 'float32', 'int64', …, or 'unknown'. */
  elemType: string;
  /** Dimensions: a number, the symbolic name, or '?' for an unknown one; null when the rank is unknown. */
  shape: (number | string)[] | null;
}

export interface OpCount {
  opType: string;
  /** '' for the default ai.onnx domain. */
  domain: string;
  count: number;
}

export type QuantizationState = 'float' | 'qdq' | 'qoperator' | 'dynamic' | 'mixed';

export interface ModelSummary {
  fileName: string;
  byteLength: number;
  irVersion: number;
  opsets: { domain: string; version: number }[];
  producer: string;
  graphName: string;
  /** The model's metadata_props (key → value; values over 2,000 characters cut), e.g. Ultralytics' `imgsz`, `names`. */
  metadata: Record<string, string>;
  inputs: TensorSummary[];
  outputs: TensorSummary[];
  nodeCount: number;
  /** Nodes inside If/Loop/Scan bodies, not counted in nodeCount. */
  subgraphNodeCount: number;
  unnamedNodeCount: number;
  ops: OpCount[];
  /** Elements and bytes of all weights (initializers and Constant values). */
  parameterCount: number;
  parameterBytes: number;
  weightTypes: { elemType: string; tensors: number; elements: number }[];
  quantization: { state: QuantizationState; ops: string[] };
  /** True when the model computes in float16 (half-float weights or inputs). */
  float16: boolean;
  /** Ops from domains onnxruntime does not implement without extensions. */
  customOps: OpCount[];
  /** Plain-language notes on what later steps will refuse or need. */
  notes: string[];
}

/** Domains onnxruntime runs without custom-op libraries. */
const RUNTIME_DOMAINS = new Set([
  '',
  'ai.onnx',
  'ai.onnx.ml',
  'com.microsoft',
  'com.microsoft.nchwc',
  'ai.onnx.preview.training',
  'ai.onnx.training',
]);
const QDQ_OPS = new Set(['QuantizeLinear', 'DequantizeLinear']);
const QOPERATOR_OPS = /^(QLinear\w+|ConvInteger|MatMulInteger|QGemm|QAttention|QEmbedLayerNormalization)$/;
const DYNAMIC_OPS = new Set(['DynamicQuantizeLinear', 'DynamicQuantizeMatMul', 'MatMulIntegerToFloat']);

function shapeOf(type: TypeProto | undefined): (number | string)[] | null {
  const shape = type?.tensor_type?.shape;
  if (!shape) return null;
  return shape.dim.map((d) =>
    d.dim_value !== undefined &&
    d.dim_value !== null &&
    (d.dim_value > 0 || !d.dim_param) &&
    Object.prototype.hasOwnProperty.call(d, 'dim_value')
      ? Number(d.dim_value)
      : d.dim_param || '?',
  );
}

const METADATA_VALUE_LIMIT = 2000;

/** metadata_props as a record; a repeated key keeps its last value, as onnxruntime's ModelMetadata does. */
function metadataOf(model: ModelProto): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of model.metadata_props ?? []) if (p.key) out[p.key] = (p.value ?? '').slice(0, METADATA_VALUE_LIMIT);
  return out;
}

/** A graph input or output as shown to the user. */
export function tensorSummary(v: ValueInfoProto): TensorSummary {
  const elem = v.type?.tensor_type?.elem_type;
  return { name: v.name ?? '', elemType: elem ? elementTypeName(elem) : 'unknown', shape: shapeOf(v.type) };
}

/** The summary of a decoded model and its index. */
export function summarize(
  model: ModelProto,
  index: GraphIndex,
  file: { name?: string; byteLength?: number } = {},
): ModelSummary {
  const graph = index.graph;
  const opCounts = new Map<string, OpCount>();
  let subgraphNodeCount = 0;
  forEachGraph(graph, (g, depth) => {
    if (depth > 0) subgraphNodeCount += g.node.length;
    for (const n of g.node) {
      const domain = isDefaultDomain(n.domain) ? '' : n.domain!;
      const key = `${domain}::${n.op_type}`;
      const entry = opCounts.get(key) ?? { opType: n.op_type ?? '', domain, count: 0 };
      entry.count++;
      opCounts.set(key, entry);
    }
  });
  const ops = [...opCounts.values()].sort((a, b) => b.count - a.count || a.opType.localeCompare(b.opType));

  let parameterCount = 0;
  let parameterBytes = 0;
  const weightTypes = new Map<string, { elemType: string; tensors: number; elements: number }>();
  let float16 = false;
  forEachTensor(model, (t) => {
    const n = elementCount(t.dims);
    parameterCount += n;
    parameterBytes += t.raw_data?.byteLength ?? 0;
    const type = elementTypeName(t.data_type);
    const entry = weightTypes.get(type) ?? { elemType: type, tensors: 0, elements: 0 };
    entry.tensors++;
    entry.elements += n;
    weightTypes.set(type, entry);
    if (t.data_type === DataType.FLOAT16 && n > 1) float16 = true;
  });
  const inputs = index.inputs.map(tensorSummary);
  if (inputs.some((i) => i.elemType === 'float16')) float16 = true;

  const quantOps = ops.filter(
    (o) => QDQ_OPS.has(o.opType) || QOPERATOR_OPS.test(o.opType) || DYNAMIC_OPS.has(o.opType),
  );
  const kinds = new Set(
    quantOps.map((o) => (QDQ_OPS.has(o.opType) ? 'qdq' : DYNAMIC_OPS.has(o.opType) ? 'dynamic' : 'qoperator')),
  );
  const state: QuantizationState =
    kinds.size === 0 ? 'float' : kinds.size > 1 ? 'mixed' : ([...kinds][0] as QuantizationState);
  const customOps = ops.filter((o) => !RUNTIME_DOMAINS.has(o.domain));

  const notes: string[] = [];
  if (state !== 'float') {
    notes.push(
      `Already quantized (${quantOps.map((o) => o.opType).join(', ')}): the quantizer takes float models only.`,
    );
  }
  if (float16)
    notes.push(
      'Computes in float16: calibrated in float32 and quantized as the Ryzen AI guide does FP16 models (QuantizeFP16; parts left float stay float16).',
    );
  if (customOps.length > 0) {
    const list = customOps.map((o) => `${o.domain}.${o.opType}`).join(', ');
    notes.push(
      `Uses ops of custom domains (${list}): onnxruntime cannot run it without their library, so calibration and evaluation cannot run.`,
    );
  }
  if (inputs.some((i) => i.shape?.some((d) => typeof d === 'string'))) {
    notes.push(
      'Has symbolic input dimensions: calibration takes concrete sizes from the data or the preprocessing settings.',
    );
  }

  return {
    fileName: file.name ?? '',
    byteLength: file.byteLength ?? 0,
    irVersion: Number(model.ir_version ?? 0),
    opsets: model.opset_import.map((o) => ({
      domain: isDefaultDomain(o.domain) ? '' : o.domain!,
      version: Number(o.version ?? 0),
    })),
    producer: [model.producer_name, model.producer_version].filter((s) => s).join(' '),
    graphName: graph.name ?? '',
    metadata: metadataOf(model),
    inputs,
    outputs: index.outputs.map(tensorSummary),
    nodeCount: index.nodes.length,
    subgraphNodeCount,
    unnamedNodeCount: index.nodes.filter((n) => !n.name).length,
    ops,
    parameterCount,
    parameterBytes,
    weightTypes: [...weightTypes.values()].sort((a, b) => b.elements - a.elements),
    quantization: { state, ops: quantOps.map((o) => o.opType) },
    float16,
    customOps,
    notes,
  };
}
