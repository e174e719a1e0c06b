import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  adapterKey,
  adapterLabel,
  decideJob,
  decideRemaining,
  decisionReason,
  DEFAULT_DEVICE_PRIOR,
  jobMs,
  priorOf,
  softwareAdapterReason,
  startupMs,
  worthStartingGpu,
  type AdapterFacts,
  type MeasuredCosts,
} from './backendChoice.ts';
import { measuredSession, probingRunner, webnnUnavailable, type Made, type ProbePlan } from './ort.ts';
import { probeKey, readCosts, readPrior, writeCosts } from './probeCache.ts';
import type { Feed, RunTensor } from '../../src/core/runtime/session.ts';

const adapter = (a: Partial<AdapterFacts>): AdapterFacts => ({
  vendor: '',
  architecture: '',
  device: '',
  description: '',
  isFallbackAdapter: false,
  ...a,
});

describe('which WebGPU adapters are software ones', () => {
  it("headless Chromium's SwiftShader, Mesa's llvmpipe/lavapipe, and any fallback adapter are; a real GPU is not", () => {
    expect(softwareAdapterReason(adapter({ vendor: 'google', architecture: 'swiftshader' }))).toMatch(
      /google swiftshader.*software/,
    );
    expect(softwareAdapterReason(adapter({ vendor: 'mesa', description: 'llvmpipe (LLVM 15.0.6, 256 bits)' }))).toMatch(
      /software/,
    );
    expect(softwareAdapterReason(adapter({ vendor: 'mesa', device: 'lavapipe' }))).toMatch(/software/);
    expect(
      softwareAdapterReason(adapter({ vendor: 'intel', architecture: 'gen-12lp', isFallbackAdapter: true })),
    ).toMatch(/fallback/);
    expect(
      softwareAdapterReason(
        adapter({ vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H100 80GB HBM3' }),
      ),
    ).toBeNull();
    expect(adapterLabel(adapter({ vendor: 'nvidia', architecture: 'hopper' }))).toBe('nvidia hopper');
    expect(adapterLabel(adapter({}))).toBe('unnamed adapter');
    expect(adapterKey(adapter({ vendor: 'nvidia', architecture: 'hopper' }))).not.toBe(
      adapterKey(adapter({ vendor: 'nvidia', architecture: 'ampere' })),
    );
  });
});

// Measured on the lent H200 (bench/results/webgpu-node.json, 8 COCO images, U8S8 MinMax, onnxruntime-node's WebGPU
// EP against onnxruntime-web's WASM on one thread): each model's steady run per backend (the probe's figures) and the
// whole calibration's seconds. WebGPU's start-up beyond WASM's is what the whole times leave once 8 runs at each
// steady cost are taken out.
const H200 = {
  'ultraface-rfb-320': { wasmRun: 64, gpuRun: 48, wasmWhole: 1500, gpuWhole: 1750 },
  'yolox-nano': { wasmRun: 268, gpuRun: 142, wasmWhole: 3500, gpuWhole: 3290 },
  'ppocr-det': { wasmRun: 354, gpuRun: 235, wasmWhole: 3140, gpuWhole: 4430 },
  'super-resolution-10': { wasmRun: 374, gpuRun: 55, wasmWhole: 4390, gpuWhole: 1610 },
};
function measured(m: keyof typeof H200): MeasuredCosts {
  const { wasmRun, gpuRun, wasmWhole, gpuWhole } = H200[m];
  const extra = gpuWhole - wasmWhole - 8 * (gpuRun - wasmRun);
  return {
    webgpu: { createMs: Math.max(0, extra), firstRunMs: gpuRun, steadyMs: gpuRun },
    wasm: { createMs: Math.max(0, -extra), firstRunMs: wasmRun, steadyMs: wasmRun },
  };
}
const ULTRAFACE = measured('ultraface-rfb-320');

describe('the whole-job decision, on what the H200 measured', () => {
  it('picks the backend that finished the 8-image calibration sooner on every model (the per-run rule chose WebGPU on all four)', () => {
    for (const m of Object.keys(H200) as (keyof typeof H200)[]) {
      const { wasmRun, gpuRun, wasmWhole, gpuWhole } = H200[m];
      const d = decideJob(measured(m), 8);
      expect(d.winner, m).toBe(gpuWhole < wasmWhole ? 'webgpu' : 'wasm');
      expect(d.webgpuMs - d.wasmMs, m).toBeCloseTo(gpuWhole - wasmWhole, 6);
      expect(gpuRun < wasmRun, m).toBe(true); // what made the old probe choose WebGPU everywhere
    }
    expect(decideJob(measured('ultraface-rfb-320'), 8).winner).toBe('wasm');
    expect(decideJob(measured('ppocr-det'), 8).winner).toBe('wasm');
  });

  it('gives a long job to WebGPU once its faster runs pay its start-up back', () => {
    // The detector's 2.2 s of extra start-up, paid back 119 ms a run: break-even near 19 runs.
    expect(decideJob(measured('ppocr-det'), 18).winner).toBe('wasm');
    expect(decideJob(measured('ppocr-det'), 24).winner).toBe('webgpu');
    expect(decideJob(ULTRAFACE, 200).winner).toBe('webgpu');
    // A job of unknown length is a long one: the steady run decides.
    expect(decideJob(ULTRAFACE, Infinity).winner).toBe('webgpu');
    // A tie keeps WASM, the CPU reference.
    expect(decideJob({ webgpu: ULTRAFACE.wasm, wasm: ULTRAFACE.wasm }, 50).winner).toBe('wasm');
    expect(jobMs({ createMs: 100, firstRunMs: 50, steadyMs: 10 }, 5)).toBe(100 + 50 + 4 * 10);
    expect(startupMs({ createMs: 100, firstRunMs: 50, steadyMs: 10 })).toBe(140);
  });

  it('first time on a model, starts WebGPU only where the runs left promise to pay its start-up back', () => {
    // The page's sample: 12 scenes over two workers, 6 each; 4 left after WASM's two timed runs. None of the H200's
    // models promises 2 s there, so WebGPU is not started: no job is slower than WASM for the probe's sake.
    for (const m of Object.keys(H200) as (keyof typeof H200)[])
      expect(worthStartingGpu(H200[m].wasmRun, 4, DEFAULT_DEVICE_PRIOR)?.winner, m).toBe('wasm');
    // 100 images a worker: every detector promises more than its start-up.
    for (const m of Object.keys(H200) as (keyof typeof H200)[])
      expect(worthStartingGpu(H200[m].wasmRun, 98, DEFAULT_DEVICE_PRIOR), m).toBeNull();
    expect(worthStartingGpu(64, Infinity, DEFAULT_DEVICE_PRIOR)).toBeNull();
    expect(worthStartingGpu(64, 0, DEFAULT_DEVICE_PRIOR)?.winner).toBe('wasm');
    // A device measured once uses its own figures: super-resolution's 0.15 run ratio starts WebGPU far sooner.
    const sr = priorOf(measured('super-resolution-10'));
    expect(sr).toMatchObject({ measured: true, startupMs: 0 });
    expect(sr.runRatio).toBeCloseTo(55 / 374);
    expect(worthStartingGpu(374, 4, sr)).toBeNull();
  });

  it('mid-job, with both sessions made, gives the runs left to the faster steady run (a tie to WASM)', () => {
    expect(decideRemaining(ULTRAFACE.webgpu, ULTRAFACE.wasm, 10)).toMatchObject({
      winner: 'webgpu',
      webgpuMs: 480,
      wasmMs: 640,
    });
    expect(decideRemaining({ ...ULTRAFACE.webgpu, steadyMs: 64 }, ULTRAFACE.wasm, 10).winner).toBe('wasm');
  });

  it('says what decided, in numbers', () => {
    expect(decisionReason(worthStartingGpu(354, 4, DEFAULT_DEVICE_PRIOR)!)).toBe(
      'WASM finishes the 4 runs left in about 1.4 s (354 ms a run); WebGPU would take about 2.7 s, its start-up included (no model measured on this device yet), so it is not started',
    );
    expect(decisionReason(decideJob(measured('ppocr-det'), 8))).toBe(
      'WASM finishes sooner here (WebGPU 235 ms a run, WASM 354 ms; 8 runs from the start: WebGPU about 4.1 s, WASM 2.8 s, session and first run included; measured earlier on this model and device)',
    );
    expect(decisionReason(decideRemaining(ULTRAFACE.webgpu, ULTRAFACE.wasm, 10))).toBe(
      'WebGPU finishes sooner here (WebGPU 48 ms a run, WASM 64 ms, 10 runs left; measured on this model)',
    );
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
        while (performance.now() < until) {
          /* busy: a run that costs `ms` */
        }
        return { y: { type: 'float32', data: new Float32Array([value]), dims: [1] } };
      },
      release: async () => void (made.released = true),
    },
    backend:
      kind === 'webgpu'
        ? { kind: 'webgpu', threads: 0, fallbackReason: null, adapter: 'nvidia hopper' }
        : { kind: 'wasm', threads: 1, fallbackReason: null },
  };
  return { m, made };
}

const plan = (runs: number, key: string, startupMs = 10): ProbePlan => ({
  runs,
  wasmCreateMs: 1,
  prior: { startupMs, runRatio: 0.5, measured: true },
  key: `${key}|model`,
  device: key,
});

describe('the probing runner: each sample runs once, on one backend', () => {
  it('a short job stays on WASM without starting WebGPU (the probe costs nothing)', async () => {
    const cpu = fake('wasm', 2, 1);
    let started = 0;
    const runner = probingRunner(cpu.m, async () => (started++, fake('webgpu', 1, 2).m), plan(6, 'device-short', 1500));
    expect(runner.backend!().chosenBecause).toMatch(/timing WASM on the first runs/);
    for (let i = 0; i < 6; i++) expect(((await runner.run({ x: feed })).y.data as Float32Array)[0]).toBe(1);
    expect(started).toBe(0);
    expect(cpu.made.runs).toBe(6);
    expect(runner.backend!()).toMatchObject({
      kind: 'wasm',
      chosenBecause: expect.stringMatching(
        /^WASM finishes the 4 runs left in about .*; WebGPU would take about 1\.5 s, its start-up included \(as last measured on this device\), so it is not started$/,
      ),
    });
    expect(await readCosts('device-short|model')).toBeNull();
  });

  it('a long job starts WebGPU after two WASM runs, times two of its own, keeps it where faster and caches both costs', async () => {
    const cpu = fake('wasm', 15, 1);
    const gpu = fake('webgpu', 1, 2);
    const runner = probingRunner(cpu.m, async () => gpu.m, plan(20, 'device-long'));
    const answers: number[] = [];
    for (let i = 0; i < 20; i++) answers.push(((await runner.run({ x: feed })).y.data as Float32Array)[0]);
    expect(answers).toEqual([1, 1, ...Array(18).fill(2)]);
    expect([cpu.made.runs, gpu.made.runs]).toEqual([2, 18]);
    expect(cpu.made.released).toBe(true);
    expect(runner.backend!()).toMatchObject({
      kind: 'webgpu',
      adapter: 'nvidia hopper',
      chosenBecause: expect.stringMatching(/^WebGPU finishes sooner here .*16 runs left/),
    });
    const costs = await readCosts('device-long|model');
    expect(costs!.wasm.steadyMs).toBeGreaterThanOrEqual(15);
    expect(costs!.webgpu.steadyMs).toBeLessThan(costs!.wasm.steadyMs);
    expect(await readPrior('device-long')).toMatchObject({ measured: true, runRatio: expect.any(Number) });
  });

  it('goes back to WASM where WebGPU measures slower, releasing it', async () => {
    const cpu = fake('wasm', 1, 1);
    const gpu = fake('webgpu', 12, 2);
    const runner = probingRunner(cpu.m, async () => gpu.m, plan(Infinity, 'device-slow', 0));
    for (let i = 0; i < 6; i++) await runner.run({ x: feed });
    expect([cpu.made.runs, gpu.made.runs]).toEqual([4, 2]);
    expect(gpu.made.released).toBe(true);
    expect(runner.backend!()).toMatchObject({
      kind: 'wasm',
      fallbackReason: expect.stringMatching(/WASM finishes sooner here/),
    });
    await runner.release();
    expect(cpu.made.released).toBe(true);
  });

  it('stays on WASM, saying why, where WebGPU fails to load the model', async () => {
    const cpu = fake('wasm', 5, 1);
    const runner = probingRunner(
      cpu.m,
      async () => ({ failed: 'WebGPU could not load the model (no kernel)' }),
      plan(Infinity, 'device-broken', 0),
    );
    for (let i = 0; i < 4; i++) expect(((await runner.run({ x: feed })).y.data as Float32Array)[0]).toBe(1);
    expect(runner.backend!()).toMatchObject({ kind: 'wasm', fallbackReason: expect.stringMatching(/no kernel/) });
  });
});

describe('measuredSession: costs measured earlier decide before any session is made', () => {
  it("makes only the winner's session: WASM for 8 runs, WebGPU for 200, on the same cached costs", async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    await writeCosts(await probeKey(bytes, 'device-cached'), ULTRAFACE);
    const made = { wasm: 0, webgpu: 0 };
    const makers = {
      wasm: async () => (made.wasm++, fake('wasm', 0, 1).m),
      webgpu: async (why: string) => (
        made.webgpu++,
        {
          ...fake('webgpu', 0, 2).m,
          backend: { kind: 'webgpu' as const, threads: 0, fallbackReason: null, chosenBecause: why },
        }
      ),
    };
    const short = await measuredSession(makers, bytes, 'device-cached', 8);
    expect(made).toEqual({ wasm: 1, webgpu: 0 });
    expect(short.backend).toMatchObject({
      kind: 'wasm',
      chosenBecause: expect.stringMatching(/^WASM finishes sooner here .*8 runs from the start/),
    });
    const long = await measuredSession(makers, bytes, 'device-cached', 200);
    expect(made).toEqual({ wasm: 1, webgpu: 1 });
    expect(long.backend).toMatchObject({
      kind: 'webgpu',
      chosenBecause: expect.stringMatching(/^WebGPU finishes sooner here/),
    });
  });
});

describe('WebNN for the parity check', () => {
  afterEach(() => vi.unstubAllGlobals());

  it("counts only where a context can be made: navigator.ml alone, as Debian's Chromium exposes it behind a flag, is not enough", async () => {
    vi.stubGlobal('navigator', {});
    expect(await webnnUnavailable()).toBe('this browser exposes no WebNN (navigator.ml)');
    vi.stubGlobal('navigator', {
      ml: { createContext: () => Promise.reject(new Error('WebNN is not supported on this platform.')) },
    });
    expect(await webnnUnavailable()).toBe(
      'this browser exposes WebNN (navigator.ml) but cannot make a context here: WebNN is not supported on this platform',
    );
    vi.stubGlobal('navigator', { ml: { createContext: async () => ({}) } });
    expect(await webnnUnavailable()).toBeNull();
  });
});
