/**
 * A float64 matrix product on a runtime, for the recovery steps' one-off dense work per layer: building the layer's
 * problem (G = AᵀA, the targets and c = TᵀA over the gathered rows, layerProblem.ts) and scoring integer codes
 * (V·G). In TypeScript these were about a fifth of AdaRound's CPU on the PP-OCRv4 detector (bench/README.md, suite
 * finetune-cost); onnxruntime's double MatMul does the same sums about 20× faster. Float64 keeps the results equal
 * to the TypeScript loops' up to the order of summation (rounding at 1e-16, not float32's 1e-7), so the optimizers
 * see the same problem. Injected like GramProductFactory, so this module stays runtime-free: it holds the type and
 * the model a runtime serves it with. Must not import a runtime.
 */
import { DataType, encode, makeGraph, makeModel, makeNode, makeValueInfo } from '../onnx/index.ts';
import type { Runtime } from '../runtime/session.ts';

/** C = A·B, A m × k and B k × n, float64 row-major; C m × n. */
export type DenseProduct = (a: Float64Array, b: Float64Array, m: number, k: number, n: number) => Promise<Float64Array>;

export const DENSE_A = 'a';
export const DENSE_B = 'b';
export const DENSE_OUTPUT = 'c';

/** One MatMul in double with symbolic dimensions: one session serves every layer. Opset 13. */
export function denseProductModel(): Uint8Array {
  return encode(
    makeModel(
      makeGraph({
        node: [makeNode('MatMul', [DENSE_A, DENSE_B], [DENSE_OUTPUT])],
        input: [
          makeValueInfo(DENSE_A, DataType.DOUBLE, ['m', 'k']),
          makeValueInfo(DENSE_B, DataType.DOUBLE, ['k', 'n']),
        ],
        output: [makeValueInfo(DENSE_OUTPUT, DataType.DOUBLE, ['m', 'n'])],
      }),
      { '': 13 },
    ),
  );
}

/** Below this many multiply-adds a product stays in TypeScript: a runtime call costs more (about 0.1 ms). */
export const DENSE_RUNTIME_MIN_WORK = 2 ** 20;

/** A DenseProduct served by one runtime session, and the way to free that session. */
export interface RuntimeDenseProduct {
  readonly product: DenseProduct;
  release(): Promise<void>;
}

/**
 * The DenseProduct on `runtime`: one session of denseProductModel(), opened on the first product and kept, so every
 * layer (and every run holding it) shares it. Node's onnxruntime and the page's onnxruntime-web both serve it.
 */
export function runtimeDenseProduct(runtime: Runtime): RuntimeDenseProduct {
  let session: ReturnType<Runtime['createSession']> | undefined;
  return {
    async product(a, b, m, k, n) {
      const { runner } = await (session ??= runtime.createSession(denseProductModel(), 'float'));
      const out = await runner.run({
        [DENSE_A]: { type: 'float64', data: a, dims: [m, k] },
        [DENSE_B]: { type: 'float64', data: b, dims: [k, n] },
      });
      return out[DENSE_OUTPUT].data as Float64Array;
    },
    async release() {
      const opened = session;
      session = undefined;
      if (opened) await (await opened).runner.release();
    },
  };
}

/** Why `product` does not compute a float64 matrix product, or null when it does (a 2×2 whose exact result float32 would round). */
export async function denseProductFault(product: DenseProduct): Promise<string | null> {
  const e = 2 ** -40;
  try {
    const c = await product(new Float64Array([1 + e, 2, 3, 4]), new Float64Array([1, 0, 1, 1]), 2, 2, 2);
    const want = [3 + e, 2, 7, 4];
    if (!(c instanceof Float64Array)) return `its result is ${Object.prototype.toString.call(c)}, not float64`;
    if (c.length !== 4 || c.some((v, i) => v !== want[i]))
      return `it computed [${Array.from(c).join(', ')}] for [${want.join(', ')}]`;
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
