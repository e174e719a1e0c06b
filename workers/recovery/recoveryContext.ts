/**
 * The recovery worker's held state: the float models (their bytes stay here), the measured rungs and the
 * climbs, each keyed by a handle (docs/ARCHITECTURE.md, principle 8), with the helpers every run shares: the
 * cancel signal, the model's checked float64 MatMul, keeping a measured model and forwarding progress.
 */
import type { GraphIndex, ModelProto, TensorSummary } from '../../src/core/onnx/index.ts';
import type { OutputSummary } from '../../src/core/metrics/metricSummary.ts';
import { validateConfig, type QuantConfig } from '../../src/core/quantize/config.ts';
import type { PresetName } from '../../src/core/quantize/presets.ts';
import type { QuantizeReport } from '../../src/core/quantize/quantizeReport.ts';
import type { ReportFile } from '../../src/core/report/index.ts';
import type { RecoveryProgress } from '../../src/core/recovery/quantizeWithRecovery.ts';
import type { LadderResult } from '../../src/core/recovery/ladder.ts';
import type { LadderSearchProgress, RungDetail } from '../../src/core/recovery/ladderMeasure.ts';
import type { ImageDecoder } from '../../src/core/calibrate/run/samples.ts';
import type { GraphOptimization } from '../../src/core/runtime/graphOptimization.ts';
import type { BackendPreference } from '../../src/core/runtime/session.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';
import { HandleTable } from '../runtime/handles.ts';
import type { RecordedRuntime } from '../runtime/recordBackend.ts';
import { RecoveryCancelledError } from '../../src/core/recovery/errors.ts';
import { checkedDenseProduct } from './denseProduct.ts';
import type { RuntimeDenseProduct } from '../../src/core/recovery/denseProduct.ts';
import { mixedSummary, recoveryFacts } from './rungSummary.ts';
import type { RecoveryWorkerProgress, RecoveryWorkerProgressCallback, RungSummary } from './recoveryTypes.ts';

export interface RecoveryApiDeps {
  /** The worker's runtime; `forcedBecause` says why WASM runs where `preference` forces it. */
  runtime(preference: BackendPreference, threads?: number, forcedBecause?: string): Runtime;
  decodeImage: ImageDecoder;
}

export interface HeldModel {
  model: ModelProto;
  index: GraphIndex;
  inputs: TensorSummary[];
  file: ReportFile;
  runtime: RecordedRuntime;
  /** The float64 MatMul for layer problems on `runtime`, checked once on the first recovery (undefined: TypeScript). */
  dense?: Promise<RuntimeDenseProduct | undefined>;
  active: Set<{ aborted: boolean }>;
  /** Rungs and climbs of the last run: a new run replaces them (the page lists only the last run's). */
  kept: { rungs: string[]; ladders: string[] };
}

export interface HeldRung {
  model: ModelProto;
  report: QuantizeReport;
  config: QuantConfig;
  label: string;
  preset: PresetName | null;
  seconds: number;
  outputs: readonly OutputSummary[];
  samples: number;
}

export interface HeldLadder {
  model: string;
  result: LadderResult;
  handles: (string | null)[];
  dataSource: string;
  /** Rungs were judged as the NPU runs them (float parts in BF16). */
  npuBf16: boolean;
  /** The onnxruntime level the rungs were judged at. */
  aim: GraphOptimization;
}

/** The worker's tables of held models, rungs and climbs, with the helpers that keep and forget them. */
export interface RecoveryContext {
  deps: RecoveryApiDeps;
  models: HandleTable<HeldModel>;
  rungs: HandleTable<HeldRung>;
  ladders: HandleTable<HeldLadder>;
  forgetPrevious(h: HeldModel): void;
  summarize(
    h: HeldModel,
    detail: RungDetail | undefined,
    base: Omit<
      RungSummary,
      'handle' | 'finetune' | 'cle' | 'biasCorrection' | 'skippedLayers' | 'quantization' | 'timing' | 'mixedPrecision'
    >,
  ): RungSummary;
}

export function createRecoveryContext(deps: RecoveryApiDeps): RecoveryContext {
  const models = new HandleTable<HeldModel>('recover-model');
  const rungs = new HandleTable<HeldRung>('rung');
  const ladders = new HandleTable<HeldLadder>('ladder');

  /** Forgets the models of the previous run of `h` (a picked one's bytes are already the page's). */
  function forgetPrevious(h: HeldModel): void {
    for (const id of h.kept.rungs) rungs.delete(id);
    for (const id of h.kept.ladders) ladders.delete(id);
    h.kept = { rungs: [], ladders: [] };
  }

  /** Keeps a measured model and describes it. */
  function summarize(
    h: HeldModel,
    detail: RungDetail | undefined,
    base: Omit<
      RungSummary,
      'handle' | 'finetune' | 'cle' | 'biasCorrection' | 'skippedLayers' | 'quantization' | 'timing' | 'mixedPrecision'
    >,
  ): RungSummary {
    if (!detail)
      return {
        ...base,
        handle: null,
        finetune: null,
        cle: null,
        biasCorrection: null,
        skippedLayers: 0,
        quantization: null,
        timing: null,
        mixedPrecision: null,
      };
    const config = validateConfig(JSON.parse(base.config));
    const handle = rungs.add({
      model: detail.quantized,
      report: detail.report,
      config,
      label: base.label,
      preset: base.preset,
      seconds: base.seconds,
      outputs: detail.comparison.outputs,
      samples: detail.comparison.samples,
    });
    h.kept.rungs.push(handle);
    return {
      ...base,
      handle,
      ...recoveryFacts(detail.recovery),
      quantization: { ...detail.report.counts },
      mixedPrecision: mixedSummary(detail.mixedPrecision),
    };
  }

  return { deps, models, rungs, ladders, forgetPrevious, summarize };
}

/** Runs `body` with a fresh cancel signal of `h`; RecoveryCancelledError once cancelled, whatever the body threw. */
export async function withSignal<T>(
  h: HeldModel,
  body: (signal: { aborted: boolean }, check: () => void) => Promise<T>,
): Promise<T> {
  const signal = { aborted: false };
  h.active.add(signal);
  const check = () => {
    if (signal.aborted) throw new RecoveryCancelledError('The recovery was cancelled.');
  };
  try {
    return await body(signal, check);
  } catch (e) {
    check();
    throw e;
  } finally {
    h.active.delete(signal);
  }
}

/** The model's float64 MatMul (workers/recovery/denseProduct.ts), checked on first use and kept for its runs. */
export function denseOf(h: HeldModel): Promise<RuntimeDenseProduct | undefined> {
  h.dense ??= checkedDenseProduct(h.runtime);
  return h.dense;
}

export const forward =
  (progress: RecoveryWorkerProgressCallback, rung: RecoveryWorkerProgress['rung'], ladder?: string) =>
  (p: RecoveryProgress | { phase: 'evaluate' } | LadderSearchProgress) => {
    if (p.phase === 'mixed') progress({ rung, ladder, phase: 'mixed', done: p.done, total: p.total, cosine: p.cosine });
    else if (p.phase === 'layer')
      progress({
        rung,
        ladder,
        phase: 'layer',
        layer: {
          id: p.id,
          done: p.done,
          total: p.total,
          lossBefore: p.lossBefore,
          lossAfter: p.lossAfter,
          curve: p.curve,
        },
      });
    else if (p.phase === 'gather') progress({ rung, ladder, phase: 'gather', done: p.stage, total: p.stages });
    else progress({ rung, ladder, phase: p.phase });
  };
