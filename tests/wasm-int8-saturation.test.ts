/**
 * Whether onnxruntime-web's WASM int8 kernels saturate, as x86 CPU kernels without VNNI do (core/quantize/cpuKernelSafety.ts):
 * the page judges with onnxruntime-web, so its ladder measures a saturation-safe rung only if they do. One Q/DQ MatMul
 * and one Q/DQ Conv built in code (tests/helpers/saturatingGemm.ts) whose u8 × s8 pair sums pass 16 bits run at 'all'
 * (fused into QLinearMatMul / QLinearConv, read from onnxruntime's profile) and at 'basic' (float op between Q/DQ);
 * both must give the exact integer arithmetic, not the saturating one. The WASM builds carry no relaxed-SIMD
 * instruction (whose dot product x86 may lower to the saturating vpmaddubsw), so the answer holds on any CPU.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import * as ortWeb from 'onnxruntime-web';
import { saturatingGemm, type ActivationCodes, type SaturatingOp } from './helpers/saturatingGemm.ts';

ortWeb.env.wasm.numThreads = 1;

/** onnxruntime-web's WASM builds: the page's CPU one ('onnxruntime-web/wasm', also Node's), JSEP's and WebGPU's. */
const WASM_BUILDS = [
  'ort-wasm-simd-threaded.wasm',
  'ort-wasm-simd-threaded.jsep.wasm',
  'ort-wasm-simd-threaded.asyncify.wasm',
];
const DIST = path.join(import.meta.dirname, '../node_modules/onnxruntime-web/dist');

/** A module of one function using `body` (three v128 parameters, one v128 result). */
function simdModule(body: number[]): Uint8Array<ArrayBuffer> {
  const type = [0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b];
  const code = [0x01, body.length, ...body];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...[0x01, type.length, ...type],
    ...[0x03, 0x02, 0x01, 0x00],
    ...[0x0a, code.length, ...code],
  ]);
}
const LOCALS = [0x00, 0x20, 0x00, 0x20, 0x01];
/** i32x4.dot_i16x8_s: plain SIMD, exact. */
const PLAIN_DOT = simdModule([...LOCALS, 0xfd, 0xba, 0x01, 0x0b]);
/** i32x4.relaxed_dot_i8x16_i7x16_add_s: relaxed SIMD. */
const RELAXED_DOT = simdModule([...LOCALS, 0x20, 0x02, 0xfd, 0x93, 0x02, 0x0b]);

/** The outputs at `level` and the op types onnxruntime ran (its profile's node events). */
async function runWeb(
  op: SaturatingOp,
  type: ActivationCodes,
  level: 'all' | 'basic',
): Promise<{ y: Float32Array; ops: string[] }> {
  const m = saturatingGemm(op, type);
  // onnxruntime-web's WASM module prints the profile with fs.writeSync on the standard output.
  const printed: string[] = [];
  const write = fs.writeSync;
  const log = vi.spyOn(fs, 'writeSync').mockImplementation(((
    fd: number,
    data: string | Uint8Array,
    ...rest: never[]
  ) => {
    if (fd !== 1) return (write as (...a: unknown[]) => number)(fd, data, ...rest);
    const text = typeof data === 'string' ? data : Buffer.from(data).toString();
    printed.push(text);
    return Buffer.byteLength(text);
  }) as typeof fs.writeSync);
  try {
    const session = await ortWeb.InferenceSession.create(m.bytes, {
      executionProviders: ['wasm'],
      graphOptimizationLevel: level,
      enableProfiling: true,
    });
    const out = await session.run({ [m.inputName]: new ortWeb.Tensor('float32', m.input, [...m.inputDims]) });
    session.endProfiling();
    await session.release();
    const ops = printed.flatMap((line) => [...line.matchAll(/"op_name"\s*:\s*"(\w+)"/g)].map((x) => x[1]));
    return { y: out.y.data as Float32Array, ops };
  } finally {
    log.mockRestore();
  }
}

describe("onnxruntime-web's WASM int8 kernels", () => {
  const cases: [SaturatingOp, ActivationCodes, string][] = [
    ['MatMul', 'uint8', 'QLinearMatMul'],
    ['MatMul', 'int8', 'QLinearMatMul'],
    ['Conv', 'uint8', 'QLinearConv'],
    ['Conv', 'int8', 'QLinearConv'],
  ];

  it.each(cases)(
    '%s on %s activations: the exact arithmetic at "all" (%s) and "basic", where 16-bit pair sums would saturate',
    async (op, type, fused) => {
      const m = saturatingGemm(op, type);
      // The probe is real: a saturating kernel gives other codes for 8 of the 28 outputs.
      expect(m.saturated.filter((v, i) => v !== m.exact[i]).length).toBe(8);
      const all = await runWeb(op, type, 'all');
      expect(all.ops).toContain(fused);
      expect(Array.from(all.y)).toEqual(Array.from(m.exact));
      const basic = await runWeb(op, type, 'basic');
      expect(basic.ops).toContain(op);
      expect(basic.ops).not.toContain(fused);
      expect(Array.from(basic.y)).toEqual(Array.from(m.exact));
    },
  );

  it('carry no relaxed-SIMD instruction, so no CPU lowers their dot products to a saturating one', () => {
    expect(WebAssembly.validate(PLAIN_DOT)).toBe(true);
    // This Node's WebAssembly refuses relaxed SIMD (Node 20 without --experimental-wasm-relaxed-simd); where it accepts it,
    // validation cannot tell and only the measurement above speaks.
    if (WebAssembly.validate(RELAXED_DOT)) return;
    for (const build of WASM_BUILDS)
      expect(WebAssembly.validate(new Uint8Array(fs.readFileSync(path.join(DIST, build)))), build).toBe(true);
  });
});
