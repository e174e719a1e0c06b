import { describe, expect, it } from 'vitest';
import { adapterKey, adapterLabel, decideProbe, probeReason, softwareAdapterReason, steadyMs, type AdapterFacts } from './backendChoice.ts';
import { probingRunner, type Made } from './ort.ts';
import { readProbe } from './probeCache.ts';
import type { Feed, RunTensor } from '../../src/core/runtime/session.ts';

const adapter = (a: Partial<AdapterFacts>): AdapterFacts => ({ vendor: '', architecture: '', device: '', description: '', isFallbackAdapter: false, ...a });

describe('which WebGPU adapters are software ones', () => {
  it('headless Chromium\'s SwiftShader, Mesa\'s llvmpipe/lavapipe, and any fallback adapter are; a real GPU is not', () => {
    expect(softwareAdapterReason(adapter({ vendor: 'google', architecture: 'swiftshader' }))).toMatch(/google swiftshader.*software/);
    expect(softwareAdapterReason(adapter({ vendor: 'mesa', description: 'llvmpipe (LLVM 15.0.6, 256 bits)' }))).toMatch(/software/);
    expect(softwareAdapterReason(adapter({ vendor: 'mesa', device: 'lavapipe' }))).toMatch(/software/);
    expect(softwareAdapterReason(adapter({ vendor: 'intel', architecture: 'gen-12lp', isFallbackAdapter: true }))).toMatch(/fallback/);
    expect(softwareAdapterReason(adapter({ vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H100 80GB HBM3' }))).toBeNull();
    expect(adapterLabel(adapter({ vendor: 'nvidia', architecture: 'hopper' }))).toBe('nvidia hopper');
    expect(adapterLabel(adapter({}))).toBe('unnamed adapter');
    expect(adapterKey(adapter({ vendor: 'nvidia', architecture: 'hopper' }))).not.toBe(adapterKey(adapter({ vendor: 'nvidia', architecture: 'ampere' })));
  });
});

describe('the probe decision', () => {
  it('leaves the warm-up run out and keeps the faster steady backend', () => {
    expect(steadyMs([900, 12, 10])).toBe(10);
    expect(steadyMs([7])).toBe(7);
    expect(decideProbe({ webgpu: [2000, 4, 5], wasm: [60, 40, 41] })).toEqual({ winner: 'webgpu', webgpuMs: 4, wasmMs: 40 });
    expect(decideProbe({ webgpu: [2000, 400, 500], wasm: [60, 40, 41] }).winner).toBe('wasm');
    expect(decideProbe({ webgpu: [5, 5, 5], wasm: [5, 5, 5] }).winner).toBe('wasm'); // a tie keeps the CPU reference
    expect(probeReason({ winner: 'wasm', webgpuMs: 400, wasmMs: 40 }, true)).toBe('WebGPU is slower here (WebGPU 400 ms a run, WASM 40 ms; measured earlier on this model and device)');
  });
});

const feed: Feed = { type: 'float32', data: new Float32Array([1]), dims: [1] };

function fake(kind: 'webgpu' | 'wasm', ms: number, value: number) {
  const made = { released: false, runs: 0 };
  const m: Made = {
    runner: {
      inputNames: ['x'],
      outputNames: ['y'],
      async run(): Promise<Record<string, RunTensor>> {
        made.runs++;
        const until = performance.now() + ms;
        while (performance.now() < until) { /* busy: a run that costs `ms` */ }
        return { y: { type: 'float32', data: new Float32Array([value]), dims: [1] } };
      },
      release: async () => void (made.released = true),
    },
    backend: kind === 'webgpu' ? { kind: 'webgpu', threads: 0, fallbackReason: null, adapter: 'nvidia hopper' } : { kind: 'wasm', threads: 1, fallbackReason: null },
  };
  return { m, made };
}

describe('the probing runner', () => {
  it('runs the first three on both (answering with WASM), then keeps the faster, releases the other and caches the outcome', async () => {
    const cpu = fake('wasm', 1, 1);
    const gpu = fake('webgpu', 15, 2);
    const runner = probingRunner(cpu.m, gpu.m, 'model|device-a');
    expect(runner.backend!().chosenBecause).toMatch(/timing WebGPU against WASM/);
    for (let i = 0; i < 3; i++) expect(((await runner.run({ x: feed })).y.data as Float32Array)[0]).toBe(1);
    expect([cpu.made.runs, gpu.made.runs]).toEqual([3, 3]);
    expect(runner.backend!().kind).toBe('wasm');
    expect(runner.backend!().fallbackReason).toMatch(/WebGPU is slower here/);
    expect(gpu.made.released).toBe(true);
    await runner.run({ x: feed });
    expect([cpu.made.runs, gpu.made.runs]).toEqual([4, 3]);
    expect((await readProbe('model|device-a'))?.winner).toBe('wasm');
    await runner.release();
    expect(cpu.made.released).toBe(true);
  });

  it('keeps WebGPU where it measures faster', async () => {
    const cpu = fake('wasm', 15, 1);
    const gpu = fake('webgpu', 1, 1);
    const runner = probingRunner(cpu.m, gpu.m, 'model|device-b');
    for (let i = 0; i < 4; i++) await runner.run({ x: feed });
    expect(runner.backend!()).toMatchObject({ kind: 'webgpu', adapter: 'nvidia hopper', chosenBecause: expect.stringMatching(/WebGPU is faster here/) });
    expect(cpu.made.released).toBe(true);
    expect(gpu.made.runs).toBe(4);
  });
});
