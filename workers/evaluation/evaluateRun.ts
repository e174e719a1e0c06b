/**
 * "Evaluate": the float and the quantized model run on the samples and compared, first at onnxruntime-web's default
 * options ('all', outputs only: what a user's session computes), then at 'basic' layer by layer (where the error
 * arises), as the NPU runs it when asked; the task judged on image samples; the worst layers' histograms; the report.
 * The comparison and metrics are the core's (core/evaluate); this wires them to a held model and its run.
 */
import { compareModels } from '../../src/core/evaluate/compareModels.ts';
import { compareAsNpu, type NpuFigure } from '../../src/core/evaluate/npuFigure.ts';
import { nodeErrors } from '../../src/core/metrics/layerwiseJumps.ts';
import type { ReportFile, ReportHistogram, ReportTask, ReportTiming } from '../../src/core/report/index.ts';
import { sha256Hex } from '../../src/core/report/sha256.ts';
import { runOutputs, TaskHeadError, TaskLabelError, type RunOutputs } from '../../src/core/task/index.ts';
import { activationHistograms } from './activationHistograms.ts';
import { comparisonReport, type ComparisonMeasured } from './comparisonReport.ts';
import { comparisonRuntime } from './comparisonRuntime.ts';
import { decodeSamples, openQuantized, type EvaluationRun } from './heldEvaluation.ts';
import { taskFigures } from './taskFigures.ts';
import { judgesTask } from './taskRuns.ts';
import type { EvaluationRequest, EvaluationResult } from './evaluationTypes.ts';

/**
 * Compares the request's quantized model with the held float model on its samples. Corrupt samples are skipped and
 * listed. Named errors: NoEvaluationDataError, NoUsableSamplesError, ComparisonError, EvaluationCancelledError.
 */
export async function evaluateQuantized(run: EvaluationRun, request: EvaluationRequest): Promise<EvaluationResult> {
  const { held: h, check, progress } = run;
  const start = performance.now();
  const { quant, quantBytes } = await openQuantized(h, request.quantized);
  const quantFile: ReportFile = {
    name: request.quantized.name,
    sha256: await sha256Hex(quantBytes),
    bytes: quantBytes.byteLength,
  };
  const data = await decodeSamples(run, request.samples, request.spec);
  const runtime = comparisonRuntime(h.runtime, data.feeds, check);
  const head =
    request.task === 'none' ? null : request.task === undefined || request.task === 'auto' ? h.head.head : request.task;
  // Task figures read boxes and masks on photos: image samples only (their sizes place the boxes). The outputs
  // are kept even without a head, so a head chosen afterwards is judged without running the models again.
  const onImages = judgesTask(data, request.spec);
  const judgeTask = head !== null && onImages;
  const outputs: { float: RunOutputs; quant: RunOutputs }[] = [];
  h.lastOutputs = undefined;
  // First what a user's session computes: onnxruntime-web at its default options (WASM, graph optimization
  // 'all', Q/DQ fused into int8 kernels); outputs only, since an exposed tensor keeps its node out of a fusion.
  const atDefault = await compareModels(h.model, quant, comparisonRuntime(h.runtime, data.feeds, check, 'all'), {
    onProgress: (done, total) => progress({ phase: 'at-default', done, total }),
  });
  // Then the model's own Q/DQ arithmetic ('basic'), every layer: where the error arises.
  const comparison = await compareModels(h.model, quant, runtime, {
    layers: request.layers ?? true,
    floatIndex: h.index,
    onProgress: (done, total) => progress({ phase: 'comparing', done, total }),
    onOutputs: onImages ? (i, f, q) => (outputs[i] = { float: runOutputs(f), quant: runOutputs(q) }) : undefined,
  });
  if (onImages) h.lastOutputs = { request, data, outputs };
  let task: ReportTask | null = null;
  let taskError: EvaluationResult['taskError'];
  try {
    if (judgeTask) task = await taskFigures(head!, request, data, outputs, h.outputs, run.decodeImage);
  } catch (e) {
    // A head the user chose that these outputs do not fit, or labels that do not fit the images: said by
    // name, never a wrong number; the rest stands.
    if (!(e instanceof TaskHeadError || e instanceof TaskLabelError)) throw e;
    taskError = { name: e.name, message: e.message };
  }
  const timings: ReportTiming[] = [
    { label: 'decoding and preprocessing the samples', seconds: data.seconds },
    { label: "both models at onnxruntime-web's default options ('all')", seconds: atDefault.seconds.total },
  ];
  let npu: NpuFigure | undefined;
  if (request.npuBf16) {
    npu = await compareAsNpu(h.model, quant, runtime, {
      onProgress: (done, total) => progress({ phase: 'npu', done, total }),
    });
    timings.push({
      label: 'as the NPU runs it (float parts in BF16), both models',
      seconds: npu.comparison.seconds.total,
    });
  }
  const measured: ComparisonMeasured = {
    quantFile,
    quant,
    comparison,
    ctx: request.report ?? {},
    timings,
    atDefault: { runtime: 'onnxruntime-web (WASM)', graphOptimization: 'all', outputs: atDefault.outputs },
    npu,
    task,
  };
  let report = comparisonReport(h, measured);
  if (report.ranges.length > 0) {
    // The worst layers are known only now: one more float run for their histograms.
    const t = performance.now();
    const histograms: ReadonlyMap<string, ReportHistogram> = await activationHistograms(
      h.model,
      new Map(report.ranges.map((r) => [r.tensor, r])),
      runtime,
      (done, total) => progress({ phase: 'histograms', done, total }),
    );
    timings.push({
      label: 'histograms of the worst layers (one float run)',
      seconds: (performance.now() - t) / 1000,
    });
    report = comparisonReport(h, { ...measured, histograms });
  }
  const nodeSqnr: Record<string, number> = {};
  if (comparison.layerwise) for (const e of nodeErrors(comparison.layerwise.rows, h.index)) nodeSqnr[e.node] = e.sqnr;
  return {
    report,
    nodeSqnr,
    used: data.feeds.length,
    skipped: data.skipped,
    backend: runtime.backend(),
    secondsPerSample: (comparison.seconds.float + comparison.seconds.quantized) / comparison.samples,
    seconds: (performance.now() - start) / 1000,
    ...(taskError ? { taskError } : {}),
  };
}
