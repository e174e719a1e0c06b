/**
 * The budget of automatic mixed precision: how much of an 8-bit model may leave 8 bits. Three shares, each a
 * fraction of what the 8-bit quantization has: activation Q/DQ pairs at 16 bits (act16), quantized weight
 * tensors at 16 bits (w16), and quantized nodes kept float (float). Parsed from the command line's
 * "act16=0.1,w16=0.1,float=0.05" and turned into counts for one model. Data only; no search here.
 */
import { plannedTensors } from './subgraphCoverage.ts';
import { StudioError } from '../onnx/errors.ts';

export interface PrecisionBudget {
  /** Share of activation Q/DQ pairs that may be 16-bit, in [0, 1]. */
  readonly act16: number;
  /** Share of quantized weight tensors that may be 16-bit, in [0, 1]. */
  readonly w16: number;
  /** Share of quantized nodes that may stay float, in [0, 1]. */
  readonly float: number;
}

/** The default: at most 10 % of activations and of weights at 16 bits, 5 % of nodes float. */
export const DEFAULT_PRECISION_BUDGET: PrecisionBudget = { act16: 0.1, w16: 0.1, float: 0.05 };

/** A budget that cannot be read ("act16=2", "bits=3"). */
export class PrecisionBudgetError extends StudioError {
  override readonly name = 'PrecisionBudgetError';
}

const KEYS = ['act16', 'w16', 'float'] as const;

/** "act16=0.1,w16=0.1,float=0.05" (any subset; the rest keep their defaults). */
export function parsePrecisionBudget(text: string): PrecisionBudget {
  const out: Record<string, number> = { ...DEFAULT_PRECISION_BUDGET };
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [key, value, extra] = part.split('=');
    if (!(KEYS as readonly string[]).includes(key?.trim()) || value === undefined || extra !== undefined) {
      throw new PrecisionBudgetError(`budget "${part}": expected ${KEYS.map((k) => `${k}=<fraction>`).join(', ')}`);
    }
    const v = Number(value);
    if (value.trim() === '' || !Number.isFinite(v) || v < 0 || v > 1)
      throw new PrecisionBudgetError(`budget ${key}: "${value}" is not a fraction in [0, 1]`);
    out[key.trim()] = v;
  }
  return out as unknown as PrecisionBudget;
}

/** "act16=0.1,w16=0.1,float=0.05". */
export function formatPrecisionBudget(b: PrecisionBudget): string {
  return KEYS.map((k) => `${k}=${b[k]}`).join(',');
}

/**
 * What budgetCounts reads of a quantized model (a QuantizeResult): its activation pairs, weights and quantized nodes,
 * in the main graph and, where EnableSubgraph quantized them, inside If/Loop/Scan bodies.
 */
export interface QuantizedSizes {
  readonly plan: Tensors;
  readonly bodyPlan?: Tensors;
  readonly report: {
    readonly quantized: readonly unknown[];
    readonly subgraphs?: { readonly quantizedNodes?: readonly string[] };
  };
}

interface Tensors {
  readonly activations: ReadonlyMap<string, unknown>;
  readonly weights: ReadonlyMap<string, unknown>;
}

/** How many activation pairs, weights and nodes a quantized model has at 8 bits, bodies included (a tensor both read counts once). */
export function quantizedSizes(q: QuantizedSizes): { act16: number; w16: number; float: number } {
  const { activations, weights } = plannedTensors(q.plan, q.bodyPlan);
  return {
    act16: activations.size,
    w16: weights.size,
    float: q.report.quantized.length + (q.report.subgraphs?.quantizedNodes?.length ?? 0),
  };
}

/** The budget as counts for a quantized model: shares of its activation pairs, weights and quantized nodes. */
export function budgetCounts(
  b: PrecisionBudget,
  quantized: QuantizedSizes,
): { act16: number; w16: number; float: number } {
  const sizes = quantizedSizes(quantized);
  return {
    act16: Math.floor(b.act16 * sizes.act16),
    w16: Math.floor(b.w16 * sizes.w16),
    float: Math.floor(b.float * sizes.float),
  };
}
