/**
 * Whether onnxruntime's CPU int8 kernels can saturate on the CPU this process runs on, read from the CPU itself
 * (/proc/cpuinfo). On x86, onnxruntime's fused QLinearConv / QLinearMatMul / QGemm run MLAS's U8S8 GEMM; without
 * VNNI it multiplies with vpmaddubsw, whose 16-bit pair sums saturate (core/quantize/cpuKernelSafety.ts). With
 * AVX-VNNI, AVX-512 VNNI or AMX-INT8 MLAS takes the VNNI/AMX kernels, which accumulate in 32 bits: nothing
 * saturates. Other architectures (arm64: sdot/udot) accumulate in 32 bits too. Where the CPU cannot be read
 * (not Linux), the answer names the CPUs the rule applies to instead of guessing.
 */
import fs from 'node:fs';

/** The flags of /proc/cpuinfo that give MLAS an int8 kernel accumulating in 32 bits. */
const WIDE_INT8_FLAGS = ['avx512_vnni', 'avx_vnni', 'amx_int8'] as const;

export interface CpuInt8Kernels {
  /** The CPU's model name, or a description of what is known. */
  readonly cpu: string;
  /** true: its int8 products can saturate; false: they cannot; undefined: the CPU could not be read. */
  readonly saturates: boolean | undefined;
  /** One sentence for notes: which CPU, which flags, what it means. */
  readonly text: string;
}

/** Which CPUs the saturation rule applies to, for when the CPU cannot be read. */
export const SATURATING_CPUS =
  'x86 CPUs without VNNI (AVX2 only, or AVX-512 without AVX512_VNNI: e.g. Intel before Cascade Lake, AMD before Zen 4)';

/** Reads the CPU from `cpuinfo` (default /proc/cpuinfo; null: unreadable) for architecture `arch` (default this process's). */
export function cpuInt8Kernels(cpuinfo: string | null = readCpuinfo(), arch: string = process.arch): CpuInt8Kernels {
  if (arch !== 'x64' && arch !== 'ia32') {
    return {
      cpu: arch,
      saturates: false,
      text: `this CPU (${arch}) accumulates int8 products in 32 bits: the saturation applies only to ${SATURATING_CPUS}`,
    };
  }
  if (cpuinfo === null)
    return {
      cpu: 'unknown x86 CPU',
      saturates: undefined,
      text: `the CPU could not be read: the saturation applies to ${SATURATING_CPUS}`,
    };
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'x86 CPU';
  const flags = new Set((/^flags\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? '').split(/\s+/));
  const wide = WIDE_INT8_FLAGS.filter((f) => flags.has(f));
  return wide.length > 0
    ? {
        cpu: model,
        saturates: false,
        text: `this CPU (${model}; ${wide.join(', ')}) runs onnxruntime's int8 kernels without saturation`,
      }
    : {
        cpu: model,
        saturates: true,
        text: `this CPU (${model}) has no VNNI: onnxruntime's int8 kernels can saturate on it`,
      };
}

function readCpuinfo(): string | null {
  try {
    return fs.readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return null;
  }
}
