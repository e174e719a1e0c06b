/**
 * Automatic mixed precision: the model stays 8-bit, and only what measurably hurts most leaves 8 bits, under
 * a budget (core/quantize/precisionBudget.ts). First activation tensors and weights go to 16 bits; where that
 * is not enough, a few nodes stay float.
 *
 * Sensitivity is measured, never guessed from op types: a candidate's gain is how much the output error
 * (1 − cosine to the float model, on a few of the user's samples; ../evaluate/outputJudge.ts) falls when it alone leaves
 * 8 bits. Measuring every tensor apart would cost one model run per tensor, so the search measures groups
 * (group testing): quantization noises of different tensors are independent and their output errors add up,
 * so a block of candidates widened together gains about the sum of its members' gains. Starting from "all
 * activations" and "all weights" at 16 bits, the block with the largest measured gain is split into contiguous
 * parts (graph order) and each part measured, best first, until the blocks left cannot hold a candidate better
 * than those already found, or the ones found reach the target. The chosen set (largest gain per budget unit
 * first) is then measured as a whole. The float stage does the same over the quantized nodes, from there.
 * Where that ends short of the target with measurements left, windows (./precisionWindows.ts) are measured: every
 * budget spent on one stretch of the graph (float nodes, then 16 bits after them), front first; for a loss spread
 * over a whole stage, whose parts gain nothing apart, and the best window replaces the units' choice only if it
 * measures better on the same judge. Where the judge reads a task figure (top-1, lines read the same, mAP), which moves in
 * steps the noise does not follow, any block measured within the budget that reads the figure better than the choice
 * replaces it, and one that reads the target ends the search.
 *
 * Quantization and the judge are injected; must not import a runtime or read files.
 */
import type { ModelProto, NodeId } from '../onnx/model.ts';
import type { QuantConfig } from '../quantize/config.ts';
import type { Ranges } from '../quantize/plan.ts';
import { quantizeModel, type QuantizeResult } from '../quantize/quantizeModel.ts';
import type { ComparisonRuntime } from '../evaluate/compareModels.ts';
import type { RunsFigure } from '../evaluate/sampleRuns.ts';
import { createOutputJudge, sampleSubset } from '../evaluate/outputJudge.ts';
import { wideType } from '../quantize/precision.ts';
import { budgetCounts, quantizedSizes, type PrecisionBudget } from '../quantize/precisionBudget.ts';
import { plannedTensors } from '../quantize/subgraphCoverage.ts';
import type { OutputJudge } from '../evaluate/outputJudge.ts';
import { precisionWindow, unitPositions, type WindowShape } from './precisionWindows.ts';
import type { PrecisionKind, PrecisionUnit } from './precisionUnit.ts';

export type { PrecisionKind, PrecisionUnit } from './precisionUnit.ts';

/**
 * A measured set of units of one kind (a single unit, or a block of neighbours) and its gain: the drop in
 * relative output noise power when it alone leaves 8 bits.
 */
export interface UnitSensitivity {
  readonly kind: PrecisionKind;
  readonly units: readonly PrecisionUnit[];
  /** Budget it takes: the sum of its units' costs. */
  readonly cost: number;
  readonly gain: number;
}

export interface MixedPrecisionStep {
  /** 1, 2, … */
  readonly index: number;
  /**
   * 'base' (the 8-bit model), a block of one kind measured, 'check' (a chosen set measured whole), or 'window' (a
   * stretch of the graph holding every budget, ./precisionWindows.ts).
   */
  readonly phase: 'base' | PrecisionKind | 'check' | 'window';
  /** Units in the measured block (or chosen set). */
  readonly units: number;
  /** Cosine measured. */
  readonly cosine: number;
  /** The target's figure measured, when the judge aims at one (top1, map50, …: ChooseMixedPrecisionOptions.figure). */
  readonly figure?: number;
  /** Drop in relative noise power (outputJudge.ts) against the round's starting point (0 for base and checks). */
  readonly gain: number;
  readonly seconds: number;
}

export interface MixedPrecisionOptions {
  /** The 8-bit configuration to start from (its exclusions and overrides are kept). */
  readonly config: QuantConfig;
  readonly budget: PrecisionBudget;
  /** Cosine to reach on the judge's samples; the search stops once the chosen set reaches it. */
  readonly target: number;
  /** Quantizes a configuration (the same ranges every time). */
  quantize(config: QuantConfig): Promise<QuantizeResult> | QuantizeResult;
  readonly judge: OutputJudge;
  /** Most measurements in all; default 100. */
  readonly maxMeasurements?: number;
  /** Parts a block is split into; default 4. */
  readonly branching?: number;
  /**
   * The kinds searched together, stage after stage; default `[['act16', 'w16'], ['float']]` (16 bits first, float
   * nodes only where 16 bits did not reach the target).
   */
  readonly stages?: readonly (readonly PrecisionKind[])[];
  /**
   * Where the unit search ends short of the target: how many window starts are measured, evenly spread over the
   * graph from its front (./precisionWindows.ts); 0 measures no window. Default 4.
   */
  readonly windowStarts?: number;
  /** Most measurements the windows may take (within `maxMeasurements`); default 16. */
  readonly maxWindowMeasurements?: number;
  onStep?(step: MixedPrecisionStep): void;
  readonly signal?: { readonly aborted: boolean };
}

export interface MixedPrecisionResult {
  /** The configuration chosen: TensorQuantOverrides for 16-bit tensors, nodesToExclude for float nodes. */
  readonly config: QuantConfig;
  /** Cosine of the 8-bit start and of the chosen configuration, on the judge's samples (the figure of `metric`, when it is another). */
  readonly startCosine: number;
  readonly cosine: number;
  /** What `startCosine` and `cosine` measure: 'cosine', or a task target's metric (map50, miou…). Absent: cosine. */
  readonly metric?: string;
  /** Samples the search judged on (chooseMixedPrecision's; absent from a bare searchMixedPrecision). */
  readonly samples?: number;
  readonly reached: boolean;
  readonly chosen: {
    readonly act16: readonly string[];
    readonly w16: readonly string[];
    readonly float: readonly NodeId[];
  };
  /** The window chosen, where one measured better than the units the search chose (then `chosen` is the window). */
  readonly window?: WindowShape;
  /** Each kind's budget: how many it allows and how many the chosen set uses. */
  readonly budget: Readonly<
    Record<PrecisionKind, { readonly limit: number; readonly used: number; readonly of: number }>
  >;
  /** Every single unit measured, largest gain first (the evidence for the choice and for what could not be reached). */
  readonly sensitivities: readonly UnitSensitivity[];
  /** Every block measured (whole kinds, their parts, single units), in order: what ranks the units (./precisionGrowth.ts). */
  readonly measured: readonly UnitSensitivity[];
  /** The candidates of the 8-bit start, by kind, and each one's place in graph order (./precisionWindows.ts unitPositions). */
  readonly units: Readonly<Record<PrecisionKind, readonly PrecisionUnit[]>>;
  readonly positions: ReadonlyMap<PrecisionUnit, number>;
  readonly steps: readonly MixedPrecisionStep[];
  readonly seconds: number;
  /**
   * The configuration measured best within the budget (lowest error, then lowest noise: the 8-bit start, a block, a
   * chosen set or a window), whatever the search went on to choose: what a search stopped part-way keeps
   * (core/recovery/ladderMeasure.ts). `units`: how many units it takes out of 8 bits (0: the 8-bit start).
   */
  readonly bestMeasured: { readonly config: QuantConfig; readonly cosine: number; readonly units: number };
}

/** The configuration with these units out of 8 bits (16-bit overrides, float exclusions). */
export function withUnits(config: QuantConfig, units: readonly PrecisionUnit[]): QuantConfig {
  const overrides = { ...config.extraOptions.TensorQuantOverrides };
  const excluded = [...config.nodesToExclude];
  for (const u of units) {
    if (u.kind === 'float') excluded.push(...u.names);
    else {
      const type = wideType(u.kind === 'act16' ? config.activationType : config.weightType);
      for (const t of u.names) overrides[t] = [{ quant_type: type }];
    }
  }
  return {
    ...config,
    nodesToExclude: [...new Set(excluded)],
    extraOptions: { ...config.extraOptions, TensorQuantOverrides: overrides },
  };
}

/**
 * The candidates of a quantization: its activation groups, its weights, its quantized nodes (graph order), then those
 * inside If/Loop/Scan bodies where EnableSubgraph quantized them (body nodes by scoped id, as nodes_to_exclude names
 * them; a tensor the main graph and a body both quantize is one candidate).
 */
export function precisionUnits(result: QuantizeResult, config: QuantConfig): Record<PrecisionKind, PrecisionUnit[]> {
  const overridden = new Set(Object.keys(config.extraOptions.TensorQuantOverrides));
  const excluded = new Set(config.nodesToExclude);
  // A tensor read in several scopes (an outer tensor a body quantizes again) is in the first group that has it.
  const seen = new Set<string>();
  const groups = [...result.plan.groups, ...(result.bodyPlan?.groups ?? [])].filter((g) => {
    const fresh = !g.some((t) => seen.has(t));
    g.forEach((t) => seen.add(t));
    return fresh;
  });
  const weights = plannedTensors(result.plan, result.bodyPlan).weights.keys();
  return {
    act16: groups
      .filter((g) => !g.some((t) => overridden.has(t)))
      .map((g) => ({ kind: 'act16', names: g, cost: g.length })),
    w16: [...weights].filter((t) => !overridden.has(t)).map((t) => ({ kind: 'w16', names: [t], cost: 1 })),
    // A node preparation made around another (a Softmax's Flatten and Reshape) stays float with it: one unit, named
    // by the node of the loaded model, which is what an exclusion resolves.
    float: [
      ...new Set([
        ...result.report.quantized.map((q) => q.source ?? q.id),
        ...(result.report.subgraphs?.quantizedNodes ?? []),
      ]),
    ]
      .filter((id) => !excluded.has(id))
      .map((id) => ({ kind: 'float', names: [id], cost: 1 })),
  };
}

const DEFAULT_STAGES: readonly (readonly PrecisionKind[])[] = [['act16', 'w16'], ['float']];

/** Runs the search. Throws when the starting configuration cannot be quantized or run. */
export async function searchMixedPrecision(options: MixedPrecisionOptions): Promise<MixedPrecisionResult> {
  const start = performance.now();
  const maxMeasurements = options.maxMeasurements ?? 100;
  const branching = Math.max(2, options.branching ?? 4);
  // Measurements one round may spend before it commits what it found (the next round measures from there).
  const perRound = Math.max(8, Math.round(maxMeasurements / 4));
  const steps: MixedPrecisionStep[] = [];
  const sensitivities: UnitSensitivity[] = [];
  const measuredBlocks: UnitSensitivity[] = [];
  const targetError = 1 - options.target;
  type Point = { noise: number; error: number };
  let figureAimed = false;

  const measure = async (
    config: QuantConfig,
    phase: MixedPrecisionStep['phase'],
    units: number,
    from?: Point,
  ): Promise<Point> => {
    const t = performance.now();
    const q = await options.quantize(config);
    const { error, cosine, noise, figure } = await options.judge.score(q.model);
    if (figure !== undefined) figureAimed = true;
    const step = {
      index: steps.length + 1,
      phase,
      units,
      cosine,
      ...(figure !== undefined ? { figure } : {}),
      gain: from ? from.noise - noise : 0,
      seconds: (performance.now() - t) / 1000,
    };
    steps.push(step);
    options.onStep?.(step);
    return { noise, error };
  };
  // A block within the budget that reads the target ends the search (it is the choice: see bestBlock).
  const blockReached = () => bestBlock !== undefined && bestBlock.point.error <= targetError;
  const measurementsLeft = () => steps.length < maxMeasurements && !options.signal?.aborted && !blockReached();
  // A round keeps one measurement for checking what it chose.
  const roundMeasurementsLeft = () => steps.length < maxMeasurements - 1 && !options.signal?.aborted && !blockReached();

  const baseResult = await options.quantize(options.config);
  const units = precisionUnits(baseResult, options.config);
  const limits = budgetCounts(options.budget, baseResult);
  const used: Record<PrecisionKind, number> = { act16: 0, w16: 0, float: 0 };
  const startPoint = await measure(options.config, 'base', 0);
  /**
   * A task figure (top-1, lines read the same, mAP) moves in steps the noise that ranks the units does not follow: a
   * block measured within the budget may read the figure the set chosen by noise does not. The best such block (lowest
   * error, then lowest noise) is kept, and replaces the choice at the end where it reads strictly better.
   */
  let bestBlock: { units: readonly PrecisionUnit[]; point: Point } | undefined;
  /** The same over every configuration measured within the budget, whatever the judge reads (bestMeasured). */
  let bestMeasured: { units: readonly PrecisionUnit[]; point: Point } = { units: [], point: startPoint };
  /** Lower error, then lower noise. */
  const better = (p: Point, than: Point) => p.error < than.error || (p.error === than.error && p.noise < than.noise);
  const keepIfBest = (blockUnits: readonly PrecisionUnit[], p: Point) => {
    if (better(p, bestMeasured.point)) bestMeasured = { units: blockUnits, point: p };
    if (figureAimed && (!bestBlock || better(p, bestBlock.point))) bestBlock = { units: blockUnits, point: p };
  };

  /**
   * Choice within what each kind has left among the measured sets (single units, and blocks whose members only
   * help together, such as a chain that must be wide end to end to keep a small channel), none overlapping a set
   * already taken, gains above `floor` only.
   */
  const choose = (found: readonly UnitSensitivity[], floor: number) => {
    const pick = (order: readonly UnitSensitivity[]) => {
      const taken = { ...used };
      const picked: UnitSensitivity[] = [];
      const inPicked = new Set<PrecisionUnit>();
      for (const s of order) {
        if (taken[s.kind] + s.cost > limits[s.kind] || s.units.some((u) => inPicked.has(u))) continue;
        taken[s.kind] += s.cost;
        picked.push(s);
        s.units.forEach((u) => inPicked.add(u));
      }
      return { picked, taken, gain: picked.reduce((a, s) => a + s.gain, 0) };
    };
    // The better of two greedy orders (the knapsack's classic pair): by gain per cost, and by gain alone, so a
    // block that gains much at a fair cost is not crowded out by small sets that gain a little cheaply.
    const useful = found.filter((f) => f.gain > floor);
    const byRatio = pick([...useful].sort((a, b) => b.gain / b.cost - a.gain / a.cost));
    const byGain = pick([...useful].sort((a, b) => b.gain - a.gain));
    return byGain.gain > byRatio.gain ? byGain : byRatio;
  };

  /**
   * One round: best-first splitting over the candidates of `kinds` not chosen yet, from `config` (measured at
   * `from`). Returns the units worth taking.
   */
  const round = async (
    config: QuantConfig,
    from: Point,
    kinds: readonly PrecisionKind[],
    taken: ReadonlySet<PrecisionUnit>,
  ) => {
    const found: UnitSensitivity[] = [];
    const queue: UnitSensitivity[] = [];
    // The noise to remove, assuming it shrinks in proportion to 1 − cosine; gains under 1 % of it are noise.
    const needed = from.noise * Math.max(0, 1 - targetError / from.error);
    const negligible = Math.max(1e-9, 0.01 * needed);
    const push = async (kind: PrecisionKind, blockUnits: readonly PrecisionUnit[]) => {
      const p = await measure(withUnits(config, blockUnits), kind, blockUnits.length, from);
      const set = {
        kind,
        units: blockUnits,
        cost: blockUnits.reduce((a, u) => a + u.cost, 0),
        gain: from.noise - p.noise,
      };
      found.push(set);
      if (blockUnits.length > 1) queue.push(set);
      if (used[kind] + set.cost <= limits[kind]) keepIfBest([...taken, ...blockUnits], p);
    };
    for (const kind of kinds) {
      const left = units[kind].filter((u) => !taken.has(u));
      if (left.length && used[kind] < limits[kind] && roundMeasurementsLeft()) await push(kind, left);
    }
    const roundEnd = steps.length + perRound;
    // A round that has spent its share but found no set that fits what a kind has left goes on splitting (ending
    // it there would end the search with nothing chosen while measurements remain).
    const fits = () => choose(found, negligible).picked.length > 0;
    while (queue.length && roundMeasurementsLeft() && (steps.length < roundEnd || !fits())) {
      queue.sort((a, b) => b.gain - a.gain);
      const best = queue.shift()!;
      if (best.gain <= negligible) break;
      const choice = choose(found, negligible);
      if (choice.gain >= 1.25 * needed) break;
      // A block gains at least about what any of its members gains: once a kind's budget is full and a block gains
      // less than the weakest set chosen of that kind, nothing in it can displace one.
      const mine = choice.picked.filter((p) => p.kind === best.kind);
      const full = limits[best.kind] - choice.taken[best.kind] < Math.min(...best.units.map((u) => u.cost));
      if (full && mine.length && best.gain < Math.min(...mine.map((p) => p.gain))) continue;
      const size = Math.ceil(best.units.length / branching);
      for (let k = 0; k < best.units.length && roundMeasurementsLeft(); k += size)
        await push(best.kind, best.units.slice(k, k + size));
    }
    sensitivities.push(...found.filter((f) => f.units.length === 1 || f.cost <= limits[f.kind]));
    measuredBlocks.push(...found);
    return choose(found, negligible).picked.flatMap((p) => p.units);
  };

  const positions = unitPositions(baseResult.model, units);
  let config = options.config;
  let point = startPoint;
  const chosen = new Set<PrecisionUnit>();
  // Rounds, each from what the last one chose: gains are measured against the current model, so a unit whose
  // effect was hidden behind a larger one is found once that one is gone.
  for (const kinds of options.stages ?? DEFAULT_STAGES) {
    while (point.error > targetError && measurementsLeft()) {
      const picks = await round(config, point, kinds, chosen);
      if (picks.length === 0) break;
      const trial = withUnits(config, picks);
      const p = await measure(trial, 'check', picks.length);
      keepIfBest([...chosen, ...picks], p);
      if (!(p.noise < point.noise)) break;
      config = trial;
      point = p;
      for (const u of picks) {
        chosen.add(u);
        used[u.kind] += u.cost;
      }
    }
  }

  // Windows: where the units chosen apart leave the target unreached, every budget spent on one stretch of the
  // graph, measured whole from the 8-bit start; the best replaces the units' choice only if it measures better.
  let window: WindowShape | undefined;
  const stages = options.stages ?? DEFAULT_STAGES;
  /** Takes a measured block as the chosen set: its units, its measurement and the window it came from. */
  const adopt = (units: readonly PrecisionUnit[], measured: typeof point, shape: WindowShape | undefined): void => {
    window = shape;
    config = withUnits(options.config, units);
    point = measured;
    chosen.clear();
    used.act16 = used.w16 = used.float = 0;
    for (const u of units) {
      chosen.add(u);
      used[u.kind] += u.cost;
    }
  };
  if (point.error > targetError && measurementsLeft()) {
    const found = await searchWindows(stages.flat());
    if (found && found.point.noise < point.noise) adopt(found.units, found.point, found.shape);
  }

  /**
   * Windows front first: the front of the graph, opened by 0 … all the float nodes the budget allows (a scan in
   * about 8 steps, then the neighbours of the best count; where a stage kept float should end and 16 bits begin is
   * measured, not guessed: the loss of each count does not fall smoothly); then starts spread evenly over the rest of
   * the graph with the whole float budget, and where one of those beats the front, the same scan there, as far as
   * the measurements go. Quantization noise that enters early passes through every later layer, which is why the
   * front is measured first and most closely. Returns the best window measured.
   */
  async function searchWindows(kinds: readonly PrecisionKind[]) {
    const count = options.windowStarts ?? 4;
    if (count <= 0) return undefined;
    const stopAt = Math.min(maxMeasurements, steps.length + (options.maxWindowMeasurements ?? 16));
    const starts = [...new Set(kinds.flatMap((k) => units[k].map((u) => positions.get(u)!)))].sort((a, b) => a - b);
    if (!starts.length) return undefined;
    const floatRoom = kinds.includes('float') ? limits.float : 0;
    type Measured = { shape: WindowShape; units: PrecisionUnit[]; point: Point };
    const seen = new Map<string, Measured>();
    let best: Measured | undefined;
    const tryWindow = async (shape: WindowShape): Promise<Measured | undefined> => {
      const set = precisionWindow(units, positions, limits, shape, kinds);
      if (!set.length) return undefined;
      const key = set.map((u) => `${u.kind}:${u.names.join(',')}`).join('|');
      if (seen.has(key)) return seen.get(key);
      if (steps.length >= stopAt || !measurementsLeft()) return undefined;
      const m: Measured = {
        shape,
        units: set,
        point: await measure(withUnits(options.config, set), 'window', set.length, startPoint),
      };
      seen.set(key, m);
      keepIfBest(set, m.point);
      // Front first: a later window must measure strictly better to be kept.
      if (!best || m.point.noise < best.point.noise) best = m;
      return m;
    };
    /** The float nodes opening the window at `start`: 0 … floatRoom in steps, then the best count's neighbours. */
    const scan = async (start: number) => {
      const step = Math.max(1, Math.ceil(floatRoom / 8));
      const counts = new Set<number>();
      for (let f = 0; f < floatRoom; f += step) counts.add(f);
      counts.add(floatRoom);
      const measured: { f: number; m: Measured }[] = [];
      for (const f of counts) {
        const m = await tryWindow({ start, floatNodes: f });
        if (m) measured.push({ f, m });
      }
      if (!measured.length) return undefined;
      const top = measured.reduce((a, b) => (b.m.point.noise < a.m.point.noise ? b : a));
      for (let f = top.f - step + 1; f < top.f + step; f++)
        if (f >= 0 && f <= floatRoom && f !== top.f) await tryWindow({ start, floatNodes: f });
      return top.m;
    };
    const front = floatRoom > 0 ? await scan(starts[0]) : await tryWindow({ start: starts[0], floatNodes: 0 });
    const others: Measured[] = [];
    for (let k = 1; k < Math.min(count, starts.length); k++) {
      const m = await tryWindow({ start: starts[Math.floor((k * starts.length) / count)], floatNodes: floatRoom });
      if (m) others.push(m);
    }
    const later = others.reduce<Measured | undefined>(
      (a, b) => (!a || b.point.noise < a.point.noise ? b : a),
      undefined,
    );
    if (floatRoom > 0 && later && (!front || later.point.noise < front.point.noise)) await scan(later.shape.start);
    return best;
  }

  if (bestBlock && bestBlock.point.error < point.error) adopt(bestBlock.units, bestBlock.point, undefined);

  const list = [...chosen];
  const names = (kind: PrecisionKind) => list.filter((u) => u.kind === kind).flatMap((u) => u.names);
  const of = quantizedSizes(baseResult);
  return {
    config,
    startCosine: 1 - startPoint.error,
    cosine: 1 - point.error,
    reached: point.error <= targetError,
    chosen: { act16: names('act16'), w16: names('w16'), float: names('float') as NodeId[] },
    ...(window ? { window } : {}),
    budget: {
      act16: { limit: limits.act16, used: used.act16, of: of.act16 },
      w16: { limit: limits.w16, used: used.w16, of: of.w16 },
      float: { limit: limits.float, used: used.float, of: of.float },
    },
    sensitivities: sensitivities.sort((a, b) => b.gain - a.gain),
    measured: measuredBlocks,
    units,
    positions,
    steps,
    seconds: (performance.now() - start) / 1000,
    bestMeasured: {
      config: withUnits(options.config, bestMeasured.units),
      cosine: 1 - bestMeasured.point.error,
      units: bestMeasured.units.length,
    },
  };
}

/**
 * Calibration samples the search judges on when none is given: 4, and 16 for a decision target. A decision figure moves
 * by 1/n a sample, so on 4 samples a 0.95 target reads 1.0 or 0.75 and the search stops at the first set that keeps
 * those 4: on Silero VAD op18 (its compute inside one If, --enable-subgraph, 32 chunks held out, the same at 'all' and
 * 'basic') 4 samples kept decisions 0.719 (A8W8) and 0.531 (XINT8) held out, 16 kept 1.0 and 0.969; on the other
 * models a decision target applies to (silero_vad_half with and without bodies, silero_vad_v6, hey_jarvis,
 * hello_deepa) both wrote the same figures. Other targets keep 4 (not measured better with more).
 */
export function defaultSensitivitySamples(metric?: string): number {
  return metric === 'decision' ? 16 : 4;
}

/**
 * What the CLI and the page say where a decision target is judged on fewer samples than defaultSensitivitySamples gives
 * it (fewer calibration samples, or fewer asked): null otherwise.
 */
export function fewDecisionSamplesNote(metric: string | undefined, judged: number): string | null {
  const enough = defaultSensitivitySamples('decision');
  if (metric !== 'decision' || judged >= enough) return null;
  return `the decision target is judged on ${judged} sample(s): its figure moves by 1/${judged} a sample, so the search can stop at a set that keeps these and flips others (Silero VAD op18 A8W8: 4 samples kept 0.72 of its held-out decisions, 16 kept 1.0); give ${enough} or more`;
}

export interface ChooseMixedPrecisionOptions {
  readonly budget: PrecisionBudget;
  /** Cosine to reach on the sensitivity samples (or the figure of `figure`, with one). */
  readonly target: number;
  /**
   * A target's figure of the judged runs (core/recovery/targetMeasure.ts mixedPrecisionAim: top1, sequence, map50, map,
   * miou; higher is better, at most 1): the search aims at it instead of the cosine, named `metric` in the result.
   */
  readonly figure?: RunsFigure;
  readonly metric?: string;
  /** Calibration samples the sensitivities are measured on (spread over the runtime's); default defaultSensitivitySamples. */
  readonly samples?: number;
  readonly maxMeasurements?: number;
  readonly stages?: MixedPrecisionOptions['stages'];
  onStep?(step: MixedPrecisionStep): void;
  readonly signal?: { readonly aborted: boolean };
}

/**
 * The search as the command line, the page and the ladder run it: on the model and its calibrated ranges, with a
 * judge over a few calibration samples. Sensitivity is measured on plain quantization (no CLE, bias correction or
 * fine-tuning, which would cost minutes per measurement); the chosen configuration keeps the given switches, so
 * those steps then run once with the chosen precisions.
 */
export async function chooseMixedPrecision(
  model: ModelProto,
  ranges: Ranges,
  config: QuantConfig,
  runtime: ComparisonRuntime,
  options: ChooseMixedPrecisionOptions,
): Promise<MixedPrecisionResult> {
  const plain: QuantConfig = { ...config, includeCle: false, includeFastFt: false, includeBiasCorrection: false };
  const judge = await createOutputJudge(
    model,
    sampleSubset(runtime, options.samples ?? defaultSensitivitySamples(options.metric)),
    { figure: options.figure },
  );
  const result = await searchMixedPrecision({
    config: plain,
    budget: options.budget,
    target: options.target,
    judge,
    quantize: (c) => quantizeModel(model, ranges, c),
    maxMeasurements: options.maxMeasurements,
    stages: options.stages,
    onStep: options.onStep,
    signal: options.signal,
  });
  const { includeCle, includeFastFt, includeBiasCorrection } = config;
  return {
    ...result,
    samples: judge.samples,
    metric: options.figure ? (options.metric ?? 'figure') : 'cosine',
    config: { ...result.config, includeCle, includeFastFt, includeBiasCorrection },
    bestMeasured: {
      ...result.bestMeasured,
      config: { ...result.bestMeasured.config, includeCle, includeFastFt, includeBiasCorrection },
    },
  };
}
