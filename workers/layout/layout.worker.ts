/**
 * The layout worker's entry: wiring only. The API lives in layoutApi.ts; here its typed arrays are
 * transferred back rather than copied, and the page's progress proxy is released when a run ends.
 */
import { expose, releaseProxy, transfer, type Remote } from 'comlink';
import { layoutApi, type LayoutApi, type LayoutProgress } from './layoutApi.ts';

const api: LayoutApi = {
  async layout(input, onProgress) {
    try {
      const out = await layoutApi.layout(input, onProgress);
      return transfer(out, [out.x.buffer, out.y.buffer, out.rank.buffer]);
    } finally {
      (onProgress as Remote<LayoutProgress> | undefined)?.[releaseProxy]?.();
    }
  },
};

expose(api);
