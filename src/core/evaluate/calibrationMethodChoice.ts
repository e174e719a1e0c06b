/**
 * The calibration method chosen per model by held-in measurement: the calibration samples are split in two, each
 * candidate method's ranges come from the first part, the model quantized with them is judged on the second part
 * (mean output cosine to the float model, at the level the user deploys to), and the best wins; the preset's own
 * method keeps a tie. Only calibration data is used, so a figure judged afterwards on held-out data stays held out.
 *
 * One pass gathers every candidate's statistics (the runner folds each run into one set per method), the float
 * model's outputs on the judging part are computed once for all candidates, and the chosen method's ranges over all
 * samples are its first-part statistics merged with one pass over the second part: each sample runs once through
 * the exposed float model, as a plain calibration's does.
 *
 * A float16 model written with float16 Q/DQ scales has its candidates judged with float32 scales (judgedScaleForm.ts:
 * the same ranges, plan and weights, which onnxruntime runs faster), and the chosen one written as asked.
 *
 * Measured on the benchmarked models (bench preset-methods): no single method is at least as good as MinMax on
 * every model, while the per-model choice is, at both onnxruntime levels; so it is A8W8's default (presets.ts
 * HELD_IN_DEFAULT). Statistics, quantization and the judge are injected; must not import a runtime or read files.
 */
import type { ModelProto } from '../onnx/model.ts';
import { asSessionModel, type ModelBytes } from '../onnx/externalize.ts';
import type { CalibrationMethod, QuantConfig } from '../quantize/config.ts';
import type { TensorRange } from '../quantize/plan.ts';
import {
  prepareQuantization,
  preparationKey,
  quantizePrepared,
  type PreparedQuantization,
} from '../quantize/quantizeModel.ts';
import { mergeTensorStates, rangesOf, type TensorStates } from '../calibrate/run/statistics.ts';
import { standInsUnread, unreadRanges, withUnreadRanges } from '../quantize/unreadRanges.ts';
import { QuantizedWeights } from '../quantize/weights.ts';
import {
  compareModels,
  floatSessionModel,
  type ComparisonRuntime,
  type RunTensor,
  type SampleSession,
} from './compareModels.ts';
import { meanOutputCosine, UNREAD_BY_FIGURES } from './outputMetrics.ts';
import { FLOAT32_SCALES, JUDGED_FORM_TEXT, judgedScaleForm } from './judgedScaleForm.ts';
import { float16Nodes } from '../halfFloat/float16.ts';

/**
 * What the judge measures: only the output cosine and the all-zero count it reads; SSIM, top-k, sequence agreement,
 * L2, MSE and PSNR are not computed (SSIM on ISNet's three 1024² maps took about 10 s of each candidate's 15 s judgement).
 */
export const JUDGED_ONLY = { ...UNREAD_BY_FIGURES, agreement: 'never', sequence: 'never', errors: 'never' } as const;

/**
 * The float-scale methods a preset may swap in (power-of-two presets: MinMax and MinMSE). Percentile is not a
 * candidate: its held-in figure was below another method's on every model measured (the six benchmarked models and
 * ISNet, judged at 'all' and at 'basic', bench/results/held-in-judge-level.json), so judging it never changed a choice,
 * and on ISNet its judgement was a sixth of the whole command's CPU time (bench/README.md, "Percentile left out").
 * `candidates` still takes it.
 */
export const CHOICE_METHODS: readonly CalibrationMethod[] = ['MinMax', 'MinMSE', 'Entropy'];

/** What `--calibration-method` (and the page's method list) says to ask for the choice. */
export const HELD_IN_METHOD = 'held-in';

export interface MethodMeasurement {
  readonly method: CalibrationMethod;
  /**
   * Mean output cosine on the judging part of the calibration samples, as outputMetrics defines it: where a side is
   * all zeros (Quark's 0 / 0), 0 against a non-zero output and 1 against an all-zero one, so no NaN is compared.
   */
  readonly cosine: number;
  /** Judged samples (summed over outputs) whose quantized output is all zeros against a non-zero float one. */
  readonly allZero: number;
}

export interface MethodChoice {
  readonly chosen: CalibrationMethod;
  /** Every candidate measured, in the order tried (the preset's own method first). */
  readonly measured: readonly MethodMeasurement[];
  /** Calibration samples that calibrated the candidates, and those that judged them. */
  readonly calibrated: number;
  readonly judged: number;
  /**
   * Set where the candidates were judged in another form than the written one: a float16 model written with float16
   * Q/DQ scales is judged with float32 scales (judgedScaleForm.ts), which onnxruntime runs about twice as fast.
   */
  readonly judgedForm?: typeof FLOAT32_SCALES;
  /**
   * Set where the model has no output with a cosine (every output is one number a sample: a wake-word score, judged by
   * decision agreement and absolute error, outputMetrics.ts): there is no figure to choose by, so the preset's own
   * method is kept after its one measurement, the others not judged. The mean absolute error on the calibration
   * samples was tried as the figure and chose worse held out (bench/README.md, npm-corpus).
   */
  readonly noFigure?: true;
}

/** The choice, and the chosen method's configuration and ranges over every calibration sample. */
export interface HeldInCalibration {
  readonly choice: MethodChoice;
  readonly config: QuantConfig;
  readonly ranges: Map<string, TensorRange>;
  /** The model as prepared for the chosen configuration (its weights quantized by the candidates' plans), to write it. */
  readonly prepared: PreparedQuantization;
  /**
   * Tensors not observed (`planAlone`), whose entries in `ranges` are stand-ins: the writer's plan must fold each
   * (standInsUnread), or the caller calibrates in full. Empty otherwise.
   */
  readonly unread: ReadonlySet<string>;
}

export interface MethodChoiceOptions {
  /** The preset's configuration; its own method is tried first and keeps a tie. */
  readonly config: QuantConfig;
  /** The configuration with `method` in place of the preset's own (core/quantize/presets.ts presetWithMethod). */
  readonly withMethod: (method: CalibrationMethod) => QuantConfig;
  /** Calibration samples in all (heldInSplit splits them). */
  readonly samples: number;
  /**
   * One pass over the calibration samples `indices`, folding each run into one set of statistics per configuration
   * (core/calibrate/run/runner.ts `alsoFor`), in the order given, leaving the tensors `unobserved` out (the runner's
   * `unobserved`).
   */
  readonly collect: (
    indices: readonly number[],
    configs: readonly QuantConfig[],
    unobserved: ReadonlySet<string>,
  ) => Promise<TensorStates[]>;
  /**
   * The ranges serve the candidates' plans and the chosen configuration's one plan alone (no exclusion search or
   * recovery follows): tensors that no candidate's plan reads a range of (unreadRanges) are not observed. The
   * judged figures and the chosen ranges are the same as with every tensor observed; where a candidate's plan reads
   * a stand-in after all, the choice is made again with every tensor observed.
   */
  readonly planAlone?: boolean;
  /** The calibration samples `indices` to judge on, at the level the figure is aimed at. */
  readonly judge: (indices: readonly number[]) => ComparisonRuntime;
  readonly configName: string;
  /**
   * The configuration a candidate is judged in (its ranges and plan the same): by default judgedScaleForm.ts's (a
   * float16 model's candidates with float32 scales); the identity judges each as written (bench heldInJudgedForm).
   */
  readonly judgedForm?: (config: QuantConfig) => QuantConfig;
  readonly candidates?: readonly CalibrationMethod[];
  readonly onMeasured?: (m: MethodMeasurement) => void;
}

/** The held-in split of `count` calibration samples: even indices calibrate, odd ones judge (both non-empty). */
export function heldInSplit(count: number): { calibrate: number[]; judge: number[] } {
  if (count < 2)
    throw new Error(`choosing a calibration method by measurement needs at least 2 calibration samples, got ${count}`);
  const all = Array.from({ length: count }, (_, i) => i);
  return { calibrate: all.filter((i) => i % 2 === 0), judge: all.filter((i) => i % 2 === 1) };
}

/** The candidate configurations, the preset's own first; a method the preset's scale type does not take is left out. */
function candidateConfigs(o: MethodChoiceOptions): { method: CalibrationMethod; config: QuantConfig }[] {
  const own = o.config.calibrationMethod;
  const out: { method: CalibrationMethod; config: QuantConfig }[] = [];
  for (const method of [own, ...(o.candidates ?? CHOICE_METHODS).filter((m) => m !== own)]) {
    try {
      out.push({ method, config: method === own ? o.config : o.withMethod(method) });
    } catch {
      // power-of-two presets take MinMax and MinMSE only
    }
  }
  return out;
}

/**
 * Measures each candidate method on the held-in split, returns the best (the preset's own on a tie) with its ranges
 * over every calibration sample.
 */
export async function calibrateByHeldInChoice(model: ModelProto, o: MethodChoiceOptions): Promise<HeldInCalibration> {
  const part = heldInSplit(o.samples);
  const candidates = candidateConfigs(o);
  // The candidates differ in calibration alone: one preparation, and one quantization of each weight, serve them all
  // (a float16 model's judged and written forms are two preparations sharing the weights of the same tensors).
  const preparations = new Map<string, PreparedQuantization>();
  const weights = new QuantizedWeights();
  const preparedFor = (config: QuantConfig) => {
    const key = preparationKey(config);
    let p = preparations.get(key);
    if (!p) preparations.set(key, (p = prepareQuantization(model, config, weights)));
    return p;
  };
  const unread = o.planAlone ? unreadByEvery(candidates, preparedFor) : new Set<string>();
  const statistics = await o.collect(
    part.calibrate,
    candidates.map((c) => c.config),
    unread,
  );
  const judge = withReferenceKept(o.judge(part.judge));
  // The float model, encoded once: each candidate's comparison opens these bytes, which the judge answers from its
  // first run's outputs.
  const floatSession = floatSessionModel(model);
  // A float16 model written with float16 scales is judged in its float32-scale form (judgedScaleForm.ts).
  const judgedForm = o.judgedForm ?? judgedScaleForm(float16Nodes(model).size > 0);
  const measured: MethodMeasurement[] = [];
  let best = 0;
  for (let i = 0; i < candidates.length; i++) {
    const config = judgedForm(candidates[i].config);
    const result = quantizePrepared(
      preparedFor(config),
      withUnreadRanges(rangesOf(statistics[i]), unread),
      config,
      o.configName,
    );
    if (!standInsUnread(result.plan.folded, unread)) return calibrateByHeldInChoice(model, { ...o, planAlone: false });
    const comparison = await compareModels(model, result.model, judge, { ...JUDGED_ONLY, floatSession });
    const m = {
      method: candidates[i].method,
      cosine: meanOutputCosine(comparison.outputs).cosine,
      allZero: comparison.outputs.reduce((n, s) => n + (s.allZero?.samples ?? 0), 0),
    };
    measured.push(m);
    // No output has a cosine (each is one number a sample): nothing to compare, the preset's own method stays.
    if (!Number.isFinite(m.cosine)) break;
    o.onMeasured?.(m);
    if (m.cosine > measured[best].cosine) best = i;
  }
  const noFigure = !Number.isFinite(measured[0].cosine);
  const chosen = candidates[best];
  const [rest] = await o.collect(part.judge, [chosen.config], unread);
  return {
    choice: {
      chosen: chosen.method,
      measured,
      calibrated: part.calibrate.length,
      judged: part.judge.length,
      ...(judgedForm(chosen.config) !== chosen.config ? { judgedForm: FLOAT32_SCALES } : {}),
      ...(noFigure ? { noFigure: true as const } : {}),
    },
    config: chosen.config,
    ranges: withUnreadRanges(rangesOf(mergeTensorStates(statistics[best], rest)), unread),
    prepared: preparedFor(chosen.config),
    unread,
  };
}

/** The tensors that no candidate's plan reads a range of (unreadRanges on each one's preparation). */
function unreadByEvery(
  candidates: readonly { config: QuantConfig }[],
  preparedFor: (config: QuantConfig) => PreparedQuantization,
): Set<string> {
  const each: Set<string>[] = [];
  try {
    for (const { config } of candidates) each.push(unreadRanges(preparedFor(config), config));
  } catch {
    return new Set(); // a model that cannot be prepared: quantizing says why, after calibration as before
  }
  return new Set([...(each[0] ?? [])].filter((t) => each.every((u) => u.has(t))));
}

/** What the held-in figure is, for the chooser's line. */
export const HELD_IN_FIGURE =
  "mean output cosine at onnxruntime's default 'all', an all-zero quantized output counting 0";

/** Why a choice without a figure kept the preset's own method (`noFigure`). */
export const NO_FIGURE_TEXT =
  'not chosen by measurement: every output of the model is one number a sample (a score or a probability), which has no cosine to compare the methods by, so the preset’s own is kept';

/** One method's held-in figure, with the judged samples it zeroed where it did. */
export function measurementText(m: MethodMeasurement): string {
  return `${m.cosine.toFixed(5)}${m.allZero ? ` (quantized output all zeros on ${m.allZero} judged)` : ''}`;
}

/** The choice in one line: each method's held-in figure and the one chosen (and the form judged, where not the written one). */
export function heldInSummary(choice: MethodChoice): string {
  const list = choice.measured.map((m) => `${m.method} ${measurementText(m)}`).join(', ');
  return `${list} → ${choice.chosen}${choice.judgedForm ? ` (${JUDGED_FORM_TEXT[choice.judgedForm]})` : ''}`;
}

/**
 * Whether two encodings are the same bytes: four at a time where both start on a 4-byte boundary (a model's bytes
 * are 100-200 MB; a callback per byte took about 0.5 s of each candidate's judgement on ISNet).
 */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  let i = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const words = a.length >>> 2;
    const wa = new Uint32Array(a.buffer, a.byteOffset, words);
    const wb = new Uint32Array(b.buffer, b.byteOffset, words);
    for (; i < words; i++) if (wa[i] !== wb[i]) return false;
    i = words * 4;
  }
  for (; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `runtime` with the first model it opens (compareModels opens the float model first) kept: a later open of the
 * same model bytes (external data references included; the quantized model's differ) answers each sample from the outputs already computed, so the float model runs once for every
 * candidate.
 */
function withReferenceKept(runtime: ComparisonRuntime): ComparisonRuntime {
  let reference: { bytes: Uint8Array; outputs: Map<string, Readonly<Record<string, RunTensor>>> } | null = null;
  return {
    ...runtime,
    async open(model: ModelBytes): Promise<SampleSession> {
      const bytes = asSessionModel(model).bytes;
      const kept = reference === null ? null : sameBytes(reference.bytes, bytes) ? reference : undefined;
      if (kept === undefined) return runtime.open(model);
      const outputs = kept?.outputs ?? new Map<string, Readonly<Record<string, RunTensor>>>();
      if (reference === null) reference = { bytes, outputs };
      let session: SampleSession | null = null;
      return {
        async run(sample, names) {
          const key = `${sample}|${names.join('\u0000')}`;
          const known = outputs.get(key);
          if (known) return known;
          session ??= await runtime.open(model);
          const got = await session.run(sample, names);
          outputs.set(key, got);
          return got;
        },
        release: async () => {
          await session?.release();
          session = null;
        },
      };
    },
  };
}
