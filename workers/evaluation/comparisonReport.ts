/**
 * The report of one evaluation (core/report's buildReport) from what the evaluation measured: the comparison at
 * 'basic', the figure at onnxruntime-web's default options, the NPU's figure, the worst layers' histograms and the
 * task, with the page's context (configuration, exclusions, ranges, earlier timings). Measures nothing itself.
 */
import type { ModelProto } from '../../src/core/onnx/index.ts';
import type { Comparison } from '../../src/core/evaluate/compareModels.ts';
import { qdqGrids } from '../../src/core/evaluate/qdqGrids.ts';
import { npuReportInput, type NpuFigure } from '../../src/core/evaluate/npuFigure.ts';
import {
  buildReport,
  type Report,
  type ReportFile,
  type ReportHistogram,
  type ReportInput,
  type ReportTask,
  type ReportTiming,
} from '../../src/core/report/index.ts';
import { rangesFromTable } from '../../src/core/calibrate/run/rangeTable.ts';
import type { HeldEvaluation } from './heldEvaluation.ts';
import type { ReportContext } from './evaluationTypes.ts';

/** What an evaluation measured, for its report. */
export interface ComparisonMeasured {
  quantFile: ReportFile;
  quant: ModelProto;
  comparison: Comparison;
  ctx: ReportContext;
  timings: readonly ReportTiming[];
  atDefault: ReportInput['atDefault'];
  npu?: NpuFigure;
  histograms?: ReadonlyMap<string, ReportHistogram>;
  task?: ReportTask | null;
}

export function comparisonReport(h: HeldEvaluation, measured: ComparisonMeasured): Report {
  const { quantFile, quant, comparison, ctx, timings, atDefault, npu, histograms, task } = measured;
  const lw = comparison.layerwise;
  return buildReport({
    task: task ?? null,
    createdAt: new Date().toISOString(),
    floatModel: h.file,
    quantizedModel: quantFile,
    config: ctx.config ?? null,
    exclusions: ctx.exclusions ?? [],
    quantization: ctx.quantization ?? null,
    precisions: ctx.precisions ?? null,
    samples: comparison.samples,
    dataSource: ctx.dataSource ?? null,
    outputs: comparison.outputs,
    atDefault,
    npu: npu ? npuReportInput(npu) : null,
    layers: lw ? { rows: lw.rows, index: h.index, pairs: lw.pairs, missing: lw.missing } : undefined,
    grids: lw ? qdqGrids(quant) : undefined,
    ranges: ctx.ranges ? rangesFromTable(ctx.ranges) : undefined,
    histograms,
    notes: histograms?.size
      ? [
          "Histograms in the range table are of the float model's activations on the evaluation samples, drawn over the tensor's range (widened to the values seen where they fall outside it).",
        ]
      : [],
    timings: [
      ...(ctx.timings ?? []),
      ...timings,
      { label: 'float model runs', seconds: comparison.seconds.float },
      { label: 'quantized model runs', seconds: comparison.seconds.quantized },
      { label: 'comparison in all', seconds: comparison.seconds.total },
    ],
  });
}
