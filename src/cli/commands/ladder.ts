/**
 * `qstudio ladder <float.onnx> --calib <dir> --data <dir> --target cosine:0.99`: the reference's
 * best-practice flow, automated and ordered by what measurement says (core/recovery/ladder.ts): by default every
 * 8-bit route first (the 8-bit formats, their fine-tuning, mixed precision), then the 16-bit formats, then
 * exclusions (`--order fastest`: every format screened first, whatever its bits), measuring every rung on the
 * evaluation images, and stops at the first that meets the target. The climbing is core/recovery/ladder.ts,
 * the measuring core/recovery/ladderMeasure.ts; this file wires them to files, onnxruntime-node and the
 * terminal, prints each rung as it is measured, and writes the chosen model, its configuration and a report
 * that lists every rung tried.
 */
import { cpuInt8Kernels } from '../runtime/cpuInt8Kernels.ts';
import fs from 'node:fs';
import path from 'node:path';
import { encode } from '../../core/onnx/index.ts';
import { configToJSON, configToPlainJson, withOptions } from '../../core/quantize/config.ts';
import {
  climbLadder,
  rankRungs,
  isLadderOrder,
  ladderReport,
  ladderSoFar,
  parseLadderTarget,
  isAdaquantStride,
  DEFAULT_LADDER_ORDER,
  LADDER_ORDERS,
  type LadderResult,
  type LadderStop,
  type Rung,
  type RungResult,
  type SkippedRung,
} from '../../core/recovery/ladder.ts';
import type { RungDetail } from '../../core/recovery/ladderMeasure.ts';
import { ladderClimbOptions } from '../../core/recovery/ladderSetup.ts';
import { formatDuration, parseTimeBudget } from '../../core/recovery/ladderBudget.ts';
import { budgetDeadline } from '../../core/recovery/budgetDeadline.ts';
import { PRESET_NAMES, getPreset, isPresetName, type PresetName } from '../../core/quantize/presets.ts';
import { buildReport, renderHtml, renderJson, shortfallSections } from '../../core/report/index.ts';
import { calibrateOnFeeds } from '../calibration/calibrateOnImages.ts';
import { loadConfigArgument } from '../configArgument.ts';
import { parse, UsageError } from '../usage.ts';
import { parsePrecisionBudget } from '../../core/quantize/precisionBudget.ts';
import { nodeGramProduct } from '../runtime/gramProduct.ts';
import { nodeDenseProduct } from '../runtime/denseProduct.ts';
import { folderFeeds } from '../data/dataFeeds.ts';
import { modelFileInfo, readModelFile } from '../modelFile.ts';
import { nodeRuntime } from '../runtime/ortNode.ts';
import { checkWrittenModel } from '../runtime/modelCheck.ts';
import { graphOptimizationText } from '../../core/runtime/graphOptimization.ts';
import { judgeOptimizationArgument } from '../judgeOptimizationArgument.ts';
import { TASK_TARGET_OPTIONS, TASK_TARGET_USAGE, taskTargetArgument } from '../taskTargetArgument.ts';
import { dataFolderUsage } from '../data/dataFolder.ts';
import { sensitiveShareArgument } from '../sensitiveShareArgument.ts';
import { unjudgedScoreNote } from '../../core/recovery/targetMeasure.ts';

const usage = `Usage: qstudio ladder <float.onnx> --calib <dir> [--data <eval dir>] [--target cosine:0.99]
                      [--preprocess <preset|file>] [--config <config.json>] [--formats XINT8,A8W8,A16W8]
                      [--order eight-bit-first|fastest]
                      [--no-reapply] [--no-per-channel] [--no-exclusions] [--max-exclusion-steps <n>]
                      [--no-mixed-precision] [--budget act16=0.1,w16=0.1,float=0.05]
                      [--iterations <n>] [--finetune-reach <share>] [--min-rounding-error <e>] [--plateau-stop <share>]
                      [--tune-sensitive <share>] [--adaquant-stride <k>]
                      [--time-budget <15m>]
                      [-o <model.onnx>] [--save-config <config.json>]
                      [--report <out.html>] [--json <out.json>] [--npu-bf16] [--judge-optimization basic|all]

Climbs the best-practice ladder of AMD Quark's Ryzen AI guide until the quantized model meets the target
on the evaluation images. By default 8 bits first: the 8-bit formats without fine-tuning (XINT8; + CLE;
A8W8; on models with written-out functions each also with the function rules, and with CLE and them
together where each helped; each float-scale format's best also with Sequential ranges, unless --config
calibrates with Sequential already; a --config's calibration method carries into the formats of its scale
type), then AdaRound and AdaQuant from each one's best, closest to the target first (a rung whose error
fine-tuning cannot remove is skipped and listed), then mixed precision from the best 8-bit rung with
AdaRound on its winner (mixed precision first where it is expected to remove more of the error per second:
fine-tuning with many iterations on a large model); only then the 16-bit formats (A16W8; the last format with per-channel weights,
ours) and their fine-tuning; last, excluding the most sensitive nodes (a measured greedy search). Every
rung is calibrated, quantized, tuned and judged for real; each is printed as it ends.

The best rung so far is never lost: when the ladder ends without meeting the target, fails, runs out of
its time budget or is stopped (Ctrl-C, SIGTERM), the best rung measured is written (-o, --save-config,
--report, --json) with a note that the target was not met.

Options:
  --calib <dir>               samples to calibrate and fine-tune on: images
${dataFolderUsage(30)}
  --data <dir>                held-out samples (images or tensors, as --calib) every rung is judged on
                              (default: the calibration samples)
  --target <metric:value>     cosine:0.99 (default), psnr:<dB>, top1:<fraction>, or sequence:<fraction>
                              (share of [batch, steps, classes] outputs whose greedy CTC decoding is the
                              float model's; CER shown beside it), decision:<fraction> (share of samples whose
                              decision at 0.5 on a one-probability output, a voice-activity or wake-word score, is
                              the float model's); task figures: map50:<fraction> (mAP@0.5),
                              map:<fraction> (mAP@0.5:0.95), miou:<fraction>, against the float model's
                              predictions, or against --labels when given (top1 then is label accuracy)
${TASK_TARGET_USAGE}
  --preprocess <preset|file>  how images become input tensors (as for quantize)
  --config <file>             a configuration whose exclusions, EnableSubgraph, calibration and FastFinetune
                              options carry over
  --enable-subgraph           every rung also quantizes the compute inside If/Loop/Scan bodies ("EnableSubgraph":
                              true, as for quantize); without it a model whose compute sits in such bodies (Silero
                              VAD) is climbed on its main graph alone, and the chosen rung's warning says so
  --formats <list>            formats climbed, in order (default XINT8,A8W8,A16W8)
  --order <order>             eight-bit-first (default): every 8-bit route, mixed precision included, before
                              any 16-bit format; fastest: every format screened without fine-tuning first,
                              the first that meets the target chosen whatever its bits, then fine-tuning,
                              mixed precision and exclusions
  --no-reapply                run CLE / AdaRound / AdaQuant on the first format only
  --no-per-channel            skip the per-channel stage
  --npu-bf16                  judge every rung with its float parts in BF16, as the Ryzen AI compiler runs
                              excluded subgraphs on the NPU (the written model keeps them float32)
  --judge-optimization <l>    onnxruntime's graph optimization level every rung, and the mixed-precision search, is
                              judged at: all (default: onnxruntime's default options in onnxruntime-node, -python
                              and onnxruntime-web, what a user's session runs: Q/DQ fused into int8 kernels, which
                              also saturate on x86 CPUs without VNNI) or basic (the model's own Q/DQ arithmetic, as
                              the studio's page runs it). At all, on a CPU without VNNI (read from /proc/cpuinfo),
                              a format whose model could saturate them is also tried with saturation-safe weights. Fine-tuning learns on the model's own arithmetic either way
  --no-exclusions             skip the exclusion search
  --no-mixed-precision        skip the mixed-precision rungs (after the 8-bit fine-tuning rungs:
                              the best 8-bit rung with per-channel weights, the activations and weights that
                              measurably hurt most at 16 bits and, if still short, a few nodes float, within
                              --budget; where that choice misses the target on the calibration samples, the
                              16-bit set grows along the search's ranking (doubling, then bisection) up to half
                              the candidates; then with bias correction, then fine-tuned as that rung was).
                              --formats XINT8,A8W8 keeps every format at 8 bits; mixed precision may widen up to
                              half the activations and weights
  --budget <shares>           where the mixed-precision search starts (default act16=0.1,w16=0.1,float=0.05)
  --max-exclusion-steps <n>   measurements the exclusion search may make (default 10)
  --iterations <n>            fine-tuning iterations per layer (FastFinetune NumIterations)
  --finetune-reach <share>    the largest share of a rung's output error fine-tuning is expected to remove
                              (default 0.9); rungs that would need more are skipped. 1 tries every one
  --min-rounding-error <e>    fine-tune only the layers whose own weight rounding costs at least this share of
                              their output, measured on their inputs (default 0: every layer; 1e-4 on the
                              PP-OCRv4 recognizer tuned 9 of 47 layers, read more held-out lines and cost less:
                              bench/README.md)
  --plateau-stop <share>      stop fine-tuning a layer once its loss improved by less than this share over a
                              twentieth of the iterations (AdaRound: its warm start, then its annealing; default
                              0: every iteration; measured on four models: bench/README.md ladder-budget)
  --tune-sensitive <share>    fine-tune only the layers the per-layer sensitivity points at: the noise power
                              each layer adds in the plain model (from its input's and output's SQNR, on 4
                              calibration samples), largest first, until it sums to this share of all (default
                              1: every layer, measured better held out on the detectors and on the recognizer's
                              own ladder rungs: bench/README.md ladder-budget)
  --adaquant-stride <k>       AdaQuant rungs take 1/k of the iterations at k times the learning rate (default 1;
                              at 9 from 450 iterations a later AdaQuant rung on the PP-OCRv4 recognizer cost 9.6
                              against 22.8 CPU s and read 10/16 held-out lines, CER 7.92 %, against 5/16, 8.91 %;
                              YOLOX-nano also read better, the text detector worse; from 1000 iterations both the
                              recognizer and YOLOX-nano read worse: bench/README.md ladder-budget)
  --time-budget <duration>    plan the climb to end within it (15m, 90s, 1h30m): each rung's cost is
                              estimated before it runs (from the model's size, the images and the rungs
                              measured) and printed; rungs that cannot finish in what is left are skipped
                              and listed; a rung still running at the deadline is stopped, except the first
                              (without it there is no model to write). Under a budget every 8-bit format's
                              plain rung comes first, then the variants, fine-tuning and mixed precision of
                              the one that measured best, the others' variants after
  -o, --output <file>         write the chosen rung's quantized model
  --save-config <file>        write the chosen rung's configuration as JSON
  --report <out.html>         an HTML report of every rung tried and the chosen model's comparison
  --json <out.json>           the same as JSON

Exit status: 0 when a rung meets the target, 3 when none does (the best rung is still written), 130 / 143
when stopped by SIGINT / SIGTERM (the best rung so far is still written).`;

const num = (v: number) => (Number.isFinite(v) ? v.toFixed(5) : String(v));

/** Why a climb ended short of its target, in words. */
const STOP_TEXT: Record<LadderStop, string> = {
  target: 'reached',
  exhausted: 'every rung tried',
  cancelled: 'interrupted',
  budget: 'the time budget ran out',
  failed: 'the climb failed',
};

/** The report's note when the written model is not one that met the target. */
export function notMetNote(result: LadderResult, metric: string, value: number): string {
  const chosen = result.results[result.chosen];
  if (result.stopped === 'target' && !chosen?.met) {
    return `The rung that met ${metric} ≥ ${value} could not be written (below). This model is the best rung whose model onnxruntime loads${chosen ? `, rung ${chosen.rung.index} ${chosen.rung.label} (${metric} ${num(chosen.score)})` : ''}: the target is not met by it.`;
  }
  const why =
    result.stopped === 'exhausted'
      ? 'no rung met it'
      : `the climb ended early (${STOP_TEXT[result.stopped]}${result.error ? `: ${result.error}` : ''})`;
  return `The target ${metric} ≥ ${value} was not met: ${why}. This model is the best rung measured${chosen ? `, rung ${chosen.rung.index} ${chosen.rung.label} (${metric} ${num(chosen.score)})` : ''}, out of ${result.results.length} measured.`;
}

/** One line per measured rung. */
export function rungLine(r: RungResult, metric: string): string {
  const extra = Object.entries(r.metrics)
    .filter(([k]) => k !== metric)
    .map(([k, v]) => `${k} ${num(v)}`)
    .join(', ');
  const verdict = r.error ? `failed: ${r.error}` : r.met ? 'meets the target' : 'below the target';
  const stopped = r.stoppedEarly ? `; stopped early: ${r.stoppedEarly}` : '';
  return `rung ${r.rung.index} ${r.rung.label}: ${metric} ${num(r.score)}${extra ? ` (${extra})` : ''} — ${verdict}${stopped} (${r.seconds.toFixed(1)} s)`;
}

export const ladderCommand = {
  summary: 'climb the best-practice ladder (XINT8, CLE, AdaRound, AdaQuant, A8W8, A16W8, exclusions) to a target',
  usage,
  async run(args: string[]): Promise<number> {
    const { values, positionals } = parse(args, {
      calib: { type: 'string' },
      data: { type: 'string' },
      target: { type: 'string' },
      preprocess: { type: 'string' },
      config: { type: 'string' },
      formats: { type: 'string' },
      order: { type: 'string' },
      'no-reapply': { type: 'boolean' },
      'no-per-channel': { type: 'boolean' },
      'no-exclusions': { type: 'boolean' },
      'no-mixed-precision': { type: 'boolean' },
      budget: { type: 'string' },
      'max-exclusion-steps': { type: 'string' },
      iterations: { type: 'string' },
      'finetune-reach': { type: 'string' },
      'min-rounding-error': { type: 'string' },
      'plateau-stop': { type: 'string' },
      'tune-sensitive': { type: 'string' },
      'adaquant-stride': { type: 'string' },
      'time-budget': { type: 'string' },
      output: { type: 'string', short: 'o' },
      'save-config': { type: 'string' },
      report: { type: 'string' },
      json: { type: 'string' },
      'npu-bf16': { type: 'boolean' },
      'enable-subgraph': { type: 'boolean' },
      'judge-optimization': { type: 'string' },
      ...TASK_TARGET_OPTIONS,
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one float model');
    if (!values.calib) throw new UsageError('--calib <dir> is required');
    let target = parseLadderTarget(values.target ?? 'cosine:0.99');
    const formats = (values.formats ?? 'XINT8,A8W8,A16W8').split(',').map((s) => s.trim());
    for (const f of formats)
      if (!isPresetName(f)) throw new UsageError(`--formats: "${f}" is not a preset (${PRESET_NAMES.join(', ')})`);
    const order = values.order ?? DEFAULT_LADDER_ORDER;
    if (!isLadderOrder(order))
      throw new UsageError(`--order "${values.order}": give one of ${LADDER_ORDERS.join(', ')}`);
    const maxSteps = values['max-exclusion-steps'] === undefined ? 10 : Number(values['max-exclusion-steps']);
    if (!Number.isInteger(maxSteps) || maxSteps < 0)
      throw new UsageError(`--max-exclusion-steps "${values['max-exclusion-steps']}": give a whole number ≥ 0`);
    const iterations = values.iterations === undefined ? undefined : Number(values.iterations);
    if (iterations !== undefined && !(Number.isInteger(iterations) && iterations >= 1))
      throw new UsageError(`--iterations "${values.iterations}": give a whole number ≥ 1`);

    const judgeLevel = judgeOptimizationArgument(values['judge-optimization']);

    let budget: number | undefined;
    try {
      budget = values['time-budget'] === undefined ? undefined : parseTimeBudget(values['time-budget']);
    } catch (e) {
      throw new UsageError(`--time-budget: ${(e as Error).message}`);
    }
    const reach = values['finetune-reach'] === undefined ? undefined : Number(values['finetune-reach']);
    if (reach !== undefined && !(reach > 0 && reach <= 1))
      throw new UsageError(`--finetune-reach "${values['finetune-reach']}": give a share in (0, 1]`);

    const minRoundingError =
      values['min-rounding-error'] === undefined ? undefined : Number(values['min-rounding-error']);
    if (minRoundingError !== undefined && !(minRoundingError >= 0 && minRoundingError < 1))
      throw new UsageError(`--min-rounding-error "${values['min-rounding-error']}": give a share in [0, 1)`);
    const plateauStop = values['plateau-stop'] === undefined ? undefined : Number(values['plateau-stop']);
    if (plateauStop !== undefined && !(plateauStop >= 0 && plateauStop < 1))
      throw new UsageError(`--plateau-stop "${values['plateau-stop']}": give a share in [0, 1)`);
    const sensitiveShare = sensitiveShareArgument(values['tune-sensitive']);
    const adaquantStride = values['adaquant-stride'] === undefined ? undefined : Number(values['adaquant-stride']);
    if (adaquantStride !== undefined && !isAdaquantStride(adaquantStride))
      throw new UsageError(`--adaquant-stride "${values['adaquant-stride']}": give a whole number ≥ 1`);

    const none = { nodesToExclude: [], opTypesToExclude: [], subgraphsToExclude: [] };
    let base = values.config ? loadConfigArgument(values.config, none).config : undefined;
    if (values['enable-subgraph'])
      base = withOptions(base ?? getPreset('XINT8'), { extraOptions: { EnableSubgraph: true } });
    if (iterations !== undefined) {
      base = withOptions(base ?? getPreset('XINT8'), { extraOptions: { FastFinetune: { NumIterations: iterations } } });
    }
    const float = readModelFile(positionals[0]);
    const model = float.model;
    const tuningData = folderFeeds(model, values.calib, values.preprocess, { fileName: float.fileName });
    const evalData = values.data
      ? folderFeeds(model, values.data, values.preprocess, { fileName: float.fileName })
      : tuningData;
    for (const s of new Set([...tuningData.skipped, ...evalData.skipped]))
      process.stderr.write(`skipped ${s.file}: ${s.reason}\n`);
    const taskJudge = await taskTargetArgument(
      values,
      target,
      model,
      float.fileName,
      evalData,
      judgeLevel,
      '--data',
      tuningData,
    );
    if (taskJudge) target = taskJudge.target;
    process.stderr.write(
      `calibrating and tuning on ${tuningData.feeds.length} ${tuningData.kind === 'tensors' ? 'tensor sample' : 'image'}(s), judging on ${evalData.feeds.length} with ${graphOptimizationText(judgeLevel)}; target ${target.metric} ≥ ${target.value}; order ${order}\n`,
    );

    // Cancelled by SIGINT/SIGTERM or by the budget's deadline: the rung in flight stops within one inference or step.
    const signal = { aborted: false, budgetSpent: false };
    const climb = ladderClimbOptions(
      {
        model,
        // The tuning images are the calibration images, already decoded: each rung calibrates on them again.
        calibrate: async (m, config) => (await calibrateOnFeeds(m, tuningData.feeds, { config })).ranges,
        tuning: nodeRuntime(tuningData.feeds),
        evaluation: nodeRuntime(evalData.feeds, judgeLevel),
        sensitivity: nodeRuntime(tuningData.feeds, judgeLevel),
        signal,
        task: taskJudge?.task,
        heldInTask: taskJudge?.heldInTask,
        floatPartsAsBf16: values['npu-bf16'] === true,
        gramProduct: nodeGramProduct,
        denseProduct: nodeDenseProduct,
        // Room for every layer input of the benchmarked models (the text detector's about 500 MiB at 16 images):
        // only the first fine-tuning rung runs the float model for layer data (bench/README.md, finetune-detector).
        floatRowBudgetBytes: 2 ** 30,
        onGrowth: (rung: Rung, g) => {
          process.stderr.write(
            `  ${rung.label}: ${g.act16} activation pairs and ${g.w16} weights at 16 bits: held-in ${target.metric} ${num(g.score)}${Number.isFinite(g.metrics.cer) ? `, CER ${(100 * g.metrics.cer).toFixed(2)} %` : ''}${g.met ? ' (meets the target)' : ''} (${g.seconds.toFixed(1)} s)\n`,
          );
        },
        onProgress: (rung: Rung, p) => {
          if (p.phase === 'layer' && p.done % 10 === 0)
            process.stderr.write(`  ${rung.label}: tuned ${p.done} of ${p.total} layers\n`);
        },
      },
      {
        target,
        base,
        order,
        formats: formats as PresetName[],
        reapplyAlgorithms: !values['no-reapply'],
        perChannelRung: !values['no-per-channel'],
        exclusions: !values['no-exclusions'],
        mixedPrecision: !values['no-mixed-precision'],
        maxExclusionSteps: maxSteps,
        precisionBudget: parsePrecisionBudget(values.budget ?? ''),
        finetuneReach: reach,
        timeBudget: budget,
        minRoundingError,
        plateauStop,
        sensitiveShare,
        adaquantStride,
      },
      // Saturation-safe weights are worth a rung only where the int8 kernels can saturate: read from this CPU.
      {
        calibrationSamples: tuningData.feeds.length,
        evaluationSamples: evalData.feeds.length,
        kernelsSaturate: cpuInt8Kernels().saturates,
      },
    );

    /** Writes the best rung of `result` and its report; once, whichever of the end, a failure or a signal comes first. */
    let written: Promise<void> | null = null;
    const writeBest = (result: LadderResult): Promise<void> => (written ??= writeOutcome(result));
    const writeOutcome = async (measured: LadderResult): Promise<void> => {
      for (const k of measured.skipped) process.stdout.write(`skipped ${k.label}: ${k.reason}\n`);
      // The chosen rung's model is written and loaded at onnxruntime's default options and 'basic'; one onnxruntime
      // refuses gives way to the next best rung whose model loads (said in the report), so a usable model is kept.
      const refusals: string[] = [];
      let result = measured;
      let bytes: Uint8Array | undefined;
      for (;;) {
        const rung = result.results[result.chosen];
        const rungDetail = rung?.detail as RungDetail | undefined;
        bytes =
          rungDetail && (values.output || values.report || values.json) ? encode(rungDetail.quantized) : undefined;
        if (!values.output || !bytes) break;
        fs.writeFileSync(values.output, bytes);
        try {
          await checkWrittenModel(values.output);
          break;
        } catch (e) {
          if ((e as Error).name !== 'WrittenModelRefusedError') throw e;
          const ranked = rankRungs(result.results.map((r) => (r.detail === undefined ? { ...r, score: NaN } : r)));
          const next = ranked[ranked.indexOf(result.chosen) + 1] ?? -1;
          refusals.push(`rung ${rung.rung.index} ${rung.rung.label}: ${(e as Error).message}`);
          process.stderr.write(`${(e as Error).name}: ${(e as Error).message}\n`);
          if (next < 0) throw e;
          process.stderr.write(
            `writing the next best rung instead: rung ${result.results[next].rung.index} ${result.results[next].rung.label}\n`,
          );
          result = { ...result, chosen: next };
        }
      }
      const chosen = result.results[result.chosen];
      process.stdout.write(
        `\n${result.stopped === 'target' ? 'reached' : 'did not reach'} ${target.metric} ≥ ${target.value} after ${result.results.length} rung(s)` +
          (result.stopped === 'target' || result.stopped === 'exhausted'
            ? ''
            : ` (${STOP_TEXT[result.stopped]}${result.error ? `: ${result.error}` : ''})`) +
          (chosen
            ? `; ${result.stopped === 'target' || result.stopped === 'exhausted' ? 'chosen' : 'best so far'}: rung ${chosen.rung.index} ${chosen.rung.label} (${target.metric} ${num(chosen.score)})`
            : '; no rung could be measured') +
          '\n',
      );
      const shortfall = ladderReport(result).shortfall;
      // Nothing measured: there is no model to say anything of, only that none was written.
      if (shortfall && chosen)
        for (const section of shortfallSections(shortfall))
          process.stdout.write(`${section.heading}:\n${section.lines.map((t) => `  ${t}\n`).join('')}`);
      const detail = chosen?.detail as RungDetail | undefined;
      // What the chosen rung's quantizer said (compute left float inside control flow, …), as quantize prints it.
      for (const w of detail?.report.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
      if (values.output && bytes) {
        process.stderr.write(
          `model: ${values.output}${result.stopped === 'target' ? '' : ' (the best rung so far; the target was not met)'}\n`,
        );
      }
      const outputs = [values.output, values['save-config'], values.report, values.json].filter(Boolean);
      if (!chosen && outputs.length > 0)
        process.stderr.write(`nothing written (${outputs.join(', ')}): no rung was measured before the climb ended\n`);
      if (values['save-config'] && chosen) {
        fs.writeFileSync(values['save-config'], `${configToJSON(chosen.config)}\n`);
        process.stderr.write(`configuration: ${values['save-config']}\n`);
      }
      if ((values.report || values.json) && detail && bytes) {
        const q = detail.report;
        const report = buildReport({
          title: `Accuracy-recovery ladder: ${path.basename(positionals[0])}`,
          createdAt: new Date().toISOString(),
          floatModel: await modelFileInfo(float),
          quantizedModel: await modelFileInfo({
            fileName: values.output ?? `${path.basename(positionals[0], '.onnx')}.quant.onnx`,
            bytes,
          }),
          config: { name: chosen.rung.label, settings: configToPlainJson(chosen.config) },
          exclusions: q.exclusions,
          quantization: { nodes: q.counts.nodes, quantized: q.counts.quantized, float: q.counts.float },
          samples: detail.comparison.samples,
          dataSource: values.data ?? values.calib,
          graphOptimization: judgeLevel,
          outputs: detail.comparison.outputs,
          ladder: ladderReport(result),
          timings: result.results.map((r) => ({ label: `rung ${r.rung.index}: ${r.rung.label}`, seconds: r.seconds })),
          notes: [
            ...(result.stopped === 'target' && refusals.length === 0
              ? []
              : [notMetNote(result, target.metric, target.value)]),
            ...refusals.map((r) => `Not written, onnxruntime refused its model (a fault of the writer): ${r}`),
          ],
        });
        if (values.report) fs.writeFileSync(values.report, renderHtml(report));
        if (values.json) fs.writeFileSync(values.json, renderJson(report));
        process.stderr.write(`report: ${[values.report, values.json].filter(Boolean).join(', ')}\n`);
      }
    };

    // What was measured so far, for a signal that comes while a rung runs.
    const results: RungResult[] = [];
    const skipped: SkippedRung[] = [];
    const soFar = (stopped: LadderStop) => ladderSoFar(target, order, results, skipped, stopped);
    const stopSignals = [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const;
    // Kept registered until the process exits (the session folder's own handler defers to it); a second signal exits at once.
    const onSignal = (signalName: NodeJS.Signals, code: number) => () => {
      if (signal.aborted && written) process.exit(code);
      signal.aborted = true;
      process.stderr.write(`\n${signalName}: stopping; writing the best rung measured so far\n`);
      void writeBest(soFar('cancelled'))
        .catch((e) => process.stderr.write(`could not write the best rung: ${(e as Error).message}\n`))
        .finally(() => process.exit(code));
    };
    const handlers = stopSignals.map(([name, code]) => [name, onSignal(name, code)] as const);
    for (const [name, handler] of handlers) process.on(name, handler);
    // The first rung is never stopped by it (core/recovery/budgetDeadline.ts): before it there is no model to write.
    const deadline =
      budget === undefined
        ? undefined
        : budgetDeadline(signal, budget, () =>
            process.stderr.write(
              `time budget of ${formatDuration(budget)} spent: stopping the climb (a rung in fine-tuning or a search stops at its next step; one that only calibrates and judges finishes), then writing the best rung measured\n`,
            ),
          );

    let result: LadderResult;
    try {
      result = await climbLadder({
        ...climb,
        signal,
        onRung: (rung, r) => {
          if (!r) {
            const estimate = rung.estimate
              ? ` (estimated ${formatDuration(rung.estimate.seconds)}: ${rung.estimate.basis})`
              : '';
            process.stderr.write(
              `rung ${rung.index} of at most ${rung.of ?? '?'} ${rung.label}${estimate} …\n${rung.why ? `  why now: ${rung.why}\n` : ''}`,
            );
            // The first rung runs whatever the budget, so that there is a model to write: said where it cannot fit.
            if (rung.index === 1 && budget !== undefined && rung.estimate && rung.estimate.seconds > budget)
              process.stderr.write(
                `  note: the time budget (${formatDuration(budget)}) is shorter than this first rung's estimate: it runs to its end anyway, so that a model is written, and the climb ends after it\n`,
              );
          } else {
            results.push(r);
            process.stdout.write(`${rungLine(r, target.metric)}\n`);
            const unjudged = results.length === 1 ? unjudgedScoreNote(target.metric, r.metrics) : null;
            if (unjudged) process.stderr.write(`  ${unjudged}\n`);
            deadline?.rungEnded();
          }
        },
        onSkip: (k) => skipped.push(k),
      });
    } finally {
      deadline?.clear();
    }
    // A signal that came during the climb writes (and exits) itself.
    if (written) {
      await written;
      return 3;
    }
    for (const [name, handler] of handlers) process.removeListener(name, handler);
    await writeBest(result);
    return result.stopped === 'target' ? 0 : 3;
  },
};
