/**
 * The layout worker as the graph view sees it: one call, boxes and edges in, positions out, progress
 * along the way. The worker starts on first use (the page without a graph never loads it) and is
 * reused; a second layout while one runs simply queues behind it in the worker.
 */
import { proxy, transfer } from 'comlink';
import type { LayoutApi, LayoutInput, LayoutResult } from '../../../workers/layout/layoutApi.ts';
import { WorkerConnection } from './workerConnection.ts';

const connection = new WorkerConnection<LayoutApi>(
  () =>
    new Worker(new URL('../../../workers/layout/layout.worker.ts', import.meta.url), {
      type: 'module',
      name: 'layout',
    }),
  'layout worker',
);

/** Lays the boxes out in the worker. The input's arrays are transferred (detached here). */
export function layoutInWorker(
  input: LayoutInput,
  onProgress: (fraction: number, phase: string) => void,
): Promise<LayoutResult & { seconds: number }> {
  const buffers = [
    input.widths.buffer,
    input.heights.buffer,
    input.edgeSources.buffer,
    input.edgeTargets.buffer,
  ] as ArrayBuffer[];
  return connection.call((api) => api.layout(transfer(input, buffers), proxy(onProgress)));
}
