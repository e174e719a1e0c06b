/**
 * The comparison worker's entry: wiring only. The API lives in compareApi.ts; here its typed arrays (positions and
 * counterparts) are transferred back rather than copied, and the page's progress proxy is released when a run ends.
 */
import { expose, transfer } from 'comlink';
import { compareApi, comparisonBuffers, type CompareApi } from './compareApi.ts';
import { releasingProgress } from '../runtime/progressProxy.ts';

const api: CompareApi = {
  compare: (a, b, onProgress) =>
    releasingProgress(onProgress, async () => {
      const out = await compareApi.compare(a, b, onProgress);
      return transfer(out, comparisonBuffers(out));
    }),
};

expose(api);
