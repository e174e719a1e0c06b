/**
 * The evaluation worker's messages: what the page sends (open options, evaluation, suggestion, histogram and
 * parity requests) and what comes back (results, outcomes, progress); evaluationApi.ts re-exports them for the
 * page's remote (src/ui/remote).
 */
import type { TensorSummary } from '../../src/core/onnx/index.ts';
import type { RankBy } from '../../src/core/search/candidates.ts';
import type { StopReason, SuggestStep } from '../../src/core/search/suggest.ts';
import type { Report, ReportFile, ReportHistogram, ReportTiming } from '../../src/core/report/index.ts';
import type { QuantConfig, SubgraphExclusion } from '../../src/core/quantize/config.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import type { SkippedSample } from '../../src/core/calibrate/run/runner.ts';
import type { CalibrationSample } from '../../src/core/calibrate/run/samples.ts';
import type { GraphOptimization } from '../../src/core/runtime/graphOptimization.ts';
import type { LadderMetric } from '../../src/core/recovery/ladder.ts';
import type { BackendInfo } from '../../src/core/runtime/session.ts';
import type { RangeTable } from '../../src/core/calibrate/run/rangeTable.ts';
import type { NodePrecision } from '../../src/core/quantize/precisionClasses.ts';
import type { HeadGuess, TaskHead } from '../../src/core/task/index.ts';

/**
 * Labels as the user gave them: one file, several, or a folder's files by their paths relative to it (a folder
 * per class: "3/a.png"). The worker reads them with the CLI's reader; Files travel to it without a copy.
 */
export interface EvaluationLabels {
  /** What was given, for messages: a file name, "4 files", a folder's name. */
  name: string;
  files: readonly { path: string; file: Blob }[];
}

export interface EvaluationOpenOptions {
  fileName: string;
  /** The model's external-data files (the user's Files), by the name its tensors use; read here. */
  externalFiles?: Readonly<Record<string, Blob>>;
  /** Most WASM threads this worker's sessions use. */
  threads?: number;
}

export interface EvaluationModel {
  handle: string;
  inputs: TensorSummary[];
  /** The task head recognised from the model (core/task/recognizeHead.ts): the suggestion the page shows. */
  head: HeadGuess;
  /** The float model file as the report names it (SHA-256 of its bytes). */
  file: ReportFile;
}

/** What the report says beyond what the worker measures: the page's configuration and quantization. */
export interface ReportContext {
  config?: { name: string; settings: unknown } | null;
  exclusions?: { rule: string; ids: string[] }[];
  quantization?: { nodes: number; quantized: number; float: number } | null;
  /** Each node's precision in the quantized model (core nodePrecisions of its quantize report). */
  precisions?: Record<string, NodePrecision> | null;
  /** Where the samples came from, in words ("8 calibration images"). */
  dataSource?: string | null;
  /** Calibrated ranges (tensor → [min, max]) for the worst layers' range table. */
  ranges?: RangeTable;
  /** Earlier steps' times (calibration, quantization). */
  timings?: ReportTiming[];
}

export interface EvaluationRequest {
  /** The quantized model: the page's Blob (or bytes) and its file name. */
  quantized: { name: string; data: Blob | ArrayBuffer; externalData?: Record<string, Blob> };
  samples: readonly CalibrationSample[];
  /** How images become tensors (the calibration's preprocessing). */
  spec: PreprocessSpec | null;
  /** Compare every intermediate tensor too. Default true. */
  layers?: boolean;
  /** Also judge the quantized model as the NPU runs it (float parts in BF16): the report's `npu` figure. */
  npuBf16?: boolean;
  /**
   * The task to judge (boxes, classes, masks, text against the float model): 'auto' (default) the head recognised
   * when the model has one, 'none' to skip, or a head the user chose. Judged on image samples only.
   */
  task?: 'auto' | 'none' | TaskHead;
  /** Labels for the images (core/task/labelSource.ts): the task judged against them too, float and quantized. */
  labels?: EvaluationLabels;
  report?: ReportContext;
}

export type EvaluationPhase = 'decoding' | 'at-default' | 'comparing' | 'npu' | 'histograms' | 'searching' | 'parity';

/** Histograms of a few tensors' float values ("Show histogram" in the node inspector). */
export interface TensorHistogramRequest {
  /** Tensor → its calibrated [min, max]: each histogram is binned over it, widened to the values seen. */
  tensors: RangeTable;
  samples: readonly CalibrationSample[];
  spec: PreprocessSpec | null;
  /** Most samples run (the first ones). Default 4: a quick picture, not a calibration. */
  maxSamples?: number;
}

export interface TensorHistograms {
  /** Tensor → its histogram; float32 tensors only (others are left out). */
  histograms: Record<string, ReportHistogram>;
  used: number;
  skipped: SkippedSample[];
  seconds: number;
}

export interface EvaluationProgress {
  phase: EvaluationPhase;
  /** Samples decoded or compared so far (in the current measurement, for a search). */
  done: number;
  total: number;
  /** Search only: the steps measured so far, and the most there will be (the starting one included). */
  step?: { done: number; total: number };
  /** Search only: the step just measured. */
  measured?: SuggestStepMeasured;
}

/**
 * A search step as the page gets it: with the decisions alike at 0.5 of an output of one number a sample, where the
 * model has one (core measuredDecision), which a cosine, PSNR or top-1 target leaves unjudged (unjudgedScoreNote).
 */
export type SuggestStepMeasured = SuggestStep & { readonly decision?: number };

export type EvaluationProgressCallback = (p: EvaluationProgress) => void;

export interface EvaluationResult {
  /** Everything the page shows and the downloads contain (core/report): one source for all. */
  report: Report;
  /** Stable node id → SQNR (dB) of its output (the lowest of its outputs), for the graph heat map. */
  nodeSqnr: Record<string, number>;
  used: number;
  skipped: SkippedSample[];
  backend: BackendInfo | null;
  /** Wall time of the comparison over the samples, per sample (both models, all chunks), seconds. */
  secondsPerSample: number;
  seconds: number;
  /** Why the task head chosen could not be read on these outputs (TaskHeadError): the other figures stand. */
  taskError?: { name: string; message: string };
}

export interface SuggestRequest {
  samples: readonly CalibrationSample[];
  spec: PreprocessSpec | null;
  /** Calibrated ranges the quantizer takes. */
  ranges: RangeTable;
  /** The starting configuration (the page's settings and exclusions). */
  config: QuantConfig;
  configName: string;
  /** The figure to reach: an output cosine, or the metric's. */
  target: number;
  /**
   * What the target measures: 'cosine' (default), an output metric (psnr, top1, sequence) or a task figure through
   * `task` (map50, map, miou: agreement with the float model's boxes or masks), read as the ladder reads it.
   */
  metric?: LadderMetric;
  /** The task head the page judges with (chosen or recognised), for a task target. */
  task?: TaskHead | null;
  /** Most measurements after the starting one. Default 8. */
  maxSteps?: number;
  rankBy?: RankBy;
  maxTailNodes?: number;
  /** Meet the target as the NPU runs the model (float parts in BF16); layers still rank as written. */
  npuBf16?: boolean;
  /**
   * The onnxruntime level the target is judged at: 'all' (default), onnxruntime-web's default options, what a user's
   * session computes; 'basic', the model's own Q/DQ arithmetic. Layers are ranked at 'basic' either way.
   */
  aim?: GraphOptimization;
}

export interface SuggestOutcome {
  target: number;
  /** What `target`, `figure` and `startFigure` measure. */
  metric: LadderMetric;
  /** The best configuration's figure and the starting one's, on a target other than the cosine. */
  figure?: number;
  startFigure?: number;
  /** The onnxruntime level the cosines were measured at. */
  aim: GraphOptimization;
  /** The cosines are as the NPU runs the model (float parts in BF16). */
  npuBf16: boolean;
  reached: boolean;
  stopped: StopReason;
  cosine: number;
  /** The starting configuration's cosine. */
  startCosine: number;
  steps: SuggestStepMeasured[];
  /** What the search added to the starting configuration: the picks the user may accept. */
  added: { nodes: string[]; subgraphs: SubgraphExclusion[] };
  used: number;
  skipped: SkippedSample[];
  seconds: number;
}

export interface ParityRequest {
  quantized: EvaluationRequest['quantized'];
  samples: readonly CalibrationSample[];
  spec: PreprocessSpec | null;
  maxSamples?: number;
}
