/**
 * Walks a quantized model and checks the Q/DQ structure the configuration prescribes, node by node:
 * activations reach each quantized op through QuantizeLinear → DequantizeLinear, weights through a
 * DequantizeLinear of integer codes (per channel on the rule's axis when asked), biases as int32 without
 * a zero point (or like weights when Int32Bias is off), outputs go into a QuantizeLinear unless a
 * Relu/Clip is fused after them, and scales are powers of two when the preset says so.
 * Written apart from the quantizer: it reads only the written graph and the report.
 */
import {
  buildGraphIndex,
  readTensor,
  readTensorAsFloat32,
  type ModelProto,
  type NodeProto,
  type TensorProto,
} from '../../src/core/onnx/index.ts';
import type { QuantConfig } from '../../src/core/quantize/config.ts';
import { overrideType } from '../../src/core/quantize/precision.ts';
import type { QuantizeReport } from '../../src/core/quantize/quantizeReport.ts';

const ONNX_TYPE: Record<string, number> = { int8: 3, uint8: 2, int16: 5, uint16: 4, int32: 6 };

export function checkQdqStructure(model: ModelProto, report: QuantizeReport, config: QuantConfig): string[] {
  const problems: string[] = [];
  const index = buildGraphIndex(model.graph!);
  const byName = new Map<string, NodeProto>(index.nodes.map((n) => [n.name ?? '', n]));
  const producerOf = (t: string) => {
    const i = index.producer.get(t as never);
    return i === undefined ? undefined : index.nodes[i];
  };
  const init = (t: string): TensorProto | undefined => index.initializers.get(t as never);
  const consumersOf = (t: string) => (index.consumers.get(t as never) ?? []).map((i) => index.nodes[i]);
  const quantizedIds = new Set<string>(report.quantized.map((q) => q.id));
  const x = config.extraOptions;

  const checkScale = (where: string, scaleName: string) => {
    const s = init(scaleName);
    if (!s) return problems.push(`${where}: scale ${scaleName} is not an initializer`);
    if (config.scaleType === 'powerOfTwo') {
      for (const v of readTensorAsFloat32(s))
        if (Math.log2(v) % 1 !== 0) return problems.push(`${where}: scale ${v} is not a power of two`);
    }
  };

  /** The input arrives dequantized from a QuantizeLinear of an activation. */
  const expectActivation = (where: string, t: string) => {
    const dq = producerOf(t);
    if (dq?.op_type !== 'DequantizeLinear')
      return problems.push(`${where}: activation ${t} does not come from DequantizeLinear`);
    const q = producerOf(dq.input[0]);
    if (q?.op_type !== 'QuantizeLinear') return problems.push(`${where}: ${dq.name} does not read a QuantizeLinear`);
    const zp = init(q.input[2] ?? '');
    // Mixed precision: a tensor named in TensorQuantOverrides carries its own type (graph outputs are renamed inside).
    const type = overrideType(config, q.input[0].replace(/_QuantizeLinear_Input(_\d+)?$/, '')) ?? config.activationType;
    if (!zp || zp.data_type !== ONNX_TYPE[type]) problems.push(`${where}: activation zero point is not ${type}`);
    if (zp && x.ActivationSymmetric) {
      const z = Number(readTensor(zp)[0]);
      const expected = type.startsWith('u') ? [127, 128, 32767, 32768] : [0];
      if (!expected.includes(z)) problems.push(`${where}: symmetric activation with zero point ${z}`);
    }
    checkScale(where, q.input[1]);
  };

  /** The input is a DequantizeLinear of integer codes of `type`; returns the DequantizeLinear. */
  const expectConstant = (where: string, t: string, type: string, withZeroPoint: boolean) => {
    const dq = producerOf(t);
    if (dq?.op_type !== 'DequantizeLinear') {
      problems.push(`${where}: constant ${t} does not come from DequantizeLinear`);
      return undefined;
    }
    const codes = init(dq.input[0]);
    if (!codes || codes.data_type !== ONNX_TYPE[type])
      problems.push(`${where}: ${t} codes are not ${type} initializers`);
    if (withZeroPoint !== !!dq.input[2])
      problems.push(`${where}: ${t} ${withZeroPoint ? 'lacks' : 'has'} a zero point`);
    return dq;
  };

  for (const entry of report.quantized) {
    const node = byName.get(entry.id);
    const where = `${entry.id} (${entry.opType})`;
    if (!node) {
      problems.push(`${where}: not found in the written model`);
      continue;
    }
    const weightInput =
      entry.family === 'conv' ||
      entry.family === 'convTranspose' ||
      ((entry.family === 'gemm' || entry.family === 'matmul') &&
        producerOf(node.input[1])?.op_type === 'DequantizeLinear' &&
        init(producerOf(node.input[1])!.input[0]));
    const activationInputs =
      entry.family === 'elementwise' || entry.family === 'concat' || entry.family === 'generic'
        ? node.input.filter(Boolean)
        : weightInput
          ? [node.input[0]]
          : entry.family === 'gemm' || entry.family === 'matmul'
            ? node.input.slice(0, 2)
            : [node.input[0]];
    for (const t of activationInputs) {
      const p = producerOf(t);
      const fusedAfter =
        (node.op_type === 'Relu' || node.op_type === 'Clip') &&
        p &&
        quantizedIds.has(p.name ?? '') &&
        ['Conv', 'ConvTranspose', 'Gemm', 'MatMul', 'Add'].includes(p.op_type ?? '');
      if (fusedAfter) continue;
      // Constant operands of element-wise ops are quantized per tensor.
      if (p?.op_type === 'DequantizeLinear' && init(p.input[0])) continue;
      if (!p && !index.inputs.some((v) => v.name === t) && !init(t)) continue;
      if (init(t) && entry.family !== 'elementwise') continue;
      expectActivation(where, t);
    }
    if (weightInput) {
      const weightDq = producerOf(node.input[1]);
      const weightName = (weightDq?.input[0] ?? '').replace(/_quantized(_\d+)?$/, '');
      const dq = expectConstant(where, node.input[1], overrideType(config, weightName) ?? config.weightType, true);
      const axisAttr = dq?.attribute.find((a) => a.name === 'axis');
      const scale = dq && init(dq.input[1]);
      const perChannel = !!scale && scale.dims.length === 1 && Number(scale.dims[0]) > 1;
      if (config.perChannel && entry.family === 'conv' && !perChannel)
        problems.push(`${where}: weight is not per channel`);
      if (!config.perChannel && perChannel) problems.push(`${where}: weight is per channel in a per-tensor config`);
      if (perChannel && entry.family === 'conv' && Number(axisAttr?.i ?? 1) !== 0)
        problems.push(`${where}: Conv weight channel axis is not 0`);
      if (scale) checkScale(where, dq.input[1]);
      if (node.input[2] && (entry.family === 'conv' || entry.family === 'gemm')) {
        if (x.Int32Bias) expectConstant(`${where} bias`, node.input[2], 'int32', false);
        else expectConstant(`${where} bias`, node.input[2], config.weightType, true);
      }
    }
    for (const o of node.output) {
      const consumers = consumersOf(o);
      if (consumers.length === 0) continue;
      const fused =
        consumers.length === 1 &&
        (consumers[0].op_type === 'Relu' || consumers[0].op_type === 'Clip') &&
        quantizedIds.has(consumers[0].name ?? '');
      if (fused) continue;
      const nonQ = consumers.filter((c) => c.op_type !== 'QuantizeLinear');
      if (nonQ.length)
        problems.push(
          `${where}: output ${o} is read by ${nonQ.map((c) => c.op_type).join(', ')} without QuantizeLinear`,
        );
    }
  }
  return problems;
}
