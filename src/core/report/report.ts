/**
 * The report of one quantization judged against its float model: what was compared, how close the
 * outputs stayed (Quark's metrics), where inside the graph the error arises, and what it cost.
 *
 * One plain-data model feeds every renderer (the HTML page, JSON, the page's report view), so they
 * cannot disagree. It is built by ./build.ts from results the caller already has; nothing here runs
 * a model or reads a file. The model bytes' SHA-256 is a field: Node's crypto, the browser's
 * crypto.subtle or ./sha256.ts compute it, whichever the caller has. Numbers keep NaN and ±Infinity
 * (an exact layer has SQNR +Infinity); the JSON renderer says how it writes them.
 */

import type { ParityResult } from '../evaluate/parity.ts';
import type { NodeId } from '../onnx/model.ts';
import type { OutputSummary } from '../metrics/metricSummary.ts';
import type { LayerRow } from '../metrics/layerwise.ts';
import type { NodeError } from '../metrics/layerwiseJumps.ts';
import type { SuggestStep, StopReason } from '../search/suggest.ts';
import type { NodePrecision } from '../quantize/precisionClasses.ts';
import type { GraphOptimization } from '../runtime/graphOptimization.ts';
import type { ReportTask } from '../task/taskReport.ts';

export type { ReportTask };

/** Version of the report's shape, written into every JSON report. */
export const REPORT_SCHEMA = 'quant-studio/report@1';

export interface ReportFile {
  readonly name: string;
  /** Lowercase hex SHA-256 of the file's bytes; null when not computed. */
  readonly sha256: string | null;
  readonly bytes: number | null;
}

/** Equal-width bins from min to max. */
export interface ReportHistogram {
  readonly min: number;
  readonly max: number;
  readonly counts: readonly number[];
}

/** The range one of the worst layers' tensors was given. */
export interface ReportRange {
  readonly tensor: string;
  readonly node: NodeId | null;
  /** Calibrated range when the caller had it, else the range of the quantized model's grid. */
  readonly min: number;
  readonly max: number;
  readonly source: 'calibration' | 'grid';
  /** The quantized model's grid for this tensor, when it has one. */
  readonly grid: {
    readonly type: string;
    readonly scale: number;
    readonly zeroPoint: number;
    readonly min: number;
    readonly max: number;
  } | null;
  readonly histogram: ReportHistogram | null;
}

export interface ReportTiming {
  readonly label: string;
  readonly seconds: number;
}

export interface ReportLayers {
  /** Every compared tensor, in topological order. */
  readonly rows: readonly LayerRow[];
  /** The worst rows (lowest SQNR first). */
  readonly worst: readonly LayerRow[];
  /** Nodes whose SQNR drop exceeds jumpThresholdDb, largest first. */
  readonly jumps: readonly NodeError[];
  readonly jumpThresholdDb: number;
  /** Float tensors the quantized model no longer has (folded by graph preparation). */
  readonly missing: readonly string[];
}

export interface ReportSuggest {
  readonly target: number;
  /** What the target is on, when not the output cosine (a task figure: map50, miou…; each step's `figure`). */
  readonly metric?: string;
  readonly reached: boolean;
  readonly stopped: StopReason;
  readonly steps: readonly SuggestStep[];
}

/** The accuracy-recovery ladder (core/recovery/ladder.ts): every rung tried, in order. */
export interface ReportLadder {
  readonly target: { readonly metric: string; readonly value: number };
  /** The order the rungs were climbed in (core/recovery/ladder.ts LadderOrder); absent in reports written before it existed. */
  readonly order?: 'eight-bit-first' | 'fastest';
  /** Why the climb ended (core/recovery/ladder.ts LadderStop): 'budget' when its time budget ran out, 'failed' with `error`. */
  readonly stopped: 'target' | 'exhausted' | 'cancelled' | 'budget' | 'failed';
  /** What failed between rungs (stopped 'failed'). */
  readonly error?: string;
  /** The time budget it planned against and the seconds it took (seconds). */
  readonly budget?: { readonly seconds: number; readonly used: number };
  /** Rungs not measured because earlier measurements said they could not win, and why. */
  readonly skipped?: readonly { readonly label: string; readonly reason: string }[];
  /** Index into `rungs` of the chosen one; −1 when none could be measured. */
  readonly chosen: number;
  readonly rungs: readonly {
    readonly index: number;
    readonly label: string;
    /** The reference flow's step (1–4), or 'ours'. */
    readonly step: number | 'ours';
    readonly score: number;
    readonly metrics: Readonly<Record<string, number>>;
    readonly met: boolean;
    readonly seconds: number;
    readonly error: string | null;
    /** Stopped part-way by the time budget or a Cancel, and measured on what it kept: what that was. */
    readonly stoppedEarly?: string;
    /** Exclusion rules in the rung's configuration. */
    readonly excluded: number;
    /** Why it came when it did. */
    readonly why?: string;
    /** Its estimated seconds before it ran, and what the estimate rested on. */
    readonly estimate?: { readonly seconds: number; readonly basis: string };
  }[];
  /** Where the target was not met: which tensors block it and why, from what the climb measured (ladderShortfall.ts). */
  readonly shortfall?: ReportLadderShortfall;
}

/** A figure of the target's metric, with the character error rate where the outputs are sequences. */
export interface ReportLadderFigure {
  readonly score: number;
  readonly cer?: number;
}

/**
 * Why a ladder did not meet its target, from its own measurements (core/recovery/ladderShortfall.ts): the 16-bit sets
 * the mixed-precision rung's growth measured on the held-in samples, the tensors it lifted and still missed with, the
 * units the search measured most sensitive, and every activation at 16 bits measured where the growth missed.
 */
export interface ReportLadderShortfall {
  /** Sentences built from the measurements below: what reaching the target needs, or why it could not be said. */
  readonly why: readonly string[];
  /** The mixed-precision rung read (its index), absent when none was measured. */
  readonly rung?: number;
  /** Each 16-bit set the growth measured on the held-in samples, in order. */
  readonly growth: readonly (ReportLadderFigure & {
    readonly act16: number;
    readonly w16: number;
    readonly met: boolean;
  })[];
  /** Why the growth stopped: the target held, its limit (half the candidates), or the time budget. */
  readonly growthStopped?: 'met' | 'limit' | 'time';
  /** The tensors at 16 bits in the largest set measured, which still missed the target. */
  readonly lifted?: { readonly activations: readonly string[]; readonly weights: readonly string[] };
  /** The single units the search measured with the largest gain (drop in relative output noise power), largest first. */
  readonly sensitive: readonly {
    readonly kind: 'act16' | 'w16' | 'float';
    readonly tensors: readonly string[];
    readonly gain: number;
  }[];
  /** The chosen 16-bit set's figure on the held-in samples beside the rung's held-out figure. */
  readonly chosen?: { readonly heldIn: ReportLadderFigure; readonly heldOut: ReportLadderFigure };
  /** Every activation group at 16 bits (with the weights of the largest set) measured: held in and held out. */
  readonly ceiling?: ReportLadderJudged & { readonly act16: number; readonly w16: number };
  /** Every weight at 16 bits with every activation at 8 bits measured: held in and held out. */
  readonly weightCeiling?: ReportLadderJudged & { readonly w16: number };
  /**
   * How many bits the target needs: every activation and weight at 16 bits, then the activations (or the weights) on a
   * coarser grid (core/quantize/coarserGrids.ts), each measured held in and held out; finest grids first.
   */
  readonly grids?: readonly (ReportLadderJudged & { readonly activationBits: number; readonly weightBits: number })[];
}

/** One configuration the shortfall measured: its held-in and held-out figures, and whether held out meets the target. */
export interface ReportLadderJudged {
  readonly heldIn: ReportLadderFigure;
  readonly heldOut: ReportLadderFigure;
  readonly met: boolean;
}

/**
 * The same quantized model judged as the NPU runs it: its float parts (exclusions, ops left float) in BF16 with
 * Casts (halfFloat/bfloat16.ts floatPartsAsBf16), as the Ryzen AI compiler turns float subgraphs into BF16.
 * `outputs` and `fidelity` read like the report's own ("as written"), on the same samples.
 */
export interface ReportNpu {
  /** Nodes of the quantized model that compute in float, and so run in BF16 on the NPU. */
  readonly floatNodes: number;
  /** Float32 activations and weights rounded to bfloat16. */
  readonly activations: number;
  readonly weights: number;
  readonly outputs: readonly OutputSummary[];
  readonly fidelity: { readonly meanCosine: number; readonly undefinedOutputs: number };
}

/**
 * The same quantized model judged at the user's runtime's default options: onnxruntime's graph optimization 'all'
 * (onnxruntime-web's WASM default on the page, onnxruntime-node's in the command line), where the CPU provider fuses
 * Q/DQ into int8 kernels. The report's headline figure where present; `outputs` and `fidelity` read like the
 * report's own, which are then the model's own Q/DQ arithmetic ('basic') beside it.
 */
export interface ReportAtDefault {
  /** The runtime, in words ("onnxruntime-web, WASM", "onnxruntime-node"). */
  readonly runtime: string;
  readonly graphOptimization: GraphOptimization;
  readonly outputs: readonly OutputSummary[];
  readonly fidelity: { readonly meanCosine: number; readonly undefinedOutputs: number };
}

export interface Report {
  readonly schema: typeof REPORT_SCHEMA;
  readonly title: string;
  /** ISO 8601 time the caller made the report; null leaves it out (reproducible files). */
  readonly createdAt: string | null;
  readonly floatModel: ReportFile;
  readonly quantizedModel: ReportFile | null;
  /** The configuration's name (preset or file) and its JSON, when known. */
  readonly config: { readonly name: string; readonly settings: unknown } | null;
  /** Exclusion rules and the nodes each resolved to. */
  readonly exclusions: readonly { readonly rule: string; readonly ids: readonly string[] }[];
  readonly quantization: { readonly nodes: number; readonly quantized: number; readonly float: number } | null;
  /** Each node's precision in the quantized model (core/quantize/precisionClasses.ts), by stable node id; null when not known. */
  readonly precisions: Readonly<Record<string, NodePrecision>> | null;
  readonly data: { readonly samples: number; readonly source: string | null };
  /**
   * The onnxruntime graph optimization level every figure here was measured at (core/runtime/graphOptimization.ts):
   * 'basic', the model's own Q/DQ arithmetic, or 'all', onnxruntime's default (node and web) with its int8 kernels;
   * `atDefault` holds the 'all' figure beside a 'basic' one. Absent in reports written before it was recorded: those are 'basic'.
   */
  readonly graphOptimization?: GraphOptimization;
  /** Per output: mean, min and max of each metric over samples. */
  readonly outputs: readonly OutputSummary[];
  /** Mean over outputs of the mean output cosine. */
  readonly fidelity: { readonly meanCosine: number; readonly undefinedOutputs: number };
  /**
   * The figure at the runtime's default options ('all'), measured first and shown first, when the caller measured
   * it; absent in reports written before it was (those hold only `graphOptimization`'s figure).
   */
  readonly atDefault?: ReportAtDefault | null;
  /** The figure as the NPU runs the model (float parts in BF16), when asked for; `outputs` is the model as written. */
  readonly npu: ReportNpu | null;
  readonly layers: ReportLayers | null;
  readonly ranges: readonly ReportRange[];
  readonly timings: readonly ReportTiming[];
  readonly suggest: ReportSuggest | null;
  readonly ladder: ReportLadder | null;
  /** Task-level accuracy (core/task): boxes, classes, masks or text against the float model and labels; null when not asked. */
  readonly task?: ReportTask | null;
  /** Parity across runtimes (core/evaluate/parity.ts), when the page ran it on the reported quantized model. */
  readonly parity?: ParityResult | null;
  readonly notes: readonly string[];
}
