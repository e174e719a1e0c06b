/**
 * Samples run through the float and the quantized model, kept with their outputs for what reads predictions
 * rather than output metrics (task figures: core/task): collected from compareModels' onOutputs or a judge's runs,
 * each with its index in the runtime's own samples (a search may judge a subset).
 */
import type { RunTensor } from '../runtime/session.ts';

export interface SampleRun {
  /** The sample's index among the runtime's own samples (images, for the geometry and the labels). */
  readonly index: number;
  readonly float: Readonly<Record<string, RunTensor>>;
  readonly quant: Readonly<Record<string, RunTensor>>;
}

/** A figure of a set of runs (the target's task figure, higher is better). */
export type RunsFigure = (runs: readonly SampleRun[]) => number;

/** Collects each sample's outputs as compareModels hands them (onOutputs); `indexOf` maps a subset's sample back. */
export function runCollector(indexOf: (sample: number) => number = (i) => i): {
  runs: SampleRun[];
  onOutputs: (
    sample: number,
    float: Readonly<Record<string, RunTensor>>,
    quant: Readonly<Record<string, RunTensor>>,
  ) => void;
} {
  const runs: SampleRun[] = [];
  return { runs, onOutputs: (sample, float, quant) => void (runs[sample] = { index: indexOf(sample), float, quant }) };
}
