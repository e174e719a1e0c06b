import type { BackendInfo } from '../../core/runtime/session.ts';
import { describe, expect, it, vi } from 'vitest';
import type { ModelSummary } from '../../core/onnx/index.ts';
import type { QuantizeReport } from '../../core/quantize/quantizeReport.ts';
import { configToJSON, withOptions, type QuantConfig } from '../../core/quantize/config.ts';
import { getPreset, type PresetName } from '../../core/quantize/presets.ts';
import type {
  LadderOutcome,
  LadderRequest,
  RecoveryOutcome,
  RecoveryWorkerProgress,
  RecoveryRequest,
  RungSummary,
} from '../remote/workerTypes.ts';
import { createStudioStore } from './createStudioStore.ts';
import { currentConfig, exportedConfig } from './selectors.ts';
import type { RecoveryService } from './recoverySlice.ts';
import { fakeModelService, heldCalls } from './testStore.ts';

/** Where the worker says fine-tuning ran. */
const WASM: BackendInfo = {
  kind: 'wasm-threads',
  threads: 4,
  fallbackReason: null,
  chosenBecause: 'fine-tuning runs the quantized model',
};

const summary = {
  fileName: 'm.onnx',
  byteLength: 10,
  inputs: [{ name: 'x', elemType: 'float32', shape: [1, 3, 8, 8] }],
} as unknown as ModelSummary;
const modelService = fakeModelService((fileName) => ({ ...summary, fileName }));
const quantReport = {
  config: 'XINT8',
  exclusions: [],
  counts: { nodes: 3, quantized: 2, float: 1 },
} as unknown as QuantizeReport;

const rung = (index: number, label: string, cosine: number, extra: Partial<RungSummary> = {}): RungSummary => ({
  index,
  label,
  step: 1,
  score: cosine,
  metrics: { cosine },
  met: false,
  seconds: 1,
  error: null,
  handle: `rung-${index}`,
  config: configToJSON(getPreset('A8W8')),
  preset: 'A8W8',
  finetune: null,
  cle: null,
  biasCorrection: null,
  skippedLayers: 0,
  quantization: { nodes: 3, quantized: 2, float: 1 },
  timing: null,
  mixedPrecision: null,
  ...extra,
});

/** The worker's progress for a finished rung of climb `ladder` ('rung-done', its step numbered as the rung). */
const rungDone = (finished: RungSummary, ladder: string | undefined): RecoveryWorkerProgress => ({
  rung: { index: finished.index, label: finished.label, step: finished.index },
  ...(ladder ? { ladder } : {}),
  phase: 'rung-done',
  finished,
});

/** The worker's account of a finished climb toward cosine 0.99 over `rungs`: by default exhausted, the first chosen. */
const ladderOutcome = (rungs: RungSummary[], climb: Partial<LadderOutcome> = {}): LadderOutcome => ({
  handle: 'ladder-1',
  target: { metric: 'cosine', value: 0.99 },
  rungs,
  stopped: 'exhausted',
  chosen: 0,
  order: 'eight-bit-first',
  skippedRungs: [],
  used: 1,
  evaluated: 1,
  skipped: [],
  seconds: 1,
  ranOn: null,
  ...climb,
});

/** A fake recovery service whose runs finish when the test says so. */
function fakeRecovery(
  picked: { config: QuantConfig; label: string; preset: PresetName } = {
    config: withOptions(getPreset('A8W8'), { perChannel: true }),
    label: 'A8W8',
    preset: 'A8W8',
  },
) {
  const runs = heldCalls<RecoveryRequest, RecoveryWorkerProgress, RecoveryOutcome>();
  const climbs = heldCalls<LadderRequest, RecoveryWorkerProgress, LadderOutcome>();
  const counts = { cancelled: 0, released: 0, picked: [] as string[] };
  const service: RecoveryService = {
    recover: runs.call,
    ladder: climbs.call,
    pick: async (_h, handle) => {
      counts.picked.push(handle);
      return {
        bytes: new Uint8Array([1, 2, 3]).buffer,
        report: quantReport,
        config: configToJSON(picked.config),
        label: picked.label,
        preset: picked.preset,
        seconds: 4,
      };
    },
    ladderReport: async () => ({ ladder: { chosen: 1 } }) as never,
    cancel: () => void counts.cancelled++,
    release: () => void counts.released++,
  };
  return { service, runs: runs.calls, climbs: climbs.calls, counts };
}

const file = (name: string) => new File([new Uint8Array(3)], name, { lastModified: 1 });
const flush = () => new Promise((r) => setTimeout(r, 0));

async function openStore(images = ['a.png', 'b.png'], picked?: Parameters<typeof fakeRecovery>[0]) {
  const fake = fakeRecovery(picked);
  const store = createStudioStore({ model: modelService, recovery: fake.service });
  const s = () => store.getState();
  await s().openModel({
    fileName: 'm.onnx',
    byteLength: 10,
    read: async () => ({ bytes: new ArrayBuffer(4), externalFiles: {} }),
  });
  if (images.length) s().addCalibrationData({ images: images.map(file) });
  return { s, fake, store };
}

describe('recovery slice', () => {
  it('says by name that recovery needs calibration images, and starts nothing', async () => {
    const { s, fake } = await openStore([]);
    await s().recoverWithSettings();
    expect(s().recovery).toMatchObject({ status: 'error', error: { name: 'NoRecoveryDataError' } });
    await s().climbLadder();
    expect(fake.runs).toHaveLength(0);
    expect(fake.climbs).toHaveLength(0);
  });

  it('refuses by name, before any work, a model whose float and quantized sessions cannot fit the 4 GiB WebAssembly memory together', async () => {
    const { s, fake, store } = await openStore();
    store.setState((st) => ({ model: { ...st.model, summary: { ...st.model.summary!, parameterBytes: 2.25e9 } } }));
    await s().recoverWithSettings();
    expect(s().recovery).toMatchObject({
      status: 'error',
      error: {
        name: 'ModelTooLargeError',
        message: expect.stringMatching(/2\.10 GiB.*4\.00 GiB.*npx qstudio quantize/),
      },
    });
    await s().climbLadder();
    expect(s().recovery.error?.name).toBe('ModelTooLargeError');
    expect(fake.runs).toHaveLength(0);
    expect(fake.climbs).toHaveLength(0);
  });

  it('quantizes with the switched-on algorithms: the config carries them, progress and loss curves fill in, the result is one rung', async () => {
    const { s, fake } = await openStore();
    s().setRecoveryOptions({
      cle: true,
      finetune: 'adaquant',
      iterations: 7,
      learningRate: 0.001,
      smoothQuant: true,
      smoothAlpha: 0.75,
    });
    s().setRecoveryOptions({ iterations: 0 }); // refused: not a whole number ≥ 1
    s().setRecoveryOptions({ smoothAlpha: 1.5 }); // refused: α is in [0, 1]
    expect(s().recovery.options).toMatchObject({ iterations: 7, smoothAlpha: 0.75 });
    const running = s().recoverWithSettings();
    await flush();
    const [call] = fake.runs;
    expect(call.request.samples.map((x) => x.name)).toEqual(['a.png', 'b.png']);
    expect(call.request.config).toMatchObject({
      includeCle: true,
      includeFastFt: true,
      includeBiasCorrection: false,
      includeSq: true,
    });
    expect(call.request.config.extraOptions.SmoothAlpha).toBe(0.75);
    expect(call.request.config.extraOptions.FastFinetune).toMatchObject({
      OptimAlgorithm: 'adaquant',
      NumIterations: 7,
      LearningRate: 0.001,
    });
    call.onProgress({
      rung: null,
      phase: 'layer',
      layer: {
        id: 'Conv_0',
        done: 1,
        total: 2,
        lossBefore: 2,
        lossAfter: 1,
        curve: [
          { iteration: 0, loss: 2 },
          { iteration: 7, loss: 1 },
        ],
      },
    });
    expect(s().recovery.status).toBe('running');
    expect(s().recovery.curves).toEqual([
      {
        id: 'Conv_0',
        lossBefore: 2,
        lossAfter: 1,
        kept: false,
        curve: [
          { iteration: 0, loss: 2 },
          { iteration: 7, loss: 1 },
        ],
      },
    ]);
    expect(s().recovery.progress?.layer).toMatchObject({ done: 1, total: 2 });
    // The same layer tuned again in the run (the exclusion search fine-tunes at each of its steps) starts a new pass:
    // each layer is listed once (the chart keys its points by layer; twice drew stale points on the page).
    const again = (id: string, lossAfter: number) =>
      call.onProgress({ rung: null, phase: 'layer', layer: { id, done: 1, total: 2, lossBefore: 2, lossAfter } });
    again('Conv_1', 1.5);
    again('Conv_0', 0.5);
    expect(s().recovery.curves.map((c) => [c.id, c.lossAfter])).toEqual([['Conv_0', 0.5]]);
    again('Conv_1', 0.7);
    expect(s().recovery.curves.map((c) => [c.id, c.lossAfter])).toEqual([
      ['Conv_0', 0.5],
      ['Conv_1', 0.7],
    ]);
    call.resolve({ rung: rung(1, 'XINT8 + CLE + AdaQuant', 0.995), used: 2, skipped: [], seconds: 3, ranOn: WASM });
    await running;
    expect(s().recovery).toMatchObject({ status: 'done', mode: 'recover', climb: null, ranOn: WASM });
    expect(s().recovery.rungs.map((r) => r.label)).toEqual(['XINT8 + CLE + AdaQuant']);
  });

  it('climbs toward the target: rungs appear as they are measured, the climb is kept, and a rung becomes the run result', async () => {
    const { s, fake } = await openStore();
    s().setLadderChoice({ metric: 'psnr', value: 30, allFormats: false, exclusions: false });
    const running = s().climbLadder();
    await flush();
    const [call] = fake.climbs;
    expect(call.request).toMatchObject({
      target: 'psnr:30',
      formats: ['XINT8'],
      perChannelRung: false,
      exclusions: false,
      order: 'eight-bit-first',
    });
    call.onProgress(rungDone(rung(1, 'XINT8', 0.9), undefined));
    expect(s().recovery.rungs.map((r) => r.label)).toEqual(['XINT8']);
    call.resolve(
      ladderOutcome([rung(1, 'XINT8', 0.9), rung(2, 'XINT8 + CLE', 0.95)], {
        target: { metric: 'psnr', value: 30 },
        chosen: 1,
        skippedRungs: [{ label: 'XINT8 + AdaRound', reason: '94 % of the error would have to go' }],
        used: 2,
        evaluated: 2,
        seconds: 9,
        ranOn: WASM,
      }),
    );
    await running;
    expect(s().recovery.climb).toEqual({
      handle: 'ladder-1',
      stopped: 'exhausted',
      chosen: 1,
      target: { metric: 'psnr', value: 30 },
      order: 'eight-bit-first',
      skippedRungs: [{ label: 'XINT8 + AdaRound', reason: '94 % of the error would have to go' }],
    });
    expect(s().recovery.ranOn).toEqual(WASM);

    await s().useRung('rung-1');
    expect(fake.counts.picked).toEqual(['rung-1']);
    expect(s().recovery.adopted).toBe('rung-1');
    expect(s().run).toMatchObject({
      status: 'done',
      result: {
        fileName: 'm.quant.onnx',
        byteLength: 3,
        seconds: 4,
        settings: { preset: 'A8W8', perChannel: true, useRandomData: false },
      },
    });
    expect(await s().ladderReport()).toMatchObject({ ladder: { chosen: 1 } });
  });

  it('after "Use this model", the config file and the scripts describe the adopted rung (its preset, transformer rules, SmoothQuant, precisions) until a setting or pick changes', async () => {
    const rungConfig = withOptions(getPreset('XINT8'), {
      perChannel: true,
      enableNpuTransformer: true,
      includeSq: true,
      extraOptions: { SmoothAlpha: 0.7, TensorQuantOverrides: { t1: [{ quant_type: 'int16' }] } },
    });
    const label = 'Mixed precision (XINT8 per-channel + attention rules + SmoothQuant)';
    const { s, fake } = await openStore(['a.png'], { config: rungConfig, label, preset: 'XINT8' });
    s().setQuantPreset('A8W8');
    const running = s().climbLadder();
    await flush();
    const mixed = {
      budget: {
        act16: { limit: 1, used: 1, of: 4 },
        w16: { limit: 0, used: 0, of: 2 },
        float: { limit: 0, used: 0, of: 3 },
      },
      startCosine: 0.9,
      cosine: 0.95,
      reached: false,
      measurements: 3,
      seconds: 1,
      chosen: { act16: ['t1'], w16: [], float: [] },
    };
    fake.climbs[0].resolve(ladderOutcome([rung(1, label, 0.95, { mixedPrecision: mixed as never })]));
    await running;
    expect(exportedConfig(s())).toEqual({ config: currentConfig(s()), preset: 'A8W8' }); // nothing adopted yet

    await s().useRung('rung-1');
    const adopted = exportedConfig(s());
    expect(adopted.preset).toBe('XINT8');
    expect(adopted.config).toMatchObject({
      scaleType: 'powerOfTwo',
      perChannel: true,
      enableNpuTransformer: true,
      includeSq: true,
    });
    expect(adopted.config.extraOptions).toMatchObject({
      SmoothAlpha: 0.7,
      TensorQuantOverrides: { t1: [{ quant_type: 'int16' }] },
    });
    // The page's own settings (A8W8, no transformer rules) would describe another model.
    expect(currentConfig(s())).toMatchObject({ scaleType: 'float32', enableNpuTransformer: false, includeSq: false });

    s().setPerChannel(false);
    expect(exportedConfig(s())).toEqual({ config: currentConfig(s()), preset: 'A8W8' });
  });

  it("adopting a rung keeps what it kept float (nodes and tail subgraphs the exclusion rung found) and its 16-bit tensors (a fine-tuned mixed rung) as the page's picks and settings", async () => {
    const found = withOptions(getPreset('A8W8'), {
      nodesToExclude: ['Conv_7'],
      subgraphsToExclude: [{ starts: ['Mul_9'], ends: ['Concat_12'] }],
      extraOptions: { TensorQuantOverrides: { t1: [{ quant_type: 'int16' }] } },
    });
    const label = 'Mixed precision (A8W8 per-channel) + AdaRound';
    const { s, fake } = await openStore(['a.png'], { config: found, label, preset: 'A8W8' });
    const running = s().climbLadder();
    await flush();
    // A fine-tuned mixed rung carries no search summary of its own, only the chosen precisions in its config.
    fake.climbs[0].resolve(ladderOutcome([rung(1, label, 0.95)]));
    await running;
    await s().useRung('rung-1');
    expect(s().run.settings.tensorOverrides).toEqual({ t1: [{ quant_type: 'int16' }] });
    expect(
      s().exclusions.entries.map((e) =>
        e.kind === 'nodes' ? [e.name, e.nodes] : e.kind === 'subgraph' ? [e.name, e.starts, e.ends] : null,
      ),
    ).toEqual([
      ['Mixed precision: kept float', ['Conv_7']],
      ['Mixed precision: kept float (subgraph 1)', ['Mul_9'], ['Concat_12']],
    ]);
    const exported = exportedConfig(s()).config;
    expect(exported.nodesToExclude).toEqual(['Conv_7']);
    expect(exported.subgraphsToExclude).toEqual([{ starts: ['Mul_9'], ends: ['Concat_12'] }]);
    expect(currentConfig(s())).toMatchObject({
      nodesToExclude: ['Conv_7'],
      subgraphsToExclude: [{ starts: ['Mul_9'], ends: ['Concat_12'] }],
    });
  });

  it('climbs in the chosen order: 8-bit routes first by default, fastest when asked; an unknown order is refused', async () => {
    const { s, fake } = await openStore();
    expect(s().recovery.ladder.order).toBe('eight-bit-first');
    s().setLadderChoice({ order: 'sideways' as never });
    expect(s().recovery.ladder.order).toBe('eight-bit-first');
    s().setLadderChoice({ order: 'fastest' });
    const running = s().climbLadder();
    await flush();
    expect(fake.climbs[0].request).toMatchObject({ order: 'fastest' });
    fake.climbs[0].resolve(ladderOutcome([], { chosen: -1, order: 'fastest', used: 2, evaluated: 2 }));
    await running;
  });

  it('strides AdaQuant as asked: a run with AdaQuant at 1/k of the iterations and k × the rate, the climb told k; a stride that is not a whole number ≥ 1 is refused', async () => {
    const { s, fake } = await openStore();
    expect(s().recovery.options.adaquantStride).toBe(1);
    s().setRecoveryOptions({ finetune: 'adaquant', iterations: 450, learningRate: 1e-5, adaquantStride: 3 });
    s().setRecoveryOptions({ adaquantStride: 1.5 }); // refused
    s().setRecoveryOptions({ adaquantStride: 0 }); // refused
    expect(s().recovery.options.adaquantStride).toBe(3);
    const running = s().recoverWithSettings();
    await flush();
    expect(fake.runs[0].request.config.extraOptions.FastFinetune).toMatchObject({
      OptimAlgorithm: 'adaquant',
      NumIterations: 150,
      LearningRate: 3e-5,
    });
    fake.runs[0].reject(new Error('done'));
    await running;
    const climbing = s().climbLadder();
    await flush();
    // The climb's configuration keeps the user's iterations: the ladder strides its AdaQuant rungs (not its AdaRound ones).
    expect(fake.climbs[0].request).toMatchObject({ adaquantStride: 3 });
    expect(fake.climbs[0].request.config.extraOptions.FastFinetune.NumIterations).toBe(450);
    fake.climbs[0].resolve(ladderOutcome([], { chosen: -1, used: 2, evaluated: 2 }));
    await climbing;
    // AdaRound is never strided.
    s().setRecoveryOptions({ finetune: 'adaround', learningRate: null });
    const adaround = s().recoverWithSettings();
    await flush();
    expect(fake.runs[1].request.config.extraOptions.FastFinetune.NumIterations).toBe(450);
    fake.runs[1].reject(new Error('done'));
    await adaround;
  });

  it('cancel asks the worker; a cancelled single run is "cancelled", not an error; a new model resets and ends the worker', async () => {
    const { s, fake } = await openStore();
    const running = s().recoverWithSettings();
    await flush();
    s().cancelRecovery();
    expect(fake.counts.cancelled).toBe(1);
    fake.runs[0].reject(Object.assign(new Error('The recovery was cancelled.'), { name: 'RecoveryCancelledError' }));
    await running;
    expect(s().recovery.status).toBe('cancelled');
    expect(s().recovery.error).toBeNull();

    const again = s().recoverWithSettings();
    await flush();
    fake.runs[1].reject(Object.assign(new Error('bad'), { name: 'RecoveryError' }));
    await again;
    expect(s().recovery.error).toEqual({ name: 'RecoveryError', message: 'bad' });

    await s().openModel({
      fileName: 'n.onnx',
      byteLength: 10,
      read: async () => ({ bytes: new ArrayBuffer(4), externalFiles: {} }),
    });
    expect(fake.counts.released).toBeGreaterThanOrEqual(1);
    expect(s().recovery).toMatchObject({ status: 'idle', rungs: [], error: null });
  });

  it('a climb whose worker call fails after measuring rungs keeps them, the best chosen, and says it failed (not cancelled)', async () => {
    const { s, fake } = await openStore();
    const climbing = s().climbLadder();
    await flush();
    const c = fake.climbs[0];
    c.onProgress(rungDone(rung(1, 'XINT8', 0.9), 'ladder-3'));
    c.onProgress(rungDone(rung(2, 'XINT8 + CLE', 0.95), 'ladder-3'));
    c.reject(Object.assign(new Error('out of memory'), { name: 'RuntimeError' }));
    await climbing;
    expect(s().recovery).toMatchObject({
      status: 'error',
      error: { name: 'RuntimeError' },
      climb: { handle: 'ladder-3', stopped: 'failed', chosen: 1 },
    });
  });

  it('after the worker crashed, "Use the best model so far" rebuilds the rung from its configuration in the new worker instead of asking for a model it lost', async () => {
    const { s, fake } = await openStore();
    const climbing = s().climbLadder();
    await flush();
    const c = fake.climbs[0];
    const tuned = withOptions(getPreset('XINT8'), { includeFastFt: true });
    c.onProgress(rungDone(rung(1, 'XINT8', 0.9), 'ladder-3'));
    c.onProgress(rungDone(rung(2, 'XINT8 + AdaRound', 0.95, { config: configToJSON(tuned) }), 'ladder-3'));
    c.reject(Object.assign(new Error('The recovery worker stopped: out of memory'), { name: 'WorkerError' }));
    await climbing;
    const r = s().recovery;
    expect(r.climb).toMatchObject({ stopped: 'failed', chosen: 1 });
    // The new worker numbers its models from 1 again: the old handles are marked, never sent to it.
    expect(r.rungs.map((g) => g.handle)).toEqual(['lost:rung-1', 'lost:rung-2']);

    const using = s().useRung('lost:rung-2');
    await flush();
    expect(fake.counts.picked).toEqual([]);
    expect(fake.runs).toHaveLength(1);
    expect(fake.runs[0].request).toMatchObject({ configName: 'XINT8 + AdaRound' });
    expect(fake.runs[0].request.config).toEqual(tuned);
    fake.runs[0].resolve({ rung: rung(1, 'XINT8 + AdaRound', 0.95), ranOn: null } as RecoveryOutcome);
    await using;
    expect(fake.counts.picked).toEqual(['rung-1']);
    expect(s().recovery.error).toBeNull();
    expect(s().recovery.adopted).toBe('rung-1');
    expect(s().recovery.rungs.map((g) => g.handle)).toEqual(['lost:rung-1', 'rung-1']);
    expect(s().run.result?.byteLength).toBe(3);
  });

  it('after the worker crashed, the ladder report is written from what the page kept of each rung, not asked of the worker that lost it', async () => {
    const { s, fake } = await openStore();
    let asked = 0;
    fake.service.ladderReport = async () => {
      asked++;
      throw Object.assign(new Error('no such ladder'), { name: 'UnknownHandleError' });
    };
    const climbing = s().climbLadder();
    await flush();
    const c = fake.climbs[0];
    const soFar = (rungs: number) => ({
      ladder: {
        target: { metric: 'cosine', value: 0.99 },
        stopped: 'cancelled' as const,
        chosen: rungs - 1,
        rungs: [1, 2].slice(0, rungs).map((index) => ({
          index,
          label: index === 1 ? 'XINT8' : 'XINT8 + AdaRound',
          step: index,
          score: 0.9 + index / 100,
          metrics: { cosine: 0.9 + index / 100 },
          met: false,
          seconds: 3 * index,
          error: null,
          excluded: 0,
        })),
      },
      dataSource: '2 calibration sample(s)',
      samples: 2,
      graphOptimization: 'all' as const,
      npuBf16: false,
    });
    c.onProgress({ ...rungDone(rung(1, 'XINT8', 0.91), 'ladder-3'), ladderSoFar: soFar(1) });
    c.onProgress({ ...rungDone(rung(2, 'XINT8 + AdaRound', 0.92), 'ladder-3'), ladderSoFar: soFar(2) });
    c.reject(Object.assign(new Error('The recovery worker stopped: out of memory'), { name: 'WorkerError' }));
    await climbing;
    const report = (await s().ladderReport())!;
    expect(asked).toBe(0);
    expect(report.ladder).toMatchObject({
      stopped: 'failed',
      chosen: 1,
      error: 'WorkerError: The recovery worker stopped: out of memory',
    });
    expect(report.ladder!.rungs.map((g) => g.label)).toEqual(['XINT8', 'XINT8 + AdaRound']);
    expect(report.config?.name).toBe('XINT8 + AdaRound');
    expect(report.quantizedModel).toBeNull();
    expect(report.notes.join(' ')).toMatch(/took its rungs' models with it/);
    expect((await s().ladderReport(0))!.config?.name).toBe('XINT8');
  });

  it('a climb whose worker stopped after the climb ended (the report asked of it fails as lost) gets the kept report', async () => {
    const { s, fake } = await openStore();
    fake.service.ladderReport = async () => {
      throw Object.assign(new Error('The recovery worker stopped'), { name: 'WorkerError' });
    };
    const climbing = s().climbLadder();
    await flush();
    const c = fake.climbs[0];
    const one = rung(1, 'XINT8', 0.91);
    c.onProgress({
      ...rungDone(one, 'ladder-3'),
      ladderSoFar: {
        ladder: { target: { metric: 'cosine', value: 0.99 }, stopped: 'cancelled', chosen: 0, rungs: [] },
        dataSource: 'x',
        samples: 2,
        graphOptimization: 'all',
        npuBf16: true,
      },
    });
    c.resolve(ladderOutcome([one], { handle: 'ladder-3' }));
    await climbing;
    const report = (await s().ladderReport())!;
    expect(report.ladder?.stopped).toBe('failed');
    expect(report.notes.join(' ')).toMatch(/judged as the NPU runs it/);
    expect(s().recovery.rungs.map((g) => g.handle)).toEqual(['lost:rung-1']);
  });

  it('a cancelled climb whose answer is slow is shown cancelled with its rungs after the grace period: each stays usable, the report comes from the climb started', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    try {
      const { s, fake } = await openStore();
      s().setLadderChoice({ timeBudgetMinutes: 15 });
      void s().climbLadder();
      await vi.advanceTimersByTimeAsync(0);
      expect(fake.climbs[0].request.timeBudget).toBe(900);
      const c = fake.climbs[0];
      c.onProgress({
        rung: { index: 1, label: 'XINT8', step: 1, of: 9, estimate: { seconds: 10, basis: 'x' } },
        ladder: 'ladder-7',
        phase: 'prepare',
      });
      c.onProgress(rungDone(rung(1, 'XINT8', 0.9), 'ladder-7'));
      c.onProgress(rungDone(rung(2, 'XINT8 + CLE', 0.95), 'ladder-7'));
      c.onProgress({
        rung: { index: 3, label: 'XINT8 + CLE + AdaRound', step: 2 },
        ladder: 'ladder-7',
        phase: 'layer',
        layer: { id: 'c', done: 1, total: 40 },
      });
      expect(s().recovery.liveClimb).toBe('ladder-7');
      s().cancelRecovery();
      expect(fake.counts.cancelled).toBe(1);
      expect(s().recovery).toMatchObject({ status: 'running', cancelling: true });
      s().cancelRecovery(); // a second press asks nothing more
      expect(fake.counts.cancelled).toBe(1);
      await vi.advanceTimersByTimeAsync(15_000);
      expect(s().recovery).toMatchObject({
        status: 'cancelled',
        cancelling: false,
        climb: { handle: 'ladder-7', stopped: 'cancelled', chosen: 1 },
      });
      await s().useRung('rung-2');
      expect(fake.counts.picked).toEqual(['rung-2']);
      expect(s().recovery.adopted).toBe('rung-2');
      expect(await s().ladderReport()).toEqual({ ladder: { chosen: 1 } });
      // The worker's own answer, late, replaces the page's guess with the climb's own account.
      c.resolve(
        ladderOutcome([rung(1, 'XINT8', 0.9), rung(2, 'XINT8 + CLE', 0.95)], {
          handle: 'ladder-7',
          stopped: 'cancelled',
          chosen: 1,
          used: 2,
          evaluated: 2,
          seconds: 30,
        }),
      );
      await vi.advanceTimersByTimeAsync(0);
      expect(s().recovery.status).toBe('cancelled');
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a time budget that is not a positive number of minutes; empty means none', async () => {
    const { s } = await openStore();
    s().setLadderChoice({ timeBudgetMinutes: -5 });
    expect(s().recovery.ladder.timeBudgetMinutes).toBeNull();
    s().setLadderChoice({ timeBudgetMinutes: 2.5 });
    expect(s().recovery.ladder.timeBudgetMinutes).toBe(2.5);
    s().setLadderChoice({ timeBudgetMinutes: null });
    expect(s().recovery.ladder.timeBudgetMinutes).toBeNull();
  });
});
