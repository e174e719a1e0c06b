/**
 * The comparison worker's entry: wiring only. The API lives in compareApi.ts; here its result is put in columns
 * (comparisonWire.ts) whose typed arrays are transferred back rather than copied, and the page's progress proxy is
 * released when a run ends.
 */
import { expose, transfer } from 'comlink';
import { compareApi } from './compareApi.ts';
import { toWire, wireBuffers, type CompareWorkerApi } from './comparisonWire.ts';
import { releasingProgress } from '../runtime/progressProxy.ts';

const api: CompareWorkerApi = {
  compare: (a, b, onProgress) =>
    releasingProgress(onProgress, async () => {
      const wire = toWire(await compareApi.compare(a, b, onProgress));
      return transfer(wire, wireBuffers(wire));
    }),
};

expose(api);
