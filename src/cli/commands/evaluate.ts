/**
 * `qstudio evaluate <float.onnx> <quant.onnx> --data <dir>`: runs both models on a folder's images
 * with onnxruntime-node and prints how close the quantized outputs stay, in the layout of AMD Quark's
 * evaluate tool (so the two can be diffed); `--layers` adds the per-layer table, `--json` prints the
 * whole report as JSON, `--report` writes the self-contained HTML report.
 *
 * The comparison itself, the metrics and the report are the core's; the images become feeds in
 * images/imageFeed.ts and the models run in runtime/ortNode.ts; this file wires them and prints.
 */
import { cpuInt8Kernels, SATURATING_CPUS } from '../runtime/cpuInt8Kernels.ts';
import fs from 'node:fs';
import { buildGraphIndex, type ModelProto } from '../../core/onnx/index.ts';
import { renderSummary, type OutputSummary } from '../../core/metrics/metricSummary.ts';
import { sortByError, type LayerRow } from '../../core/metrics/layerwise.ts';
import { compareModels, type Comparison } from '../../core/evaluate/compareModels.ts';
import { compareAsNpu, npuReportInput } from '../../core/evaluate/npuFigure.ts';
import { qdqGrids } from '../../core/evaluate/qdqGrids.ts';
import { graphOptimizationText } from '../../core/runtime/graphOptimization.ts';
import { DECISION_THRESHOLD } from '../../core/evaluate/outputMetrics.ts';
import {
  buildReport,
  renderHtml,
  renderJson,
  type Report,
  type ReportFile,
  type ReportInput,
} from '../../core/report/index.ts';
import { nodeRuntime } from '../runtime/ortNode.ts';
import { modelFileInfo, readModelFile } from '../modelFile.ts';
import { checkGivenModel } from '../runtime/modelCheck.ts';
import { folderFeeds } from '../data/dataFeeds.ts';
import { parse, UsageError } from '../usage.ts';
import type { QuantizeReport } from '../../core/quantize/quantizeReport.ts';
import { nodePrecisions, type NodePrecision } from '../../core/quantize/precisionClasses.ts';
import { evaluateTask, runOutputs, taskReport, type ReportTask, type RunOutputs } from '../../core/task/index.ts';
import type { RunTensor } from '../../core/runtime/session.ts';
import {
  imageDataUrl,
  picturesArgument,
  readTaskLabels,
  TASK_OPTIONS,
  TASK_USAGE,
  taskHeadArgument,
} from '../taskArgument.ts';
import { taskSamples } from '../taskSamples.ts';
import { taskSummaryText } from '../taskSummary.ts';
import path from 'node:path';
import { dataFolderUsage } from '../data/dataFolder.ts';
import { PREPROCESS_USAGE } from '../preprocessArgument.ts';
import { modelStem } from '../../core/onnx/fileName.ts';
import { formatJump } from '../../core/report/htmlText.ts';

const usage = `Usage: qstudio evaluate <float.onnx> <quant.onnx> --data <dir> [--preprocess <preset|file>]
                        [--layers] [--json] [--report <out.html>] [--limit <n>] [--npu-bf16] [--basic-only] [--threshold <t>]
                        [--task auto|detect|classify|segment|text] [--labels <file|dir>]

Runs the float model and its quantized model on the same images and prints, per output, the mean
and worst cosine similarity, L2 distance, PSNR (and SSIM for image outputs, top-1 agreement for class
scores, top-5 where there are more than 5 classes) as AMD Quark's evaluate tool prints them. The mean
PSNR is the set's: from the mean squared error over all samples, not an average of decibels. An output of one
number a sample (a voice-activity probability, a wake-word score) gets its absolute error instead, and, where the
float value is a probability, the share of samples whose decision at the threshold (--threshold, 0.5) is the same.

Options:
  --data <dir>               samples to evaluate on: images
${dataFolderUsage()}
${PREPROCESS_USAGE}
  --layers                   also compare every intermediate tensor and print the 20 worst layers (SQNR)
  --json                     print the report as JSON instead of text
  --report <out.html>        write the report as one self-contained HTML file (implies --layers)
  --limit <n>                use only the first n images
  --threshold <t>            the decision threshold of single-probability outputs (default 0.5)
  --npu-bf16                 also judge the quantized model with its float parts (excluded subgraphs, ops left
                             float) in BF16, as the Ryzen AI compiler runs them on the NPU (Quark's with-cast
                             BF16): both figures are printed, labelled
  --basic-only               judge only the model's own Q/DQ arithmetic (graph optimization 'basic'), not
                             onnxruntime's default as well
  --cpu-kernels              (the default now; accepted for older scripts)
${TASK_USAGE}

Two figures, labelled, the first the one a user's runtime gives:
  at onnxruntime's default options (graph optimization 'all'), what onnxruntime-node, -python and onnxruntime-web
  run unless told otherwise: Q/DQ fused into int8 kernels (QLinearConv, QLinearAdd, ...), one rounding per fused
  op; then the model's own Q/DQ arithmetic (graph optimization 'basic'), what the
  per-layer table compares (the page shows the same two, onnxruntime-web's default first). On x86 CPUs without VNNI the fused kernels' 8-bit products can also saturate (the
  CPU this runs on is read and named); quantize --saturation-safe or --reduce-range avoids that`;

/** Below the model's own figure by more than this (mean output cosine), the CPU kernels' loss is worth a word. */
const CPU_KERNEL_LOSS = 0.005;

/** Outputs whose mean cosine under the CPU provider's int8 kernels falls below the model's own figure by more than CPU_KERNEL_LOSS. */
export function cpuKernelLosses(
  own: readonly OutputSummary[],
  cpu: readonly OutputSummary[],
): { output: string; own: number; cpu: number }[] {
  return own.flatMap((o) => {
    const own = o.metrics.cosine?.mean;
    const kernels = cpu.find((c) => c.output === o.output)?.metrics.cosine?.mean;
    return own !== undefined && kernels !== undefined && own - kernels > CPU_KERNEL_LOSS
      ? [{ output: o.output, own, cpu: kernels }]
      : [];
  });
}

/**
 * The worst layers as a fixed-width text table; with the quantization's node precisions (from the summary
 * `qstudio quantize` wrote beside the model), a precision column as the page's layer table and the report have.
 */
export function layerTable(
  rows: readonly LayerRow[],
  count = 20,
  precisions: Readonly<Record<string, NodePrecision>> | null = null,
): string {
  const worst = sortByError(rows).slice(0, count);
  const db = (v: number | null) => (v === null ? '—' : Number.isFinite(v) ? v.toFixed(2) : String(v));
  const precision = (node: string | null) =>
    precisions ? `${((node && precisions[node]?.label) ?? '—').padEnd(9)}  ` : '';
  const lines = [
    `${'#'.padStart(3)}  ${'SQNR dB'.padStart(8)}  ${'cosine'.padStart(9)}  ${'value dB'.padStart(8)}  ${'op'.padEnd(18)}  ${precisions ? `${'precision'.padEnd(9)}  ` : ''}node / tensor`,
  ];
  worst.forEach((r, k) => {
    const where = r.node && r.node !== r.tensor ? `${r.node}  →  ${r.tensor}` : r.tensor;
    lines.push(
      `${String(k + 1).padStart(3)}  ${db(r.sqnr).padStart(8)}  ${(Number.isFinite(r.cosine) ? r.cosine.toFixed(6) : String(r.cosine)).padStart(9)}  ${db(r.valueSqnr).padStart(8)}  ${r.opType.padEnd(18)}  ${precision(r.node)}${where}`,
    );
  });
  return `${lines.join('\n')}\n`;
}

/** What `qstudio quantize` wrote beside the model (<quant>.json), if it is there and looks like it. */
function readQuantizeSummary(
  quantPath: string,
): Pick<QuantizeReport, 'config' | 'exclusions' | 'counts' | 'quantized' | 'float'> | null {
  const file = `${modelStem(quantPath)}.json`;
  if (!fs.existsSync(file)) return null;
  try {
    const json = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (
      typeof json.config === 'string' &&
      Array.isArray(json.exclusions) &&
      json.counts &&
      Array.isArray(json.quantized) &&
      Array.isArray(json.float)
    )
      return json;
  } catch {
    // not a summary: ignore it
  }
  return null;
}

/** The report of a comparison of two model files. */
export function comparisonReport(
  floatFile: ReportFile,
  quantFile: ReportFile,
  floatModel: ModelProto,
  quantModel: ModelProto,
  comparison: Comparison,
  extra: {
    dataSource: string;
    quantPath?: string;
    timings?: { label: string; seconds: number }[];
    npu?: ReportInput['npu'];
    atDefault?: ReportInput['atDefault'];
    task?: ReportTask | null;
  },
): Report {
  const summary = extra.quantPath ? readQuantizeSummary(extra.quantPath) : null;
  const lw = comparison.layerwise;
  return buildReport({
    floatModel: floatFile,
    quantizedModel: quantFile,
    config: summary
      ? { name: summary.config, settings: { config: summary.config, exclusions: summary.exclusions } }
      : null,
    exclusions: summary?.exclusions ?? [],
    quantization: summary
      ? { nodes: summary.counts.nodes, quantized: summary.counts.quantized, float: summary.counts.float }
      : null,
    precisions: summary ? nodePrecisions(summary) : null,
    samples: comparison.samples,
    dataSource: extra.dataSource,
    outputs: comparison.outputs,
    atDefault: extra.atDefault,
    npu: extra.npu,
    layers: lw
      ? { rows: lw.rows, index: buildGraphIndex(floatModel.graph!), pairs: lw.pairs, missing: lw.missing }
      : undefined,
    grids: lw ? qdqGrids(quantModel) : undefined,
    task: extra.task ?? null,
    timings: [
      ...(extra.timings ?? []),
      { label: 'float model runs', seconds: comparison.seconds.float },
      { label: 'quantized model runs', seconds: comparison.seconds.quantized },
      { label: 'comparison in all', seconds: comparison.seconds.total },
    ],
  });
}

export const evaluateCommand = {
  summary:
    'compare a quantized model with its float model on images or tensors (Quark metrics, per-layer SQNR, HTML report)',
  usage,
  async run(args: string[]): Promise<number> {
    const { values, positionals } = parse(args, {
      data: { type: 'string' },
      preprocess: { type: 'string' },
      layers: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      report: { type: 'string' },
      limit: { type: 'string' },
      threshold: { type: 'string' },
      'npu-bf16': { type: 'boolean', default: false },
      'cpu-kernels': { type: 'boolean', default: false },
      ...TASK_OPTIONS,
      'basic-only': { type: 'boolean', default: false },
    });
    if (positionals.length !== 2) throw new UsageError('give the float model and the quantized model');
    if (!values.data) throw new UsageError('--data <dir> is required');
    const limit = values.limit === undefined ? Infinity : Number(values.limit);
    if (values.limit !== undefined && !(Number.isInteger(limit) && limit >= 1))
      throw new UsageError(`--limit "${values.limit}": give a whole number ≥ 1`);
    const threshold = values.threshold === undefined ? DECISION_THRESHOLD : Number(values.threshold);
    if (!Number.isFinite(threshold))
      throw new UsageError(`--threshold "${values.threshold}": give a number (0.5 for a probability)`);
    const [floatPath, quantPath] = positionals;
    const t0 = performance.now();
    const float = readModelFile(floatPath);
    const quant = readModelFile(quantPath);
    await checkGivenModel(floatPath, 'float model');
    await checkGivenModel(quantPath, 'quantized model');
    const floatInfo = await modelFileInfo(float);
    const quantInfo = await modelFileInfo(quant);
    const data = folderFeeds(float.model, values.data, values.preprocess, { limit, fileName: floatInfo.name });
    // Task metrics read predictions on images (their geometry, their labels): image folders only.
    const images = data.kind === 'images' ? data : null;
    if (!images && values.task)
      process.stderr.write(
        'note: --task judges what a model predicts (boxes, classes, masks, text) on images; a tensor folder gets the output metrics only\n',
      );
    let task = images ? taskHeadArgument(values, float.model, floatInfo.name) : null;
    if (task) process.stderr.write(`${task.note}\n`);
    const pictures = picturesArgument(values.pictures);
    for (const s of data.skipped) process.stderr.write(`skipped ${s.file}: ${s.reason}\n`);
    const read =
      task && images && values.labels
        ? await readTaskLabels(
            values.labels,
            task.head,
            float.model,
            images.files.map((f, i) => ({ name: path.basename(f), ...images.sizes[i] })),
          )
        : null;
    // A recognizer's dictionary found among the labels' files decodes its text.
    if (task && read) task = { ...task, head: read.head };
    const labels = read?.labels ?? null;
    const t1 = performance.now();

    const layers = values.layers || values.report !== undefined;
    const outputs: { float: RunOutputs; quant: RunOutputs }[] = [];
    const onOutputs = task
      ? (i: number, f: Readonly<Record<string, RunTensor>>, q: Readonly<Record<string, RunTensor>>) =>
          (outputs[i] = { float: runOutputs(f), quant: runOutputs(q) })
      : undefined;
    const comparison = await compareModels(float.model, quant.model, nodeRuntime(data.feeds), {
      layers,
      onOutputs,
      threshold,
    });
    const taskResult =
      task && images ? evaluateTask(task.head, taskSamples(images, images.spec, outputs, labels)) : null;
    const npu = values['npu-bf16'] ? await compareAsNpu(float.model, quant.model, nodeRuntime(data.feeds)) : undefined;
    // onnxruntime's default options first: what a user's session runs unless it sets a level.
    const cpuOutputs: { float: RunOutputs; quant: RunOutputs }[] = [];
    const onCpuOutputs = task
      ? (i: number, f: Readonly<Record<string, RunTensor>>, q: Readonly<Record<string, RunTensor>>) =>
          (cpuOutputs[i] = { float: runOutputs(f), quant: runOutputs(q) })
      : undefined;
    const cpu = values['basic-only']
      ? undefined
      : await compareModels(float.model, quant.model, nodeRuntime(data.feeds, 'all'), {
          threshold,
          onOutputs: onCpuOutputs,
        });
    // The task judged at onnxruntime's default too: the figure a user's session gets.
    const taskAtDefault =
      cpu && task && images
        ? taskReport(evaluateTask(task.head, taskSamples(images, images.spec, cpuOutputs, labels)), () => null, 0)
        : null;
    const losses = cpu ? cpuKernelLosses(comparison.outputs, cpu.outputs) : [];
    const report = comparisonReport(floatInfo, quantInfo, float.model, quant.model, comparison, {
      dataSource: values.data,
      quantPath,
      timings: [{ label: 'reading models and images', seconds: (t1 - t0) / 1000 }],
      npu: npu ? npuReportInput(npu) : undefined,
      atDefault: cpu ? { runtime: 'onnxruntime-node', graphOptimization: 'all', outputs: cpu.outputs } : null,
      task: taskResult
        ? taskReport(
            taskResult,
            (name) => (values.report ? imageDataUrl(data.files.find((f) => path.basename(f) === name)!) : null),
            values.report ? pictures : 0,
          )
        : null,
    });
    process.stderr.write(
      `compared on ${comparison.samples} ${data.kind === 'tensors' ? 'tensor sample' : 'image'}${comparison.samples === 1 ? '' : 's'} in ${comparison.seconds.total.toFixed(1)} s\n`,
    );
    if (comparison.skippedOutputs.length) {
      process.stderr.write(
        `note: not compared: ${comparison.skippedOutputs.map((o) => `${o.name} (${o.type})`).join(', ')}; only float outputs have a cosine\n`,
      );
    }
    if (values.report) {
      fs.writeFileSync(values.report, renderHtml(report));
      process.stderr.write(`report: ${values.report}\n`);
    }
    if (losses.length) {
      const which = losses.map((l) => `${l.output} ${l.own.toFixed(5)} → ${l.cpu.toFixed(5)}`).join(', ');
      const cpuKernels = cpuInt8Kernels();
      process.stderr.write(
        cpuKernels.saturates === false
          ? `warning: onnxruntime's CPU int8 kernels lose accuracy on this model (mean cosine ${which}). Not by saturation: ${cpuKernels.text}. ` +
              `The fused kernels requantize each op's output on their own (integer accumulation, one rounding per op, no float between Q/DQ), which is different arithmetic from the model's own Q/DQ.\n`
          : `warning: onnxruntime's CPU int8 kernels lose accuracy on this model (mean cosine ${which}): their 8-bit products ` +
              `saturate on ${SATURATING_CPUS} (${cpuKernels.text}). For a CPU deployment, quantize with --saturation-safe ("saturationSafeWeights": true: 7-bit codes only in the weight channels that could saturate) or --reduce-range (7-bit weights everywhere).\n`,
      );
    }
    if (values.json) {
      process.stdout.write(
        renderJson(
          report,
          cpu
            ? {
                atDefaultOptions: {
                  optimization: 'all',
                  label: graphOptimizationText('all'),
                  outputs: cpu.outputs,
                  losses,
                  ...(taskAtDefault
                    ? {
                        task: {
                          agreement: taskAtDefault.agreement,
                          changes: taskAtDefault.changes,
                          labels: taskAtDefault.labels,
                        },
                      }
                    : {}),
                },
              }
            : {},
        ),
      );
      return 0;
    }
    if (cpu) {
      process.stdout.write(`At onnxruntime's default options (${graphOptimizationText('all')}):\n`);
      process.stdout.write(renderSummary(cpu.outputs));
      if (taskAtDefault) process.stdout.write(`\n${taskSummaryText(taskAtDefault)}`);
      process.stdout.write('\n');
    }
    if (npu || cpu)
      process.stdout.write(
        `The model's own arithmetic (${graphOptimizationText('basic')}${npu ? '; float parts in float32' : ''}):\n`,
      );
    process.stdout.write(renderSummary(comparison.outputs));
    if (report.task) process.stdout.write(`\n${taskSummaryText(report.task)}`);
    if (npu) {
      process.stdout.write(
        `\nAs the NPU runs it (float parts in BF16: ${npu.floatNodes} nodes, ${npu.activations} activations and ${npu.weights} weights rounded):\n`,
      );
      process.stdout.write(renderSummary(npu.comparison.outputs));
    }
    if (values.layers && comparison.layerwise) {
      process.stdout.write(
        `\nWorst layers (SQNR of the dequantized tensor where there is one; "value": before its own Q/DQ)\n`,
      );
      process.stdout.write(layerTable(comparison.layerwise.rows, 20, report.precisions));
      const jumps = report.layers?.jumps.slice(0, 10) ?? [];
      if (jumps.length) {
        process.stdout.write(`\nLargest error jumps (output SQNR below the inputs' SQNR)\n`);
        for (const j of jumps)
          process.stdout.write(`  ${formatJump(j).padStart(10)}  ${j.opType.padEnd(18)}  ${j.node}\n`);
      }
    }
    return 0;
  },
};
