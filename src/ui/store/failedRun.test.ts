/** failedRun: the cancel error ends a run as cancelled, any other as an error with its name and message. */
import { describe, expect, it } from 'vitest';
import { failedRun } from './failedRun.ts';

describe('failedRun', () => {
  it('ends a run as cancelled on its own cancel error', () => {
    const e = Object.assign(new Error('stopped'), { name: 'RecoveryCancelledError' });
    expect(failedRun(e, 'RecoveryCancelledError')).toEqual({ status: 'cancelled', progress: null });
  });

  it('ends a run as an error with the name and message of anything else thrown', () => {
    const e = Object.assign(new Error('no memory'), { name: 'RangeError' });
    expect(failedRun(e, 'RecoveryCancelledError')).toEqual({
      status: 'error',
      progress: null,
      error: { name: 'RangeError', message: 'no memory' },
    });
    expect(failedRun('plain text', 'EvaluationCancelledError')).toEqual({
      status: 'error',
      progress: null,
      error: { name: 'Error', message: 'plain text' },
    });
  });
});
