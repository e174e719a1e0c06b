/**
 * The comparison worker as the split view sees it: two models in (files, or the open model's structure), the
 * comparison and both layouts out (sent in columns, comparisonWire.ts), progress along the way. The worker starts
 * on first use (or when the comparison target is shown, `warmCompareWorker`) and is reused; a second comparison
 * queues behind a running one.
 */
import { proxy } from 'comlink';
import type { CompareSource, ComparisonResult } from '../../../workers/compare/compareApi.ts';
import { fromWire, type CompareWorkerApi } from '../../../workers/compare/comparisonWire.ts';
import { WorkerConnection } from './workerConnection.ts';

const connection = new WorkerConnection<CompareWorkerApi>(
  () =>
    new Worker(new URL('../../../workers/compare/compare.worker.ts', import.meta.url), {
      type: 'module',
      name: 'compare',
    }),
  'comparison worker',
);

/** Starts the worker's script now, so a drop does not wait for it. */
export function warmCompareWorker(): void {
  connection.warm();
}

/** Decodes, folds, maps and lays out both models in the worker. */
export async function compareInWorker(
  a: CompareSource,
  b: CompareSource,
  onProgress: (fraction: number, phase: string) => void,
): Promise<ComparisonResult> {
  return fromWire(await connection.call((api) => api.compare(a, b, proxy(onProgress))));
}

export type { CompareSource, ComparisonResult };
