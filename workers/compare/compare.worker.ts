/**
 * The comparison worker's entry: wiring only. The API lives in compareApi.ts; here its typed arrays (positions and
 * counterparts) are transferred back rather than copied, and the page's progress proxy is released when a run ends.
 */
import { expose, releaseProxy, transfer, type Remote } from 'comlink';
import { compareApi, type CompareApi, type CompareProgress } from './compareApi.ts';

const api: CompareApi = {
  async compare(a, b, onProgress) {
    try {
      const out = await compareApi.compare(a, b, onProgress);
      const { layouts, comparison } = out;
      const buffers = [layouts.a, layouts.b].flatMap((l) => [l.x.buffer, l.y.buffer, l.rank.buffer]);
      return transfer(out, [
        ...buffers,
        comparison.counterpart.a.buffer,
        comparison.counterpart.b.buffer,
      ] as ArrayBuffer[]);
    } finally {
      (onProgress as Remote<CompareProgress> | undefined)?.[releaseProxy]?.();
    }
  },
};

expose(api);
