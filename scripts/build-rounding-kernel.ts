/**
 * `npm run gen:kernel`: builds src/core/recover/roundingKernelWasm.ts (the bytes of AdaRound's WebAssembly SIMD
 * kernel) from the committed text src/core/recover/roundingKernel.wat, with wabt's wat2wasm (a devDependency: it
 * runs here, never at run time). Nothing in the generated file is edited by hand; the kernel's test checks that
 * it matches the text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { kernelModuleSource, wasmFromWat } from './roundingKernelBytes.ts';

const dir = path.resolve(import.meta.dirname, '../src/core/recover');
const bytes = await wasmFromWat(fs.readFileSync(path.join(dir, 'roundingKernel.wat'), 'utf8'));
fs.writeFileSync(path.join(dir, 'roundingKernelWasm.ts'), kernelModuleSource(bytes));
console.log(`roundingKernelWasm.ts: ${bytes.length} bytes of WebAssembly`);
