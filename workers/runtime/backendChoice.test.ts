import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  adapterKey,
  adapterLabel,
  decideJob,
  decideRemaining,
  cautiousPrior,
  decisionReason,
  firstRunBeyondPrior,
  jobMs,
  priorOf,
  REAL_GPU_PRIOR,
  runsToPayBack,
  softwareAdapterReason,
  startupMs,
  worthStartingGpu,
  type AdapterFacts,
  type DevicePrior,
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
// MNIST on the H200: WebGPU 3.0 ms a run against WASM's 0.8 (slower), 0.71 s against 0.87 s whole: no start-up extra.
const MNIST = {
  wasm: { create: 870 - 710 + 8 * (3.0 - 0.8), first: 0.8, run: 0.8 },
  gpu: { create: 0, first: 3.0, run: 3.0 },
};

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

  it('first time on a model, starts WebGPU only where the runs left pay its start-up back at the real-GPU envelope', () => {
    // 6.5 WASM runs of start-up, a 0.75 run ratio: 26 runs left, whatever the model; × the WASM session's threads.
    expect(runsToPayBack(REAL_GPU_PRIOR)).toBe(26);
    expect(runsToPayBack(REAL_GPU_PRIOR, 4)).toBe(104);
    expect(runsToPayBack({ startupRuns: 1, runRatio: 1.2, measured: true })).toBe(Infinity);
    // The envelope covers every model the H200 measured: start-up (in WASM runs) and run ratio where WebGPU is faster.
    for (const m of Object.keys(H200) as (keyof typeof H200)[]) {
      const p = priorOf(measured(m));
      expect(p.startupRuns, m).toBeLessThanOrEqual(REAL_GPU_PRIOR.startupRuns);
      if (p.runRatio < 1) expect(p.runRatio, m).toBeLessThanOrEqual(REAL_GPU_PRIOR.runRatio);
    }
    expect(priorOf(measured('ppocr-det')).startupRuns).toBeCloseTo(2242 / 354, 3);
    // The page's sample: 12 scenes over two workers, 6 each; 4 left after WASM's two timed runs: WebGPU not started.
    for (const m of Object.keys(H200) as (keyof typeof H200)[]) {
      expect(worthStartingGpu(H200[m].wasmRun, 4, REAL_GPU_PRIOR)?.winner, m).toBe('wasm');
      expect(worthStartingGpu(H200[m].wasmRun, 25, REAL_GPU_PRIOR)?.winner, m).toBe('wasm');
      expect(worthStartingGpu(H200[m].wasmRun, 26, REAL_GPU_PRIOR), m).toBeNull();
      expect(worthStartingGpu(H200[m].wasmRun, 26, REAL_GPU_PRIOR, 2)?.winner, m).toBe('wasm');
    }
    expect(worthStartingGpu(64, Infinity, REAL_GPU_PRIOR)).toBeNull();
    expect(worthStartingGpu(64, 0, REAL_GPU_PRIOR)?.winner).toBe('wasm');
    // A device only ever grows more cautious: super-resolution's free start-up does not lower the envelope,
    // a GPU measured slower than WASM (ratio over 1) is never started again for a new model.
    const sr = priorOf(measured('super-resolution-10'));
    expect(sr).toMatchObject({ measured: true, startupRuns: 0 });
    expect(sr.runRatio).toBeCloseTo(55 / 374);
    expect(cautiousPrior(sr)).toEqual({ ...REAL_GPU_PRIOR, measured: true });
    expect(cautiousPrior(null)).toEqual(REAL_GPU_PRIOR);
    const slow = cautiousPrior(sr, { startupRuns: 9, runRatio: 1.4, measured: true });
    expect(slow).toMatchObject({ startupRuns: 9, runRatio: 1.4 });
    expect(worthStartingGpu(374, 10_000, slow)?.winner).toBe('wasm');
    // A first run beyond the whole start-up the prior allows gives up on WebGPU after one run.
    expect(firstRunBeyondPrior(354 + 6.5 * 354 + 1, 354, REAL_GPU_PRIOR)).toBe(true);
    expect(firstRunBeyondPrior(354 + 6.5 * 354 - 1, 354, REAL_GPU_PRIOR)).toBe(false);
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
    expect(decisionReason(worthStartingGpu(354, 4, REAL_GPU_PRIOR)!)).toBe(
      'WASM finishes the 4 runs left in about 1.4 s (354 ms a run); WebGPU would take about 3.4 s, its start-up included, and pays its start-up back only from 26 runs left (as measured on a real GPU), so it is not started',
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
/** The probing runner's clock in these tests: fake runs advance it by their cost, so timings are exact. */
const virtual = { ms: 0 };
const now = () => virtual.ms;

function fake(kind: 'webgpu' | 'wasm', ms: number, value: number) {
  const made = { released: false, runs: 0 };
  const m: Made = {
    runner: {
      inputNames: ['x'],
      outputNames: ['y'],
      async run(): Promise<Record<string, RunTensor>> {
        made.runs++;
        virtual.ms += ms; // a run that costs `ms` on the tests' virtual clock
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

const plan = (runs: number, key: string, startupRuns = 0.5): ProbePlan => ({
  runs,
  wasmCreateMs: 1,
  prior: { startupRuns, runRatio: 0.5, measured: true },
  key: `${key}|model`,
  device: key,
});

describe('the probing runner: each sample runs once, on one backend', () => {
  it('a short job stays on WASM without starting WebGPU (the probe costs nothing)', async () => {
    const cpu = fake('wasm', 2, 1);
    let started = 0;
    const runner = probingRunner(
      cpu.m,
      async () => (started++, fake('webgpu', 1, 2).m),
      plan(6, 'device-short', 750),
      now,
    );
    expect(runner.backend!().chosenBecause).toMatch(/timing WASM on the first runs/);
    for (let i = 0; i < 6; i++) expect(((await runner.run({ x: feed })).y.data as Float32Array)[0]).toBe(1);
    expect(started).toBe(0);
    expect(cpu.made.runs).toBe(6);
    expect(runner.backend!()).toMatchObject({
      kind: 'wasm',
      chosenBecause: expect.stringMatching(
        /^WASM finishes the 4 runs left in about .*; WebGPU would take about 1\.5 s, its start-up included, and pays its start-up back only from 1500 runs left \(as measured on this device\), so it is not started$/,
      ),
    });
    expect(await readCosts('device-short|model')).toBeNull();
  });

  it('a long job starts WebGPU after two WASM runs, times two of its own, keeps it where faster and caches both costs', async () => {
    const cpu = fake('wasm', 15, 1);
    const gpu = fake('webgpu', 1, 2);
    const runner = probingRunner(cpu.m, async () => gpu.m, plan(20, 'device-long'), now);
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

  it('goes back to WASM where WebGPU measures slower, releasing it: after one run where that run is beyond the prior', async () => {
    // 3 ms against 1 ms: within a start-up of 5 WASM runs, so its second run is timed too.
    const near = fake('webgpu', 3, 2);
    const cpuNear = fake('wasm', 1, 1);
    const nearRunner = probingRunner(cpuNear.m, async () => near.m, plan(Infinity, 'device-near', 5), now);
    for (let i = 0; i < 6; i++) await nearRunner.run({ x: feed });
    expect([cpuNear.made.runs, near.made.runs]).toEqual([4, 2]);
    // 12 ms against 1 ms, with no start-up allowed: given up after its first run.
    const cpu = fake('wasm', 1, 1);
    const gpu = fake('webgpu', 12, 2);
    const runner = probingRunner(cpu.m, async () => gpu.m, plan(Infinity, 'device-slow', 0), now);
    for (let i = 0; i < 6; i++) await runner.run({ x: feed });
    expect([cpu.made.runs, gpu.made.runs]).toEqual([5, 1]);
    expect(gpu.made.released).toBe(true);
    expect((await readPrior('device-slow'))!.runRatio).toBeGreaterThan(1); // no new model on it starts WebGPU
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

/** What one backend really costs on a model, as measured: session, first run, steady run (ms). */
interface TrueCost {
  create: number;
  first: number;
  run: number;
}

/**
 * A first job of `runs` samples on a new device, replayed through the real probingRunner on a virtual clock with
 * each backend's measured costs: the job's milliseconds, and WASM alone's for the same job (its session included).
 */
async function replayFirstJob(
  wasm: TrueCost,
  gpu: TrueCost,
  runs: number,
  prior: DevicePrior,
): Promise<{ ms: number; wasmAloneMs: number; gpuAloneMs: number; gpuRuns: number; device: string }> {
  let clock = 0;
  let gpuRuns = 0;
  const session = (kind: 'wasm' | 'webgpu', c: TrueCost): Made => {
    let n = 0;
    return {
      runner: {
        inputNames: ['x'],
        outputNames: ['y'],
        async run() {
          clock += n++ === 0 ? c.first : c.run;
          if (kind === 'webgpu') gpuRuns++;
          return { y: { type: 'float32', data: new Float32Array([1]), dims: [1] } };
        },
        release: async () => {},
      },
      backend: { kind, threads: kind === 'wasm' ? 1 : 0, fallbackReason: null },
    };
  };
  clock += wasm.create;
  const device = `replay-${Math.random()}`;
  const runner = probingRunner(
    session('wasm', wasm),
    async () => ((clock += gpu.create), session('webgpu', gpu)),
    { runs, wasmCreateMs: wasm.create, prior, key: `${device}|model`, device },
    () => clock,
  );
  for (let i = 0; i < runs; i++) await runner.run({ x: feed });
  return { ms: clock, wasmAloneMs: jobMs(cost(wasm), runs), gpuAloneMs: jobMs(cost(gpu), runs), gpuRuns, device };
}
const cost = (c: TrueCost) => ({ createMs: c.create, firstRunMs: c.first, steadyMs: c.run });
const trueCosts = (m: keyof typeof H200): { wasm: TrueCost; gpu: TrueCost } => {
  const c = measured(m);
  return {
    wasm: { create: c.wasm.createMs, first: c.wasm.firstRunMs, run: c.wasm.steadyMs },
    gpu: { create: c.webgpu.createMs, first: c.webgpu.firstRunMs, run: c.webgpu.steadyMs },
  };
};
// The software adapter (headless Chromium's "google swiftshader") on UltraFace, measured here by suite webgpu-browser
// (bench/results/webgpu-browser.json, 2026-11-28, medians of 3 at load 20–26): start (module and session), first
// run, steady run, each backend. WebGPU's steady run is 36 of WASM's.
const SWIFTSHADER = {
  wasm: { create: 9709.1, first: 627.4, run: 272.6 },
  gpu: { create: 16008.5, first: 34814.5, run: 9760 },
};
const LENGTHS = Array.from({ length: 300 }, (_, i) => i + 1);

describe("a model's first job on a new device: what the choice can lose, replayed on measured costs", () => {
  it('on every model the H200 measured, no job of 1 to 300 samples is slower than WASM alone (MNIST, where WebGPU runs slower, by at most its two timed runs: 4.4 ms)', async () => {
    const worst: Record<string, { loss: number; at: number; forgone: number; started: number }> = {};
    for (const m of [...(Object.keys(H200) as (keyof typeof H200)[]), 'mnist' as const]) {
      const { wasm, gpu } = m === 'mnist' ? MNIST : trueCosts(m);
      let w = { loss: -Infinity, at: 0, forgone: 0, started: 0 };
      for (const n of LENGTHS) {
        const r = await replayFirstJob(wasm, gpu, n, REAL_GPU_PRIOR);
        const loss = r.ms - r.wasmAloneMs;
        if (loss > w.loss) w = { ...w, loss, at: n };
        w.forgone = Math.max(w.forgone, r.ms - Math.min(r.wasmAloneMs, r.gpuAloneMs));
        if (r.gpuRuns > 0 && !w.started) w.started = n;
      }
      worst[m] = w;
    }
    console.log('first job on a new device, worst over 1–300 samples (ms):', JSON.stringify(worst));
    for (const m of Object.keys(H200)) expect(worst[m].loss, m).toBeLessThanOrEqual(1e-9);
    expect(worst.mnist.loss).toBeCloseTo(2 * (3.0 - 0.8), 6);
    // WebGPU is tried from 28 samples (2 timed on WASM + 26 left) on every model.
    for (const m of Object.keys(worst)) expect(worst[m].started, m).toBe(28);
  });

  it('the fixed guess it replaces (2 s of start-up, a run ratio of ½) lost 0.88 s on the text detector: the replay tells them apart', async () => {
    const { wasm, gpu } = trueCosts('ppocr-det');
    const old: DevicePrior = { startupRuns: 2000 / 354, runRatio: 0.5, measured: false };
    let loss = 0;
    for (const n of LENGTHS) {
      const r = await replayFirstJob(wasm, gpu, n, old);
      loss = Math.max(loss, r.ms - r.wasmAloneMs);
    }
    expect(loss).toBeGreaterThan(500);
    expect(loss).toBeCloseTo(2242 - 12 * (354 - 235), 6);
  });

  it("with the software adapter's figures (if it were not known as one): the session and one run, once per device", async () => {
    const { wasm, gpu } = SWIFTSHADER;
    for (const n of [27, 28, 60, 300]) {
      const r = await replayFirstJob(wasm, gpu, n, REAL_GPU_PRIOR);
      const loss = r.ms - r.wasmAloneMs;
      if (n < 28) expect(loss, `${n}`).toBeCloseTo(0, 6);
      else expect(loss, `${n}`).toBeCloseTo(gpu.create + gpu.first - wasm.run, 6);
      expect(r.gpuRuns).toBe(n < 28 ? 0 : 1);
      // What that run left on the device stops WebGPU for the next new model there.
      if (n >= 28) expect(runsToPayBack(cautiousPrior(await readPrior(r.device)))).toBe(Infinity);
    }
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
