/**
 * How a worker run that threw ends in its slice: 'cancelled' where it threw its cancel error, else 'error' with the
 * error's name and message; the progress cleared either way. And how a comparison of the quantized model with the
 * float one ends before it starts when there is no quantized model yet.
 */
import { toModelError } from './modelSlice.ts';

export type FailedRun =
  | { status: 'cancelled'; progress: null }
  | { status: 'error'; progress: null; error: { name: string; message: string } };

export function failedRun(e: unknown, cancelledName: string): FailedRun {
  const { name, message } = toModelError(e, '');
  return name === cancelledName
    ? { status: 'cancelled', progress: null }
    : { status: 'error', progress: null, error: { name, message } };
}

/** A comparison asked for before anything was quantized: NotQuantizedError, saying why it needs the quantized model. */
export function notQuantized(why: string): { status: 'error'; error: { name: string; message: string } } {
  return { status: 'error', error: { name: 'NotQuantizedError', message: `Quantize the model first: ${why}` } };
}
