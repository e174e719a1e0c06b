import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { cpuInt8Kernels } from './cpuInt8Kernels.ts';

const cpuinfo = (model: string, flags: string) =>
  `processor\t: 0\nmodel name\t: ${model}\nflags\t\t: ${flags}\n\nprocessor\t: 1\n`;

describe('cpuInt8Kernels', () => {
  it('reads VNNI and AMX from the flags: no saturation there', () => {
    const c = cpuInt8Kernels(cpuinfo('Intel(R) Xeon(R) Processor', 'fpu sse avx2 avx512f avx512_vnni amx_int8'), 'x64');
    expect(c.saturates).toBe(false);
    expect(c.text).toMatch(/Intel\(R\) Xeon\(R\) Processor; avx512_vnni, amx_int8/);
    expect(cpuInt8Kernels(cpuinfo('12th Gen Intel(R) Core(TM) i7', 'avx2 avx_vnni'), 'x64').saturates).toBe(false);
  });

  it('an x86 CPU without any of them saturates, named in the text', () => {
    const c = cpuInt8Kernels(cpuinfo('AMD EPYC 7B12', 'fpu sse avx avx2 fma'), 'x64');
    expect(c.saturates).toBe(true);
    expect(c.text).toMatch(/AMD EPYC 7B12\) has no VNNI/);
  });

  it('names the CPUs it applies to when the CPU cannot be read, and never applies off x86', () => {
    const unknown = cpuInt8Kernels(null, 'x64');
    expect(unknown.saturates).toBeUndefined();
    expect(unknown.text).toMatch(/x86 CPUs without VNNI/);
    expect(cpuInt8Kernels(null, 'arm64').saturates).toBe(false);
  });

  it("reads this machine's CPU", () => {
    const here = cpuInt8Kernels();
    if (process.arch === 'x64' && fs.existsSync('/proc/cpuinfo')) {
      const vnni = /\b(avx512_vnni|avx_vnni|amx_int8)\b/.test(fs.readFileSync('/proc/cpuinfo', 'utf8'));
      expect(here.saturates).toBe(!vnni);
    }
  });
});
