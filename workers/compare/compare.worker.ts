/**
 * The comparison worker's entry: wiring only. The API lives in compareApi.ts; here its typed arrays (positions and
 * counterparts) are transferred back rather than copied, and the page's progress proxy is released when a run ends.
 */
import { expose, releaseProxy, transfer, type Remote } from 'comlink';
import { compareApi, comparisonBuffers, type CompareApi, type CompareProgress } from './compareApi.ts';

const api: CompareApi = {
  async compare(a, b, onProgress) {
    try {
      const out = await compareApi.compare(a, b, onProgress);
      return transfer(out, comparisonBuffers(out));
    } finally {
      (onProgress as Remote<CompareProgress> | undefined)?.[releaseProxy]?.();
    }
  },
};

expose(api);
