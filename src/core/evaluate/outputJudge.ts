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
}

export interface OutputJudge {
  readonly samples: number;
  /** Runs `model` (same outputs as the float model) on every sample and scores it against the float outputs. */
  score(model: ModelProto): Promise<JudgeScore>;
}

/** Runs the float model once on every sample of `runtime` and returns a judge against its outputs. */
export async function createOutputJudge(floatModel: ModelProto, runtime: ComparisonRuntime): Promise<OutputJudge> {
  const names = comparedOutputs(floatModel).compared;
  const reference = await runAll(floatModel, runtime, names);
  return {
    samples: runtime.samples,
    async score(model) {
      const outputs = await runAll(model, runtime, names);
      let sum = 0;
      let n = 0;
      const pooled = names.map(() => ({ noise: 0, signal: 0 }));
      outputs.forEach((sample, s) => {
        names.forEach((name, k) => {
          // One pass gives both: the cosine and the noise and signal powers.
          const sums = sampleSums(reference[s][name], sample[name]);
          const c = sums.worstSampleCosine;
          if (Number.isFinite(c)) { sum += c; n++; }
          if (Number.isFinite(sums.noise) && Number.isFinite(sums.signal)) { pooled[k].noise += sums.noise; pooled[k].signal += sums.signal; }
        });
      });
      const ratios = pooled.filter((p) => p.signal > 0).map((p) => p.noise / p.signal);
      const cosine = n ? sum / n : NaN;
      return { cosine, error: 1 - cosine, noise: ratios.length ? ratios.reduce((a, r) => a + r, 0) / ratios.length : NaN };
    },
  };
}

async function runAll(model: ModelProto, runtime: ComparisonRuntime, names: readonly string[]): Promise<Record<string, FloatArray>[]> {
  const session = await runtime.open(sessionModel(model));
  try {
    const out: Record<string, FloatArray>[] = [];
    for (let s = 0; s < runtime.samples; s++) {
      const r: Readonly<Record<string, RunTensor>> = await session.run(s, names);
      out.push(Object.fromEntries(names.map((k) => [k, r[k].data as FloatArray])));
    }
    return out;
  } finally {
    await session.release();
  }
}

/** The runtime restricted to `count` samples spread evenly over its own (all when it has no more). */
export function sampleSubset(runtime: ComparisonRuntime, count: number): ComparisonRuntime {
  if (count >= runtime.samples) return runtime;
  const picks = Array.from({ length: count }, (_, k) => Math.floor(((k + 0.5) * runtime.samples) / count));
  return {
    samples: count,
    open: async (bytes: ModelBytes) => {
      const s = await runtime.open(bytes);
      return { run: (i, outputs) => s.run(picks[i], outputs), release: () => s.release() };
    },
    feeds: runtime.feeds ? (i) => runtime.feeds!(picks[i]) : undefined,
  };
}
