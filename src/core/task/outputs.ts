/** The float outputs of one run as decoders read them, and the checks that name a misfit instead of misreading it. */
import { TaskHeadError } from './errors.ts';
import type { RunTensor } from '../runtime/session.ts';

export interface OutputTensor {
  readonly data: Float32Array;
  readonly dims: readonly number[];
}
export type RunOutputs = Readonly<Record<string, OutputTensor>>;

/** The model input's size in pixels, as the decoders place boxes. */
export interface InputSize {
  readonly width: number;
  readonly height: number;
}

const shape = (dims: readonly number[]) => `[${dims.join(', ')}]`;

/** Output `name`, whose shape must pass `fits`; otherwise a TaskHeadError saying what was expected. */
export function outputOf(
  outputs: RunOutputs,
  name: string,
  expected: string,
  fits: (dims: readonly number[]) => boolean,
): OutputTensor {
  const t = outputs[name];
  if (!t)
    throw new TaskHeadError(
      `the head reads output "${name}", which the model does not have (it has ${Object.keys(outputs)
        .map((n) => `"${n}"`)
        .join(', ')})`,
    );
  if (!fits(t.dims)) throw new TaskHeadError(`output "${name}" is ${shape(t.dims)}; this head expects ${expected}`);
  return t;
}

export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** A run's float outputs (as onnxruntime hands them back) as the decoders read them; other types left out. */
export function runOutputs(run: Readonly<Record<string, RunTensor>>): RunOutputs {
  const out: Record<string, OutputTensor> = {};
  for (const [k, t] of Object.entries(run))
    if (t.type === 'float32') out[k] = { data: t.data as Float32Array, dims: t.dims as number[] };
  return out;
}
