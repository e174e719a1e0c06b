/**
 * `qstudio suggest <float.onnx> --calib <dir> --config <preset> --target 0.99`: searches for nodes
 * to keep float until the quantized model's output cosine reaches the target, measuring every
 * candidate for real: calibrate once, then per step quantize with the candidate exclusion, run both
 * models on the evaluation images with onnxruntime-node and compare layer by layer. The search
 * itself is core/search/suggest.ts; this file wires it to files, onnxruntime and the terminal,
 * prints each step as it is measured, and writes the best configuration found as JSON.
 */
import fs from 'node:fs';
import { buildGraphIndex } from '../../core/onnx/index.ts';
import { qdqGrids } from '../../core/evaluate/qdqGrids.ts';
import { configToJSON, configToPlainJson } from '../../core/quantize/config.ts';
import { tailSubgraph, type RankBy } from '../../core/search/candidates.ts';
import { addedExclusions, suggestExclusions, type SuggestStep } from '../../core/search/suggest.ts';
import { suggestMeasure, type SuggestMeasured } from '../../core/search/suggestMeasure.ts';
import { buildReport, renderHtml } from '../../core/report/index.ts';
import { calibrateFolder } from '../calibration/calibrateFolder.ts';
import { loadConfigArgument } from '../configArgument.ts';
import { parse, UsageError } from '../usage.ts';
import { folderFeeds } from '../data/dataFeeds.ts';
import { modelFileInfo, readModelFile } from '../modelFile.ts';
import { nodeRuntime } from '../runtime/ortNode.ts';
import { parseLadderTarget } from '../../core/recovery/ladder.ts';
import { assertTargetFits } from '../../core/recovery/ladderMeasure.ts';
import { measuredDecision, targetMeasure, unjudgedScoreNote } from '../../core/recovery/targetMeasure.ts';
import { TASK_TARGET_OPTIONS, TASK_TARGET_USAGE, taskTargetArgument } from '../taskTargetArgument.ts';
import { dataFolderUsage } from '../data/dataFolder.ts';

const usage = `Usage: qstudio suggest <float.onnx> --calib <dir> --config <preset|config.json> [--target 0.99|<metric:value>]
                       [--task ...] [--labels <file|dir>] [--max-drop <share>]
                       [--data <eval dir>] [--preprocess <preset|file>] [--max-steps <n>]
                       [--rank drop|sqnr] [--max-tail-nodes <n>] [-o <config.json>] [--report <out.html>] [--npu-bf16]
                       [--enable-subgraph]

Greedy search for exclusions: starting from the configuration, repeatedly keeps float the quantized
node with the worst layer-wise error (or the tail from it to the outputs), re-quantizes, measures the
mean output cosine (or the target's figure) on the evaluation images, and keeps the change if it improved.
Stops at the target or after --max-steps measurements. Every step is printed.

Options:
  --calib <dir>              samples to calibrate on (once, before the search): images
${dataFolderUsage()}
  --config <preset|file>     the starting configuration: XINT8, A8W8, ..., or a config JSON
  --enable-subgraph          quantize the compute inside If/Loop/Scan bodies too ("EnableSubgraph": true, as for
                             quantize)
  --target <cosine|metric:value>  what to reach, in the ladder's syntax: a mean output cosine (0.99, the
                             default, or cosine:0.99), psnr:<dB>, top1:<fraction>, sequence:<fraction>, decision:<fraction>, or a task
                             figure on the images: map50:<fraction>, map:<fraction> (mAP@0.5:0.95), miou:<fraction>
                             (against the float model's predictions, or --labels)
${TASK_TARGET_USAGE}
  --data <dir>               samples (images or tensors, as --calib) to judge each step on (default: --calib)
  --preprocess <preset|file> how images become input tensors (as for quantize)
  --max-steps <n>            most measurements after the first (default 10)
  --rank drop|sqnr           rank layers by the SQNR they lose over their inputs (default) or by SQNR
  --max-tail-nodes <n>       largest output tail tried as one subgraph exclusion (default 32)
  --min-gain <cosine>        keep a change only if it raises the cosine by more than this (default 0)
  --limit <n>                use only the first n evaluation images
  -o, --output <file>        write the best configuration found as JSON
  --report <out.html>        write an HTML report of the search and the final comparison
  --npu-bf16                 meet the target as the NPU runs the model: float parts (the exclusions) in BF16`;

const positiveInt = (text: string | undefined, name: string, fallback: number) => {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} "${text}": give a whole number ≥ 0`);
  return n;
};

/**
 * One line per measured step. `decision`: the step's decision agreement where the target leaves an output of one
 * number a sample unjudged (Silero's speech probability beside its state under a cosine target), shown beside it.
 */
export function stepLine(s: SuggestStep, metric = 'cosine', decision?: number): string {
  const fmt = (v: number) => (Number.isFinite(v) ? v.toFixed(6) : String(v));
  // A model whose every output is one number a sample has no cosine: its decision figure alone, not "cosine NaN".
  const cosine = s.figure !== undefined && !Number.isFinite(s.cosine) ? [] : [`cosine ${fmt(s.cosine)}`];
  const unjudged = decision !== undefined ? [`decision ${fmt(decision)}`] : [];
  const cos = [...(s.figure !== undefined ? [`${metric} ${fmt(s.figure)}`] : []), ...cosine, ...unjudged].join(', ');
  const time = `(${s.seconds.toFixed(1)} s)`;
  if (!s.candidate) return `step 0: starting configuration → ${cos} ${time}`;
  const c = s.candidate;
  const what =
    c.kind === 'node'
      ? `exclude node ${c.node}`
      : `exclude subgraph ${c.subgraph.starts.join(',')} → ${c.subgraph.ends.join(',')} (${c.nodes} nodes)`;
  const why = `${c.layer.opType}, SQNR ${c.layer.sqnr.toFixed(2)} dB, drop ${c.layer.drop.toFixed(2)} dB`;
  const verdict = s.error ? `failed: ${s.error}` : s.kept ? 'kept' : 'not kept';
  return `step ${s.step}: ${what} [${why}] → ${cos} ${verdict} ${time}`;
}

export const suggestCommand = {
  summary: 'search for nodes to keep float until the output cosine reaches a target (measured each step)',
  usage,
  async run(args: string[]): Promise<number> {
    const { values, positionals } = parse(args, {
      calib: { type: 'string' },
      config: { type: 'string' },
      target: { type: 'string' },
      ...TASK_TARGET_OPTIONS,
      data: { type: 'string' },
      preprocess: { type: 'string' },
      'max-steps': { type: 'string' },
      rank: { type: 'string' },
      'max-tail-nodes': { type: 'string' },
      'min-gain': { type: 'string' },
      limit: { type: 'string' },
      output: { type: 'string', short: 'o' },
      report: { type: 'string' },
      'npu-bf16': { type: 'boolean' },
      'enable-subgraph': { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one float model');
    if (!values.calib) throw new UsageError('--calib <dir> is required');
    if (!values.config) throw new UsageError('--config is required');
    let goal = parseLadderTarget(values.target ?? 'cosine:0.99');
    const maxSteps = positiveInt(values['max-steps'], '--max-steps', 10);
    const maxTailNodes = positiveInt(values['max-tail-nodes'], '--max-tail-nodes', 32);
    const limit = positiveInt(values.limit, '--limit', Infinity);
    if (limit < 1) throw new UsageError('--limit: give a whole number ≥ 1');
    const minGain = values['min-gain'] === undefined ? 0 : Number(values['min-gain']);
    if (!(minGain >= 0)) throw new UsageError(`--min-gain "${values['min-gain']}": give a number ≥ 0`);
    const rankBy = (values.rank ?? 'drop') as RankBy;
    if (rankBy !== 'drop' && rankBy !== 'sqnr') throw new UsageError(`--rank "${values.rank}": give drop or sqnr`);

    const { config, name } = loadConfigArgument(values.config, {
      nodesToExclude: [],
      opTypesToExclude: [],
      subgraphsToExclude: [],
      enableSubgraph: values['enable-subgraph'],
    });
    const float = readModelFile(positionals[0]);
    const model = float.model;
    const index = buildGraphIndex(model.graph!);
    const calibration = await calibrateFolder(model, values.calib, config, values.preprocess, {
      fileName: float.fileName,
    });
    const data = folderFeeds(model, values.data ?? values.calib, values.preprocess, {
      limit,
      fileName: float.fileName,
    });
    for (const s of data.skipped) process.stderr.write(`skipped ${s.file}: ${s.reason}\n`);
    const runtime = nodeRuntime(data.feeds);
    const task = await taskTargetArgument(
      values,
      goal,
      model,
      float.fileName,
      data,
      runtime.graphOptimization ?? 'basic',
    );
    if (task) goal = task.target;
    if (task && values['npu-bf16'])
      throw new UsageError(
        '--npu-bf16 judges the output cosine as the NPU runs the model; task targets are judged as written: give one or the other',
      );
    assertTargetFits(model, goal.metric);
    const measure = targetMeasure(goal, task?.task);
    const target = goal.value;
    const metric = goal.metric;
    process.stderr.write(
      `judging each step on ${data.feeds.length} ${data.kind === 'tensors' ? 'tensor sample' : 'image'}(s); target ${metric} ${target}, at most ${maxSteps} steps\n`,
    );

    let last: SuggestMeasured | undefined;
    // The decisions of an output the target does not judge, read from each measured step's comparison.
    let stepDecision: number | undefined;
    let bestDecision: number | undefined;
    const evaluate = suggestMeasure({
      model,
      index,
      ranges: calibration.ranges,
      configName: name,
      runtime,
      rankBy,
      // --npu-bf16: the target is met as the NPU runs the model (float parts in BF16); layers rank as written.
      npuBf16: values['npu-bf16'] === true,
      sequence: metric === 'sequence' ? 'always' : 'auto',
      figure: metric === 'cosine' ? undefined : measure,
      onMeasured: (m) => {
        last = m;
        stepDecision = metric === 'decision' ? undefined : measuredDecision(m.comparison.outputs);
      },
    });
    const result = await suggestExclusions({
      config,
      target,
      maxSteps,
      maxTailNodes,
      minGain,
      evaluate,
      tailOf: (id) => tailSubgraph(index, id),
      onStep: (s) => {
        const decision = s.error ? undefined : stepDecision;
        if (s.kept) bestDecision = decision;
        process.stdout.write(`${stepLine(s, metric, decision)}\n`);
        const note = s.step === 0 && decision !== undefined ? unjudgedScoreNote(metric, { decision }, 'step') : null;
        if (note) process.stderr.write(`  ${note}\n`);
      },
    });

    const added = addedExclusions(config, result.config);
    process.stdout.write(
      `\n${result.reached ? 'reached' : 'did not reach'} target ${metric} ${target}: best ${metric} ${(result.figure ?? result.cosine).toFixed(6)} ` +
        `(start ${(result.steps[0].figure ?? result.steps[0].cosine).toFixed(6)})${result.figure !== undefined && Number.isFinite(result.cosine) ? `, cosine ${result.cosine.toFixed(6)}` : ''}${bestDecision !== undefined ? `, decision ${bestDecision.toFixed(6)}` : ''}, stopped: ${result.stopped}, ${result.steps.length - 1} step(s)\n`,
    );
    process.stdout.write(`nodes to exclude: ${added.nodes.join(', ') || '(none)'}\n`);
    for (const s of added.subgraphs)
      process.stdout.write(`subgraph to exclude: ${s.starts.join(',')} → ${s.ends.join(',')}\n`);
    if (values.output) {
      fs.writeFileSync(values.output, `${configToJSON(result.config)}\n`);
      process.stderr.write(`configuration: ${values.output}\n`);
    }
    if (values.report) {
      // The final comparison: re-measure the best configuration unless it was the last one measured.
      if (!last || last.config !== result.config) await evaluate(result.config);
      const lw = last!.comparison.layerwise!;
      const report = buildReport({
        title: `Suggested exclusions: ${float.fileName}`,
        floatModel: await modelFileInfo(float),
        config: { name, settings: configToPlainJson(result.config) },
        exclusions: last!.report.exclusions,
        quantization: {
          nodes: last!.report.counts.nodes,
          quantized: last!.report.counts.quantized,
          float: last!.report.counts.float,
        },
        samples: last!.comparison.samples,
        dataSource: values.data ?? values.calib,
        outputs: last!.comparison.outputs,
        layers: { rows: lw.rows, index, pairs: lw.pairs, missing: lw.missing },
        ranges: calibration.ranges,
        grids: qdqGrids(last!.quantized),
        suggest: { target, metric, reached: result.reached, stopped: result.stopped, steps: result.steps },
        timings: [
          { label: 'calibration', seconds: calibration.seconds },
          ...result.steps.map((s) => ({ label: `step ${s.step}`, seconds: s.seconds })),
        ],
      });
      fs.writeFileSync(values.report, renderHtml(report));
      process.stderr.write(`report: ${values.report}\n`);
    }
    return 0;
  },
};
