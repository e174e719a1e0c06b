/**
 * Assembles a Report from what a comparison produced: picks the worst layers, finds the error jumps,
 * and attaches the ranges of the worst layers' tensors. Every field has a plain default so the
 * command line, the page and tests build reports from whatever they have. Must not compute metrics
 * beyond ranking the ones given.
 */

import type { GraphIndex } from '../onnx/graphIndex.ts';
import type { OutputSummary } from '../metrics/metricSummary.ts';
import { sortByError, type LayerRow } from '../metrics/layerwise.ts';
import { errorJumps } from '../metrics/layerwiseJumps.ts';
import type { TensorPair } from '../metrics/layerwiseTensors.ts';
import { meanOutputCosine } from '../evaluate/outputMetrics.ts';
import type { QdqGrid } from '../evaluate/qdqGrids.ts';
import { DEFAULT_GRAPH_OPTIMIZATION, type GraphOptimization } from '../runtime/graphOptimization.ts';
import {
  REPORT_SCHEMA,
  type Report,
  type ReportAtDefault,
  type ReportFile,
  type ReportHistogram,
  type ReportNpu,
  type ReportRange,
  type ReportLadder,
  type ReportSuggest,
  type ReportTask,
  type ReportTiming,
} from './report.ts';

export interface ReportInput {
  readonly title?: string;
  readonly createdAt?: string | null;
  readonly floatModel: ReportFile;
  readonly quantizedModel?: ReportFile | null;
  readonly config?: Report['config'];
  readonly exclusions?: Report['exclusions'];
  readonly quantization?: Report['quantization'];
  readonly precisions?: Report['precisions'];
  readonly samples: number;
  readonly dataSource?: string | null;
  /** The graph optimization level the figures were measured at (the runtime's); default 'basic'. */
  readonly graphOptimization?: GraphOptimization;
  readonly outputs: readonly OutputSummary[];
  /** The outputs judged at the runtime's default options ('all'), measured first: the headline figure. */
  readonly atDefault?: {
    readonly runtime: string;
    readonly graphOptimization?: GraphOptimization;
    readonly outputs: readonly OutputSummary[];
  } | null;
  /** The outputs judged with the float parts in BF16 (as the NPU runs them), and what was rounded. */
  readonly npu?: {
    readonly floatNodes: number;
    readonly activations: number;
    readonly weights: number;
    readonly outputs: readonly OutputSummary[];
  } | null;
  /** Layer-wise rows (any order), with the float model's graph index for the jumps. */
  readonly layers?: {
    readonly rows: readonly LayerRow[];
    readonly index?: GraphIndex;
    readonly pairs?: readonly TensorPair[];
    readonly missing?: readonly string[];
  };
  /** How many worst layers the report lists. Default 20. */
  readonly worstCount?: number;
  /** SQNR drop that counts as a jump, dB. Default 3. */
  readonly jumpThresholdDb?: number;
  /** Calibrated ranges by float tensor name, when the caller calibrated. */
  readonly ranges?: ReadonlyMap<string, { readonly min: number; readonly max: number }>;
  /** Grids of the quantized model by its tensor names (./evaluate/qdqGrids.ts). */
  readonly grids?: ReadonlyMap<string, QdqGrid>;
  /** Histograms by float tensor name, when the caller has them. */
  readonly histograms?: ReadonlyMap<string, ReportHistogram>;
  readonly timings?: readonly ReportTiming[];
  readonly suggest?: ReportSuggest | null;
  readonly ladder?: ReportLadder | null;
  readonly task?: ReportTask | null;
  readonly notes?: readonly string[];
}

/** The report. */
export function buildReport(input: ReportInput): Report {
  const worstCount = input.worstCount ?? 20;
  const threshold = input.jumpThresholdDb ?? 3;
  let layers: Report['layers'] = null;
  let ranges: ReportRange[] = [];
  if (input.layers) {
    const rows = input.layers.rows;
    const worst = sortByError(rows).slice(0, worstCount);
    layers = {
      rows,
      worst,
      jumps: input.layers.index ? errorJumps(rows, input.layers.index, threshold).slice(0, worstCount) : [],
      jumpThresholdDb: threshold,
      missing: input.layers.missing ?? [],
    };
    const valueOf = new Map((input.layers.pairs ?? []).map((p) => [p.tensor, p.value]));
    ranges = worst.flatMap((row): ReportRange[] => {
      const g = input.grids?.get(valueOf.get(row.tensor) ?? row.tensor);
      const calibrated = input.ranges?.get(row.tensor);
      if (!g && !calibrated) return [];
      const grid = g ? { type: g.type, scale: g.scale, zeroPoint: g.zeroPoint, min: g.min, max: g.max } : null;
      return [
        {
          tensor: row.tensor,
          node: row.node,
          min: calibrated?.min ?? g!.min,
          max: calibrated?.max ?? g!.max,
          source: calibrated ? 'calibration' : 'grid',
          grid,
          histogram: input.histograms?.get(row.tensor) ?? null,
        },
      ];
    });
  }
  const fidelity = meanOutputCosine(input.outputs);
  let atDefault: ReportAtDefault | null = null;
  if (input.atDefault) {
    const f = meanOutputCosine(input.atDefault.outputs);
    atDefault = {
      runtime: input.atDefault.runtime,
      graphOptimization: input.atDefault.graphOptimization ?? 'all',
      outputs: input.atDefault.outputs,
      fidelity: { meanCosine: f.cosine, undefinedOutputs: f.undefinedOutputs },
    };
  }
  let npu: ReportNpu | null = null;
  if (input.npu) {
    const f = meanOutputCosine(input.npu.outputs);
    npu = { ...input.npu, fidelity: { meanCosine: f.cosine, undefinedOutputs: f.undefinedOutputs } };
  }
  return {
    schema: REPORT_SCHEMA,
    title: input.title ?? `Quantization report: ${input.quantizedModel?.name ?? input.floatModel.name}`,
    createdAt: input.createdAt ?? null,
    floatModel: input.floatModel,
    quantizedModel: input.quantizedModel ?? null,
    config: input.config ?? null,
    exclusions: input.exclusions ?? [],
    quantization: input.quantization ?? null,
    precisions: input.precisions ?? null,
    data: { samples: input.samples, source: input.dataSource ?? null },
    graphOptimization: input.graphOptimization ?? DEFAULT_GRAPH_OPTIMIZATION,
    outputs: input.outputs,
    fidelity: { meanCosine: fidelity.cosine, undefinedOutputs: fidelity.undefinedOutputs },
    atDefault,
    npu,
    layers,
    ranges,
    timings: input.timings ?? [],
    suggest: input.suggest ?? null,
    ladder: input.ladder ?? null,
    task: input.task ?? null,
    notes: input.notes ?? [],
  };
}
