/**
 * Mixed precision as the quantizer reads it: which integer type a tensor gets when the configuration's
 * TensorQuantOverrides names it, the 16-bit type that widens an 8-bit one, and the short precision label
 * ("A8W8", "A16W8", "A8W16", "float") the report, the layer table and the graph share.
 * Data and lookups only: choosing what to widen is core/search/mixedPrecision.ts.
 */
import type { ConfigQuantType, QuantConfig } from './config.ts';
import { QUANT_TYPES, type QuantType } from './numeric.ts';

/** The 16-bit type of the same signedness (int8 → int16, uint8 → uint16); 16-bit types map to themselves. */
export function wideType(t: ConfigQuantType): ConfigQuantType {
  return t === 'int8' ? 'int16' : t === 'uint8' ? 'uint16' : t;
}

/** The type TensorQuantOverrides gives `tensor`, or undefined when it names no type for it. */
export function overrideType(config: QuantConfig, tensor: string): ConfigQuantType | undefined {
  const o = config.extraOptions.TensorQuantOverrides;
  return Object.prototype.hasOwnProperty.call(o, tensor) ? o[tensor][0]?.quant_type : undefined;
}

/** Every integer type the overrides use. */
export function overrideTypes(config: QuantConfig): ConfigQuantType[] {
  return [
    ...new Set(Object.values(config.extraOptions.TensorQuantOverrides).flatMap((l) => l.map((e) => e.quant_type))),
  ];
}

/** The wider of two types (by bits; the first on ties). */
export function widerOf(a: QuantType, b: QuantType): QuantType {
  return QUANT_TYPES[b].bits > QUANT_TYPES[a].bits ? b : a;
}

/** Precision label of a node: activation bits and weight bits ("A16W8"), "A8" without weights, or "float". */
export type PrecisionLabel = string;

/** "A8W8" from the bits of a node's quantized activations and weight (undefined: none). */
export function precisionLabel(activationBits: number | undefined, weightBits: number | undefined): PrecisionLabel {
  if (activationBits === undefined && weightBits === undefined) return 'float';
  return `${activationBits !== undefined ? `A${activationBits}` : 'A-'}${weightBits !== undefined ? `W${weightBits}` : ''}`;
}
