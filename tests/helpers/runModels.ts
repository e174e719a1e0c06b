/**
 * Running two versions of a model on the same input and saying how far apart their outputs are: the
 * check every graph transform must pass (prepare, quantize). Inputs are seeded uniform floats shaped by
 * the model's declared inputs, symbolic dimensions taken from CONCRETE_DIMS.
 */
import { createSession, float32Tensor, type Feeds } from '../../src/cli/runtime/ortNode.ts';
import { openModel } from '../../src/core/onnx/index.ts';
import { CONCRETE_DIMS, seededFloats } from './fixtures.ts';

/** Seeded float32 feeds for every input of the model in `bytes`. */
export function seededFeeds(bytes: Uint8Array, seed = 17, overrides: Record<string, number> = {}): Feeds {
  const { summary } = openModel(bytes);
  return Object.fromEntries(
    summary.inputs.map((input, k) => {
      const dims = (input.shape ?? []).map((d) =>
        typeof d === 'number' ? d : (overrides[d] ?? CONCRETE_DIMS[d] ?? 1),
      );
      const count = dims.reduce((a, b) => a * b, 1);
      return [input.name, float32Tensor(seededFloats(count, seed + k), dims)];
    }),
  );
}

/** Every output of the model in `bytes` on `feeds`, by name, as float32 arrays (integers and booleans converted) with their dims. */
export async function runModel(
  bytes: Uint8Array,
  feeds: Feeds,
): Promise<Record<string, { data: Float32Array; dims: readonly number[] }>> {
  const session = await createSession(bytes);
  try {
    const out = await session.run(feeds);
    return Object.fromEntries(
      Object.entries(out).map(([k, t]) => [
        k,
        { data: Float32Array.from(t.data as ArrayLike<number | bigint | boolean>, Number), dims: t.dims },
      ]),
    );
  } finally {
    await session.release();
  }
}

export interface OutputDiff {
  readonly name: string;
  /** max |a − b| over the elements. */
  readonly maxAbs: number;
  /** maxAbs divided by the largest |a| (the output's own scale). */
  readonly relative: number;
  /** The two outputs have the same bytes. */
  readonly identical: boolean;
}

/** How far apart two runs' outputs are, output by output (same names and shapes expected). */
export function compareOutputs(
  a: Record<string, { data: Float32Array; dims: readonly number[] }>,
  b: Record<string, { data: Float32Array; dims: readonly number[] }>,
): OutputDiff[] {
  return Object.keys(a).map((name) => {
    const x = a[name];
    const y = b[name];
    if (!y || y.data.length !== x.data.length || y.dims.join() !== x.dims.join()) {
      return { name, maxAbs: Infinity, relative: Infinity, identical: false };
    }
    let maxAbs = 0;
    let scale = 0;
    let identical = true;
    const xb = new Uint32Array(x.data.buffer, x.data.byteOffset, x.data.length);
    const yb = new Uint32Array(y.data.buffer, y.data.byteOffset, y.data.length);
    for (let i = 0; i < x.data.length; i++) {
      if (xb[i] !== yb[i]) identical = false;
      const d = Math.abs(x.data[i] - y.data[i]);
      if (!(d <= maxAbs)) maxAbs = Number.isNaN(d) ? Infinity : d;
      scale = Math.max(scale, Math.abs(x.data[i]));
    }
    return { name, maxAbs, relative: scale > 0 ? maxAbs / scale : maxAbs, identical };
  });
}
