/**
 * The recovery steps' float64 matrix product (core/recovery/denseProduct.ts: building each layer's problem G = AᵀA,
 * targets and c, and scoring codes) on the worker's runtime, onnxruntime-web WASM in the page, as the command line
 * does it on onnxruntime-node. One session serves every layer of every run on the model. onnxruntime-web's double
 * MatMul (WASM, one thread, in Node) took 1.0 s for 577×2048·2048×577 and 68 ms for 64×577·577×577 against 7.3 s and
 * 0.20 s for a TypeScript loop on this shared machine; suite recover-browser measures what it saves the page.
 * Before it is used it must compute a product exactly as float64 would; if the runtime cannot (a build without the
 * double kernel, a session that fails to open), the worker says why and the layer problems stay in TypeScript.
 */
import {
  denseProductFault,
  runtimeDenseProduct,
  type RuntimeDenseProduct,
} from '../../src/core/recovery/denseProduct.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';

/** What the worker says when the runtime cannot serve the product (console.warn in the page's worker). */
export type DenseFallbackLog = (message: string) => void;

/**
 * The DenseProduct on `runtime` once it has computed a float64 product exactly; undefined (the optimizers' TypeScript
 * loops) otherwise, with the reason given to `log`.
 */
export async function checkedDenseProduct(
  runtime: Runtime,
  log: DenseFallbackLog = console.warn,
): Promise<RuntimeDenseProduct | undefined> {
  const dense = runtimeDenseProduct(runtime);
  const fault = await denseProductFault(dense.product);
  if (fault === null) return dense;
  log(`Fine-tuning builds its layer problems in TypeScript: the runtime cannot run a float64 MatMul (${fault}).`);
  await dense.release().catch(() => undefined);
  return undefined;
}
