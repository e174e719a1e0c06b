/**
 * `npm run gen:kernel`: builds the generated modules of the WebAssembly SIMD kernels (kernelBytes.ts KERNELS:
 * AdaRound's src/core/recovery/roundingKernelWasm.ts, AdaQuant's src/core/recovery/adaquantKernelWasm.ts, the calibration histogram's
 * src/core/calibrate/histogram/histogramKernelWasm.ts) from their committed .wat texts, with wabt's wat2wasm (a devDependency:
 * it runs here, never at run time). Nothing in a generated file is edited by hand; each kernel's test checks that it
 * matches the text.
 */
import fs from 'node:fs';
import { KERNELS, kernelModuleSource, kernelPath, wasmFromWat } from './kernelBytes.ts';

for (const kernel of Object.values(KERNELS)) {
  const bytes = await wasmFromWat(fs.readFileSync(kernelPath(kernel, 'wat'), 'utf8'), kernel.wat);
  fs.writeFileSync(kernelPath(kernel, 'module'), kernelModuleSource(bytes, kernel));
  console.log(`${kernel.module}: ${bytes.length} bytes of WebAssembly`);
}
