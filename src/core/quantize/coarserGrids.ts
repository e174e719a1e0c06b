/**
 * A written model's 16-bit Q/DQ stepped as coarser grids, for measurement only (never a model the user is given): how
 * many bits a model's activations or weights need, between the 8 the presets write and the 16 mixed precision widens
 * to, where onnxruntime runs only 8- and 16-bit Q/DQ. An activation pair's scale (and zero point) is multiplied by
 * 2^(16 − bits), so its 16-bit codes step as a `bits`-bit grid over its range would; the codes are not clipped at
 * that grid's ends (an int16 holds 2^(16 − bits) times the range), so values past the calibrated range are rounded,
 * not saturated. A weight's codes are rounded again onto the coarser grid, with the scale multiplied to match:
 * exactly a `bits`-bit grid over the same per-channel range. The main graph's Q/DQ only (a body's stay as written).
 * Pure: returns a copy whose graph shares every node and every tensor it did not change.
 */
import { DataType, type ModelProto, type TensorProto } from '../onnx/index.ts';
import { makeTensor, readTensor, readTensorAsFloat32 } from '../onnx/tensorData.ts';

/** Bits of the coarser grids; a kind left out keeps what was written. */
export interface CoarserGrids {
  readonly activations?: number;
  readonly weights?: number;
  /** Only the activation pairs quantizing these tensors, and only these weights; every 16-bit one where left out. */
  readonly only?: ReadonlySet<string>;
}

const WIDE = new Set<number>([DataType.INT16, DataType.UINT16]);
const opType = (n: { op_type?: string | null }) => n.op_type ?? '';

/** The largest code of a 16-bit grid's symmetric half: the weights' 16-bit codes span ±32767. */
const WIDE_HALF = 32767;

/** `model` with every 16-bit activation pair stepped as `grids.activations` bits and every 16-bit weight re-rounded to `grids.weights` bits. */
export function withCoarserGrids(model: ModelProto, grids: CoarserGrids): ModelProto {
  const graph = model.graph;
  if (!graph) return model;
  const initializers = new Map<string, TensorProto>(graph.initializer.map((t) => [t.name ?? '', t]));
  const changed = new Map<string, TensorProto>();
  const wide = (name: string | undefined) => {
    const t = name === undefined ? undefined : initializers.get(name);
    return t !== undefined && WIDE.has(t.data_type ?? 0) ? t : undefined;
  };
  const scaled = (name: string, factor: number) => {
    const t = initializers.get(name);
    if (!t || t.data_type !== DataType.FLOAT || changed.has(name)) return false;
    changed.set(
      name,
      makeTensor(
        name,
        DataType.FLOAT,
        (t.dims ?? []).map(Number),
        readTensorAsFloat32(t).map((v) => v * factor),
      ),
    );
    return true;
  };
  /** A zero point on the coarser grid: zp / factor, rounded (0 stays 0). */
  const zeroPointDivided = (t: TensorProto, factor: number) => {
    const name = t.name ?? '';
    if (changed.has(name)) return;
    const values = readTensor(t) as Int16Array | Uint16Array;
    if (values.every((v) => v === 0)) return;
    changed.set(
      name,
      makeTensor(
        name,
        t.data_type ?? 0,
        (t.dims ?? []).map(Number),
        values.map((v) => Math.round(v / factor)),
      ),
    );
  };
  if (grids.activations !== undefined && grids.activations < 16) {
    const factor = 2 ** (16 - grids.activations);
    for (const node of graph.node) {
      if (opType(node) !== 'QuantizeLinear') continue;
      const [tensor, scale, zeroPoint] = node.input;
      if (grids.only && !grids.only.has(tensor)) continue;
      const zp = wide(zeroPoint);
      if (!zp || !scale || !scaled(scale, factor)) continue;
      zeroPointDivided(zp, factor);
    }
  }
  if (grids.weights !== undefined && grids.weights < 16) {
    const bits = grids.weights;
    for (const node of graph.node) {
      if (opType(node) !== 'DequantizeLinear') continue;
      const [codesName, scale, zeroPoint] = node.input;
      const codes = wide(codesName);
      if (!codes || changed.has(codesName) || !scale) continue;
      // A symmetric int16 grid spans ±32767 codes, a uint16 one 65535 steps.
      const factor = codes.data_type === DataType.INT16 ? WIDE_HALF / (2 ** (bits - 1) - 1) : 65535 / (2 ** bits - 1);
      if (grids.only && !grids.only.has(codesName.replace(/_quantized$/, ''))) continue;
      const zp = wide(zeroPoint);
      const zeros = zp ? (readTensor(zp) as Int16Array | Uint16Array) : undefined;
      // One zero point for the tensor, or per-channel ones that are all 0 (the quantizer's symmetric weights).
      if (zeros && zeros.length > 1 && zeros.some((z) => z !== 0)) continue;
      if (!scaled(scale, factor)) continue;
      const zero = zeros?.[0] ?? 0;
      const q = readTensor(codes) as Int16Array | Uint16Array;
      const next = q.map((v) => Math.round((v - zero) / factor) + Math.round(zero / factor));
      changed.set(codesName, makeTensor(codesName, codes.data_type ?? 0, (codes.dims ?? []).map(Number), next));
      if (zp) zeroPointDivided(zp, factor);
    }
  }
  if (changed.size === 0) return model;
  return {
    ...model,
    graph: { ...graph, initializer: graph.initializer.map((t) => changed.get(t.name ?? '') ?? t) },
  };
}
