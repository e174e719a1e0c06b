/**
 * What the recovery worker and the page exchange: the requests (a recovery run, a ladder), the progress events, and
 * the outcomes (each rung in numbers, the mixed-precision search's, a picked model). Data shapes only; the worker's
 * code is recoveryApi.ts, which re-exports them.
 */
import type { TensorSummary } from '../../src/core/onnx/index.ts';
import type { QuantConfig } from '../../src/core/quantize/config.ts';
import type { PresetName } from '../../src/core/quantize/presets.ts';
import type { QuantizeReport } from '../../src/core/quantize/quantizeReport.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { type ReportFile, type ReportLadder, type ReportLadderShortfall } from '../../src/core/report/index.ts';
import type { RecoveryProgress } from '../../src/core/recovery/quantizeWithRecovery.ts';
import {
  type LadderMetric,
  type LadderOrder,
  type LadderStop,
  type SkippedRung,
} from '../../src/core/recovery/ladder.ts';
import type { CurvePoint } from '../../src/core/recovery/tuning.ts';
import type { SensitiveChoice } from '../../src/core/recovery/sensitiveLayers.ts';
import type { SkippedSample } from '../../src/core/calibrate/run/runner.ts';
import type { CalibrationSample } from '../../src/core/calibrate/run/samples.ts';
import type { GraphOptimization } from '../../src/core/runtime/graphOptimization.ts';
import type { TaskHead } from '../../src/core/task/index.ts';
import type { BackendInfo } from '../../src/core/runtime/session.ts';
import type { PrecisionBudget } from '../../src/core/quantize/precisionBudget.ts';

export interface RecoveryOpenOptions {
  fileName: string;
  /** The model's external-data files (the user's Files), by the name its tensors use; read here. */
  externalFiles?: Readonly<Record<string, Blob>>;
  threads?: number;
}

export interface RecoveryModel {
  handle: string;
  inputs: TensorSummary[];
  file: ReportFile;
}

/** The data every request carries: what to calibrate and tune on, and what to judge on. */
export interface RecoveryData {
  samples: readonly CalibrationSample[];
  /** Held-out samples to judge on; empty or absent → the calibration samples. */
  evaluationSamples?: readonly CalibrationSample[];
  spec: PreprocessSpec | null;
  /**
   * The onnxruntime level the judge runs at: 'all' (default), onnxruntime-web's default options, what a user's session
   * computes; 'basic', the model's own Q/DQ arithmetic. Tuning and calibration run at 'basic' either way.
   */
  aim?: GraphOptimization;
}

export interface RecoveryRequest extends RecoveryData {
  /** The user's configuration: settings, exclusions and the recovery choices (includeCle, includeFastFt, …). */
  config: QuantConfig;
  configName: string;
  /**
   * Automatic mixed precision first (core chooseMixedPrecision on the calibration samples): the configuration
   * gets the chosen 16-bit TensorQuantOverrides and float nodes, then the switched-on algorithms run with it.
   */
  mixedPrecision?: {
    budget: PrecisionBudget;
    /** The figure to reach on the calibration images: an output cosine, or the metric's (in [0, 1]). */
    target: number;
    /** 'cosine' (default) or a task figure through `task` (map50, map, miou: agreement with the float model). */
    metric?: LadderMetric;
    maxMeasurements?: number;
  };
  /** The task head the page judges with (chosen or recognised): a mixed-precision task target is read through it. */
  task?: TaskHead | null;
  /**
   * Fine-tune only the layers whose measured added noise sums to this share of all (core RecoveryOptions.sensitiveShare;
   * 1: every layer). Absent: the core's default, every layer.
   */
  sensitiveShare?: number;
}

export interface LadderRequest extends RecoveryData {
  /** The user's configuration: its exclusions and FastFinetune options carry into every rung. */
  config: QuantConfig;
  /** "cosine:0.99", "psnr:30", "top1:0.9", or a task figure: "map50:0.95", "map:0.6", "miou:0.9" (needs `task`). */
  target: string;
  /**
   * The task head the page judges with (chosen or recognised): a task target (map50, map, miou) is measured through
   * it on the evaluation images (core/recovery/targetMeasure.ts, as qstudio ladder does).
   */
  task?: TaskHead | null;
  /** Formats climbed, in order; default the reference's XINT8, A8W8, A16W8. */
  formats?: PresetName[];
  /** The order rungs are climbed in (core LadderOrder); default 8-bit routes first. */
  order?: LadderOrder;
  perChannelRung?: boolean;
  /** Run the exclusion search as the last rung (default true), with at most this many measurements. */
  exclusions?: boolean;
  maxExclusionSteps?: number;
  /** Mixed-precision rungs after the 8-bit fine-tuning rungs (default true), within the default budget. */
  mixedPrecision?: boolean;
  /** The largest share of a rung's error fine-tuning is expected to remove (default core FINETUNE_REACH; 1 tries every fine-tuning rung). */
  finetuneReach?: number;
  /** Judge every rung as the NPU runs it: float parts (exclusions, ops left float) in BF16 (default false). */
  npuBf16?: boolean;
  /**
   * Seconds the climb may take (core LadderOptions.timeBudget): rungs that cannot fit are skipped and listed, the rung
   * in flight at the deadline is stopped. Absent: no budget.
   */
  timeBudget?: number;
  /** As RecoveryRequest.sensitiveShare, for every fine-tuning rung. */
  sensitiveShare?: number;
  /** AdaQuant rungs take 1/k of the iterations at k × the learning rate (core LadderOptions.adaquantStride); absent: 1. */
  adaquantStride?: number;
}

/** Where a run is: which rung (ladder only), which phase, which stage or layer. */
export interface RecoveryWorkerProgress {
  /**
   * The rung being measured (ladder only): `of` the most rungs the climb may measure (fewer as rungs are ruled out),
   * `estimate` its expected seconds and what they rest on, `why` why it comes now.
   */
  rung: {
    index: number;
    label: string;
    step: number | 'ours';
    of?: number;
    estimate?: { seconds: number; basis: string };
    why?: string;
  } | null;
  /** The climb's handle from its start (ladder only): its report and its rungs are there even before it ends. */
  ladder?: string;
  phase: 'decoding' | RecoveryProgress['phase'] | 'evaluate' | 'rung-done' | 'mixed';
  /**
   * Samples decoded (phase 'decoding'), the stage of layers being gathered (phase 'gather'), or measurements of
   * the mixed-precision search (phase 'mixed': done so far, total its most).
   */
  done?: number;
  total?: number;
  /** Phase 'mixed': the cosine of the configuration just measured. */
  cosine?: number;
  /** Phase 'layer': the layer just tuned or corrected, and its loss curve. */
  layer?: {
    id: string;
    done: number;
    total: number;
    lossBefore?: number;
    lossAfter?: number;
    curve?: readonly CurvePoint[];
  };
  /** Phase 'rung-done': the rung just measured. */
  finished?: RungSummary;
  /** Phase 'rung-done': the climb so far, for its report should the worker stop and take the climb with it. */
  ladderSoFar?: LadderSoFar;
}

/**
 * What the page keeps of a climb after each rung so that its report can still be written once the worker stopped
 * (src/ui/store/keptLadderReport.ts): the report's ladder section (core ladderReport of the rungs measured so far) and
 * how the rungs were judged.
 */
export interface LadderSoFar {
  ladder: ReportLadder;
  dataSource: string;
  samples: number;
  graphOptimization: GraphOptimization;
  npuBf16: boolean;
}

export type RecoveryWorkerProgressCallback = (p: RecoveryWorkerProgress) => void;

/** A tuned layer as the page draws it. */
export interface LayerCurve {
  id: string;
  lossBefore: number;
  lossAfter: number;
  kept: boolean;
  curve: readonly CurvePoint[];
}

/** One measured configuration: the numbers side by side, and a handle to its quantized model. */
export interface RungSummary {
  /** 1, 2, … in the ladder; 1 for a single recovery run. */
  index: number;
  label: string;
  /** The reference flow's step (1–4), 'ours', or null for the user's own configuration. */
  step: number | 'ours' | null;
  /** The target metric's value (the ladder's), or the mean output cosine (a single run); NaN when it failed. */
  score: number;
  /** cosine, psnr, top1 where defined. */
  metrics: Record<string, number>;
  met: boolean;
  seconds: number;
  error: string | null;
  /** Where `error` is the climb stopping mid-rung, not a failure: the user's Cancel or the time budget's deadline. */
  stoppedBy?: 'cancel' | 'budget';
  /** Stopped part-way by the Cancel or the deadline, yet measured on what it had (core RungResult.stoppedEarly): what it kept. */
  stoppedEarly?: string;
  /** The quantized model, kept in the worker; null when the rung failed. */
  handle: string | null;
  /** The configuration measured, as JSON (core configToJSON). */
  config: string;
  preset: PresetName | null;
  /** A ladder rung: why it came when it did (core Rung.why), and its cost as estimated before it ran. */
  why?: string;
  estimate?: { seconds: number; basis: string };
  finetune: {
    algorithm: 'adaround' | 'adaquant';
    lossBefore: number;
    lossAfter: number;
    layers: LayerCurve[];
    /** Which layers were tuned and why (core RecoveryReport finetune.sensitive). */
    sensitive: SensitiveSummary | null;
  } | null;
  cle: { pairs: number } | null;
  biasCorrection: { layers: number } | null;
  skippedLayers: number;
  /** What the recovery steps left untreated inside If/Loop/Scan bodies, counted (core RecoveryReport.untreatedInBodies). */
  bodyWarning?: string;
  quantization: { nodes: number; quantized: number; float: number } | null;
  /** What the mixed-precision search chose (a mixed-precision run or rung), null otherwise. */
  mixedPrecision: MixedPrecisionSummary | null;
  /** Seconds of each step (the recovery report's), null when the rung failed. */
  timing: {
    cle: number;
    calibrate: number;
    gather: number;
    finetune: number;
    biasCorrection: number;
    total: number;
  } | null;
}

/** The layers a fine-tuning run tuned: the share of the measured added noise and why, and how concentrated it was. */
export interface SensitiveSummary {
  share: number;
  why: SensitiveChoice['why'];
  /** Layers tuned, of `of` linear layers. */
  tuned: number;
  of: number;
  /** Share of the added noise the tenth of the layers that add most hold (null where nothing was measured). */
  concentration: number | null;
}

/** The mixed-precision search in numbers: its cosine on the sensitivity samples before and after, and each kind's budget. */
export interface MixedPrecisionSummary {
  /** What `startCosine` and `cosine` measure: 'cosine', or the task target's metric (map50, map, miou). */
  metric: string;
  startCosine: number;
  cosine: number;
  reached: boolean;
  /** Calibration samples the search judged on. */
  samples: number;
  /** Where a decision target was judged on too few samples to trust (fewDecisionSamplesNote), what to give. */
  fewSamples: string | null;
  measurements: number;
  seconds: number;
  budget: Record<'act16' | 'w16' | 'float', { limit: number; used: number; of: number }>;
}

export interface RecoveryOutcome {
  rung: RungSummary;
  used: number;
  skipped: SkippedSample[];
  seconds: number;
  /** The backend the step's sessions ran on (the page says it beside the result). */
  ranOn: BackendInfo | null;
}

export interface LadderOutcome {
  /** Handle of the climb (for its report). */
  handle: string;
  target: { metric: string; value: number };
  rungs: RungSummary[];
  stopped: LadderStop;
  /** Index into `rungs` of the chosen one; −1 when none could be measured. */
  chosen: number;
  /** The order the rungs were climbed in, and the rungs measurement said to leave out (with why). */
  order: LadderOrder;
  skippedRungs: SkippedRung[];
  /** Where no rung met the target: which tensors block it and why, measured (core/recovery/ladderShortfall.ts). */
  shortfall?: ReportLadderShortfall;
  used: number;
  evaluated: number;
  skipped: SkippedSample[];
  seconds: number;
  /** The backend the climb's sessions ran on. */
  ranOn: BackendInfo | null;
}

/** A picked model: its bytes (transferred), the quantizer's report and the configuration. */
export interface PickedModel {
  bytes: ArrayBuffer;
  report: QuantizeReport;
  config: string;
  label: string;
  preset: PresetName | null;
  seconds: number;
}
