/**
 * `qstudio quantize`: a float model, ranges and a configuration in; a QDQ model and a JSON summary of
 * what was quantized and what stayed float out. Exclusions given on the command line add to those of
 * the configuration, and so do the accuracy-recovery switches (--cle, --bias-correction, --finetune), which
 * run through core/recovery's quantizeWithRecovery with onnxruntime-node on the --calib images.
 */
import { standInsUnread, unreadRanges, withUnreadRanges } from '../../core/quantize/unreadRanges.ts';
import { cpuInt8Kernels, SATURATING_CPUS } from '../runtime/cpuInt8Kernels.ts';
import fs from 'node:fs';
import path from 'node:path';
import { BF16_PRESET, quantizeBf16 } from '../../core/quantize/bf16Preset.ts';
import {
  preparationKey,
  prepareQuantization,
  quantizeModel,
  quantizePrepared,
  type PreparedQuantization,
} from '../../core/quantize/quantizeModel.ts';
import { configToJSON, type QuantConfig } from '../../core/quantize/config.ts';
import { withRecoverySwitches } from '../../core/recovery/recoverySwitches.ts';
import {
  quantizeWithRecovery,
  type RecoveryProgress,
  type RecoveryReport,
} from '../../core/recovery/quantizeWithRecovery.ts';
import { folderFeeds } from '../data/dataFeeds.ts';
import { nodeRuntime } from '../runtime/ortNode.ts';
import { graphOptimizationText } from '../../core/runtime/graphOptimization.ts';
import { judgeOptimizationArgument } from '../judgeOptimizationArgument.ts';
import { nodeGramProduct } from '../runtime/gramProduct.ts';
import { nodeDenseProduct } from '../runtime/denseProduct.ts';
import { isBf16ConfigFile, loadConfigArgument } from '../configArgument.ts';
import { readRangesFile } from '../rangesFile.ts';
import { calibrateDecoded, calibrateFolder } from '../calibration/calibrateFolder.ts';
import { heldInCalibration, heldInText } from '../calibration/heldInMethod.ts';
import { terminalProgress } from '../progressBar.ts';
import { HELD_IN_METHOD, measurementText, type MethodChoice } from '../../core/evaluate/calibrationMethodChoice.ts';
import { choosesMethodByDefault } from '../../core/quantize/presets.ts';
import { readModelFile, writeModelFile } from '../modelFile.ts';
import { checkWrittenModel } from '../runtime/modelCheck.ts';
import { parse, UsageError } from '../usage.ts';
import {
  chooseMixedPrecision,
  defaultSensitivitySamples,
  fewDecisionSamplesNote,
  type MixedPrecisionResult,
} from '../../core/search/mixedPrecision.ts';
import { formatPrecisionBudget, parsePrecisionBudget } from '../../core/quantize/precisionBudget.ts';
import type { Ranges } from '../../core/quantize/plan.ts';
import type { ModelProto } from '../../core/onnx/model.ts';
import { parseLadderTarget } from '../../core/recovery/ladder.ts';
import { sensitiveShareArgument } from '../sensitiveShareArgument.ts';
import { mixedPrecisionAim } from '../../core/recovery/targetMeasure.ts';
import { assertTargetFits } from '../../core/recovery/ladderMeasure.ts';
import { TASK_TARGET_OPTIONS, TASK_TARGET_USAGE, taskTargetArgument } from '../taskTargetArgument.ts';
import { FUNCTION_RULES_ROUTE, functionRulesSuggestion } from '../../core/quantize/attentionBlocks.ts';
import { dataFolderUsage } from '../data/dataFolder.ts';
import { PREPROCESS_USAGE } from '../preprocessArgument.ts';
import { modelStem } from '../../core/onnx/fileName.ts';

const usage = `Usage: qstudio quantize <model.onnx> (--calib <dir> [--preprocess <preset|file>] | --ranges <ranges.json>)
                        --config <preset|config.json> -o <out.onnx>
                        [--exclude-subgraph "<start,...>:<end,...>"]... [--exclude-nodes <id,...>]...
                        [--exclude-op-types <type,...>] [--per-channel] [--reduce-range | --saturation-safe] [--no-fold-conv-affine] [--enable-subgraph]
                        [--calibration-method <m>] [--summary <file.json>]
                        [--fp16-to-fp32 ["<start,...>:<end,...>"]]... [--fp32-scale]
                        [--attention] [--smooth-quant [--sq-alpha <a>]]
                        [--cle [--cle-steps <n>]] [--bias-correction]
                        [--finetune adaround|adaquant [--finetune-iterations <n>] [--finetune-lr <x>] [--tune-sensitive <share>]]
                        [--mixed-precision [--budget act16=0.1,w16=0.1,float=0.05] [--target <metric:value>]
                         [--sensitivity-samples <n>] [--judge-optimization basic|all]] [--save-config <config.json>]

Writes a QDQ model (QuantizeLinear/DequantizeLinear) and a JSON summary of what was quantized and
what stayed float (default: <out>.json).

Options:
  --calib <dir>              calibrate on this folder's samples first: images
${dataFolderUsage()}
${PREPROCESS_USAGE}
  --ranges <file>            calibrated ranges instead: {"tensor": [min, max], ...} (as "qstudio calibrate" writes)
  --config <preset|file>     XINT8, VINT8, A8W8, A16W8, U8S8, S8S8, U8S8_AAWS, S8S8_AAWS, or a config JSON;
                             BF16: Quark's BF16 with BF16QDQToCast (Casts to bfloat16 and back where Q/DQ would
                             go) to measure BF16 loss on a CPU; it needs no calibration (--calib/--ranges optional)
  --exclude-subgraph <s:e>   keep float the nodes between start and end nodes (Quark subgraphs_to_exclude)
  --exclude-nodes <ids>      keep these nodes float (ids, names or regular expressions; comma-separated)
  --exclude-op-types <types> keep every node of these op types float
  --per-channel              per-channel weights (raises the opset to 13 where needed)
  --calibration-method <m>   activation ranges by MinMax, Percentile, Entropy, MinMSE, LayerwisePercentile,
                             ConsumerMSE or Sequential instead of the config's, or "held-in": the best of MinMax,
                             MinMSE and Entropy measured on the --calib samples themselves (even ones
                             calibrate, odd ones judge at onnxruntime's default), the config's own keeping a tie;
                             printed with each method's figure. Default: "held-in" for A8W8 (held out, at least
                             MinMax's figure on all six benchmarked models at both levels, where no single method
                             is: bench preset-methods; its own MinMax with --ranges or under 2 samples), the
                             preset's own for the others (power-of-two presets take MinMax or MinMSE). Sequential (Entropy gathered on the partly quantized model, 1.6-4.8x
                             MinMax's time) best on the text detector and on YOLOX per channel (bench calibration-methods)
  --reduce-range             7-bit weights everywhere (ONNX Runtime's reduce_range): onnxruntime's CPU int8 kernels
                             saturate on x86 CPUs without VNNI (qstudio evaluate shows the loss)
  --enable-subgraph          calibrate and quantize compute inside If/Loop/Scan bodies too ("EnableSubgraph": true).
                             Off by default, as in ONNX Runtime: on Silero VAD v5 it measured 100x the float error
  --no-fold-conv-affine      keep Conv → Mul/Add by per-channel constants as written instead of folding them into
                             the Conv ("foldConvAffine": false). The fold is the default: it removes two roundings
                             per chain, and held out on PP-OCRv4 it measured +0.016 (A8W8 per tensor) and +0.043
                             (per channel) with text-scene calibration, -0.006 with calibration on photos without
                             text (bench/README.md, fold-conv-affine)
  --saturation-safe          7-bit codes only where they are needed ("saturationSafeWeights": true): the weight
                             channels of Conv/MatMul/Gemm with 8-bit inputs whose codes could saturate those
                             kernels (two same-sign codes adding past 128); depthwise convs, 16-bit parts and
                             channels that cannot overflow keep 8 bits. Off in every preset (Quark's NPU presets
                             reproduce Quark's configs); for a CPU deployment judged with onnxruntime's defaults
  --fp16-to-fp32 [<s:e>]     float16 models: convert these subgraphs to float32 first (Quark Shapeshifter's
                             convert_fp16_to_fp32, subgraphs_to_include), the rest stays float16; with "all",
                             the whole model (ConvertFP16ToFP32). Without it a float16 model is quantized with
                             QuantizeFP16: Q/DQ on its float16 tensors, float parts kept in float16
  --fp32-scale               float16 models: float32 Q/DQ scales with Casts around them (UseFP32Scale); onnxruntime's
                             CPU runs them faster (ISNet A8W8: 1.2 float runs against 1.6; A8W8's held-in choice
                             judges its candidates in this form either way), but the held-out figures move both
                             ways (XINT8's mask lower), so it is not the default (bench/README.md, "Float32 scales
                             for float16 models")
  --attention                quantize attention blocks as the NPU runs them (Quark enable_npu_transformer): functions
                             written out as element-wise nodes (LayerNorm, GELU, HardSwish, Swish) get Q/DQ at their
                             input and output only, Softmax is quantized on its known [0, 1] range. Also for 8-bit
                             CNNs with written-out HardSwish: PP-OCRv4 text detector, A8W8 per channel, Sequential
                             0.9595 -> 0.9688 held out, 0.9772 with --finetune adaround --finetune-iterations 200;
                             neutral on YOLOX-nano's SiLU (bench detector-targets, calibration-methods)
  --smooth-quant             SmoothQuant before calibration (Quark include_sq; needs --calib): activation outlier
                             channels before MatMul/Gemm weights moved into the weights, float outputs unchanged
  --sq-alpha <a>             SmoothQuant's migration strength in [0, 1] (Quark SmoothAlpha; default 0.5)
  --cle                      cross-layer equalization before calibration (Quark include_cle; needs --calib); with
                             --enable-subgraph also the Conv pairs inside If/Loop/Scan bodies (Silero VAD op18 A8W8,
                             held out: speech decisions 0.66 -> 0.84, per channel 0.94 -> 0.97)
  --cle-steps <n>            CLE passes over all layer pairs (Quark CLESteps; default 1)
  --bias-correction          fold each layer's mean output shift on the --calib images into its bias; with
                             --enable-subgraph also inside If branches (the layers there that have a bias). Silero
                             VAD op18 A8W8 per channel, held out: decisions 0.94 -> 1.0; per tensor 0.66 -> 0.53
                             alone, 0.94 with --cle (state cosine up in every case)
  --finetune <algorithm>     adaround (learn each weight's rounding) or adaquant (learn the weights and bias),
                             layer by layer on the --calib images (Quark include_fast_ft, FastFinetune); with
                             --enable-subgraph also inside If branches (their layers that have a bias)
  --finetune-iterations <n>  optimizer steps per layer (FastFinetune NumIterations; default 1000)
  --finetune-lr <x>          Adam learning rate (FastFinetune LearningRate; default 0.1 adaround, 1e-5 adaquant)
  --tune-sensitive <share>   fine-tune only the layers the per-layer sensitivity points at (as qstudio ladder's):
                             the noise power each adds in the plain model, on 4 calibration samples, largest first
                             until it sums to this share of all; with --enable-subgraph the If branches' layers too
                             (default 1: every layer)
  --mixed-precision          automatic mixed precision (needs --calib): the model stays at the config's 8 bits,
                             and the activations and weights whose measured effect on the output is largest go
                             to 16 bits, then (if still short of --target) a few nodes stay float, within --budget
  --budget <shares>          what may leave 8 bits: act16 (share of activation Q/DQ pairs), w16 (share of
                             weights) and float (share of quantized nodes); default act16=0.1,w16=0.1,float=0.05
  --target <metric:value>    what the mixed-precision search aims for on the --calib images: cosine:<c> (default
                             cosine:0.99; a bare number is a cosine); top1:<fraction> (classes as the float model's),
                             sequence:<fraction> (CTC text: lines decoding as the float model's), and task figures
                             map50:<fraction>, map:<fraction>, miou:<fraction> (against the float model's predictions,
                             or --labels: then top1 is label accuracy) are aimed at by their figure measured on the
                             judged --calib images; psnr:<dB> spends the budget toward cosine 0.999
${TASK_TARGET_USAGE}
  --sensitivity-samples <n>  --calib images the sensitivities are measured on (default 4; 16 with a decision target,
                             whose figure moves by 1/n: measured on Silero VAD)
  --judge-optimization <l>   onnxruntime's graph optimization level the search measures at: all (default:
                             onnxruntime's default options in onnxruntime-node, -python and onnxruntime-web, what a
                             user's session runs: Q/DQ fused into int8 kernels, which also saturate on x86 CPUs
                             without VNNI; add --saturation-safe where they do) or basic (the model's own Q/DQ
                             arithmetic, every Q/DQ as written)
  --save-config <file>       write the configuration used (with the chosen precisions) as JSON
  -o, --output <file>        the quantized model
  --summary <file>           where to write the JSON summary`;

/** What `--mixed-precision` aims at without `--target`. */
const MIXED_PRECISION_DEFAULT_TARGET = 'cosine:0.99';

const list = (values: string[] | undefined) =>
  (values ?? [])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);

/** "a,b:c,d" → { starts: [a, b], ends: [c, d] }. */
export function parseSubgraphArgument(text: string, flag = '--exclude-subgraph') {
  const parts = text.split(':');
  if (parts.length !== 2) throw new UsageError(`${flag} "${text}": expected "<start,...>:<end,...>"`);
  const [starts, ends] = parts.map((p) => list([p]));
  if (!starts.length || !ends.length)
    throw new UsageError(`${flag} "${text}": give at least one start and one end node`);
  return { starts, ends };
}

export const quantizeCommand = {
  summary: 'write a QDQ model from a float model, ranges and a preset or config',
  usage,
  async run(args: string[]): Promise<number> {
    const { values, positionals } = parse(args, {
      ranges: { type: 'string' },
      calib: { type: 'string' },
      preprocess: { type: 'string' },
      config: { type: 'string' },
      output: { type: 'string', short: 'o' },
      summary: { type: 'string' },
      'exclude-subgraph': { type: 'string', multiple: true },
      'exclude-nodes': { type: 'string', multiple: true },
      'exclude-op-types': { type: 'string', multiple: true },
      'per-channel': { type: 'boolean', default: false },
      'calibration-method': { type: 'string' },
      'reduce-range': { type: 'boolean', default: false },
      'saturation-safe': { type: 'boolean', default: false },
      'no-fold-conv-affine': { type: 'boolean', default: false },
      'enable-subgraph': { type: 'boolean', default: false },
      'fp16-to-fp32': { type: 'string', multiple: true },
      'fp32-scale': { type: 'boolean', default: false },
      attention: { type: 'boolean', default: false },
      'smooth-quant': { type: 'boolean', default: false },
      'sq-alpha': { type: 'string' },
      cle: { type: 'boolean', default: false },
      'cle-steps': { type: 'string' },
      'bias-correction': { type: 'boolean', default: false },
      finetune: { type: 'string' },
      'finetune-iterations': { type: 'string' },
      'finetune-lr': { type: 'string' },
      'tune-sensitive': { type: 'string' },
      'mixed-precision': { type: 'boolean', default: false },
      budget: { type: 'string' },
      target: { type: 'string' },
      'sensitivity-samples': { type: 'string' },
      ...TASK_TARGET_OPTIONS,
      'judge-optimization': { type: 'string' },
      'save-config': { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one model file');
    if (values.config === BF16_PRESET || isBf16ConfigFile(values.config))
      return writeBf16(positionals[0], values.output, values.summary);
    if (!values.ranges === !values.calib) throw new UsageError('give either --calib <dir> or --ranges <ranges.json>');
    if (!values.config) throw new UsageError('--config is required');
    if (!values.output) throw new UsageError('-o <out.onnx> is required');
    const modelPath = positionals[0];
    const configWith = (calibrationMethod: string | undefined) =>
      loadConfigArgument(values.config!, {
        perChannel: values['per-channel'] || undefined,
        calibrationMethod,
        reduceRange: values['reduce-range'] || undefined,
        saturationSafeWeights: values['saturation-safe'] || undefined,
        foldConvAffine: values['no-fold-conv-affine'] ? false : undefined,
        nodesToExclude: list(values['exclude-nodes']),
        opTypesToExclude: list(values['exclude-op-types']),
        subgraphsToExclude: (values['exclude-subgraph'] ?? []).map((s) => parseSubgraphArgument(s)),
        enableSubgraph: values['enable-subgraph'],
        ...fp16Additions(values['fp16-to-fp32'], values['fp32-scale']),
      });
    const { config: loaded, name } = configWith(
      values['calibration-method'] === HELD_IN_METHOD ? undefined : values['calibration-method'],
    );
    let config = recoverySwitchesOf(loaded, values);
    const sensitiveShare = sensitiveShareOf(values['tune-sensitive'], config);
    const { model, external, fileName } = readModelFile(modelPath);
    // A mixed-precision target the model's outputs cannot give is refused before any calibration, as the ladder and
    // suggest refuse it: a cosine of a wake-word score (one number a sample) is always 1.
    if (values['mixed-precision'])
      assertTargetFits(model, parseLadderTarget(values.target ?? MIXED_PRECISION_DEFAULT_TARGET).metric);
    const start = performance.now();
    let calibrated: Ranges | undefined;
    /** The model as the held-in choice prepared it for the chosen configuration. */
    let heldInPrepared: PreparedQuantization | undefined;
    let methodChoice: MethodChoice | undefined;
    /** Tensors the held-in choice did not observe (stand-ins in `calibrated`): the written plan must fold each. */
    let heldInUnread: ReadonlySet<string> = new Set();
    // Ranges that serve the written plan alone, with no search or recovery planning on them with other exclusions.
    const servesPlanAlone = !values['mixed-precision'] && !asksRecovery(config);
    const asked = values['calibration-method'] === HELD_IN_METHOD;
    if (asked && values.ranges)
      throw new UsageError(`--calibration-method ${HELD_IN_METHOD} calibrates: give --calib <dir>, not --ranges`);
    // A8W8's default (presets.ts HELD_IN_DEFAULT): the method measured best on the --calib samples; a named method overrides it.
    const byDefault = values['calibration-method'] === undefined && choosesMethodByDefault(values.config!);
    if (byDefault && values.ranges)
      process.stderr.write(
        `calibration method: ${name}'s own, ${config.calibrationMethod} (ranges given; ${name} chooses its method on --calib samples)\n`,
      );
    else if (asked || byDefault) {
      let data;
      try {
        data = folderFeeds(model, values.calib!, values.preprocess, { fileName });
      } catch (e) {
        // A folder that cannot feed the model: calibration names why in its own terms (NotAnImageModelError, …).
        await calibrateFolder(model, values.calib!, config, values.preprocess, { fileName });
        throw e;
      }
      if (data.feeds.length >= 2) {
        const t = performance.now();
        for (const s of data.skipped) process.stderr.write(`skipped ${s.file}: ${s.reason}\n`);
        process.stderr.write(
          `choosing the calibration method on ${values.calib} (${asked ? 'asked' : `${name}'s default`}; --calibration-method <name> fixes one)\n`,
        );
        // The statistics passes' progress (the judged samples' pass comes after the candidates' lines): a terminal's
        // bar line is ended before a candidate's line is written.
        const bar = terminalProgress('calibrating', data.kind === 'tensors' ? 'samples' : 'images');
        let barDrawn = false;
        const endBar = () => {
          if (barDrawn) bar.done();
          barDrawn = false;
        };
        const held = await heldInCalibration(
          model,
          data.feeds,
          config,
          name,
          (m) => recoverySwitchesOf(configWith(m).config, values),
          (m) => {
            endBar();
            process.stderr.write(`  ${m.method}: held-in cosine ${measurementText(m)}\n`);
          },
          servesPlanAlone,
          (p) => {
            bar.update(p);
            barDrawn = true;
          },
        );
        endBar();
        config = held.config;
        calibrated = held.ranges;
        heldInPrepared = held.prepared;
        heldInUnread = held.unread;
        methodChoice = held.choice;
        process.stderr.write(
          heldInText(
            held,
            values.calib!,
            (performance.now() - t) / 1000,
            data.kind === 'tensors' ? 'tensor sample' : 'image',
          ),
        );
      } else if (asked)
        throw new UsageError(
          `--calibration-method ${HELD_IN_METHOD} needs at least 2 calibration samples (half calibrate, half judge); ${values.calib} has ${data.feeds.length}`,
        );
      else
        process.stderr.write(
          `calibration method: ${name}'s own, ${config.calibrationMethod} (choosing one needs at least 2 calibration samples)\n`,
        );
    } else if (!values.ranges)
      // Given ranges were calibrated elsewhere: no method runs here, so none is named.
      process.stderr.write(
        `calibration method: ${config.calibrationMethod}${values['calibration-method'] ? ' (named)' : ` (${name}'s own)`}\n`,
      );
    let mixed: MixedPrecisionResult | undefined;
    if (values['mixed-precision']) {
      if (!values.calib)
        throw new UsageError(
          '--mixed-precision needs --calib <dir>: the precisions are chosen by their measured effect on those images',
        );
      const budget = parsePrecisionBudget(values.budget ?? '');
      const judgeLevel = judgeOptimizationArgument(values['judge-optimization']);
      // One aim for every search (core/recovery/targetMeasure.ts mixedPrecisionAim): a cosine target as it is; top1 and
      // sequence (agreement with the float model), and task targets (map50, map, miou; top1 against --labels) by their
      // figure on the judged --calib images; a PSNR target by a high cosine.
      let goal = parseLadderTarget(values.target ?? MIXED_PRECISION_DEFAULT_TARGET);
      const givenSamples =
        values['sensitivity-samples'] === undefined
          ? undefined
          : positiveNumber('--sensitivity-samples', values['sensitivity-samples'], true);
      const images = folderFeeds(model, values.calib, values.preprocess, { fileName });
      const task = await taskTargetArgument(
        values,
        goal,
        model,
        path.basename(modelPath),
        images,
        judgeLevel,
        '--calib',
      );
      if (task) goal = task.target;
      const aim = mixedPrecisionAim(goal, task?.task ?? null);
      const samples = givenSamples ?? defaultSensitivitySamples(aim.metric);
      const judged = Math.min(samples, images.feeds.length);
      // The images decoded once: calibrated on as they are judged on.
      calibrated ??= (await calibrateDecoded(model, images, config)).ranges;
      const standIn = aim.figure
        ? ''
        : goal.metric === 'cosine'
          ? ''
          : ` (for ${goal.metric} ${goal.value}: judge it with qstudio evaluate or the ladder)`;
      process.stderr.write(
        `mixed precision: budget ${formatPrecisionBudget(budget)}, target ${aim.metric ?? 'cosine'} ${aim.target}${standIn} on ${judged} ${images.kind === 'tensors' ? 'tensor sample' : 'image'}(s), judged by ${graphOptimizationText(judgeLevel)}\n`,
      );
      const few = fewDecisionSamplesNote(aim.metric, judged);
      if (few) process.stderr.write(`note: ${few} (--calib samples, --sensitivity-samples)\n`);
      mixed = await chooseMixedPrecision(model, calibrated, config, nodeRuntime(images.feeds, judgeLevel), {
        budget,
        samples,
        ...aim,
        onStep: (s) =>
          process.stderr.write(
            `  [${s.index}] ${s.phase}${s.units ? ` ×${s.units}` : ''}: cosine ${s.cosine.toFixed(5)}${s.figure !== undefined ? `, ${aim.metric} ${s.figure.toFixed(5)}` : ''}\n`,
          ),
      });
      config = mixed.config;
      process.stderr.write(mixedPrecisionSummary(mixed));
    } else if (
      values.budget !== undefined ||
      values.target !== undefined ||
      values['sensitivity-samples'] !== undefined ||
      values['judge-optimization'] !== undefined
    ) {
      throw new UsageError(
        '--budget, --target, --sensitivity-samples and --judge-optimization go with --mixed-precision',
      );
    }
    let quantized, report, recovery: RecoveryReport | undefined;
    if (asksRecovery(config)) {
      if (!values.calib)
        throw new UsageError(
          'CLE, SmoothQuant, bias correction and fast finetune need --calib <dir>: ranges depend on the equalized model, and the layers learn from the images',
        );
      const needsRuntime = config.includeSq || config.includeBiasCorrection || config.includeFastFt;
      const images = needsRuntime
        ? folderFeeds(model, values.calib, values.preprocess, {
            fileName,
            limit: config.extraOptions.FastFinetune.DataSize ?? Infinity,
          })
        : undefined;
      const result = await quantizeWithRecovery(model, config, {
        configName: name,
        runtime: images ? nodeRuntime(images.feeds) : undefined,
        gramProduct: nodeGramProduct,
        denseProduct: nodeDenseProduct,
        calibrate: async (equalized) =>
          (!config.includeCle && calibrated) ||
          (await calibrateFolder(equalized, values.calib!, config, values.preprocess, { fileName })).ranges,
        onProgress: recoveryProgress(),
        sensitiveShare,
      });
      ({ model: quantized, report, recovery } = result);
    } else {
      // Statistics made here serve this plan alone: the tensors whose ranges it never reads are not observed (a plan
      // of node decisions on a preparation let go before calibrating: at 1024² its float32 weights would add to the
      // peak). The held-in choice's preparation serves the chosen configuration's write.
      const unread = values.ranges ? new Set<string>() : calibrated ? heldInUnread : unreadOnPreparation(model, config);
      const quantize = (r: Ranges) =>
        heldInPrepared?.key === preparationKey(config)
          ? quantizePrepared(heldInPrepared, r, config, name)
          : quantizeModel(model, r, config, name);
      const calibrateAll = async (unobserved: ReadonlySet<string>) =>
        withUnreadRanges(
          (await calibrateFolder(model, values.calib!, config, values.preprocess, { fileName, unobserved })).ranges,
          unobserved,
        );
      const ranges = values.ranges ? readRangesFile(values.ranges) : (calibrated ?? (await calibrateAll(unread)));
      let result = quantize(ranges);
      // The plan on the real ranges must leave every stand-in unread (a fused function whose ends went uncalibrated
      // is not folded): where it reads one, the statistics are made again in full rather than write a stand-in.
      if (!standInsUnread(result.plan.folded, unread)) result = quantize(await calibrateAll(new Set()));
      ({ model: quantized, report } = result);
    }
    const dataFile = writeModelFile(values.output, quantized, external);
    await checkWrittenModel(values.output);
    const summaryPath = values.summary ?? `${modelStem(values.output)}.json`;
    const summary = {
      ...report,
      calibrationMethod: { method: config.calibrationMethod, ...(methodChoice ? { heldIn: methodChoice } : {}) },
      ...(recovery ? { recovery } : {}),
      ...(mixed ? { mixedPrecision: mixedPrecisionJson(mixed) } : {}),
    };
    fs.writeFileSync(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
    if (values['save-config']) fs.writeFileSync(values['save-config'], `${configToJSON(config)}\n`);
    const c = report.counts;
    process.stdout.write(
      `${path.basename(values.output)}: ${c.quantized} of ${c.nodes} nodes quantized, ${c.float} float, ` +
        (report.subgraphs?.quantized !== undefined
          ? `${report.subgraphs.quantized} of ${report.subgraphs.nodes} inside subgraphs quantized, `
          : '') +
        `${c.activationPairs} Q/DQ pairs, opset ${report.opset.before} → ${report.opset.after} ` +
        `(${((performance.now() - start) / 1000).toFixed(2)} s)\n${dataFile ? `external data: ${dataFile}\n` : ''}summary: ${summaryPath}\n`,
    );
    if (report.saturationSafeWeights) {
      process.stdout.write(
        `saturation-safe weights: ${report.saturationSafeWeights.length} of ${report.precision.weights} given 7-bit channels where onnxruntime's x86 int8 kernels could saturate (listed under saturationSafeWeights in the summary)\n`,
      );
    }
    if (report.saturationRisk) {
      const cpu = cpuInt8Kernels();
      process.stderr.write(
        cpu.saturates === false
          ? `note: ${report.saturationRisk.length} of ${report.precision.weights} weights could saturate onnxruntime's int8 kernels at its default graph optimization on ${SATURATING_CPUS}; not here: ${cpu.text} (--saturation-safe for a deployment on such a CPU; listed under saturationRisk in the summary)\n`
          : `note: ${report.saturationRisk.length} of ${report.precision.weights} weights could saturate onnxruntime's x86 CPU int8 kernels at its default graph optimization (${cpu.text}): qstudio evaluate measures it, --saturation-safe avoids it (listed under saturationRisk in the summary)\n`,
      );
    }
    const written = functionRulesSuggestion(model, config);
    if (written) {
      process.stderr.write(
        `note: this model writes activations out as several nodes (${written}); --attention quantizes each as one op, with Q/DQ at its input and output only. ` +
          `The best 8-bit route measured: --attention --calibration-method Sequential, then --finetune adaround --finetune-iterations 200 (${FUNCTION_RULES_ROUTE}); ` +
          `qstudio ladder tries it (bench/README.md, detector-targets)\n`,
      );
    }
    if (recovery) process.stdout.write(recoverySummary(recovery));
    for (const w of report.warnings.slice(0, 10)) process.stderr.write(`warning: ${w}\n`);
    const unknown = report.notFloat.filter((t) => t.elemType === 'unknown');
    if (unknown.length > 0) {
      process.stderr.write(
        `note: ${unknown.length} tensor(s) at quantized nodes have no known element type and got no Q/DQ (listed under notFloat in the summary)\n`,
      );
    }
    return 0;
  },
};

/**
 * The tensors `config`'s plan on `model` reads no range of (unreadRanges), or none where the model cannot be prepared
 * (an already quantized model, a bad exclusion): quantizeModel then says why after calibration, as before.
 */
function unreadOnPreparation(model: ModelProto, config: QuantConfig): Set<string> {
  let prepared;
  try {
    prepared = prepareQuantization(model, config);
  } catch {
    return new Set();
  }
  return unreadRanges(prepared, config);
}

/** What the search chose, in a few lines. */
function mixedPrecisionSummary(m: MixedPrecisionResult): string {
  const b = m.budget;
  const use = (k: keyof typeof b) => `${b[k].used}/${b[k].limit} of ${b[k].of}`;
  return (
    `mixed precision: ${m.metric ?? 'cosine'} ${m.startCosine.toFixed(5)} → ${m.cosine.toFixed(5)} on the sensitivity images (${m.reached ? 'target reached' : 'target not reached within the budget'}); ` +
    `16-bit activations ${use('act16')}, 16-bit weights ${use('w16')}, float nodes ${use('float')}` +
    `${m.window ? ` (one stretch of the graph: its first ${m.window.floatNodes} float nodes, 16 bits after them; it measured better than the units chosen apart)` : ''}; ` +
    `${m.steps.length} measurements in ${m.seconds.toFixed(1)} s\n`
  );
}

/** The search's result for the JSON summary (the configuration itself is written by --save-config). */
function mixedPrecisionJson(m: MixedPrecisionResult) {
  return {
    ...(m.metric && m.metric !== 'cosine' ? { metric: m.metric } : {}),
    startCosine: m.startCosine,
    cosine: m.cosine,
    reached: m.reached,
    chosen: m.chosen,
    ...(m.window ? { window: m.window } : {}),
    budget: m.budget,
    sensitivities: m.sensitivities
      .slice(0, 50)
      .map((s) => ({ kind: s.kind, names: s.units.flatMap((u) => u.names), cost: s.cost, gain: s.gain })),
    measurements: m.steps.length,
    seconds: m.seconds,
  };
}

/** `--config BF16`: the with-cast BF16 model; bfloat16 keeps float32's range, so no ranges are needed. */
async function writeBf16(
  modelPath: string,
  output: string | undefined,
  summaryPath: string | undefined,
): Promise<number> {
  if (!output) throw new UsageError('-o <out.onnx> is required');
  const start = performance.now();
  const { model: source, external } = readModelFile(modelPath);
  const { model, summary, report } = quantizeBf16(source);
  writeModelFile(output, model, external);
  await checkWrittenModel(output);
  const where = summaryPath ?? `${modelStem(output)}.json`;
  const extra = { warnings: report.warnings, ...(report.subgraphs ? { subgraphs: report.subgraphs } : {}) };
  fs.writeFileSync(
    where,
    `${JSON.stringify({ config: 'BF16', BF16QDQToCast: true, ...summary, ...extra }, null, 2)}\n`,
  );
  process.stdout.write(
    `${path.basename(output)}: BF16 with-cast, ${summary.activations} activations and ${summary.weights} weights through bfloat16 (${((performance.now() - start) / 1000).toFixed(2)} s)\nsummary: ${where}\n`,
  );
  for (const w of report.warnings) process.stderr.write(`warning: ${w}\n`);
  return 0;
}

/** --fp16-to-fp32 and --fp32-scale as configuration additions. */
function fp16Additions(conversions: string[] | undefined, fp32Scale: boolean | undefined) {
  const all = (conversions ?? []).includes('all');
  const subgraphs = (conversions ?? [])
    .filter((c) => c !== 'all')
    .map((c) => parseSubgraphArgument(c, '--fp16-to-fp32'));
  return {
    fp16SubgraphsToFp32: subgraphs,
    fp16Options: {
      ConvertFP16ToFP32: all || undefined,
      UseFP32Scale: fp32Scale || undefined,
      QuantizeFP16: subgraphs.length > 0 || fp32Scale || undefined,
    },
  };
}

const positiveNumber = (flag: string, text: string, integer: boolean): number => {
  const v = Number(text);
  if (!Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v)))
    throw new UsageError(`${flag} "${text}": expected a positive ${integer ? 'integer' : 'number'}`);
  return v;
};

/** Whether the configuration asks for a recovery step (CLE, SmoothQuant, bias correction, fast finetune). */
function asksRecovery(config: QuantConfig): boolean {
  return config.includeCle || config.includeSq || config.includeBiasCorrection || config.includeFastFt;
}

/** The command line's recovery switches as core RecoverySwitches on top of the configuration (a flag only turns a switch on). */
function recoverySwitchesOf(config: QuantConfig, values: Record<string, unknown>): QuantConfig {
  let smoothAlpha: number | undefined;
  if (values['sq-alpha'] !== undefined) {
    if (!values['smooth-quant'] && !config.includeSq) throw new UsageError('--sq-alpha goes with --smooth-quant');
    smoothAlpha = Number(values['sq-alpha']);
    if (!Number.isFinite(smoothAlpha) || smoothAlpha < 0 || smoothAlpha > 1)
      throw new UsageError(`--sq-alpha "${String(values['sq-alpha'])}": expected a number in [0, 1]`);
  }
  const cleSteps =
    values['cle-steps'] === undefined ? undefined : positiveNumber('--cle-steps', String(values['cle-steps']), true);
  const algorithm = values.finetune as string | undefined;
  if (algorithm !== undefined) {
    if (algorithm !== 'adaround' && algorithm !== 'adaquant')
      throw new UsageError(`--finetune "${algorithm}": expected adaround or adaquant`);
  } else if (values['finetune-iterations'] !== undefined || values['finetune-lr'] !== undefined) {
    throw new UsageError('--finetune-iterations and --finetune-lr go with --finetune adaround|adaquant');
  }
  const on = (flag: string) => (values[flag] ? true : undefined);
  return withRecoverySwitches(config, {
    cle: on('cle'),
    attention: on('attention'),
    smoothQuant: on('smooth-quant'),
    smoothAlpha,
    cleSteps,
    biasCorrection: on('bias-correction'),
    finetune: algorithm !== undefined ? true : undefined,
    algorithm,
    iterations:
      values['finetune-iterations'] === undefined
        ? undefined
        : positiveNumber('--finetune-iterations', String(values['finetune-iterations']), true),
    learningRate:
      values['finetune-lr'] === undefined
        ? undefined
        : positiveNumber('--finetune-lr', String(values['finetune-lr']), false),
  });
}

/** --tune-sensitive's share, checked (sensitiveShareArgument), with --finetune. */
function sensitiveShareOf(text: string | undefined, config: QuantConfig): number | undefined {
  if (text === undefined) return undefined;
  if (!config.includeFastFt) throw new UsageError('--tune-sensitive goes with --finetune adaround|adaquant');
  return sensitiveShareArgument(text);
}

/** Recovery progress on stderr: phases, and one line per tuned layer with its loss before → after. */
function recoveryProgress(): (p: RecoveryProgress) => void {
  return (p) => {
    if (p.phase === 'layer') {
      const loss =
        p.lossBefore !== undefined ? `  loss ${p.lossBefore.toPrecision(4)} → ${p.lossAfter!.toPrecision(4)}` : '';
      process.stderr.write(`  [${p.done}/${p.total}] ${p.id}${loss}\n`);
    } else if (p.phase === 'gather') {
      if (p.stage === 0) process.stderr.write(`layer data: ${p.stages} stage${p.stages === 1 ? '' : 's'} by depth\n`);
    } else process.stderr.write(`${p.phase}…\n`);
  };
}

function recoverySummary(r: RecoveryReport): string {
  const lines: string[] = [];
  if (r.cle)
    lines.push(
      `CLE: ${r.cle.pairs.length} layer pairs equalized in ${r.cle.steps} step(s), ${r.cle.skipped.length} skipped (${[...new Set(r.cle.skipped.map((s) => s.reason))].slice(0, 2).join('; ') || 'none'})`,
    );
  if (r.smoothQuant)
    lines.push(
      `SmoothQuant (alpha ${r.smoothQuant.alpha}): ${r.smoothQuant.tensors.length} activation tensor(s) smoothed`,
    );
  if (r.biasCorrection)
    lines.push(
      `bias correction: ${r.biasCorrection.layers.length} layers, ${r.biasCorrection.saturatedBiases} bias values saturated`,
    );
  if (r.finetune) {
    const f = r.finetune;
    lines.push(
      `${f.algorithm}: ${f.layers.filter((l) => !l.kept).length} of ${f.layers.length} layers changed, loss ${f.lossBefore.toPrecision(4)} → ${f.lossAfter.toPrecision(4)} in ${f.seconds.toFixed(1)} s`,
    );
    if (f.unselected)
      lines.push(
        `sensitive layers (share ${f.sensitive?.share}): ${f.unselected.length} left at nearest rounding (${f.unselected
          .slice(0, 3)
          .map((u) => u.id)
          .join(', ')}${f.unselected.length > 3 ? ', …' : ''})`,
      );
  }
  if (r.skippedLayers.length)
    lines.push(`not tuned: ${r.skippedLayers.length} layer(s) (${r.skippedLayers[0].reason}, …)`);
  return lines.map((l) => `${l}\n`).join('');
}
