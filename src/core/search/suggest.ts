/**
 * "Suggest exclusions": a greedy search for the nodes to keep float so that the quantized model's
 * output cosine reaches a target.
 *
 * Start from the user's configuration and measure it. Then, repeatedly: take the worst-ranked layer
 * not tried yet (./candidates.ts ranks them from the layer-wise comparison of the configuration
 * currently kept), add it to `nodesToExclude` (or, when the node alone was tried, the tail subgraph
 * from it to the outputs to `subgraphsToExclude`), re-quantize and measure; keep the change only if
 * the measured cosine improves, and re-rank from that measurement. Stop at the target, after
 * `maxSteps` measurements, or when nothing is left to try. Every measurement is recorded: what was
 * excluded, the cosine measured, whether it was kept. Nothing is ever estimated: the injected
 * `evaluate` quantizes and runs (onnxruntime-node in the command line, a worker in the page, a fake
 * in tests). Must not quantize or run models itself.
 */

import type { NodeId } from '../onnx/model.ts';
import { ComparisonError } from '../evaluate/errors.ts';
import type { QuantConfig, SubgraphExclusion } from '../quantize/config.ts';
import type { RankedLayer, Tail } from './candidates.ts';

/** What one evaluation of a configuration measured. */
export interface Measurement {
  /** Mean output cosine to the float model (see meanOutputCosine). */
  readonly cosine: number;
  /**
   * The target's figure when the target is on another metric (core/recovery/targetMeasure.ts: top-1, mAP@0.5,
   * mIoU…): the search aims at it; a change is kept when it raises it, or leaves it equal and raises the cosine.
   */
  readonly figure?: number;
  /** Quantized nodes worst first, when layer-wise errors were measured; the previous ranking is kept otherwise. */
  readonly layers?: readonly RankedLayer[];
}

/** One exclusion the search tried. */
export type Candidate =
  | { readonly kind: 'node'; readonly node: NodeId; readonly layer: RankedLayer }
  | {
      readonly kind: 'subgraph';
      readonly node: NodeId;
      readonly layer: RankedLayer;
      readonly subgraph: SubgraphExclusion;
      readonly nodes: number;
    };

export interface SuggestStep {
  /** 0 is the starting configuration; then one per measurement. */
  readonly step: number;
  /** What this step added to the kept configuration; null for step 0. */
  readonly candidate: Candidate | null;
  /** Output cosine measured with it. */
  readonly cosine: number;
  /** The target's figure measured with it, when the target is on another metric. */
  readonly figure?: number;
  /** Whether the change was kept (step 0 always is). */
  readonly kept: boolean;
  /** Best cosine so far, after this step (the kept configuration's). */
  readonly bestCosine: number;
  /** The kept configuration's figure, when the target is on another metric. */
  readonly bestFigure?: number;
  /** Why the evaluation failed (the configuration was not kept), if it did. */
  readonly error?: string;
  /** Seconds this step's evaluation took. */
  readonly seconds: number;
}

export type StopReason = 'target' | 'max-steps' | 'no-candidates';

export interface SuggestResult {
  /** The best configuration found (the starting one when nothing helped). */
  readonly config: QuantConfig;
  readonly cosine: number;
  /** The best configuration's figure, when the target is on another metric. */
  readonly figure?: number;
  readonly reached: boolean;
  readonly stopped: StopReason;
  readonly steps: readonly SuggestStep[];
}

/** What a search added to its starting configuration `start` to reach `found`: the picks the user may accept. */
export function addedExclusions(
  start: QuantConfig,
  found: QuantConfig,
): { nodes: string[]; subgraphs: SubgraphExclusion[] } {
  return {
    nodes: found.nodesToExclude.filter((n) => !start.nodesToExclude.includes(n)),
    subgraphs: found.subgraphsToExclude.slice(start.subgraphsToExclude.length),
  };
}

export interface SuggestOptions {
  readonly config: QuantConfig;
  /** Output cosine to reach, e.g. 0.99; or the figure to reach, when measurements carry one. */
  readonly target: number;
  /** Most measurements after the starting one. */
  readonly maxSteps: number;
  /** Quantizes with `config` and measures it. May throw; the step is then recorded as failed. */
  evaluate(config: QuantConfig): Promise<Measurement>;
  /** The tail subgraph from a node to the outputs (candidates.ts tailSubgraph); without it, only nodes are tried. */
  tailOf?(node: NodeId): Tail | null;
  /** Largest tail tried, in nodes: a tail from an early layer would keep most of the model float. Default 32. */
  readonly maxTailNodes?: number;
  /** A change is kept when it raises the cosine (or the figure) by more than this. Default 0. */
  readonly minGain?: number;
  onStep?(step: SuggestStep): void;
}

/** The configuration with one more exclusion. */
export function withCandidate(config: QuantConfig, c: Candidate): QuantConfig {
  if (c.kind === 'node') return { ...config, nodesToExclude: [...config.nodesToExclude, c.node] };
  return { ...config, subgraphsToExclude: [...config.subgraphsToExclude, c.subgraph] };
}

/**
 * Why the search could not start: the starting configuration's own error when it is one of the studio's
 * named errors (a cancel, a model that cannot be compared: the page and the CLI branch on its name; it may
 * have crossed a worker, where only name and message survive), otherwise a ComparisonError that quotes it.
 */
function startFailure(cause: unknown, described: string): Error {
  if (cause instanceof Error && cause.name !== 'Error' && cause.name !== 'TypeError' && cause.name !== 'RangeError')
    return cause;
  return new ComparisonError(`the starting configuration could not be evaluated: ${described}`);
}

/** Runs the greedy search. */
export async function suggestExclusions(options: SuggestOptions): Promise<SuggestResult> {
  const steps: SuggestStep[] = [];
  const maxTail = options.maxTailNodes ?? 32;
  const minGain = options.minGain ?? 0;
  const record = (s: SuggestStep) => {
    steps.push(s);
    options.onStep?.(s);
  };

  const measure = async (
    config: QuantConfig,
  ): Promise<{ m?: Measurement; error?: string; cause?: unknown; seconds: number }> => {
    const t = performance.now();
    try {
      const m = await options.evaluate(config);
      return { m, seconds: (performance.now() - t) / 1000 };
    } catch (e) {
      return {
        error: `${(e as Error).name}: ${(e as Error).message}`,
        cause: e,
        seconds: (performance.now() - t) / 1000,
      };
    }
  };

  const first = await measure(options.config);
  if (!first.m) throw startFailure(first.cause, first.error!);
  let config = options.config;
  let best: Measurement = first.m;
  /** What the target is on: the figure where measurements carry one, else the cosine. */
  const aim = (m: Measurement) => m.figure ?? m.cosine;
  const figures = (m: Measurement | undefined, kept: Measurement) =>
    kept.figure !== undefined ? { figure: m?.figure ?? NaN, bestFigure: kept.figure } : {};
  let ranking = first.m.layers ?? [];
  record({
    step: 0,
    candidate: null,
    cosine: best.cosine,
    kept: true,
    bestCosine: best.cosine,
    ...figures(best, best),
    seconds: first.seconds,
  });

  const tried = new Set<string>();
  const next = (): Candidate | null => {
    const excluded = new Set(config.nodesToExclude);
    for (const layer of ranking) {
      if (!excluded.has(layer.node) && !tried.has(`node:${layer.node}`))
        return { kind: 'node', node: layer.node, layer };
      if (options.tailOf && !tried.has(`tail:${layer.node}`)) {
        tried.add(`tail:${layer.node}`);
        const tail = options.tailOf(layer.node);
        if (tail && tail.nodes > 1 && tail.nodes <= maxTail)
          return { kind: 'subgraph', node: layer.node, layer, ...tail };
      }
    }
    return null;
  };

  let stopped: StopReason;
  for (let step = 1; ; step++) {
    if (aim(best) >= options.target) {
      stopped = 'target';
      break;
    }
    if (step > options.maxSteps) {
      stopped = 'max-steps';
      break;
    }
    const candidate = next();
    if (!candidate) {
      stopped = 'no-candidates';
      break;
    }
    tried.add(candidate.kind === 'node' ? `node:${candidate.node}` : `tail:${candidate.node}`);
    const trial = withCandidate(config, candidate);
    const { m, error, seconds } = await measure(trial);
    // A figure (mAP, top-1) moves in steps: a change that leaves it equal is kept when it raises the cosine.
    const kept =
      m !== undefined &&
      (aim(m) > aim(best) + minGain ||
        (m.figure !== undefined && m.figure === best.figure && m.cosine > best.cosine + minGain));
    if (kept) {
      config = trial;
      best = m;
      if (m.layers) ranking = m.layers;
    }
    record({
      step,
      candidate,
      cosine: m?.cosine ?? NaN,
      kept,
      bestCosine: best.cosine,
      ...figures(m, best),
      seconds,
      ...(error ? { error } : {}),
    });
  }
  return {
    config,
    cosine: best.cosine,
    ...(best.figure !== undefined ? { figure: best.figure } : {}),
    reached: aim(best) >= options.target,
    stopped,
    steps,
  };
}
