/**
 * How a worker run that threw ends in its slice: 'cancelled' where it threw its cancel error, else 'error' with the
 * error's name and message; the progress cleared either way.
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
