/**
 * A quick, repeatable judge for searches that measure many candidate models on the same few samples: the
 * float model runs once per sample and its outputs are kept; each candidate then runs alone and is scored by
 * the mean output cosine (Quark's) and the relative noise power, which adds up over independent
 * quantization noises (so the gains of tensors measured apart can be summed). The runtime is injected; must
 * not import a runtime.
 */
import { sessionModel, type ModelBytes, type ModelProto } from '../onnx/index.ts';
import { sampleSums, type FloatArray } from '../metrics/index.ts';
import type { ComparisonRuntime, RunTensor } from './compareModels.ts';
import { comparedOutputs } from './comparedOutputs.ts';
import type { RunsFigure } from './sampleRuns.ts';

export interface JudgeScore {
  /** Mean over samples and outputs with a defined cosine. */
  readonly cosine: number;
  /** 1 − cosine. */
  readonly error: number;
  /**
   * Relative noise power: per output, Σ over samples of ‖quantized − float‖² over Σ of ‖float‖² (pooled), then
   * the mean over outputs. Independent quantization noises add up in it (where 1 − cosine saturates once the
   * noise is large). Pooled, not a mean of per-sample ratios: a sample whose float output is nearly empty would
   * have a huge ratio that outweighs every other sample, while its cosine, like every sample's, counts 1/n.
   * Unlike the cosine it also counts an error of scale (noise along the signal).
   */
  readonly noise: number;
  /** The target's figure (a task figure: mAP, mIoU…) when the judge reads one; `error` is then 1 − figure. */
  readonly figure?: number;
}

export interface OutputJudge {
  readonly samples: number;
  /** Runs `model` (same outputs as the float model) on every sample and scores it against the float outputs. */
  score(model: ModelProto): Promise<JudgeScore>;
}

export interface OutputJudgeOptions {
  /**
   * A figure of the runs to aim at instead of the cosine (a task target's, higher is better, at most 1): the score's
   * `error` is then 1 − figure; the cosine and the noise are still measured (the noise ranks what to change).
   */
  readonly figure?: RunsFigure;
}

/** Runs the float model once on every sample of `runtime` and returns a judge against its outputs. */
export async function createOutputJudge(
  floatModel: ModelProto,
  runtime: ComparisonRuntime,
  options: OutputJudgeOptions = {},
): Promise<OutputJudge> {
  const names = comparedOutputs(floatModel).compared;
  const reference = await runAll(floatModel, runtime, names);
  const indexOf = (s: number) => sourceIndex(runtime, s);
  return {
    samples: runtime.samples,
    async score(model) {
      const runs = await runAll(model, runtime, names);
      const outputs = runs.map((r) => Object.fromEntries(names.map((k) => [k, r[k].data as FloatArray])));
      let sum = 0;
      let n = 0;
      const pooled = names.map(() => ({ noise: 0, signal: 0 }));
      outputs.forEach((sample, s) => {
        names.forEach((name, k) => {
          // One pass gives both: the cosine and the noise and signal powers.
          const sums = sampleSums(reference[s][name].data as FloatArray, sample[name]);
          const c = sums.worstSampleCosine;
          if (Number.isFinite(c)) {
            sum += c;
            n++;
          }
          if (Number.isFinite(sums.noise) && Number.isFinite(sums.signal)) {
            pooled[k].noise += sums.noise;
            pooled[k].signal += sums.signal;
          }
        });
      });
      const ratios = pooled.filter((p) => p.signal > 0).map((p) => p.noise / p.signal);
      const cosine = n ? sum / n : NaN;
      const noise = ratios.length ? ratios.reduce((a, r) => a + r, 0) / ratios.length : NaN;
      if (!options.figure) return { cosine, error: 1 - cosine, noise };
      const figure = options.figure(runs.map((quant, s) => ({ index: indexOf(s), float: reference[s], quant })));
      return { cosine, error: 1 - figure, noise, figure };
    },
  };
}

async function runAll(
  model: ModelProto,
  runtime: ComparisonRuntime,
  names: readonly string[],
): Promise<Readonly<Record<string, RunTensor>>[]> {
  const session = await runtime.open(sessionModel(model));
  try {
    const out: Readonly<Record<string, RunTensor>>[] = [];
    for (let s = 0; s < runtime.samples; s++) out.push(await session.run(s, names));
    return out;
  } finally {
    await session.release();
  }
}

/** A subset's samples by their index in the runtime it was cut from (sampleSubset). */
const subsetPicks = new WeakMap<ComparisonRuntime, readonly number[]>();
/** Sample `s` of `runtime` as an index of the runtime it was cut from (itself when it is no subset). */
function sourceIndex(runtime: ComparisonRuntime, s: number): number {
  return subsetPicks.get(runtime)?.[s] ?? s;
}

/** The runtime restricted to `count` samples spread evenly over its own (all when it has no more). */
export function sampleSubset(runtime: ComparisonRuntime, count: number): ComparisonRuntime {
  if (count >= runtime.samples) return runtime;
  const picks = Array.from({ length: count }, (_, k) => Math.floor(((k + 0.5) * runtime.samples) / count));
  const subset: ComparisonRuntime = {
    samples: count,
    open: async (bytes: ModelBytes) => {
      const s = await runtime.open(bytes);
      return { run: (i, outputs) => s.run(picks[i], outputs), release: () => s.release() };
    },
    feeds: runtime.feeds ? (i) => runtime.feeds!(picks[i]) : undefined,
  };
  subsetPicks.set(
    subset,
    picks.map((p) => sourceIndex(runtime, p)),
  );
  return subset;
}
