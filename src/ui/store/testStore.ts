/**
 * Test support for the store's slice tests (no test of its own): fake worker services with fixed answers, and
 * held calls a test finishes when it says so.
 */
import type { ModelSummary } from '../../core/onnx/index.ts';
import type { CalibrationResult } from '../remote/workerTypes.ts';
import type { ModelService } from './modelSlice.ts';

/** A model service that opens every file as `model-<fileName>`, with the summary `summaryOf` gives for it. */
export function fakeModelService(summaryOf: (fileName: string) => ModelSummary): ModelService {
  return {
    async open(fileName) {
      return { handle: `model-${fileName}`, summary: summaryOf(fileName) };
    },
    async close() {},
  };
}

/** A calibration result of MinMax ranges, one pass on one WASM thread, with nothing skipped or warned about. */
export function calibrationResult(
  ranges: CalibrationResult['ranges'],
  used: number,
  run: Partial<CalibrationResult> = {},
): CalibrationResult {
  return {
    ranges,
    used,
    skipped: [],
    warnings: [],
    method: 'MinMax',
    backend: { kind: 'wasm', threads: 1, fallbackReason: null },
    passes: 1,
    seconds: 1,
    runOutputBytes: 1,
    ...run,
  };
}

/** A worker call held until the test settles it: its request, its progress callback and its promise's settlers. */
export interface HeldCall<Request, Progress, Result> {
  request: Request;
  onProgress: (p: Progress) => void;
  resolve: (r: Result) => void;
  reject: (e: Error) => void;
}

/** A fake worker entry `(handle, request, onProgress)` whose calls, in order, wait in `calls` for the test. */
export function heldCalls<Request, Progress, Result>() {
  const calls: HeldCall<Request, Progress, Result>[] = [];
  const call = (_handle: string, request: Request, onProgress: (p: Progress) => void) =>
    new Promise<Result>((resolve, reject) => calls.push({ request, onProgress, resolve, reject }));
  return { calls, call };
}
