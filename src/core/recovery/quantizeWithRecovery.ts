/**
 * Quantization with Quark's accuracy-recovery steps, the one entry point the command line, a worker and the
 * ladder share:
 *
 *   prepare (BatchNormalization folded, nodes named by their stable ids so exclusions keep their meaning)
 *   → CLE (include_cle) → SmoothQuant (include_sq, channel maxima measured on the samples)
 *   → calibrate(the equalized, smoothed model; without CLE or SmoothQuant the user's) → quantize
 *   → per stage of layers: gather layer data → AdaRound/AdaQuant (include_fast_ft) → bias correction
 *
 * Calibration is a callback because its ranges depend on CLE: they must be measured on the equalized model.
 * Layers are taken by depth in the graph (counted in tuned layers), one pass over the data per depth, so each
 * layer learns the float target on inputs that carry every upstream layer's tuning (as Quark's layer-by-layer
 * finetune does). The float model's layer inputs never change, so they are gathered once for many depths (one
 * run per sample for as many layers as the memory budget holds, and kept across calls in a FloatRowCache); each
 * depth's pass runs only the quantized model, cut down to the nodes its layers' inputs depend on. Optionally
 * consecutive depths share a pass (faster); a layer tuned in the same pass as an upstream layer then learns only
 * its own error. The runtime is injected (ComparisonRuntime); cancel through `signal`.
 * Must not import a runtime or read files.
 */
import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import { entersBodies, scopedBodies } from '../quantize/bodyViews.ts';
import { float16Nodes, float16ToFloat32 } from '../halfFloat/float16.ts';
import type { ModelProto, NodeId } from '../onnx/model.ts';
import { prepare } from '../prepare/prepare.ts';
import { carryNodeIds } from '../prepare/nodeOrigin.ts';
import type { QuantConfig } from '../quantize/config.ts';
import type { Ranges } from '../quantize/plan.ts';
import { quantizeModel } from '../quantize/quantizeModel.ts';
import type { QuantizeReport } from '../quantize/quantizeReport.ts';
import type { ComparisonRuntime } from '../evaluate/compareModels.ts';
import { crossLayerEqualize, type CleReport } from './cle.ts';
import { applySmoothQuant, channelAbsMax, smoothQuantCandidates, type SmoothQuantReport } from './smoothQuant.ts';
import {
  gatherLayerRows,
  RecoveryError,
  sampleLayerInputs,
  throwIfCancelled,
  type CancelSignal,
  type SideRows,
} from './layerData.ts';
import { FloatRowCache } from './floatRowCache.ts';
import { bodyRecoveryWarning, untreatedBodyLayers, type UntreatedBodyLayers } from './bodyLayers.ts';
import { canRunIncrementally, QuantizedPasses, type PassStats } from './quantizedPasses.ts';
import {
  applyLayerUpdates,
  findLinearLayers,
  type LayerUpdate,
  type LinearLayer,
  type SkippedLayer,
} from './linearLayers.ts';
import { buildLayerProblemOn, type GramProductFactory } from './layerProblem.ts';
import type { DenseProduct } from './denseProduct.ts';
import { adaround } from './adaround.ts';
import { adaquant } from './adaquant.ts';
import { correctBias } from './biasCorrection.ts';
import { layerRoundingError, type CurvePoint, type LayerTuning, type TuningSummary } from './tuning.ts';
import { TunedLayerMemo, type LayerOutcome } from './tunedLayerMemo.ts';
import { arrayFingerprint, scopedTensorKey, ValueFingerprints, type Fingerprint } from './valueFingerprints.ts';
import { digestText } from '../digest.ts';
import {
  chooseSensitiveLayers,
  measureAddedNoise,
  noiseConcentration,
  sensitiveShareRule,
  SensitivityCache,
  type LayerNoise,
  type SensitiveChoice,
} from './sensitiveLayers.ts';

export type RecoveryProgress =
  | { readonly phase: 'prepare' | 'cle' | 'smoothquant' | 'calibrate' | 'quantize' }
  | { readonly phase: 'gather'; readonly stage: number; readonly stages: number }
  | {
      readonly phase: 'layer';
      readonly id: NodeId;
      /** Layers finished, of all tuned layers. */
      readonly done: number;
      readonly total: number;
      readonly lossBefore?: number;
      readonly lossAfter?: number;
      readonly curve?: readonly CurvePoint[];
    };

export interface RecoveryOptions {
  /** Ranges of the model as it will be quantized (after CLE): the equalized model is passed in. */
  readonly calibrate: (model: ModelProto) => Promise<Ranges>;
  /** Runs the models on calibration samples; required for bias correction and fast finetune. */
  readonly runtime?: ComparisonRuntime;
  readonly signal?: CancelSignal;
  readonly onProgress?: (p: RecoveryProgress) => void;
  readonly configName?: string;
  /** A runtime's matrix product for the optimizers (see layerProblem.ts); plain TypeScript when absent. */
  readonly gramProduct?: GramProductFactory;
  /** A runtime's float64 MatMul for building each layer's problem and scoring its codes (denseProduct.ts); TypeScript when absent. */
  readonly denseProduct?: DenseProduct;
  /** Most bytes of layer data (input rows, float and quantized) one pass gathers; default 256 MiB. */
  readonly layerDataBudgetBytes?: number;
  /**
   * Merge consecutive depths into one pass while the budget allows: fewer passes (faster), but layers tuned in
   * the same pass as an upstream layer only learn their own error. Default false: one pass per depth, which
   * measured better (bench/README.md, suite recover).
   */
  readonly mergeDepths?: boolean;
  /**
   * Float layer rows kept from earlier calls on the same model, runtime and samples (the ladder's rungs): the float
   * model's layer inputs do not depend on the format or the algorithm, only on the graph, CLE and SmoothQuant.
   */
  readonly floatRowCache?: FloatRowCache;
  /**
   * Most bytes of the quantized model's tensors kept between passes (QuantizedPasses: each node runs about once per
   * sample over all passes instead of once per pass); 0 runs every pass from the graph inputs. Default 1 GiB.
   */
  readonly keptTensorBudgetBytes?: number;
  /**
   * What every layer reconstructs: 'asymmetric' (default) the float layer on the float input where its upstream
   * layers are done (it then also makes up their loss; layers tuned in the same pass as an upstream layer take
   * the local target), or 'local' everywhere: the float weights on the layer's own quantized input, so a layer
   * only undoes its own weights' rounding and does not fit the activation noise it receives (which, with most
   * activations at 8 bits and a few calibration samples, is what the asymmetric target mostly learns).
   */
  readonly reconstruction?: 'asymmetric' | 'local';
  /**
   * Fine-tune only the layers the measurement points at: a layer whose own weight rounding costs less than this share
   * of its output (layerRoundingError on its gathered input rows) keeps its nearest-rounded codes, and its problem is
   * never built. Default 0: every layer is tuned (measured on the recognizer: bench/README.md finetune-recognizer).
   */
  readonly minRoundingError?: number;
  /**
   * The plateau stop (TuneOptions.plateau): a layer stops learning once its loss improved by less than this share
   * over a window of a twentieth of the iterations. Default 0: off (measured on four models: bench/README.md
   * ladder-budget).
   */
  readonly plateauStop?: number;
  /**
   * Fine-tune only the layers the per-layer sensitivity points at (sensitiveLayers.ts): the noise each layer adds in
   * the plain quantized model is measured on a few tuning samples, and the layers that add the most are tuned until
   * theirs sum to this share of all; the others keep nearest rounding and, without bias correction, are never gathered.
   * 1 or left out: every layer (no rule measured at least as good held out on every benchmarked model:
   * sensitiveShareRule, bench/README.md ladder-budget).
   */
  readonly sensitiveShare?: number;
  /**
   * Layers' added noise kept across calls on the same source model and runtime (the ladder's rungs): runs of one plain
   * configuration measure it once.
   */
  readonly sensitivityCache?: SensitivityCache;
  /**
   * Layers' outcomes kept from earlier calls on the same runtime and samples (the ladder's rungs, its exclusion search's
   * steps): a layer whose input each model computes the same way (valueFingerprints.ts), with the same weights, grid,
   * bias, target and options, takes the kept codes and bias (tunedLayerMemo.ts) instead of being gathered and tuned
   * again, and a pass whose layers are all kept is not run. The written model is the same byte for byte. Layers of If
   * branches are kept by scoped id too (their inputs fingerprinted inside the branch: ValueFingerprints.ofScoped).
   */
  readonly tunedLayerMemo?: TunedLayerMemo;
}

export interface TunedLayerSummary extends TuningSummary {
  readonly id: NodeId;
  /** Taken from an earlier run (RecoveryOptions.tunedLayerMemo): `seconds` is what that run spent on it. */
  readonly reused?: boolean;
}

export interface RecoveryReport {
  readonly cle?: CleReport;
  readonly smoothQuant?: SmoothQuantReport;
  readonly finetune?: {
    readonly algorithm: 'adaround' | 'adaquant';
    readonly layers: readonly TunedLayerSummary[];
    /** Σ of the layers' reconstruction losses before and after. */
    readonly lossBefore: number;
    readonly lossAfter: number;
    readonly seconds: number;
    /** Of `seconds`, building the layers' problems (G, c from the gathered rows) and scoring codes before and after. */
    readonly buildSeconds: number;
    /** Layers left at nearest rounding by `minRoundingError`, with their measured rounding error. */
    readonly untuned?: readonly { readonly id: NodeId; readonly roundingError: number }[];
    /** Layers left at nearest rounding by `sensitiveShare`, with the noise each was measured to add. */
    readonly unselected?: readonly LayerNoise[];
    /** The share tuned to and why (the user's, or the default: every layer). */
    readonly sensitive?: SensitiveChoice & {
      /** Every layer's measured added noise (absent at a share of 1, where nothing is measured). */
      readonly layerNoise?: readonly LayerNoise[];
      /** noiseConcentration of `layerNoise`. */
      readonly concentration?: number;
      /** Whether `layerNoise` came from an earlier run of the same plain configuration (sensitivityCache). */
      readonly shared?: boolean;
    };
    /** Seconds spent measuring the layers' added noise for `sensitiveShare` (0 when shared). */
    readonly sensitivitySeconds?: number;
  };
  readonly biasCorrection?: {
    readonly layers: readonly { readonly id: NodeId; readonly shiftBefore: number }[];
    /** Bias values that did not fit their quantized grid and saturated. */
    readonly saturatedBiases: number;
    readonly seconds: number;
  };
  /** Layers neither step could work on, and why. */
  readonly skippedLayers: readonly SkippedLayer[];
  /**
   * What the steps asked for would have treated inside If/Loop/Scan bodies and did not, and the warning that counts it
   * (also among the quantization report's warnings). Absent when they left nothing there.
   */
  readonly untreatedInBodies?: { readonly steps: readonly UntreatedBodyLayers[]; readonly warning: string };
  /**
   * Seconds per phase; `gather` is the time spent running the models for layer data, `gatherFloat` the part of it
   * spent on the float model (0 when every row came from the FloatRowCache).
   */
  readonly seconds: {
    readonly prepare: number;
    readonly cle: number;
    readonly calibrate: number;
    readonly quantize: number;
    readonly gather: number;
    readonly gatherFloat: number;
    readonly total: number;
  };
  readonly samples: number;
  readonly stages: number;
  /** What the quantized passes ran and kept, when they ran as sub-models (QuantizedPasses). */
  readonly passes?: PassStats;
  /** Layers whose outcome came from RecoveryOptions.tunedLayerMemo, and passes not run because all of theirs did. */
  readonly reused?: { readonly layers: number; readonly passes: number };
}

export interface RecoveryResult {
  readonly model: ModelProto;
  readonly report: QuantizeReport;
  readonly recovery: RecoveryReport;
  /** The float model the steps worked on (prepared, equalized): the reference for comparisons. */
  readonly floatModel: ModelProto;
}

/** Why a layer inside an If branch has no rows to learn from. */
const BRANCH_NOT_RUN =
  'no calibration sample ran its branch (or not the same samples in the float and quantized models)';

/**
 * The model whose activations are calibrated: the user's, unless CLE or SmoothQuant changed what the tensors hold.
 * Preparation alone (folds that keep every surviving tensor's name) changes them by float rounding only, and a plain
 * run calibrates the user's model: so a fine-tuning or bias-correction run calibrates the same ranges as the plain run
 * of its configuration, whichever runs first, and a ladder's rung rebuilt alone from its configuration is the rung the
 * ladder measured (ladderMeasure.ts calibrationKey shares one calibration between them).
 */
function calibratedModel(user: ModelProto, transformed: ModelProto, config: QuantConfig): ModelProto {
  return config.includeCle || config.includeSq ? transformed : user;
}

/** Prepares the graph and names every node by its stable id, so ids given for the model as loaded still resolve. */
export function prepareNamed(
  model: ModelProto,
  foldConvAffine = true,
): { model: ModelProto; actions: readonly string[] } {
  const index = buildGraphIndex(model.graph!);
  const prepared = prepare(model, { foldConvAffine });
  const nodes = prepared.model.graph!.node;
  const ids = carryNodeIds(index.nodes, index.ids, nodes, prepared.origin);
  const named = nodes.map((n, i) => ({ ...n, name: ids[i] }));
  return {
    model: { ...prepared.model, graph: { ...prepared.model.graph!, node: named } },
    actions: prepared.summary.actions,
  };
}

/** The initializers a layer's update may rewrite besides its weight codes: its bias. */
function biasTensors(l: LinearLayer): string[] {
  const b = l.biasStore;
  return b.kind === 'float' ? [b.name] : b.kind === 'quantized' ? [b.codes] : [];
}

/**
 * Tuned layers by depth: a layer's depth is the number of tuned layers on its longest input path. A layer inside an If
 * branch counts from its holder's depth, and the holder's output from the deepest layer of its branches. The holder's
 * depth counts what its branches read from the enclosing scopes without the If listing it (GraphIndex.pred has those
 * reads: test recovery-bodies).
 */
function depthLevels(quantModel: ModelProto, layers: readonly LinearLayer[]): LinearLayer[][] {
  const byOutput = new Map(layers.map((l) => [scopedTensorKey(l.scope, l.output), l]));
  const scopes = new Set(layers.map((l) => l.scope));
  const bodies =
    scopes.size > 1 || !scopes.has('') ? new Map(scopedBodies(quantModel).map((b) => [b.prefix, b])) : undefined;
  const levels: LinearLayer[][] = [];
  /** Places the layers of one graph from depth `start`; returns the deepest depth its outputs reach. */
  const place = (index: GraphIndex, scope: string, start: number): number => {
    const depth = new Int32Array(index.nodes.length);
    let deepest = start;
    for (const i of index.order) {
      let d = start;
      for (let k = index.predStart[i]; k < index.predStart[i + 1]; k++) d = Math.max(d, depth[index.pred[k]]);
      const n = index.nodes[i];
      const l = byOutput.get(scopedTensorKey(scope, n.output[0]));
      if (l) (levels[d] ??= []).push(l);
      let after = d + (l ? 1 : 0);
      if (bodies && entersBodies(n)) {
        const holder = `${scope}${n.name || index.ids[i]}/`;
        for (const a of n.attribute) {
          const body = a.g && bodies.get(`${holder}${a.name}/`);
          if (body) after = Math.max(after, place(body.index, body.prefix, d));
        }
      }
      depth[i] = after;
      deepest = Math.max(deepest, after);
    }
    return deepest;
  };
  place(buildGraphIndex(quantModel.graph!), '', 0);
  return levels.filter(Boolean);
}

/** One pass over the data: its layers, and which of them learn the float target (see ReconstructionTarget). */
interface Stage {
  readonly layers: LinearLayer[];
  readonly floatTarget: Set<LinearLayer>;
}

/**
 * One pass per depth (split when its layer data exceeds `budgetBytes`), or with `mergeDepths` consecutive depths
 * merged while they fit (one pass is what costs: two sessions and a run per sample). Layers of a pass's first
 * depth see every upstream layer already tuned and take the float target; deeper layers of the pass the local one.
 */
function planStages(
  levels: readonly LinearLayer[][],
  bytesOf: (l: LinearLayer) => number,
  budgetBytes: number,
  mergeDepths: boolean,
): Stage[] {
  const stages: Stage[] = [];
  let current: Stage | undefined;
  let bytes = 0;
  let startLevel = 0;
  levels.forEach((level, li) => {
    for (const layer of level) {
      const b = bytesOf(layer);
      const newDepth = li !== startLevel && !mergeDepths;
      if (!current || newDepth || (bytes + b > budgetBytes && current.layers.length > 0)) {
        current = { layers: [], floatTarget: new Set() };
        stages.push(current);
        bytes = 0;
        startLevel = li;
      }
      // Layers of one depth never feed each other, so all of the stage's first depth has its upstream tuned.
      if (li === startLevel) current.floatTarget.add(layer);
      current.layers.push(layer);
      bytes += b;
    }
  });
  return stages;
}

/** Quantizes with the recovery steps the configuration asks for. Throws RecoveryError, and what quantizeModel throws. */
export async function quantizeWithRecovery(
  source: ModelProto,
  config: QuantConfig,
  options: RecoveryOptions,
): Promise<RecoveryResult> {
  const t0 = performance.now();
  const tune = config.includeFastFt;
  const correct = config.includeBiasCorrection;
  // The recovery algorithms rewrite float32 weights: a float16 model goes through them as float32 (ConvertFP16ToFP32).
  const half = (config.includeCle || tune || correct) && float16Nodes(source).size > 0;
  if (half && !config.extraOptions.ConvertFP16ToFP32) {
    throw new RecoveryError(
      'CLE, bias correction and fast finetune work on float32 weights: for a float16 model set ConvertFP16ToFP32 (qstudio: --fp16-to-fp32 all), or quantize it without them',
    );
  }
  const model = half ? float16ToFloat32(source) : source;
  if ((tune || correct) && !options.runtime)
    throw new RecoveryError('bias correction and fast finetune need a runtime and calibration samples');
  if (config.includeSq && !options.runtime)
    throw new RecoveryError('SmoothQuant needs a runtime and calibration samples (its channel maxima are measured)');
  const x = config.extraOptions;
  const ft = x.FastFinetune;
  const progress = options.onProgress ?? (() => {});

  progress({ phase: 'prepare' });
  const prepared =
    config.includeCle || config.includeSq || tune || correct
      ? prepareNamed(model, config.foldConvAffine)
      : { model, actions: [] };
  const t1 = performance.now();
  let floatModel = prepared.model;
  let cle: CleReport | undefined;
  if (config.includeCle) {
    progress({ phase: 'cle' });
    const eq = crossLayerEqualize(floatModel, {
      steps: x.CLESteps,
      totalDiffThreshold: x.CLETotalLayerDiffThreshold,
      scaleAppendBias: x.CLEScaleAppendBias,
      bodies: x.EnableSubgraph,
    });
    floatModel = eq.model;
    cle = eq.report;
  }
  let smoothQuant: SmoothQuantReport | undefined;
  if (config.includeSq) {
    progress({ phase: 'smoothquant' });
    const candidates = smoothQuantCandidates(floatModel);
    const maxima = await channelAbsMax(
      floatModel,
      candidates.map((c) => c.tensor),
      options.runtime!,
    );
    const sq = applySmoothQuant(floatModel, candidates, maxima, x.SmoothAlpha);
    floatModel = sq.model;
    smoothQuant = sq.report;
  }
  const t2 = performance.now();
  throwIfCancelled(options.signal);
  progress({ phase: 'calibrate' });
  const ranges = await options.calibrate(calibratedModel(model, floatModel, config));
  const t3 = performance.now();
  throwIfCancelled(options.signal);
  progress({ phase: 'quantize' });
  const quantized = quantizeModel(floatModel, ranges, config, options.configName);
  // What the steps asked for would have treated inside If/Loop/Scan bodies, and did not: counted, never silent.
  const untreatedInBodies = untreatedBodyLayers(floatModel, config);
  const bodyWarning = bodyRecoveryWarning(untreatedInBodies, quantized.report.subgraphs?.quantized !== undefined);
  const report: QuantizeReport = {
    ...quantized.report,
    preparation: [...prepared.actions, ...quantized.report.preparation],
    warnings: [...quantized.report.warnings, ...(bodyWarning ? [bodyWarning] : [])],
  };
  const t4 = performance.now();

  let quantModel = quantized.model;
  const tuned: TunedLayerSummary[] = [];
  const untuned: { id: NodeId; roundingError: number }[] = [];
  const corrected: { id: NodeId; shiftBefore: number }[] = [];
  let saturatedBiases = 0;
  let gatherSeconds = 0;
  let gatherFloatSeconds = 0;
  let finetuneSeconds = 0;
  let buildSeconds = 0;
  let correctSeconds = 0;
  let skippedLayers: SkippedLayer[] = [];
  let stageCount = 0;
  let passStats: PassStats | undefined;
  let unselected: LayerNoise[] | undefined;
  let sensitive: NonNullable<RecoveryReport['finetune']>['sensitive'];
  let sensitivitySeconds = 0;
  let reused: RecoveryReport['reused'];
  const samples = Math.min(options.runtime?.samples ?? 0, ft.DataSize ?? Infinity);
  if (tune || correct) {
    // Both steps also work inside the If branches the quantizer entered.
    const found = findLinearLayers(floatModel, quantModel, { bodies: report.subgraphs?.quantized !== undefined });
    skippedLayers = found.skipped;
    // Only the layers the sensitivity points at (those of If branches by scoped id, as the main graph's) are tuned;
    // without bias correction the others are not even gathered.
    let selected: Set<NodeId> | undefined;
    const choice = tune ? sensitiveShareRule(options.sensitiveShare) : undefined;
    sensitive = choice;
    if (choice && choice.share < 1 && found.layers.length > 0) {
      const s0 = performance.now();
      const ids = found.layers.map((l) => l.id);
      const measure = () => measureAddedNoise(floatModel, quantModel, ids, options.runtime!);
      const kept = options.sensitivityCache?.get(SensitivityCache.keyOf(config), measure);
      const noises = await (kept ? kept.noises : measure());
      selected = chooseSensitiveLayers(noises, choice.share);
      unselected = noises.filter((n) => !selected!.has(n.id));
      sensitive = {
        ...choice,
        layerNoise: noises,
        concentration: noiseConcentration(noises),
        shared: kept?.shared ?? false,
      };
      sensitivitySeconds = (performance.now() - s0) / 1000;
      throwIfCancelled(options.signal);
    }
    const isChosen = (l: LinearLayer) => !selected || selected.has(l.id);
    const worked = correct ? found.layers : found.layers.filter(isChosen);
    const rowsPerLayer = samples * ft.PositionsPerSample;
    const stages = planStages(
      depthLevels(quantModel, worked),
      (l) => rowsPerLayer * l.groups * l.inPerGroup * 8,
      options.layerDataBudgetBytes ?? 256 * 2 ** 20,
      options.mergeDepths ?? false,
    );
    stageCount = stages.length;
    const total = worked.length;
    const tuneOptions = {
      iterations: ft.NumIterations,
      learningRate: ft.LearningRate,
      regParam: ft.RegParam,
      betaRange: ft.BetaRange,
      warmStart: ft.WarmStart,
      logPeriod: ft.LogPeriod,
      earlyStop: ft.EarlyStop,
      plateau: options.plateauStop ?? 0,
      updateBias: ft.UpdateBias,
      signal: options.signal,
      product: options.gramProduct,
      dense: options.denseProduct,
    };
    let done = 0;
    const gatherOptions = {
      positionsPerSample: ft.PositionsPerSample,
      samples,
      seed: ft.FixedSeed ?? 1705472343,
      signal: options.signal,
    };
    // The float rows of the stages ahead, gathered in chunks of stages under half the budget (the other half is
    // the quantized rows of one stage), and kept across calls when a cache is given.
    const budget = options.layerDataBudgetBytes ?? 256 * 2 ** 20;
    const floatBytes = (l: LinearLayer) => rowsPerLayer * l.groups * l.inPerGroup * 4;
    const cacheKey = JSON.stringify([
      config.includeCle ? [x.CLESteps, x.CLETotalLayerDiffThreshold, x.CLEScaleAppendBias, x.EnableSubgraph] : null,
      // SmoothQuant divides the smoothed layers' inputs by its factors (measured on the same samples): other rows.
      config.includeSq ? x.SmoothAlpha : null,
      gatherOptions.positionsPerSample,
      samples,
      gatherOptions.seed,
    ]);
    const floatRows = new Map<string, SideRows>();
    const floatRowsFor = async (s: number) => {
      for (const l of stages[s].layers) {
        const cached = options.floatRowCache?.get(cacheKey, l.id);
        if (cached) floatRows.set(l.id, cached);
      }
      if (stages[s].layers.every((l) => floatRows.has(l.id))) return;
      for (let e = 0; e < s; e++) for (const l of stages[e].layers) floatRows.delete(l.id);
      const chunk: LinearLayer[] = [];
      let bytes = 0;
      for (let t = s; t < stages.length; t++) {
        const wanted = stages[t].layers.filter((l) => !floatRows.has(l.id));
        const more = wanted.reduce((a, l) => a + floatBytes(l), 0);
        if (t > s && bytes + more > budget / 2) break;
        chunk.push(...wanted);
        bytes += more;
      }
      const f0 = performance.now();
      const gathered = await sampleLayerInputs(floatModel, chunk, 'float', options.runtime!, gatherOptions);
      gatherFloatSeconds += (performance.now() - f0) / 1000;
      chunk.forEach((l, i) => {
        floatRows.set(l.id, gathered[i]);
        options.floatRowCache?.set(cacheKey, l.id, gathered[i]);
      });
    };
    const keptBudget = options.keptTensorBudgetBytes ?? 2 ** 30;
    const passes =
      keptBudget > 0 && canRunIncrementally(quantModel, options.runtime!)
        ? new QuantizedPasses(
            quantModel,
            {
              wanted: stages.map((st) => [...new Set(st.layers.map((l) => l.quantInput))]),
              changed: stages.map((st) => st.layers.flatMap((l) => [l.output, l.codesName, ...biasTensors(l)])),
            },
            options.runtime!,
            { samples, budgetBytes: keptBudget, signal: options.signal },
          )
        : undefined;
    passStats = passes?.stats;
    const threshold = options.minRoundingError ?? 0;
    const targetOf = (stage: Stage, l: LinearLayer) =>
      options.reconstruction !== 'local' && stage.floatTarget.has(l) ? 'float' : 'local';
    // The memo's key of a layer: everything its outcome depends on besides what the fingerprints of its node's output in
    // the quantized model (input, weight codes and grid, bias, attributes) and of its float input say.
    const memo = options.tunedLayerMemo;
    const fingerprints = memo ? new ValueFingerprints() : undefined;
    const floatPrints = fingerprints?.ofScoped(
      floatModel,
      worked.map((l) => ({ scope: l.scope, tensor: l.floatInput })),
    );
    const { signal: _s, product: _p, dense: _d, ...tuneSettings } = tuneOptions;
    const memoBase = JSON.stringify([
      tune && ft.OptimAlgorithm,
      tuneSettings,
      correct,
      threshold,
      !!options.gramProduct,
      !!options.denseProduct,
      gatherOptions.positionsPerSample,
      samples,
      gatherOptions.seed,
    ]);
    const memoKey = (l: LinearLayer, prints: Map<string, Fingerprint>, target: string): string | undefined => {
      const q = prints.get(scopedTensorKey(l.scope, l.output));
      const f = floatPrints!.get(scopedTensorKey(l.scope, l.floatInput));
      if (!q || !f) return undefined;
      const chosen = tune && selected ? selected.has(l.id) : null;
      const own = [arrayFingerprint(l.floatWeight), arrayFingerprint(l.floatBias)];
      return digestText(JSON.stringify([memoBase, l.id, q, f, ...own, target, chosen]));
    };
    let reusedLayers = 0;
    let reusedPasses = 0;
    /** Reports one layer's outcome and queues its update. */
    const record = (layer: LinearLayer, o: LayerOutcome, reused: boolean, updates: LayerUpdate[]) => {
      if (o.tuned) tuned.push({ id: layer.id, ...o.tuned, ...(reused ? { reused } : {}) });
      if (o.untuned !== undefined) untuned.push({ id: layer.id, roundingError: o.untuned });
      if (o.shiftBefore !== undefined) corrected.push({ id: layer.id, shiftBefore: o.shiftBefore });
      if (o.codes || o.bias) updates.push({ layer, codes: o.codes, bias: o.bias });
      if (reused) reusedLayers++;
      done++;
      progress({
        phase: 'layer',
        id: layer.id,
        done,
        total,
        lossBefore: o.tuned?.lossBefore,
        lossAfter: o.tuned?.lossAfter,
        curve: o.tuned?.curve,
      });
    };
    for (let s = 0; s < stages.length; s++) {
      throwIfCancelled(options.signal);
      progress({ phase: 'gather', stage: s, stages: stages.length });
      const stage = stages[s];
      const prints = fingerprints?.ofScoped(
        quantModel,
        stage.layers.map((l) => ({ scope: l.scope, tensor: l.output })),
      );
      const keys = stage.layers.map((l) => (prints ? memoKey(l, prints, targetOf(stage, l)) : undefined));
      const known = keys.map((k) => (k === undefined ? undefined : memo!.get(k)));
      const updates: LayerUpdate[] = [];
      if (known.every((o) => o !== undefined)) {
        // Every layer of the pass is known: its data is neither gathered nor its layers tuned.
        passes?.skip(s);
        reusedPasses++;
        stage.layers.forEach((l, i) => record(l, known[i]!, true, updates));
      } else {
        const g0 = performance.now();
        await floatRowsFor(s);
        const model = quantModel;
        const quantRuns = passes && ((onSample: Parameters<typeof passes.run>[2]) => passes.run(s, model, onSample));
        const rows = await gatherLayerRows(
          floatModel,
          quantModel,
          stage.layers,
          options.runtime!,
          gatherOptions,
          floatRows,
          quantRuns,
        );
        gatherSeconds += (performance.now() - g0) / 1000;
        for (const [li, data] of rows.entries()) {
          if (known[li]) {
            record(data.layer, known[li], true, updates);
            continue;
          }
          if (data.rows === 0) {
            // An If branch no calibration sample ran: nothing to learn from.
            skippedLayers.push({ id: data.layer.id, reason: BRANCH_NOT_RUN });
            done++;
            continue;
          }
          let layer = data.layer;
          const target = targetOf(stage, data.layer);
          // A branch layer without a bias keeps none (no node is added inside a branch): codes alone are tuned.
          const fixedBias = !!layer.scope && layer.biasStore.kind === 'none';
          let result: LayerTuning | undefined;
          let untunedError: number | undefined;
          const roundingError = tune && threshold > 0 ? layerRoundingError(data) : Infinity;
          if (roundingError < threshold) untunedError = roundingError;
          else if (tune && isChosen(layer)) {
            const f0 = performance.now();
            const problem = await buildLayerProblemOn(data, target, options.denseProduct);
            buildSeconds += (performance.now() - f0) / 1000;
            result =
              ft.OptimAlgorithm === 'adaround'
                ? await adaround(problem, tuneOptions)
                : await adaquant(problem, fixedBias ? { ...tuneOptions, updateBias: false } : tuneOptions);
            finetuneSeconds += (performance.now() - f0) / 1000;
            layer = { ...layer, codes: result.codes ?? layer.codes, bias: result.bias ?? layer.bias };
          }
          let bias = fixedBias ? undefined : result?.bias;
          let shiftBefore: number | undefined;
          if (correct && !fixedBias) {
            const c0 = performance.now();
            const c = correctBias({ ...data, layer }, target);
            shiftBefore = c.shiftBefore;
            bias = c.bias;
            correctSeconds += (performance.now() - c0) / 1000;
          }
          const outcome: LayerOutcome = {
            ...(result
              ? {
                  tuned: {
                    lossBefore: result.lossBefore,
                    lossAfter: result.lossAfter,
                    kept: result.kept,
                    iterations: result.iterations,
                    seconds: result.seconds,
                    curve: result.curve,
                  },
                }
              : {}),
            ...(untunedError !== undefined ? { untuned: untunedError } : {}),
            ...(shiftBefore !== undefined ? { shiftBefore } : {}),
            ...(result?.codes ? { codes: result.codes } : {}),
            ...(bias ? { bias } : {}),
          };
          if (keys[li] !== undefined) memo!.set(keys[li], outcome);
          record(data.layer, outcome, false, updates);
        }
      }
      const applied = applyLayerUpdates(quantModel, updates);
      quantModel = applied.model;
      saturatedBiases += applied.saturatedBiases;
    }
    if (memo) reused = { layers: reusedLayers, passes: reusedPasses };
  }
  const sum = (f: (l: TunedLayerSummary) => number) => tuned.reduce((a, l) => a + f(l), 0);
  const recovery: RecoveryReport = {
    cle,
    smoothQuant,
    finetune: tune
      ? {
          algorithm: ft.OptimAlgorithm,
          layers: tuned,
          lossBefore: sum((l) => l.lossBefore),
          lossAfter: sum((l) => l.lossAfter),
          seconds: finetuneSeconds,
          buildSeconds,
          ...(untuned.length ? { untuned } : {}),
          ...(unselected ? { unselected, sensitivitySeconds } : {}),
          sensitive,
        }
      : undefined,
    biasCorrection: correct ? { layers: corrected, saturatedBiases, seconds: correctSeconds } : undefined,
    skippedLayers,
    ...(bodyWarning ? { untreatedInBodies: { steps: untreatedInBodies, warning: bodyWarning } } : {}),
    seconds: {
      prepare: (t1 - t0) / 1000,
      cle: (t2 - t1) / 1000,
      calibrate: (t3 - t2) / 1000,
      quantize: (t4 - t3) / 1000,
      gather: gatherSeconds,
      gatherFloat: gatherFloatSeconds,
      total: (performance.now() - t0) / 1000,
    },
    samples: tune || correct ? samples : 0,
    stages: stageCount,
    passes: passStats,
    ...(reused ? { reused } : {}),
  };
  return { model: quantModel, report, recovery, floatModel };
}
